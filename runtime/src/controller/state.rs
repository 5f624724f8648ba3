//! What a controller holds behind its handle: the store and its memo,
//! the errors beside the data, the read requests on their way, what the
//! cache keeps of what nothing uses, and the handoff.

use std::any::Any;
use std::rc::Rc;

use futures_util::future::{LocalBoxFuture, Shared};
use rustc_hash::FxBuildHasher;

use super::Controller;
use super::expiry::StoredError;
use super::handoff::Handoff;
use super::retention::{self, LeastUsed, Retention};
use crate::cache::memo::Memo;
use crate::cache::store::{Lookup, Store};
use crate::http::Error;
use crate::meta::Timestamp;
use crate::sparse::Sparse;

/// The response of one request, shared by every read waiting on it.
pub(super) type SharedResponse = Shared<LocalBoxFuture<'static, Result<Rc<dyn Any>, Error>>>;

/// A read request on its way.
pub(super) struct InFlight {
    pub id: u64,
    /// When it started: a deletion it may undo stays marked till it
    /// lands, however long it takes.
    pub started: Timestamp,
    pub response: SharedResponse,
    /// How many callers wait on it; none left cancels it.
    pub waiters: usize,
}

/// The fetch of a list's next page on its way, shared by every caller
/// that asks for it meanwhile.
pub(super) type PageFetch = Shared<LocalBoxFuture<'static, Result<bool, Error>>>;

/// A list's next page on its way: its number, the cache's generation it
/// grows (a reset starts another), the fetch, and how many callers wait
/// on it (the last one to give up cancels it).
pub(super) struct NextPageFetch {
    pub id: u64,
    pub generation: u64,
    pub fetch: PageFetch,
    pub waiters: usize,
}

/// What a controller keeps of one read key besides its result: its last
/// error, its request on the way, when it was last used, how its list
/// pages and the fetch of its next page. One map holds them ([`Keys`]),
/// so that a read finds what it needs of its key in one map, and the key
/// is held once.
#[derive(Default)]
pub(crate) struct KeyState {
    /// The last error of a read of the key.
    pub error: Option<StoredError>,
    /// The read request on its way.
    pub(super) in_flight: Option<InFlight>,
    /// Requests let go by an invalidation or an expiry after they
    /// started, still on their way: no read joins them, and what they
    /// bring is older than the key's last change.
    pub(super) let_go: Vec<InFlight>,
    /// When the key was last used.
    pub(super) used: Option<retention::Used>,
    /// How the cached list pages (its page params filter nothing).
    pub(crate) pages: Option<crate::rest::Pagination>,
    /// The fetch of the list's next page, on its way.
    pub(super) next_page: Option<NextPageFetch>,
    /// A read the cache answered from the record it names (it holds no
    /// result of its own), as that answer was last changed by its key.
    pub(super) from_record: Option<FromRecord>,
    /// How many of its read's responses were stored: a list's next page
    /// follows the fetch it was asked after, whatever writes edited the
    /// list since.
    pub(super) fetches: u64,
    /// When the request of its last stored response started: a create
    /// sent before it may be counted in it already.
    pub(super) read_started: Option<Timestamp>,
    /// How many created records the paged list counted to come with a
    /// page not loaded yet: a last page asked for before one of them
    /// was counted may come without it.
    pub(super) counted_to_come: std::cell::Cell<u32>,
}

/// A read answered from the record it names: invalidated or expired by
/// its key as of a time, until a copy of the record fetched later.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct FromRecord {
    pub invalid_as_of: Option<Timestamp>,
    pub stale_as_of: Option<Timestamp>,
}

impl FromRecord {
    /// Whether its key changed nothing of the answer.
    pub fn is_plain(&self) -> bool {
        self.invalid_as_of.is_none() && self.stale_as_of.is_none()
    }

    /// The answer `found` (the record's copy) as this says: `Invalid`
    /// when the copy is no later than an invalidation, stale when no
    /// later than an expiry.
    pub fn judge<S>(&self, found: Lookup<S>) -> Lookup<S> {
        let Lookup::Found(value, mut meta) = found else {
            return found;
        };
        if self.invalid_as_of.is_some_and(|at| meta.fetched_at <= at) {
            return Lookup::Invalid;
        }
        if self.stale_as_of.is_some_and(|at| meta.fetched_at <= at) {
            meta.expires_at = Timestamp::default();
        }
        Lookup::Found(value, meta)
    }
}

impl KeyState {
    /// The read requests on the key's behalf on their way: its own and
    /// those let go.
    pub(super) fn requests(&self) -> impl Iterator<Item = &InFlight> {
        self.in_flight.iter().chain(&self.let_go)
    }

    fn is_empty(&self) -> bool {
        self.error.is_none()
            && self.in_flight.is_none()
            && self.let_go.is_empty()
            && self.used.is_none()
            && self.pages.is_none()
            && self.next_page.is_none()
            && self.from_record.is_none()
    }
}

/// The [`KeyState`] of every key that has one.
#[derive(Default)]
pub(crate) struct Keys(hashbrown::HashMap<String, KeyState, FxBuildHasher>);

impl Keys {
    /// What is kept of `key`.
    #[inline]
    pub fn get(&self, key: &str) -> Option<&KeyState> {
        self.0.get(key)
    }

    /// What is kept of `key`, to change, if anything is (what it leaves
    /// empty stays until the key is next edited).
    pub fn get_mut(&mut self, key: &str) -> Option<&mut KeyState> {
        self.0.get_mut(key)
    }

