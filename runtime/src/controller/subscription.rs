//! Change notification: who read what, told when (and only when) it changed.

use std::cell::Cell;
use std::rc::Rc;

use serde::Serialize;

use super::{Controller, State};
use crate::cache::entity::Entity;
use crate::cache::schema::Schema;
use crate::pk::{Pk, PkValue};
use crate::rest::{Endpoint, Readable};

/// Re-reads one subscribed read and says whether it changed since the last
/// look.
pub(crate) type Check = Box<dyn FnMut(&mut State) -> bool>;

/// What a subscription keeps from collection while it lives.
pub(crate) enum Holds {
    Nothing,
    /// The result under this key, with every record in it.
    Result(String),
    /// One record.
    Record(&'static str, Pk),
}

struct Entry {
    /// Cleared when the [`Subscription`] is dropped.
    alive: Rc<Cell<bool>>,
    holds: Holds,
    check: Check,
    on_change: Rc<dyn Fn()>,
}

/// The subscriptions of one controller.
#[derive(Default)]
pub(crate) struct Subscribers {
    entries: Vec<Entry>,
    /// The length after the last pruning of dropped subscriptions.
    pruned_at: usize,
}

impl Subscribers {
    pub fn add(&mut self, holds: Holds, check: Check, on_change: Rc<dyn Fn()>) -> Subscription {
        // Dropped subscriptions go here too, not only on the next change:
        // whenever the list doubled since the last pruning (so a mount
        // storm costs linear time).
        if self.entries.len() >= 2 * self.pruned_at.max(16) {
            self.entries.retain(|entry| entry.alive.get());
            self.pruned_at = self.entries.len();
        }
        let alive = Rc::new(Cell::new(true));
        self.entries.push(Entry {
            alive: Rc::clone(&alive),
            holds,
            check,
            on_change,
        });
        Subscription { alive }
    }

    /// The callbacks of every live subscription whose read changed.
    pub fn changed(&mut self, state: &mut State) -> Vec<Rc<dyn Fn()>> {
        self.entries.retain(|entry| entry.alive.get());
        self.entries
            .iter_mut()
            .filter_map(|entry| (entry.check)(state).then(|| Rc::clone(&entry.on_change)))
            .collect()
    }

    /// What the live subscriptions hold.
    pub fn held(&self) -> impl Iterator<Item = &Holds> {
        self.entries
            .iter()
            .filter(|entry| entry.alive.get())
            .map(|entry| &entry.holds)
    }

    /// How many subscriptions are live.
    pub fn len(&self) -> usize {
        self.entries
            .iter()
            .filter(|entry| entry.alive.get())
            .count()
    }
}

/// A live subscription, made by
/// [`Controller::subscribe`](crate::Controller::subscribe); dropping it
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
#[derive(Debug)]
pub struct Subscription {
    alive: Rc<Cell<bool>>,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.alive.set(false);
    }
}

impl Controller {
    /// Calls `on_change` whenever what [`read`](Self::read) gives for
    /// `endpoint` with `params` changes: new data (a response, a mutation
    /// of a record it holds), data gone (invalidated, deleted, reset), or a
    /// new error. (See [`subscribe_fetching`](Self::subscribe_fetching)
    /// to hear of requests starting and ending too.) Nothing else calls it: a change to records the read
    /// does not hold, or a write to other keys, does not. (A refetch
    /// brings new copies of its records, so it does call it.)
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
        self.subscribe_read(endpoint, params, false, on_change)
    }

    /// [`subscribe`](Self::subscribe), and also told when a request for
    /// the read starts or ends ([`Cached::fetching`](crate::Cached::fetching)
    /// changes): for a view that shows a "refreshing" indicator.
    ///
    /// ```
    /// use restcache::prelude::*;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// let _subscription = ctrl.subscribe_fetching(&TodoResource::get_list(), &(), || {});
    /// assert_eq!(ctrl.subscriber_count(), 1);
    /// ```
    pub fn subscribe_fetching<P, S, E>(
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
        self.subscribe_read(endpoint, params, true, on_change)
    }

    fn subscribe_read<P, S, E>(
        &self,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
        with_fetching: bool,
        on_change: impl Fn() + 'static,
    ) -> Subscription
    where
        P: Serialize,
        S: Schema,
        E: Readable,
    {
        let key = self.locate(endpoint, params).map(|(key, _)| key).ok();
        let holds = key.clone().map_or(Holds::Nothing, Holds::Result);
        let mut last: Option<(Option<Rc<S>>, Option<u64>, bool)> = None;
        let check: Check = Box::new(move |state: &mut State| {
            let Some(key) = &key else {
                return false;
            };
            let data = state.memo.read::<S>(&state.store, key).into_value();
            let error = state.errors.get(key).map(|stored| stored.serial);
            let fetching = with_fetching && state.is_fetching(key);
            let changed = last.as_ref().is_none_or(|(old, old_error, was_fetching)| {
                !same_rc(old.as_ref(), data.as_ref())
                    || *old_error != error
                    || *was_fetching != fetching
            });
            last = Some((data, error, fetching));
            changed
        });
        self.add_subscriber(holds, check, Rc::new(on_change))
    }

    /// Calls `on_change` whenever the record `pk` of `E` changes (a new
    /// copy, or invalidated, deleted, reset).
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
        let check: Check = Box::new(move |state: &mut State| {
            let Some(pk) = &pk else {
                return false;
            };
            let data = state
                .memo
                .entity::<E>(&state.store, pk.clone())
                .into_value();
            let changed = last
                .as_ref()
                .is_none_or(|old| !same_rc(old.as_ref(), data.as_ref()));
            last = Some(data);
            changed
        });
        self.add_subscriber(holds, check, Rc::new(on_change))
    }

    fn add_subscriber(
        &self,
        holds: Holds,
        mut check: Check,
        on_change: Rc<dyn Fn()>,
    ) -> Subscription {
        check(&mut self.state_mut()); // the first look: nothing changed yet
        self.inner
            .subscribers
            .borrow_mut()
            .add(holds, check, on_change)
    }

    /// Tells every subscriber whose read changed.
    pub(super) fn notify(&self) {
        self.inner.notify_due.set(false);
        self.collect_if_due();
        let callbacks = {
            let mut subscribers = self.inner.subscribers.borrow_mut();
            let mut state = self.state_mut();
            subscribers.changed(&mut state)
        };
        for callback in callbacks {
            callback();
        }
    }
}

/// Whether two reads handed out the same value (or both nothing).
fn same_rc<T>(a: Option<&Rc<T>>, b: Option<&Rc<T>>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => Rc::ptr_eq(a, b),
        (None, None) => true,
        _ => false,
    }
}
