//! How a read is answered from the cache: by its key or, when the key
//! holds no result, from the record the read names; a result of another
//! schema under the key is a clash, not a fetch.

use std::rc::Rc;

use serde::Serialize;

use super::expiry::classify;
use super::observe::{Seen, WaitedSince, waited_for};
use super::{Cached, Controller, ExpiryStatus, State};
use crate::cache::entity::Entity;
use crate::cache::schema::{Lazy, Schema, SchemaParts};
use crate::cache::store::Lookup;
use crate::http::Error;
use crate::rest::{Effect, Endpoint};

/// The pks the record a read names may have (see
/// [`Endpoint::without_inference`]).
pub(crate) type Named = smallvec::SmallVec<[crate::pk::Pk; 2]>;

impl State {
    /// What a read `key` of schema `S` shows: its result, or when the
    /// store holds none, the record `named` gives a pk of (a list fetched
    /// it, say), unless that record is gone, or the read was invalidated
    /// (or expired) by its key since that copy of the record came.
    pub(crate) fn lookup<S: Schema>(&mut self, key: &str, named: &dyn Fn() -> Named) -> Lookup<S> {
        let found = self.memo.read::<S>(&self.store, key);
        if !matches!(found, Lookup::Absent) || <S as SchemaParts>::RECORD.is_none() {
            return found;
        }
        for pk in named() {
            let inferred = self.memo.read_named::<S>(&self.store, key, &pk);
            if !matches!(inferred, Lookup::Absent) {
                let from_record = self.keys.state_mut(key).from_record.get_or_insert_default();
                return from_record.judge(inferred);
            }
        }
        Lookup::Absent
    }
}

impl Controller {
    /// [`read`](Self::read) for a caller that already made the key;
    /// `named` gives the pks of the record the read names, if the cache
    /// may answer it from that record (see [`State::lookup`]).
    pub(crate) fn read_key<P: Serialize, S: Schema, E: Effect>(
        &self,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
        key: &str,
        named: &dyn Fn() -> Named,
    ) -> Cached<S> {
        self.read_key_seen(endpoint, params, key, named, None).0
    }

    /// [`read_key`](Self::read_key), with what an observer notes of the
    /// read (to tell later whether it changed), from the same look; a
    /// view that `waited` for an answer shows it though stale (see
    /// [`waited_for`]).
    pub(crate) fn read_key_seen<P: Serialize, S: Schema, E: Effect>(
        &self,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
        key: &str,
        named: &dyn Fn() -> Named,
        waited: Option<&WaitedSince>,
    ) -> (Cached<S>, Seen<S>) {
        let now = self.now();
        let mut state = self.state_mut();
        if !state.handoff.pending.is_empty() {
            self.adopt(&mut state, endpoint, params, key);
        }
        let found = state.lookup::<S>(key, named);
        // Another schema's result under this key: fetching would only
        // take its place, and its reader would fetch back.
        let clash = matches!(found, Lookup::Invalid) && state.store.holds_other_than::<S>(key);
        let data = match found {
            Lookup::Found(value, meta) => Some((value, meta)),
            Lookup::Invalid | Lookup::Absent => None,
        };
        let kept = state.note_use(key, now, self.data_expiry(endpoint));
        let fetching = kept.in_flight.is_some();
        let seen = Seen::of(data.as_ref(), kept.error.as_ref(), fetching);
        if clash {
            drop(state);
            let clash = endpoint
                .attempt_without_url()
                .failed(crate::http::ErrorKind::KeyClash {
                    key: key.to_owned(),
                });
            let cached = Cached {
                status: ExpiryStatus::Valid,
                error: Some(clash),
                ..Cached::absent()
            };
            return (cached, seen);
        }
        let shown_stale = data
            .as_ref()
            .is_some_and(|(_, meta)| waited_for(waited, meta.expires_at));
        let invalid_if_stale = endpoint.options().invalid_if_stale && !shown_stale;
        let cached = classify(data, kept.error.as_ref(), now, invalid_if_stale);
        let cached = Cached { fetching, ..cached };
        drop(state);
        self.notify_if_due();
        (cached, seen)
    }

    /// The record a lazy link names (see [`Lazy`](crate::Lazy)), as the
    /// cache holds it now, nested records joined; `None` when it holds
    /// none (read its endpoint then). It never fetches.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::Lazy;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct User { id: u64, name: String }
    ///
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// let link = Lazy::<User>::new(7u64);
    /// assert!(ctrl.resolve(&link).is_none());
    /// ctrl.set_entity(User { id: 7, name: "Ada".into() }, ctrl.write_time())?;
    /// assert_eq!(ctrl.resolve(&link).unwrap().name, "Ada");
    /// # Ok::<(), restcache::WriteError>(())
    /// ```
    pub fn resolve<E: Entity>(&self, link: &Lazy<E>) -> Option<Rc<E>> {
        self.look_through_memo(|store, memo| memo.entity::<E>(store, link.pk()).into_value())
    }

    /// The cache key of `endpoint` with `params`.
    pub(crate) fn key<P: Serialize, S, E: Effect>(
        &self,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
    ) -> Result<String, Error> {
        self.locate(endpoint, params).map(|(key, _)| key)
    }
}
