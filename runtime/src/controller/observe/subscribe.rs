//! Subscriptions: who watches what, told when (and only when) it changed.

use std::cell::Cell;
use std::rc::{Rc, Weak};

use std::time::Duration;

use futures_util::future::{AbortHandle, Abortable};
use serde::Serialize;

use super::poll::{PollFetch, Poller};
use super::registry::{Check, Checked, Entry, Holds, Look, Touched, Watching};
use crate::cache::entity::{Entity, EntityParts};
use crate::cache::schema::{Schema, SchemaParts};
use crate::cache::store::Lookup;
use crate::controller::expiry::StoredError;
use crate::controller::{Controller, Inner, Named, State};
use crate::meta::{Meta, Timestamp};
use crate::pk::PkValue;
use crate::rest::{Endpoint, Readable};

/// What a look at a read saw: its data (the very value), the number of
/// its stored error, and whether a request for it was on its way.
pub(crate) struct Seen<S> {
    pub data: Option<Rc<S>>,
    /// When the data expires.
    pub expires_at: Option<Timestamp>,
    pub error: Option<u64>,
    pub fetching: bool,
}

impl<S> Seen<S> {
    /// What a look saw: `data` (with its meta) as the read found it, the
    /// key's stored `error` and whether a request was on its way.
    pub(crate) fn of(
        data: Option<&(Rc<S>, Meta)>,
        error: Option<&StoredError>,
        fetching: bool,
    ) -> Self {
        Seen {
            data: data.map(|(value, _)| Rc::clone(value)),
            expires_at: data.map(|(_, meta)| meta.expires_at),
            error: error.map(|stored| stored.serial),
            fetching,
        }
    }

    /// Whether `other` differs from this look (fetching counts when
    /// `with_fetching`).
    fn differs(&self, other: &Seen<S>, with_fetching: bool) -> bool {
        !same_rc(self.data.as_ref(), other.data.as_ref())
            || self.error != other.error
            || (with_fetching && self.fetching != other.fetching)
    }
}

impl State {
    /// What the read `key` of schema `S` shows now (`named`: the pks of
    /// the record it names, see [`State::lookup`]).
    pub(crate) fn look<S: Schema>(&mut self, key: &str, named: &Named) -> Seen<S> {
        let data = match self.lookup::<S>(key, &|| named.clone()) {
            Lookup::Found(value, meta) => Some((value, meta)),
            Lookup::Invalid | Lookup::Absent => None,
        };
        Seen::of(data.as_ref(), self.error(key), self.is_fetching(key))
    }

    /// What a write must touch to change the read `key` of schema `S`.
    fn watching<S: Schema>(&self, key: &str, named: &Named) -> Watching {
        if self.store.result_meta(key).is_none()
            && let Some((entity, _)) = <S as SchemaParts>::RECORD
            && !named.is_empty()
        {
            // Answered from the record it names, or waiting for it.
            let record = named
                .iter()
                .find_map(|pk| self.store.record_ref(entity, pk));
            return match record {
                Some(record) if <S as SchemaParts>::FLAT => Watching::Records(vec![record]),
                // Waiting for the record, or nesting others: any write may
                // change it, and one that writes the record back as it is
                // moves its expiry.
                _ => Watching::Any,
            };
        }
        if <S as SchemaParts>::FLAT {
            Watching::Records(self.store.result_refs(key).to_vec())
        } else {
            match self.memo.result_mask(key) {
                Some(mask) if mask != 0 => Watching::Stamps(mask),
                // Held but not readable (a record it nests is gone): any
                // record written may be that one, back.
                None if self.store.result_meta(key).is_some() => Watching::Stamps(u64::MAX),
                _ => Watching::Key,
            }
        }
    }

    /// Notes that the error or the request of the read `key` changed.
    pub(crate) fn touch(&mut self, key: &str) {
        self.touched.push(key.to_owned());
    }

    /// What changed since observers last looked at `seen` (the store's
    /// id, slot layout and last write), which moves to now.
    fn take_touched(&mut self, seen: &mut (u64, u64, u64)) -> Touched {
        let store = &mut self.store;
        let mut all = seen.0 != store.id() || seen.1 != store.layout();
        if !store.is_watched() {
            store.watch_changes();
            all = true;
        }
        let changes = store.take_changes(seen.2);
        *seen = (store.id(), store.layout(), store.last_write());
        let mut keys = changes.results;
        keys.append(&mut self.touched);
        crate::sparse::Sparse::shrink_if_sparse(&mut self.touched);
        Touched {
            keys,
            records: changes.records,
            stamps: changes.stamps,
            all,
        }
    }
}

/// Since when a view waits for a read's answer (see [`waited_for`]);
/// `None` once it showed an answer still fresh, or never waited.
pub(crate) type WaitedSince = Rc<Cell<Option<Timestamp>>>;

