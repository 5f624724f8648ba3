//! Making requests: shared reads, and storing what comes back (a read's
//! or a mutation's answer) by the endpoint's kind. Mutations themselves
//! are made in `mutation.rs`, and errors kept in `kept_errors.rs`.

use std::any::Any;
use std::rc::{Rc, Weak};
use std::time::Duration;

use futures_util::FutureExt;
use futures_util::future::LocalBoxFuture;
use serde::Serialize;

use super::events::Event;
use super::handoff::Recorded;
use super::kept_errors::{KeptError, keep_error, stored_failed};
use super::lists::{
    Deletion, collection_of, leave_lists, lists_on_their_way, place_in_lists, record_before_update,
};
use super::state::{KeyState, SharedResponse};
use super::{Controller, InFlight, Inner, Retry, State};
use crate::cache::schema::{Decoded, Schema};
use crate::cache::store::Layer;
use crate::cache::store::Lookup;
use crate::error::{SchemaError, UrlError};
use crate::http::{Attempt, Body, Client, Error, ErrorKind, Method, Request, Response};
use crate::meta::{Meta, Timestamp};
use crate::rest::effect::Action;
use crate::rest::{Effect, Endpoint, Pagination, Updates};

impl Controller {
    /// The cache key and the URL of a request, each made once.
    pub(super) fn locate<P: Serialize, S, E: Effect>(
        &self,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
    ) -> Result<(String, String), Error> {
        self.place(endpoint, params)
            .map_err(|e| endpoint.attempt_without_url().failed(ErrorKind::Url(e)))
    }

    /// [`locate`](Self::locate), failing with the reason params made no
    /// URL.
    pub(super) fn place<P: Serialize, S, E: Effect>(
        &self,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
    ) -> Result<(String, String), UrlError> {
        let url = endpoint.url(self.inner.client.base_url(), params)?;
        let key = endpoint.key_for_url(&url, params);
        Ok((key, url))
    }

    /// A read: joins the request for its key that is on its way, or makes
    /// it (`polled`: for a poll, whose error stays beside the data).
    pub(super) async fn fetch_read<P, S, E>(
        &self,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
        body: Option<Body>,
        (key, url): (String, String),
        polled: bool,
    ) -> Result<Rc<S>, Error>
    where
        P: Serialize + Clone + 'static,
        S: Schema,
        E: Effect,
    {
        let method = endpoint.method();
        let mut body = body;
        let (response, _waiting) = self.join_or_start(&key, &url, method, polled, &mut |started| {
            let request = Request::new(method, url.clone()).with_body(body.take());
            request_read(
                Rc::downgrade(&self.inner),
                self.inner.client.clone(),
                endpoint.clone(),
                params.clone(),
                request,
                key.clone(),
                started,
                self.inner.retry,
            )
            .boxed_local()
        });
        // Subscribers learn that a request is on its way (a "refreshing"
        // indicator); joining one changes nothing, so this tells nobody.
        self.notify();
        let response = response.await?;
        let mut state = self.state_mut();
        let State { store, memo, .. } = &mut *state;
        if let Lookup::Found(current, _) = memo.read::<S>(store, &key) {
            return Ok(current);
        }
        // Not stored (started before a reset, or its records were deleted
        // since): hand out the response itself.
        response
            .downcast::<S>()
            .map_err(|_| Attempt::new(endpoint.method(), &url).failed(ErrorKind::KeyClash { key }))
    }

    /// The request on its way for the read `key` (of `url`, by `method`),
    /// joined; else one that `start` makes, as it started (`polled`: for a
    /// poll), noted as the key's request. Returns it, with the note that
    /// this caller waits on it. One copy for every endpoint of an app.
    fn join_or_start(
        &self,
        key: &str,
        url: &str,
        method: Method,
        polled: bool,
        start: &mut dyn FnMut(ReadStarted) -> LocalBoxFuture<'static, Result<Rc<dyn Any>, Error>>,
    ) -> (SharedResponse, Waiting) {
        let mut state = self.state_mut();
        if let Some(in_flight) = state.keys.in_flight_mut(key) {
            in_flight.waiters += 1;
            let waiting = Waiting::new(&self.inner, key, in_flight.id);
            return (in_flight.response.clone(), waiting);
        }
        let id = state.next_serial();
        let now = self.now();
        let started_at = state.start_at(now);
        let started = ReadStarted {
            id,
            at: started_at,
            generation: state.generation,
            polled,
        };
        let response = start(started).shared();
        let in_flight = InFlight {
            id,
            started: started_at,
            response: response.clone(),
            waiters: 1,
        };
        state.keys.state_mut(key).in_flight = Some(in_flight);
        state.touch(key);
        self.emit(|| Event::RequestStarted {
            key: key.to_owned(),
            method,
            url: url.to_owned(),
        });
        (response, Waiting::new(&self.inner, key, id))
    }

