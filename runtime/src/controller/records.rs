//! Writing one record into the cache from outside a request: data pushed
//! over a socket, read from another tab, or made up by a test. Each write
//! carries the time its data was true (`fetched_at`), so the cache's rule
//! of order holds: of two copies of a record, the one whose request
//! started later wins, whichever arrives first.

use std::rc::Rc;

use super::edits::WriteError;
use super::events::{Event, RecordChange};
#[cfg(feature = "live")]
use super::lists::place_in_lists;
use super::lists::{judge_holding_lists, leave_holding};
use super::{Controller, State};
use crate::cache::deleted::Deleted;
use crate::cache::entity::Entity;
use crate::cache::schema::Decoded;
use crate::cache::store::Lookup;
use crate::meta::{Meta, Timestamp};
#[cfg(feature = "live")]
use crate::pk::Pk;
use crate::pk::PkValue;
#[cfg(feature = "live")]
use crate::rest::{Create, Endpoint};
#[cfg(feature = "live")]
use serde::Serialize;

impl Controller {
    /// Stores `record` as its data stood at `fetched_at` (its nested
    /// records too): every cached read that holds it shows it, unless a
    /// copy fetched later is stored. A list holding it whose filters it
    /// no longer matches (`?userId=1` after its user changed) lets it go.
    /// A new record joins no list (a create's response does:
    /// [`set_response`](Self::set_response)).
    /// Returns the store's copy (the stored one, when it was fetched
    /// later); a record the store refuses (no pk) changes nothing. For
    /// data that is true now, give [`write_time`](Self::write_time).
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
    /// let list = ctrl.set_response(&TodoResource::get_list(), &(), vec![Rc::new(Todo { id: 1, title: "milk".into() })])?;
    /// ctrl.set_entity(Todo { id: 1, title: "oat milk".into() }, ctrl.write_time())?;
    /// let shown = ctrl.read(&TodoResource::get_list(), &()).data.unwrap();
    /// assert_eq!(shown[0].title, "oat milk");
    /// # let _ = list;
    /// # Ok::<(), restcache::WriteError>(())
    /// ```
    pub fn set_entity<E: Entity>(
        &self,
        record: E,
        fetched_at: Timestamp,
    ) -> Result<Rc<E>, WriteError> {
        self.set_decoded_entity(Decoded::from(Rc::new(record)), fetched_at)
    }

    /// [`set_entity`](Self::set_entity) of a record decoded from JSON,
    /// which knows the fields the JSON left out: they keep their stored
    /// values, as a response's would.
    pub(crate) fn set_decoded_entity<E: Entity>(
        &self,
        record: Decoded<Rc<E>>,
        fetched_at: Timestamp,
    ) -> Result<Rc<E>, WriteError> {
        let meta = Meta::fetched(fetched_at, fetched_at, self.inner.data_expiry);
        let written = {
            let mut state = self.state_mut();
            let written = state
                .store
                .write(None, record, meta, false)
                .map_err(WriteError::Schema)?;
            if let Some(&at) = written.refs.first() {
                let stored = &written.value;
                let field_text = |field: &str| E::field_text(stored, field);
                let scope = self.inner.client.base_url().split_once('?');
                let State { store, keys, .. } = &mut *state;
                let scope = (scope.map_or("", |(_, q)| q), fetched_at);
                judge_holding_lists(store, keys, at, &field_text, scope);
            }
            written
        };
        let stored = Rc::unwrap_or_clone(written.value);
        if let Some(pk) = stored.pk() {
            self.emit(|| Event::Record {
                entity: E::KEY,
                pk,
                change: RecordChange::Set,
            });
        }
        self.notify();
        Ok(stored)
    }

    /// Places the record `pk` of `E`, just written from a live stream as
    /// of `at`, in the cached lists under the URL of `create` with
    /// `params` that a create's answer would join (filters judged, at the
    /// start or end as `create` says), each list dated `at`. A paged list
    /// it would join goes stale instead: the record may be one of a page
    /// not loaded. Nothing else of a create's answer happens (no result,
    /// no events, no updater), and a record the cache does not show (a
    /// deletion newer than `at`) joins nothing.
    #[cfg(feature = "live")]
    pub(crate) fn join_pushed<P: Serialize, E: Entity>(
        &self,
        (create, params): (&Endpoint<P, Rc<E>, Create>, &P),
        pk: &Pk,
        at: Timestamp,
    ) -> Result<(), crate::error::UrlError> {
        let (_, url) = self.place(create, params)?;
        {
            let mut state = self.state_mut();
            let State { store, keys, .. } = &mut *state;
            let (Lookup::Found(record, _), Some(at_ref)) =
                (store.get_entity::<E>(pk), store.record_ref(E::KEY, pk))
            else {
                return Ok(());
            };
            let item = Rc::new(record);
            place_in_lists(
                store,
                keys,
                create,
                params,
                &url,
                &item,
                &[at_ref],
                at,
                None,
                (true, None),
            );
        }
        self.notify();
        Ok(())
    }