/// Whether data of a read that must not show stale data, stale since
/// `expires_at`, shows all the same to the view that `waited`: it is the
/// answer that view waited for, or came after (it expired after the wait
/// began), already stale when the view came to show it (an expiry
/// shorter than the time from its arrival to the render). Without this
/// the view would wait for another answer forever. A fresh answer read
/// by the view, an invalidation, or another read of the view ends it; a
/// view that did not wait never shows stale data.
pub(crate) fn waited_for(waited: Option<&WaitedSince>, expires_at: Timestamp) -> bool {
    waited
        .and_then(|waited| waited.get())
        .is_some_and(|since| expires_at >= since)
}

/// The check of a read `key` of schema `S` (`named`: the pks of the
/// record it names): changed when its data, its error or
/// (`with_fetching`) its request changed since `last`. A read whose data
/// must not show once stale (`invalid_if_stale`) sees none past its
/// expiry, but for the answer its view `waited` for.
pub(crate) fn read_check<S: Schema>(
    key: String,
    named: Named,
    with_fetching: bool,
    (invalid_if_stale, waited): (bool, Option<WaitedSince>),
    last: Option<Seen<S>>,
) -> Check {
    let mut last = last;
    Box::new(move |state: &mut State, at: Timestamp| {
        let mut now = state.look::<S>(&key, &named);
        if invalid_if_stale
            && now
                .expires_at
                .is_some_and(|expires| expires < at && !waited_for(waited.as_ref(), expires))
        {
            now.data = None;
        }
        let changed = last
            .as_ref()
            .is_none_or(|old| old.differs(&now, with_fetching));
        let expires_at = now.expires_at;
        last = Some(now);
        Look {
            changed,
            watching: state.watching::<S>(&key, &named),
            expires_at,
        }
    })
}

/// A live subscription (or observer registration); dropping it
/// unsubscribes.
///
/// ```
/// use restcache::prelude::*;
///
/// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
/// struct Todo { id: u64 }
/// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
///
/// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
/// let subscription = ctrl.subscribe(&TodoResource::get_list(), &(), || println!("changed"));
/// assert_eq!(ctrl.subscriber_count(), 1);
/// drop(subscription);
/// assert_eq!(ctrl.subscriber_count(), 0);
/// ```
#[must_use = "dropping a subscription unsubscribes at once"]
pub struct Subscription {
    inner: Weak<Inner>,
    pub(super) id: u32,
    alive: Rc<Cell<bool>>,
}

impl std::fmt::Debug for Subscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscription")
            .field("id", &self.id)
            .finish()
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.alive.set(false);
        let Some(inner) = self.inner.upgrade() else {
            return;
        };
        match inner.observers.try_borrow_mut() {
            Ok(mut observers) => observers.remove_if(self.id, &self.alive),
            // In use (a check dropping a subscription): the next
            // notification removes it.
            Err(_) => inner
                .dead_observers
                .borrow_mut()
                .push((self.id, Rc::clone(&self.alive))),
        }
    }
}

impl Controller {
    /// Calls `on_change` whenever what [`read`](Self::read) gives for
    /// `endpoint` with `params` changes: new data (a response, a mutation
    /// of a record it holds), data gone (invalidated, deleted, reset), or a
    /// new error. Nothing else calls it: a change to records the read
    /// does not hold, or a write to other keys, does not (and is not even
    /// checked: a write re-checks only the subscriptions of the keys and
    /// records it touched). A refetch calls it only when it brings
    /// something new (see
    /// [`ControllerBuilder::share_equal_copies`](crate::ControllerBuilder::share_equal_copies)).
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use std::{cell::Cell, rc::Rc};
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// let calls = Rc::new(Cell::new(0));
    /// let seen = Rc::clone(&calls);
    /// let _subscription = ctrl.subscribe(&TodoResource::get_list(), &(), move || seen.set(seen.get() + 1));
    /// ctrl.set_response(&TodoResource::get_list(), &(), vec![Rc::new(Todo { id: 1, title: "a".into() })])?;
    /// assert_eq!(calls.get(), 1);
    /// ctrl.set_response(&TodoResource::get(), &TodoResourceParams { id: 2 }, Rc::new(Todo { id: 2, title: "b".into() }))?;
    /// assert_eq!(calls.get(), 1); // todo 2 is not in the list
    /// # Ok::<(), restcache::WriteError>(())
    /// ```
    pub fn subscribe<P, S, E>(
        &self,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
        on_change: impl Fn() + 'static,
    ) -> Subscription
    where
        P: Serialize,
        S: Schema,
        E: Readable,
    {
        let key = self.key(endpoint, params).ok();
        let named = endpoint.named_pks(params);
        let holds = Holds::of_read::<S>(key.as_deref(), &named);
        let check = match &key {
            Some(key) => {
                let invalid_if_stale = endpoint.options().invalid_if_stale;
                read_check::<S>(key.clone(), named, false, (invalid_if_stale, None), None)
            }
            None => Box::new(|_: &mut State, _| Look::nothing()),
        };
        let entry = Entry::new(key, holds, check, Rc::new(on_change));
        self.add_observer(entry).0
    }