    /// How long `endpoint`'s responses stay fresh.
    pub(super) fn data_expiry<P, S, E: Effect>(&self, endpoint: &Endpoint<P, S, E>) -> Duration {
        endpoint
            .options()
            .data_expiry
            .unwrap_or(self.inner.data_expiry)
    }

    /// Stores a successful response by its endpoint's effect. With
    /// `layered` (an optimistic value), it goes on show as a layer over the
    /// confirmed data, handed back to remove when the request ends. A
    /// value the store refuses changes nothing.
    pub(super) fn store_success<P: Serialize, S: Schema, E: Effect>(
        &self,
        state: &mut State,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
        value: Decoded<S>,
        delivery: Delivery<'_>,
        layered: bool,
    ) -> Result<(Rc<S>, Option<Layer>), SchemaError> {
        let Delivery {
            key,
            url,
            started,
            arrived,
        } = delivery;
        let expiry = self.data_expiry(endpoint);
        let meta = Meta::fetched(started, arrived, expiry);
        let result_key = (E::ACTION == Action::Read).then_some(key);
        // The record a delete or an update names, and the collection
        // whose lists a create or an update joins or leaves.
        let named = endpoint
            .target()
            .and_then(|target| Some((target, (target.pk)(params)?)));
        let collection = match E::ACTION {
            Action::Create => Some(url.to_owned()),
            Action::Mutate => named.as_ref().and_then(|(_, pk)| collection_of(url, pk)),
            Action::Read | Action::Delete => None,
        };
        // An update's record as it stood, for its lists' text filters (not
        // while another mutation's optimistic value may show).
        let before = match (&collection, &named) {
            (Some(collection), Some((_, pk)))
                if E::ACTION == Action::Mutate && !layered && self.inner.mutating.get() <= 1 =>
            {
                record_before_update(&state.store, &state.keys, endpoint, params, collection, pk)
            }
            _ => None,
        };
        // A delete of a record gone already (a second click) counts in no
        // list again.
        let deleted = named.filter(|_| E::ACTION == Action::Delete);
        let gone_before = deleted
            .as_ref()
            .is_some_and(|(target, pk)| state.store.record_gone(target.entity, pk));
        let written = state.store.write(result_key, value, meta, layered)?;
        let turned_down = result_key.is_some_and(|key| newer_stored(state, key, started));
        if !layered {
            // An answer older than what its key holds ends unused.
            let key = key.to_owned();
            self.emit(|| match turned_down {
                false => Event::ResponseStored { key },
                true => Event::RequestCancelled { key },
            });
        }
        let mut layer = written.layer;
        #[cfg(feature = "persist")]
        if endpoint.is_private() {
            let named = state.store.records_named_from(&written.refs);
            state.handoff.private_records.extend(named);
        }
        match E::ACTION {
            Action::Read => {
                stored_read(state, delivery, expiry, endpoint.pagination(), turned_down);
            }
            Action::Create | Action::Mutate => {
                if let Some(collection) = collection {
                    let (item, refs) = (&written.value, &written.refs);
                    let State { store, keys, .. } = &mut *state;
                    place_in_lists(
                        store,
                        keys,
                        endpoint,
                        params,
                        &collection,
                        item,
                        refs,
                        started,
                        layer.as_mut(),
                        (false, before.as_deref()),
                    );
                    // A list whose first answer is on its way may have
                    // been answered before this write: it shows stale, and
                    // its next read fetches it again.
                    if !layered {
                        let waiting =
                            lists_on_their_way(store, keys, endpoint, params, &collection);
                        self.detach_requests(state, waiting.iter().map(String::as_str));
                    }
                }
            }
            Action::Delete => {
                if let Some((target, pk)) = deleted {
                    let State { store, keys, .. } = &mut *state;
                    let entity = target.entity;
                    let deleted = Deletion {
                        entity,
                        pk: &pk,
                        counted: !gone_before,
                    };
                    leave_lists(store, keys, endpoint, params, url, deleted, layer.as_mut());
                }
            }
        }
        // Only a mutation's answer runs an updater (a read's code, in every
        // app, carries none of it).
        if E::ACTION != Action::Read
            && let Some(update) = endpoint.updater()
        {
            let mut updates = Updates::new(self.inner.client.base_url());
            update(&mut updates, params, &written.value);
            for other in updates.apply(&mut state.store, layered, started) {
                match &mut layer {
                    Some(layer) => layer.absorb(other),
                    None => layer = Some(other),
                }
            }
        }
        Ok((written.value, layer))
    }
}