    /// The request on its way for `key`, to change.
    pub(super) fn in_flight_mut(&mut self, key: &str) -> Option<&mut InFlight> {
        self.0.get_mut(key)?.in_flight.as_mut()
    }

    /// The last error of `key`, to change.
    pub fn error_mut(&mut self, key: &str) -> Option<&mut StoredError> {
        self.0.get_mut(key)?.error.as_mut()
    }

    /// What is kept of `key`, to change (empty when nothing was).
    pub fn state_mut(&mut self, key: &str) -> &mut KeyState {
        self.0.entry_ref(key).or_default()
    }

    /// Runs `edit` on what is kept of `key`, if anything is, and forgets
    /// the key once nothing is left of it.
    pub fn edit<R>(&mut self, key: &str, edit: impl FnOnce(&mut KeyState) -> R) -> Option<R> {
        let state = self.0.get_mut(key)?;
        let edited = edit(state);
        if state.is_empty() {
            self.0.remove(key);
        }
        Some(edited)
    }

    /// Runs `edit` on what is kept of every key, forgetting the keys it
    /// leaves empty.
    pub fn edit_all(&mut self, mut edit: impl FnMut(&mut KeyState)) {
        self.0.retain(|_, state| {
            edit(state);
            !state.is_empty()
        });
    }

    /// What is kept of each key.
    pub fn values(&self) -> impl Iterator<Item = &KeyState> {
        self.0.values()
    }

    /// The keys whose state `has`.
    pub fn having(&self, has: impl Fn(&KeyState) -> bool) -> impl Iterator<Item = &String> {
        self.0
            .iter()
            .filter(move |(_, kept)| has(kept))
            .map(|(key, _)| key)
    }

    /// Every key kept, with what is kept of it.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &KeyState)> {
        self.0.iter()
    }

    /// Gives back the room of keys a collection forgot.
    pub fn shrink_if_sparse(&mut self) {
        self.0.shrink_if_sparse();
    }
}

/// What a controller holds behind its handle.
pub(crate) struct State {
    pub store: Store,
    pub memo: Memo,
    /// What is kept of each read key besides its result.
    pub(crate) keys: Keys,
    /// Bumped by [`Controller::reset`]: responses to requests started in
    /// an earlier generation are dropped.
    pub(super) generation: u64,
    /// When the last [`Controller::reset`] emptied the cache: records
    /// that stood before it and come from outside (another tab) are not
    /// taken.
    #[cfg(any(feature = "tabs", feature = "persist"))]
    pub(super) reset_at: Timestamp,
    /// Numbers requests and stored errors.
    pub(super) serial: u64,
    /// The start time given to the last request (or invalidation).
    pub(super) last_start: Timestamp,
    /// What the cache keeps of what nothing uses.
    pub(super) retention: Retention,
    /// Lists the results a bound may evict, least recently used first:
    /// set with a bound only, so that a cache without one carries none
    /// of that code.
    pub(super) least_used: Option<LeastUsed>,
    /// When the next collection is due.
    pub(super) next_sweep: Timestamp,
    /// A collection is due at once when the results or the record slots
    /// pass these counts (the bounds, or more when held data alone passes
    /// them).
    pub(super) collect_above: (usize, usize),
    /// Keys whose error or request changed since observers last looked.
    pub(super) touched: Vec<String>,
    /// The responses kept for a cache handoff, and those taken back.
    pub(super) handoff: Handoff,
}

impl State {
    pub(super) fn next_serial(&mut self) -> u64 {
        self.serial += 1;
        self.serial
    }

    /// Whether a read request for `key` is on its way.
    pub(super) fn is_fetching(&self, key: &str) -> bool {
        self.keys
            .get(key)
            .is_some_and(|kept| kept.in_flight.is_some())
    }

    /// The last error of a read of `key`.
    pub(super) fn error(&self, key: &str) -> Option<&StoredError> {
        self.keys.get(key)?.error.as_ref()
    }

    /// A start time for a request (or an invalidation) beginning at `now`:
    /// later than every start time before it, so that of two that start
    /// within one tick of the clock, the later one is ordered after.
    pub(super) fn start_at(&mut self, now: Timestamp) -> Timestamp {
        self.last_start = now.max(self.last_start.next());
        self.last_start
    }
}

impl Controller {
    /// The state, to change, once the optimistic layers of mutations that
    /// went away while it was borrowed are removed.
    pub(crate) fn state_mut(&self) -> std::cell::RefMut<'_, State> {
        let mut state = self.inner.state.borrow_mut();
        if let Ok(mut dropped) = self.inner.dropped_layers.try_borrow_mut()
            && !dropped.is_empty()
        {
            for remove in dropped.drain(..) {
                remove(self, &mut state);
            }
            self.inner.notify_due.set(true);
        }
        state
    }

    /// `f`'s look at the store through the controller's memo; the views
    /// hear of what the look changed (optimistic layers given up while the
    /// cache was borrowed go at it).
    pub(crate) fn look_through_memo<R>(
        &self,
        f: impl FnOnce(&crate::cache::store::Store, &mut crate::cache::memo::Memo) -> R,
    ) -> R {
        let found = {
            let mut state = self.state_mut();
            let State { store, memo, .. } = &mut *state;
            f(store, memo)
        };
        self.notify_if_due();
        found
    }

    /// The start time of something that starts now (a request, an
    /// invalidation): now, or just after the last start if that is later.
    pub(crate) fn start_now(&self) -> Timestamp {
        let now = self.now();
        self.state_mut().start_at(now)
    }
}