    /// Calls `on_change` whenever the record `pk` of `E` changes (a new
    /// copy, or invalidated, deleted, reset).
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use std::{cell::Cell, rc::Rc};
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// let calls = Rc::new(Cell::new(0));
    /// let seen = Rc::clone(&calls);
    /// let _subscription = ctrl.subscribe_entity::<Todo>(1u64, move || seen.set(seen.get() + 1));
    /// ctrl.set_response(&TodoResource::get(), &TodoResourceParams { id: 1 }, Rc::new(Todo { id: 1, title: "a".into() }))?;
    /// assert_eq!(calls.get(), 1);
    /// # Ok::<(), restcache::WriteError>(())
    /// ```
    pub fn subscribe_entity<E: Entity>(
        &self,
        pk: impl PkValue,
        on_change: impl Fn() + 'static,
    ) -> Subscription {
        let pk = pk.to_pk();
        let holds = pk
            .clone()
            .map_or(Holds::Nothing, |pk| Holds::Record(E::KEY, pk));
        let mut last: Option<Option<Rc<E>>> = None;
        let check: Check = Box::new(move |state: &mut State, _| {
            let Some(pk) = &pk else {
                return Look::nothing();
            };
            let read = state.memo.entity_stamped::<E>(&state.store, pk);
            let (data, mask) = (read.lookup.into_value(), read.mask);
            let changed = last
                .as_ref()
                .is_none_or(|old| !same_rc(old.as_ref(), data.as_ref()));
            last = Some(data);
            let watching = match read.slot {
                Some(slot) if !<E as EntityParts>::HAS_NESTED => Watching::Records(vec![slot]),
                Some(_) if mask != 0 => Watching::Stamps(mask),
                // Not stored yet: any write may bring it.
                _ => Watching::Stamps(u64::MAX),
            };
            Look {
                changed,
                watching,
                expires_at: None,
            }
        });
        let entry = Entry::new(None, holds, check, Rc::new(on_change));
        self.add_observer(entry).0
    }

    /// Registers `entry` after a first look (which reports a change only
    /// against what the entry's check was made with). Returns the
    /// subscription, and the entry's callback when the first look found a
    /// change.
    pub(crate) fn add_observer(&self, mut entry: Entry) -> (Subscription, Option<Rc<dyn Fn()>>) {
        let Look {
            changed,
            watching,
            expires_at,
        } = (entry.check)(&mut self.state_mut(), self.now());
        entry.watching = watching;
        entry.expires_at = expires_at;
        let revalidates = entry.revalidate.is_some();
        let alive = Rc::clone(&entry.alive);
        alive.set(true);
        let changed = changed.then(|| Rc::clone(&entry.on_change));
        let id = self.inner.observers.borrow_mut().add(entry);
        if let (true, Some(at)) = (revalidates, expires_at) {
            self.expires_at(at);
        }
        self.notify_if_due();
        let subscription = Subscription {
            inner: Rc::downgrade(&self.inner),
            id,
            alive,
        };
        (subscription, changed)
    }

    /// The observer `id` polls `key` every `every`, with `fetch`: the
    /// key's loop, started with its first poller, runs at the shortest
    /// period of those that poll it, with the request of the one that
    /// joined last (of those still there).
    pub(crate) fn join_poll(&self, id: u32, key: &str, every: Duration, fetch: PollFetch) {
        self.inner
            .observers
            .borrow_mut()
            .polls
            .entry(key.to_owned())
            .or_insert_with(|| Poller::new(Rc::clone(&fetch)))
            .join(id, key, every, fetch, self);
    }

    /// [`notify`](Self::notify), when a look at the cache changed it:
    /// the optimistic layers of mutations given up while it was borrowed
    /// went at that look, and the views that showed them must hear of it.
    /// Every path that only reads ends with it.
    pub(crate) fn notify_if_due(&self) {
        if self.inner.notify_due.get() {
            self.notify();
        }
    }