/// Whether the store holds, under `key`, a result of a request that
/// started after `started` (or a write made since): it turns down an
/// answer to the earlier one.
pub(super) fn newer_stored(state: &State, key: &str, started: Timestamp) -> bool {
    state
        .store
        .result_meta(key)
        .is_some_and(|meta| meta.fetched_at > started)
}

/// A response (or its error) on its way into the cache: the read key it
/// answers, its URL, and when its request started (its place in the
/// ordering) and ended (its expiry counts from there).
#[derive(Clone, Copy)]
pub(super) struct Delivery<'a> {
    pub key: &'a str,
    pub url: &'a str,
    pub started: Timestamp,
    pub arrived: Timestamp,
}

impl<'a> Delivery<'a> {
    /// A delivery that starts and arrives at `at`: a value set by hand,
    /// or what a request starting then expects.
    pub fn at(key: &'a str, url: &'a str, at: Timestamp) -> Self {
        Delivery {
            key,
            url,
            started: at,
            arrived: at,
        }
    }
}

/// One caller waiting on a shared read request. When the last one goes
/// away before the answer (its future dropped), the request is cancelled:
/// its key no longer holds it, which drops the request, and the next read
/// of the key makes a new one.
struct Waiting {
    inner: Weak<Inner>,
    key: String,
    id: u64,
}

impl Waiting {
    fn new(inner: &Rc<Inner>, key: &str, id: u64) -> Self {
        Waiting {
            inner: Rc::downgrade(inner),
            key: key.to_owned(),
            id,
        }
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        let Some(inner) = self.inner.upgrade() else {
            return;
        };
        // A drop inside a borrow of the state (rare: a future dropped by a
        // callback the controller runs) leaves the entry to its answer.
        let Ok(mut state) = inner.state.try_borrow_mut() else {
            return;
        };
        // The key's request, or one it let go; none once answered.
        let id = self.id;
        let last = |kept: &mut KeyState| {
            let own = kept.in_flight.as_mut().filter(|f| f.id == id);
            let request = own.or_else(|| kept.let_go.iter_mut().find(|f| f.id == id))?;
            request.waiters -= 1;
            if request.waiters > 0 {
                return None;
            }
            let own = kept.in_flight.take_if(|f| f.id == id);
            let at = kept.let_go.iter().position(|f| f.id == id);
            Some((own, at.map(|at| kept.let_go.remove(at))))
        };
        let Some(cancelled) = state.keys.edit(&self.key, last).flatten() else {
            return;
        };
        state.touch(&self.key);
        drop(state);
        drop(cancelled);
        let key = &self.key;
        Controller { inner }.emit(|| Event::RequestCancelled { key: key.clone() });
    }
}

/// When a read request started, and its number.
struct ReadStarted {
    id: u64,
    at: Timestamp,
    generation: u64,
    /// Made by a poll: an error stays beside the data on show.
    polled: bool,
}

