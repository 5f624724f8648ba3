//! What a controller holds behind its handle: the store and its memo,
//! the errors beside the data, the read requests on their way, what the
//! cache keeps of what nothing uses, and the handoff.

use std::any::Any;
use std::rc::Rc;

use futures_util::future::{LocalBoxFuture, Shared};
use rustc_hash::FxHashMap;

use super::expiry::StoredError;
use super::handoff::Handoff;
use super::retention::{self, Retention};
use crate::cache::memo::Memo;
use crate::cache::store::Store;
use crate::http::Error;
use crate::meta::Timestamp;

/// The response of one request, shared by every read waiting on it.
pub(super) type SharedResponse = Shared<LocalBoxFuture<'static, Result<Rc<dyn Any>, Error>>>;

/// A read request on its way.
pub(super) struct InFlight {
    pub id: u64,
    pub response: SharedResponse,
    /// How many callers wait on it; none left cancels it.
    pub waiters: usize,
}

/// What a controller holds behind its handle.
pub(crate) struct State {
    pub store: Store,
    pub memo: Memo,
    /// The last error of each read key.
    pub errors: FxHashMap<String, StoredError>,
    pub(super) in_flight: FxHashMap<String, InFlight>,
    /// Bumped by [`Controller::reset`]: responses to requests started in
    /// an earlier generation are dropped.
    pub(super) generation: u64,
    /// Numbers requests and stored errors.
    pub(super) serial: u64,
    /// The start time given to the last request (or invalidation).
    pub(super) last_start: Timestamp,
    /// What the cache keeps of what nothing uses.
    pub(super) retention: Retention,
    /// When each read key was last used.
    pub(super) usage: FxHashMap<String, retention::Used>,
    /// When the next collection is due.
    pub(super) next_sweep: Timestamp,
    /// The lists whose next page is on its way, with that page's fetch.
    pub(super) paging: FxHashMap<String, Shared<LocalBoxFuture<'static, Result<bool, Error>>>>,
    /// How each cached paginated list pages (its page params filter
    /// nothing).
    pub(crate) pages: FxHashMap<String, crate::rest::Pagination>,
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
        self.in_flight.contains_key(key)
    }

    /// A start time for a request (or an invalidation) beginning at `now`:
    /// later than every start time before it, so that of two that start
    /// within one tick of the clock, the later one is ordered after.
    pub(super) fn start_at(&mut self, now: Timestamp) -> Timestamp {
        self.last_start = now.max(self.last_start.next());
        self.last_start
    }
}