    /// Tells every observer whose read changed; inside a
    /// [`batch`](Self::batch), once at its end.
    pub(crate) fn notify(&self) {
        self.tell_events();
        if self.inner.batch_depth.get() > 0 {
            self.inner.notify_pending.set(true);
            return;
        }
        self.inner.notify_due.set(false);
        self.collect_if_due();
        let now = self.now();
        let checked = {
            // A write made by a callback while observers are checked is
            // seen by the round that is running.
            let Ok(mut observers) = self.inner.observers.try_borrow_mut() else {
                return;
            };
            let dead = std::mem::take(&mut *self.inner.dead_observers.borrow_mut());
            observers.prune(dead);
            let mut state = self.state_mut();
            let mut seen = observers.seen;
            let touched = state.take_touched(&mut seen);
            observers.seen = seen;
            let candidates = observers.candidates(&touched);
            candidates
                .into_iter()
                .map(|id| observers.check(id, &mut state, now))
                .collect::<Vec<Checked>>()
        };
        let mut stale = Vec::new();
        for Checked {
            on_change,
            revalidate,
            expires_at,
        } in checked
        {
            if let Some(at) = expires_at {
                self.expires_at(at);
            }
            stale.extend(revalidate);
            if let Some(on_change) = on_change {
                on_change();
            }
        }
        // A read a write made stale (`expire_all`) revalidates, its data
        // still on show.
        for revalidate in stale {
            revalidate(self);
        }
    }

    /// Refetches the observed reads that revalidate and whose expiry has
    /// passed, unless the app is out of view or offline (the network
    /// back, with no round of revalidation: what expired meanwhile).
    #[cfg(target_arch = "wasm32")]
    pub(crate) fn revalidate_due(&self) {
        if !(self.is_focused() && self.is_online()) {
            return;
        }
        let (due, _) = self.inner.observers.borrow().expired(self.now());
        for revalidate in due {
            revalidate(self);
        }
    }

    /// Makes sure the expiry timer fires by `at`, when a read that
    /// revalidates goes stale.
    fn expires_at(&self, at: Timestamp) {
        if at < self.now() {
            return;
        }
        let mut observers = self.inner.observers.borrow_mut();
        if observers
            .expiry_timer
            .as_ref()
            .is_some_and(|(due, _)| *due <= at)
        {
            return;
        }
        if let Some((_, abort)) = observers.expiry_timer.take() {
            abort.abort();
        }
        let (abort, registration) = AbortHandle::new_pair();
        // Stale once past its expiry.
        let wait = Duration::from_micros(at.as_micros().saturating_sub(self.now().as_micros()))
            + Duration::from_millis(1);
        let sleep = self.inner.clock.sleep(wait);
        let inner = Rc::downgrade(&self.inner);
        let fire = async move {
            sleep.await;
            if let Some(inner) = inner.upgrade() {
                Controller { inner }.revalidate_expired();
            }
        };
        observers.expiry_timer = Some((at, abort));
        drop(observers);
        self.spawn(Box::pin(async move {
            let _ = Abortable::new(fire, registration).await;
        }));
    }

    /// The expiry timer fired: the reads that revalidate and went stale
    /// refetch in the background, and the timer waits for the next. While
    /// the app is out of view or offline they wait: coming back
    /// revalidates every stale read.
    fn revalidate_expired(&self) {
        let (due, next) = {
            let mut observers = self.inner.observers.borrow_mut();
            observers.expiry_timer = None;
            observers.expired(self.now())
        };
        if self.is_focused() && self.is_online() {
            for revalidate in due {
                revalidate(self);
            }
        }
        if let Some(at) = next {
            self.expires_at(at);
        }
    }

    /// Runs `f`, telling observers of what it changed once, at its end
    /// (several writes make one round of re-renders).
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use std::{cell::Cell, rc::Rc};
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// let calls = Rc::new(Cell::new(0));
    /// let seen = Rc::clone(&calls);
    /// let _subscription = ctrl.subscribe_entity::<Todo>(1u64, move || seen.set(seen.get() + 1));
    /// ctrl.batch(|| {
    ///     for title in ["a", "b", "c"] {
    ///         let todo = Rc::new(Todo { id: 1, title: title.into() });
    ///         ctrl.set_response(&TodoResource::get(), &TodoResourceParams { id: 1 }, todo).unwrap();
    ///     }
    /// });
    /// assert_eq!(calls.get(), 1);
    /// ```
    pub fn batch<R>(&self, f: impl FnOnce() -> R) -> R {
        struct Depth<'a>(&'a Controller);
        impl Drop for Depth<'_> {
            fn drop(&mut self) {
                let inner = &self.0.inner;
                inner.batch_depth.set(inner.batch_depth.get() - 1);
                if inner.batch_depth.get() == 0 && inner.notify_pending.replace(false) {
                    self.0.notify();
                }
            }
        }
        self.inner.batch_depth.set(self.inner.batch_depth.get() + 1);
        let _depth = Depth(self);
        f()
    }
}

/// Whether two reads handed out the same value (or both nothing).
pub(crate) fn same_rc<T>(a: Option<&Rc<T>>, b: Option<&Rc<T>>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => Rc::ptr_eq(a, b),
        (None, None) => true,
        _ => false,
    }
}