/// The request behind a read, shared by every read of its key, retried
/// after a soft error as `retry` says. It holds the controller weakly: a
/// controller dropped while the request is on its way is freed, and the
/// response is handed out without being stored.
#[allow(clippy::too_many_arguments)]
async fn request_read<P, S, E>(
    inner: Weak<Inner>,
    client: Client,
    endpoint: Endpoint<P, S, E>,
    params: P,
    request: Request,
    key: String,
    mut started: ReadStarted,
    retry: Retry,
) -> Result<Rc<dyn Any>, Error>
where
    P: Serialize,
    S: Schema,
    E: Effect,
{
    // Offline, a read waits for the network (what the cache holds stays
    // on show) instead of failing; its answer is as new as its sending.
    if super::offline::until_online(&inner).await
        && let Some(inner) = inner.upgrade()
    {
        started.at = Controller { inner }.start_now();
    }
    let url = request.url.clone();
    // The answer's text is kept for a server's handoff, and for another
    // tab that waits for it (asked once it arrives).
    let keep = |response: &Response| {
        let inner = inner.upgrade()?;
        let recording = inner.state.borrow().handoff.recording;
        #[cfg(feature = "tabs")]
        let recording = recording.or_else(|| {
            wanted_elsewhere(&inner, &key).then_some(Recorded::of as fn(&Response) -> Recorded)
        });
        recording.map(|record| record(response))
    };
    let call = || client.call_keeping(&endpoint, &params, request.clone(), &keep);
    // Another tab fetching the key now answers this read too.
    #[cfg(feature = "tabs")]
    let shared = {
        let limit = endpoint.options().timeout.unwrap_or(client.timeout());
        match super::shared_reads::answer_elsewhere(&inner, &key, limit).await {
            Some(answer) => endpoint
                .decode(&answer.response.response(), &params)
                .ok()
                .map(|value| {
                    started.at = started.at.min(answer.started);
                    (value, answer.response)
                }),
            None => None,
        }
    };
    #[cfg(not(feature = "tabs"))]
    let shared = None;
    let mut response = match shared {
        Some((value, recorded)) => Ok((value, Some(recorded))),
        None => call().await,
    };
    for attempt in 0..retry.attempts {
        match &response {
            Err(error) if error.is_soft() => {}
            _ => break,
        }
        let seed = started.id ^ (u64::from(attempt) << 32) ^ started.at.as_micros();
        // On the controller's clock (a test's own); a network lost
        // meanwhile is waited for, as a read that starts offline does.
        let Some(wait) = inner
            .upgrade()
            .map(|inner| inner.clock.sleep(retry.delay(attempt, seed)))
        else {
            break;
        };
        wait.await;
        // An answer after a wait for the network is as new as its sending.
        if super::offline::until_online(&inner).await
            && let Some(inner) = inner.upgrade()
        {
            started.at = Controller { inner }.start_now();
        }
        response = call().await;
    }
    let (response, recorded) = match response {
        Ok((value, recorded)) => (Ok(value), recorded),
        Err(error) => (Err(error), None),
    };
    let Some(inner) = inner.upgrade() else {
        return response.map(|value| Rc::new(value.into_value()) as Rc<dyn Any>);
    };
    let ctrl = Controller { inner };
    let arrived = ctrl.now();
    let outcome = {
        let mut state = ctrl.state_mut();
        let still_ours = end_in_flight(&mut state, &key, started.id);
        if state.generation != started.generation {
            response.map(|value| Rc::new(value.into_value()) as Rc<dyn Any>)
        } else {
            let delivery = Delivery {
                key: &key,
                url: &url,
                started: started.at,
                arrived,
            };
            let stored = response.and_then(|value| {
                ctrl.store_success(&mut state, &endpoint, &params, value, delivery, false)
                    .map_err(|e| stored_failed(&endpoint, &url, e))
            });
            match stored {
                // What the cache shows now (a record deleted since the
                // request started is left out), even if the result goes
                // before a caller looks.
                Ok((value, _)) => {
                    // An answer the store turned down (it holds a newer
                    // one) is neither handed on nor kept for a handoff.
                    if !newer_stored(&state, &key, started.at) {
                        let recorded = recorded.map(|mut recorded| {
                            recorded.private = endpoint.is_private();
                            recorded
                        });
                        ctrl.stored_fresh(&mut state, delivery, recorded);
                        // Let go by an invalidation or an expiry after it
                        // started: it is older than they are.
                        if !still_ours {
                            state.store.expire_result(&key);
                        }
                    }
                    let State { store, memo, .. } = &mut *state;
                    Ok(match memo.read::<S>(store, &key) {
                        Lookup::Found(current, _) => current as Rc<dyn Any>,
                        Lookup::Invalid | Lookup::Absent => value as Rc<dyn Any>,
                    })
                }
                Err(error) => {
                    let kept = ctrl.kept_error(&endpoint, &error);
                    Err(ctrl.read_failed(&mut state, error, delivery, kept, started.polled))
                }
            }
        }
    };
    ctrl.notify();
    outcome
}