    /// Stores `edit` of the cached record `pk` of `E` as of `fetched_at`
    /// ([`set_entity`](Self::set_entity) of what `edit` makes of the
    /// stored copy). Returns the store's new copy, or `None` when the
    /// cache holds no live copy of the record (nothing is written).
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String, completed: bool }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// ctrl.set_entity(Todo { id: 1, title: "milk".into(), completed: false }, ctrl.write_time())?;
    /// let done = ctrl.update_entity::<Todo>(1u64, ctrl.write_time(), |todo| Todo { completed: true, ..todo.clone() })?;
    /// assert!(done.unwrap().completed);
    /// assert!(ctrl.update_entity::<Todo>(9u64, ctrl.write_time(), Todo::clone)?.is_none());
    /// # Ok::<(), restcache::WriteError>(())
    /// ```
    pub fn update_entity<E: Entity>(
        &self,
        pk: impl PkValue,
        fetched_at: Timestamp,
        edit: impl FnOnce(&E) -> E,
    ) -> Result<Option<Rc<E>>, WriteError> {
        let stored = match self.state_mut().store.get_entity::<E>(pk) {
            Lookup::Found(record, _) => record,
            Lookup::Invalid | Lookup::Absent => return Ok(None),
        };
        self.set_entity(edit(&stored), fetched_at).map(Some)
    }

    /// Deletes the record `pk` of `E` as of `fetched_at`: every list drops
    /// it (a paged one counts one record fewer), direct reads of it fetch, and a response whose request started
    /// before `fetched_at` does not bring it back, whether or not the
    /// cache held the record yet. Returns whether a live copy went (a
    /// copy fetched after `fetched_at` stays).
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
    /// let todos = vec![Rc::new(Todo { id: 1, title: "a".into() }), Rc::new(Todo { id: 2, title: "b".into() })];
    /// ctrl.set_response(&TodoResource::get_list(), &(), todos)?;
    /// assert!(ctrl.delete_entity::<Todo>(1u64, ctrl.write_time()));
    /// let shown = ctrl.read(&TodoResource::get_list(), &()).data.unwrap();
    /// assert_eq!(shown.iter().map(|todo| todo.id).collect::<Vec<_>>(), [2]);
    /// # Ok::<(), restcache::WriteError>(())
    /// ```
    pub fn delete_entity<E: Entity>(&self, pk: impl PkValue, fetched_at: Timestamp) -> bool {
        let Some(pk) = pk.to_pk() else {
            return false;
        };
        let meta = Meta::fetched(fetched_at, fetched_at, self.inner.data_expiry);
        let deleted = {
            let mut state = self.state_mut();
            let live = |store: &crate::cache::store::Store| {
                matches!(store.get_entity::<E>(&pk), Lookup::Found(..))
            };
            let held = live(&state.store);
            // Written as a delete's response is: a pk the cache never
            // held leaves a marker, so an older response does not bring
            // the record back.
            let gone = Decoded::from(Deleted::<E>::new(pk.clone()));
            let written = state.store.write(None, gone, meta, false).is_ok();
            let deleted = written && held && !live(&state.store);
            // The lists holding it let it go, as after a delete's answer.
            if deleted {
                for (key, left) in leave_holding(&mut state.store, E::KEY, &pk, None) {
                    if left {
                        state.store.date_result(&key, fetched_at);
                    }
                }
            }
            deleted
        };
        self.emit(|| Event::Record {
            entity: E::KEY,
            pk,
            change: RecordChange::Deleted,
        });
        self.notify();
        deleted
    }

    /// The time to give a write made now from outside a request
    /// ([`set_entity`](Self::set_entity) and its family): the clock's
    /// time, or just after the last request that started, whichever is
    /// later, so that what is known now counts as newer than every
    /// request already on its way.
    ///
    /// ```
    /// use restcache::prelude::*;
    ///
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// let first = ctrl.write_time();
    /// assert!(ctrl.write_time() > first);
    /// ```
    pub fn write_time(&self) -> Timestamp {
        self.start_now()
    }

    /// Shows `record` as its data stood at `at` as an optimistic layer of
    /// its own (another tab's optimistic value), over the confirmed copy
    /// until [`remove_foreign_layer`](Self::remove_foreign_layer); `None`
    /// when the store refuses it (no pk). Tells no listener: the value is
    /// not this controller's mutation.
    #[cfg(feature = "tabs")]
    pub(crate) fn show_foreign_layer<E: Entity>(
        &self,
        record: Decoded<Rc<E>>,
        at: Timestamp,
    ) -> Option<ForeignLayer> {
        let meta = Meta::fetched(at, at, self.inner.data_expiry);
        let mut state = self.state_mut();
        let written = state.store.write(None, record, meta, true).ok()?;
        let generation = state.generation;
        drop(state);
        self.notify();
        Some(ForeignLayer {
            generation,
            layer: written.layer?,
        })
    }

    /// Takes another tab's optimistic value away: the confirmed copy shows
    /// again (nothing, after a reset since).
    #[cfg(feature = "tabs")]
    pub(crate) fn remove_foreign_layer(&self, foreign: ForeignLayer) {
        let mut state = self.state_mut();
        if state.generation == foreign.generation {
            state.store.remove_layer(foreign.layer);
        }
        drop(state);
        self.notify();
    }
}

/// Another tab's optimistic value, shown here as a layer.
#[cfg(feature = "tabs")]
pub(crate) struct ForeignLayer {
    generation: u64,
    layer: crate::cache::store::Layer,
}
