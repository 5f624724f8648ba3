//! Changing the cache by hand: invalidating and expiring reads, storing a
//! response or an error as if fetched now, and emptying it all.

use std::rc::Rc;

use serde::Serialize;

use super::events::{Event, RecordChange};
use super::request::Delivery;
use super::{Controller, State};
use crate::cache::schema::{Decoded, Schema};
use crate::cache::store::Store;
use crate::error::{SchemaError, UrlError};
use crate::http::Error;
use crate::meta::Timestamp;
use crate::rest::{Effect, Endpoint, Readable};

/// Why a value given by hand ([`Controller::set_response`]) could not be
/// stored. No request was made; the cache is as it was.
///
/// ```
/// use restcache::prelude::*;
/// use restcache::WriteError;
/// use std::rc::Rc;
///
/// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
/// struct Draft { id: Option<u64> }
/// resource!(pub DraftResource { path: "/drafts/:id", schema: Draft });
///
/// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
/// let err = ctrl.set_response(&DraftResource::get(), &DraftResourceParams { id: 1 }, Rc::new(Draft { id: None }));
/// assert!(matches!(err, Err(WriteError::Schema(SchemaError::MissingPk { .. }))));
/// ```
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// The params make no URL, so no key to store the value under.
    #[error("the params make no URL: {0}")]
    Url(#[source] UrlError),
    /// The value does not fit the store (a record without its pk, an
    /// entity key two types claim).
    #[error("the value cannot be stored: {0}")]
    Schema(#[source] SchemaError),
}

impl Controller {
    /// Invalidates the read `endpoint` with `params`: its next read
    /// fetches and waits. Returns whether anything was cached.
    /// ```
    /// use restcache::prelude::*;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// let params = TodoResourceParams { id: 1 };
    /// ctrl.set_response(&TodoResource::get(), &params, Rc::new(Todo { id: 1, title: "a".into() }))?;
    /// assert!(ctrl.invalidate(&TodoResource::get(), &params));
    /// assert_eq!(ctrl.read(&TodoResource::get(), &params).status, ExpiryStatus::Invalid);
    /// # Ok::<(), restcache::WriteError>(())
    /// ```
    pub fn invalidate<P: Serialize, S: Schema, E: Readable>(
        &self,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
    ) -> bool {
        let Ok((key, _)) = self.locate(endpoint, params) else {
            return false;
        };
        let now = self.start_now();
        let named = endpoint.named_pks(params);
        let known = {
            let mut state = self.state_mut();
            // A read the cache answers from the record it names is noted
            // as one, to be invalidated.
            drop(state.lookup::<S>(&key, &|| named.clone()));
            state.keys.edit(&key, |kept| kept.error = None);
            state.touch(&key);
            state.memo.forget(&key);
            self.detach_requests(&mut state, [key.as_str()]);
            invalidate_key(&mut state, &key, now)
        };
        self.emit(|| Event::Invalidated { key });
        self.notify();
        known
    }

    /// Invalidates the record `pk` of `E` as of now: a read of it alone is
    /// Invalid until a response that started later brings it again, and a
    /// list (any result) holding it goes stale: it shows its other records
    /// and fetches again. Returns whether the cache held it.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// let params = TodoResourceParams { id: 1 };
    /// ctrl.set_response(&TodoResource::get(), &params, Rc::new(Todo { id: 1, title: "a".into() }))?;
    /// assert!(ctrl.invalidate_entity::<Todo>(1u64));
    /// assert_eq!(ctrl.read(&TodoResource::get(), &params).status, ExpiryStatus::Invalid);
    /// # Ok::<(), restcache::WriteError>(())
    /// ```
    pub fn invalidate_entity<E: crate::cache::entity::Entity>(
        &self,
        pk: impl crate::pk::PkValue,
    ) -> bool {
        let now = self.start_now();
        let pk = pk.to_pk();
        let known = pk.clone().is_some_and(|pk| {
            let mut state = self.state_mut();
            // A list holding it goes on showing the rest, and fetches
            // again (not joining a request from before) to bring it back.
            let holding = state.store.expire_holding_keys(E::KEY, pk.clone());
            self.detach_requests(&mut state, holding.iter().map(String::as_str));
            state.store.invalidate_entity::<E>(pk, now)
        });
        if let Some(pk) = pk {
            self.emit(|| Event::Record {
                entity: E::KEY,
                pk,
                change: RecordChange::Invalidated,
            });
        }
        self.notify();
        known
    }

    /// Invalidates every cached read whose key `matches` (keys read
    /// `METHOD url`, e.g. `GET http://127.0.0.1:8080/todos/1`). A request
    /// on its way for one of them is let go: the next read sends a request
    /// of its own. Returns how many.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// assert_eq!(ctrl.invalidate_all(|key| key.contains("/todos")), 0);
    /// ```
    pub fn invalidate_all(&self, matches: impl Fn(&str) -> bool) -> usize {
        let now = self.start_now();
        self.invalidate_all_at(matches, now)
    }

    /// [`invalidate_all`](Self::invalidate_all) as of `now`: a response
    /// whose request started before it does not make the read valid.
    pub(crate) fn invalidate_all_at(
        &self,
        matches: impl Fn(&str) -> bool,
        now: Timestamp,
    ) -> usize {
        let (errors, results) = self.matching(matches);
        let invalidated: Vec<String> = {
            let mut state = self.state_mut();
            for key in errors {
                if state
                    .keys
                    .edit(&key, |kept| kept.error.take())
                    .flatten()
                    .is_some()
                {
                    state.touched.push(key);
                }
            }
            for key in &results {
                state.memo.forget(key);
            }
            // A request on its way for any of them is let go, whether or
            // not the cache holds an answer yet.
            self.detach_requests(&mut state, results.iter().map(String::as_str));
            results
                .into_iter()
                .filter(|key| invalidate_key(&mut state, key, now))
                .collect()
        };
        for key in &invalidated {
            self.emit(|| Event::Invalidated { key: key.clone() });
        }
        self.notify();
        invalidated.len()
    }

    /// The keys of the cached errors and of the cached results that
    /// `matches`, asked with no borrow of the cache held: a predicate may
    /// call the controller (read what a key holds, even write).
    fn matching(&self, matches: impl Fn(&str) -> bool) -> (Vec<String>, Vec<String>) {
        let (errors, results): (Vec<String>, Vec<String>) = {
            let state = self.inner.state.borrow();
            let errors = state.keys.having(|kept| kept.error.is_some());
            let errors = errors.cloned().collect();
            // The results, and the responses handed over or restored that
            // no read has taken yet.
            let mut results: Vec<String> = state.store.result_keys().map(str::to_owned).collect();
            let handed = state.handoff.pending.keys();
            results.extend(
                handed
                    .filter(|key| state.store.result_meta(key).is_none())
                    .cloned(),
            );
            // The reads answered from the records they name, and the
            // first reads on their way, which hold nothing yet.
            let unheld = state
                .keys
                .having(|kept| kept.from_record.is_some() || kept.in_flight.is_some());
            results.extend(
                unheld
                    .filter(|key| {
                        state.store.result_meta(key).is_none()
                            && !state.handoff.pending.contains_key(*key)
                    })
                    .cloned(),
            );
            (errors, results)
        };
        let keep = |keys: Vec<String>| keys.into_iter().filter(|key| matches(key)).collect();
        (keep(errors), keep(results))
    }

    /// Marks every cached read whose key `matches` stale: it keeps showing
    /// its data and fetches again on its next read. Errors of those keys
    /// expire too. A request on its way for one of them is let go: the
    /// next read sends a request of its own rather than join one that
    /// started before, and the older answer, when it lands, shows stale.
    /// (After [`invalidate_all`](Self::invalidate_all) the older answer
    /// is turned down instead, under a key that held an answer; for a
    /// read that held none yet, it shows stale until the new one comes.)
    /// Returns how many results.
    /// ```
    /// use restcache::prelude::*;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// let params = TodoResourceParams { id: 1 };
    /// ctrl.set_response(&TodoResource::get(), &params, Rc::new(Todo { id: 1, title: "a".into() }))?;
    /// assert_eq!(ctrl.expire_all(|key| key.contains("/todos/")), 1);
    /// let cached = ctrl.read(&TodoResource::get(), &params);
    /// assert_eq!(cached.status, ExpiryStatus::Stale);
    /// assert_eq!(cached.data.unwrap().title, "a"); // still on show
    /// # Ok::<(), restcache::WriteError>(())
    /// ```
    pub fn expire_all(&self, matches: impl Fn(&str) -> bool) -> usize {
        let now = self.start_now();
        let (errors, results) = self.matching(matches);
        let count = {
            let mut state = self.state_mut();
            let State { keys, touched, .. } = &mut *state;
            for key in errors {
                if let Some(stored) = keys.error_mut(&key) {
                    stored.meta.expires_at = Timestamp::default();
                    touched.push(key);
                }
            }
            // A request on its way for any of them is let go, whether or
            // not the cache holds an answer yet.
            self.detach_requests(&mut state, results.iter().map(String::as_str));
            let expired: Vec<String> = results
                .into_iter()
                .filter(|key| {
                    // One handed over or restored, not read yet, shows
                    // stale when it is read.
                    let handed = state.handoff.pending.get_mut(key);
                    let handed = handed.map(|pending| pending.stale = true).is_some();
                    state.store.expire_result(key)
                        || handed
                        || expire_from_record(&mut state, key, now)
                })
                .collect();
            drop(state);
            for key in &expired {
                self.emit(|| Event::Expired { key: key.clone() });
            }
            expired.len()
        };
        self.notify();
        count
    }

    /// Empties the cache. Responses to requests that started before the
    /// reset are handed to their callers but not stored.
    /// ```
    /// use restcache::prelude::*;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// let params = TodoResourceParams { id: 1 };
    /// ctrl.set_response(&TodoResource::get(), &params, Rc::new(Todo { id: 1, title: "a".into() }))?;
    /// ctrl.reset();
    /// assert_eq!(ctrl.read(&TodoResource::get(), &params).status, ExpiryStatus::Invalid);
    /// # Ok::<(), restcache::WriteError>(())
    /// ```
    pub fn reset(&self) {
        {
            let mut state = self.state_mut();
            let writes = state.store.writes();
            state.store = Store::sharing(state.store.shares_equal_copies()).numbered_after(writes);
            state.memo.clear();
            // A next page's fetch on its way keeps its entry: it removes
            // it as it ends, and no later call joins it (it grows the
            // list of an older generation).
            state.keys.edit_all(|kept| {
                kept.error = None;
                kept.used = None;
                kept.pages = None;
                kept.in_flight = None;
                kept.let_go.clear();
                kept.read_started = None;
                kept.from_record = None;
            });
            state.handoff.recorded.clear();
            state.handoff.pending.clear();
            state.handoff.shown_empty.clear();
            #[cfg(feature = "persist")]
            state.handoff.private_records.clear();
            state.generation += 1;
            #[cfg(any(feature = "tabs", feature = "persist"))]
            {
                state.reset_at = self.now();
            }
        }
        // A fetch from before stores nothing: no later read joins it.
        self.inner.background.borrow_mut().clear();
        self.end_queued_mutations();
        // A live stream connected in the last session's name connects
        // again, afresh (it wakes at the signal, and sees the reset).
        #[cfg(feature = "live")]
        {
            self.inner.streams.borrow_mut().forget_positions();
            self.wake_signal_waiters();
        }
        self.emit(|| Event::Reset);
        self.notify();
    }

    /// How many resets the cache has seen: what started before the last
    /// one belongs to another session.
    #[cfg(feature = "live")]
    pub(crate) fn resets(&self) -> u64 {
        self.inner.state.borrow().generation
    }

    /// Whether data that stood at `at` is older than the last
    /// [`reset`](Self::reset): news of it from outside (another tab that
    /// had not heard of the reset yet) is not taken.
    #[cfg(any(feature = "tabs", feature = "persist"))]
    pub(crate) fn stood_before_reset(&self, at: Timestamp) -> bool {
        at < self.inner.state.borrow().reset_at
    }

    /// Dates the last reset at `at` (when another tab, whose reset this
    /// one followed, made it): what that tab wrote since is taken here.
    #[cfg(feature = "tabs")]
    pub(crate) fn date_reset(&self, at: Timestamp) {
        let mut state = self.inner.state.borrow_mut();
        state.reset_at = state.reset_at.min(at);
    }

    /// When the last reset emptied the cache (the start of time when
    /// none did).
    #[cfg(feature = "tabs")]
    pub(crate) fn reset_at(&self) -> Timestamp {
        self.inner.state.borrow().reset_at
    }

    /// Stores `value` as the response of `endpoint` with `params`, as if
    /// fetched now (a mutation's effects included: a create joins the
    /// cached lists, a delete leaves them). Returns the result as stored.
    /// A value that cannot be stored changes nothing.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// let todo = Rc::new(Todo { id: 1, title: "a".into() });
    /// let stored = ctrl.set_response(&TodoResource::get(), &TodoResourceParams { id: 1 }, todo)?;
    /// assert_eq!(stored.title, "a");
    /// # Ok::<(), restcache::WriteError>(())
    /// ```
    pub fn set_response<P, S, E>(
        &self,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
        value: S,
    ) -> Result<S::Handle, WriteError>
    where
        P: Serialize,
        S: Schema,
        E: Effect,
    {
        self.set_decoded(endpoint, params, Decoded::from(value))
            .map(S::into_handle)
    }

    /// [`set_response`](Self::set_response) of a value as its decoding
    /// made it (what it read of each record kept).
    pub(crate) fn set_decoded<P, S, E>(
        &self,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
        value: Decoded<S>,
    ) -> Result<Rc<S>, WriteError>
    where
        P: Serialize,
        S: Schema,
        E: Effect,
    {
        let (key, url) = self.place(endpoint, params).map_err(WriteError::Url)?;
        let now = self.start_now();
        let stored = {
            let mut state = self.state_mut();
            let delivery = Delivery::at(&key, &url, now);
            self.store_success(&mut state, endpoint, params, value, delivery, false)
                .map(|(value, _)| value)
                .map_err(WriteError::Schema)
        };
        self.notify();
        stored
    }

    /// Stores `error` as the outcome of `endpoint` with `params`, as if
    /// its request failed now: it shows for the error expiry.
    /// ```
    /// use restcache::prelude::*;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// let params = TodoResourceParams { id: 1 };
    /// ctrl.set_response(&TodoResource::get(), &params, Rc::new(Todo { id: 1, title: "a".into() }))?;
    /// let url = "http://127.0.0.1:8080/todos/1";
    /// ctrl.set_error(&TodoResource::get(), &params, restcache::http::Error::http_status(Method::Get, url, 503, "down"));
    /// let cached = ctrl.read(&TodoResource::get(), &params);
    /// assert!(cached.data.is_some() && cached.error.is_some()); // soft: data stays
    /// # Ok::<(), restcache::WriteError>(())
    /// ```
    pub fn set_error<P: Serialize, S, E: Readable>(
        &self,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
        error: Error,
    ) {
        self.set_error_of(endpoint, params, error);
    }

    /// [`set_error`](Self::set_error) for any endpoint.
    pub(crate) fn set_error_of<P: Serialize, S, E: Effect>(
        &self,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
        error: Error,
    ) {
        let Ok((key, url)) = self.locate(endpoint, params) else {
            return;
        };
        let now = self.start_now();
        {
            let mut state = self.state_mut();
            let delivery = Delivery::at(&key, &url, now);
            self.store_error(&mut state, endpoint, error.clone(), delivery);
        }
        self.emit(|| Event::ErrorStored { key, error });
        self.notify();
    }
}

/// Invalidates the read `key` as of `now`: its stored result, and a
/// response handed over or restored that no read has taken yet (it goes:
/// the read fetches), or its answer from the record it names. Returns
/// whether there was any.
fn invalidate_key(state: &mut State, key: &str, now: Timestamp) -> bool {
    let handed = state.handoff.pending.remove(key).is_some();
    let answered = edit_from_record(state, key, |answer| answer.invalid_as_of = Some(now));
    state.store.invalidate_result(key, now) || handed || answered
}

/// Expires the read `key` the cache answered from the record it names,
/// as of `now`. Returns whether it was such a read.
fn expire_from_record(state: &mut State, key: &str, now: Timestamp) -> bool {
    edit_from_record(state, key, |answer| answer.stale_as_of = Some(now))
}

/// Makes `edit` to the read `key`, when the cache answers it from the
/// record it names (it holds no result of its own); its observers look
/// again. Returns whether it was such a read.
fn edit_from_record(
    state: &mut State,
    key: &str,
    edit: impl FnOnce(&mut super::state::FromRecord),
) -> bool {
    let answered = state.store.result_meta(key).is_none()
        && state
            .keys
            .edit(key, |kept| kept.from_record.as_mut().map(edit))
            .flatten()
            .is_some();
    if answered {
        state.touch(key);
    }
    answered
}