/// Notes a read's stored answer on its key (`delivery.key`): used as of
/// its arrival for `expiry`, its pages as `pagination` says, and an error
/// of a request that started earlier gone. One copy for every endpoint.
fn stored_read(
    state: &mut State,
    delivery: Delivery<'_>,
    expiry: Duration,
    pagination: Option<Pagination>,
    turned_down: bool,
) {
    let Delivery {
        key,
        started,
        arrived,
        ..
    } = delivery;
    let kept = state.note_use(key, arrived, expiry);
    if !turned_down {
        kept.fetches += 1;
        kept.read_started = kept.read_started.max(Some(started));
    }
    if let Some(pagination) = pagination {
        kept.pages = Some(pagination);
    }
    if kept
        .error
        .take_if(|error| error.meta.fetched_at <= started)
        .is_some()
    {
        state.touch(key);
    }
}

/// Ends the read `key`'s request `id`: the key is no longer fetching,
/// unless the request was let go (or a later one took its place).
/// Returns whether it was still the key's request.
fn end_in_flight(state: &mut State, key: &str, id: u64) -> bool {
    let ours = |kept: &mut KeyState| {
        kept.let_go.retain(|request| request.id != id);
        kept.in_flight.take_if(|f| f.id == id)
    };
    let ended = state.keys.edit(key, ours).flatten().is_some();
    if ended {
        state.touch(key);
    }
    ended
}

impl Controller {
    /// What a read's stored answer changes beside the store: a saved or
    /// handed-off response waiting for its key is older now, and its
    /// text, when kept, goes to the tabs that wait for it and to a
    /// server's handoff. One copy for every endpoint of an app.
    fn stored_fresh(&self, state: &mut State, delivery: Delivery<'_>, recorded: Option<Recorded>) {
        let key = delivery.key;
        if !state.handoff.pending.is_empty() {
            state.handoff.pending.remove(key);
        }
        let Some(recorded) = recorded else {
            return;
        };
        #[cfg(feature = "tabs")]
        if wanted_elsewhere(&self.inner, key) {
            self.inner
                .shared
                .keep(key, recorded.clone(), delivery.started);
        }
        if state.handoff.recording.is_some() {
            let written = state.store.writes();
            state
                .handoff
                .recorded
                .insert(key.to_owned(), (recorded, delivery.arrived, written));
        }
    }

    /// A read's request failed: listeners hear of it, and its key keeps
    /// `error` as `kept` says (marked polled when a poll asked). Returns
    /// the error. One copy for every endpoint of an app.
    fn read_failed(
        &self,
        state: &mut State,
        error: Error,
        delivery: Delivery<'_>,
        kept: KeptError,
        polled: bool,
    ) -> Error {
        let key = delivery.key;
        self.emit(|| Event::RequestFailed {
            key: key.to_owned(),
            error: error.clone(),
        });
        keep_error(state, error.clone(), delivery, kept);
        if polled && let Some(stored) = state.keys.error_mut(key) {
            stored.polled = true;
        }
        error
    }
}

/// Whether another tab waits for this controller's answer for `key`.
#[cfg(feature = "tabs")]
fn wanted_elsewhere(inner: &Inner, key: &str) -> bool {
    inner.shared.wanted(key)
}

/// The key of a read of `key` sent with `body`: the body's content type
/// and bytes, hashed, follow the key.
pub(super) fn key_with_body(key: String, body: &Body) -> String {
    use std::hash::{Hash, Hasher};
    let mut hasher = rustc_hash::FxHasher::default();
    body.content_type().hash(&mut hasher);
    body.as_bytes().hash(&mut hasher);
    format!("{key} body:{:016x}", hasher.finish())
}
