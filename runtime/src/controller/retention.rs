//! Retention: what the cache keeps of what nothing uses, and how much it
//! keeps at most.
//!
//! Mounted reads and subscriptions hold the results they read, with every
//! record in them; so do reads on their way. A result nothing holds goes
//! once it has been unused (not held, not read) for longer than its expiry
//! allows; the bounds, when set, evict the least recently used results
//! nothing holds first. Records go when no result reaches them.

use std::collections::BinaryHeap;
use std::time::Duration;

use rustc_hash::FxHashSet;

use super::observe::Holds;
use super::state::KeyState;
use super::{Controller, State};
use crate::cache::store::Unreached;
use crate::meta::Timestamp;
use crate::pk::Pk;

/// How long the cache keeps results nothing uses, and how many results and
/// records it keeps at most; set with
/// [`ControllerBuilder::retention`](super::ControllerBuilder::retention).
///
/// A result nothing holds goes once unused for the longer of `min_unused`
/// and `expiry_factor` times its data expiry (by default: 2 minutes, or
/// twice the expiry). Over a bound, the least recently used results nothing
/// holds go first, down to 90% of the bound (so that eviction runs once
/// per tenth of the bound, not on every write), with the records only
/// they held.
///
/// ```
/// use restcache::prelude::*;
/// use restcache::Retention;
///
/// let ctrl = Controller::builder(Client::new("http://127.0.0.1:8080"))
///     .retention(Retention { max_results: Some(1_000), ..Retention::default() })
///     .build();
/// # let _ = ctrl;
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retention {
    /// The shortest time a result stays once unused; `None` keeps unused
    /// results for good (only the bounds evict).
    pub min_unused: Option<Duration>,
    /// A result stays unused at least this many times its data expiry.
    pub expiry_factor: u32,
    /// The most results kept (`None`: no bound).
    pub max_results: Option<usize>,
    /// The most records kept, over every entity type (`None`: no bound).
    pub max_entities: Option<usize>,
}

impl Retention {
    /// How a sweep lists what its bounds may evict: only a retention
    /// with a bound has a way.
    pub(crate) fn least_used(&self) -> Option<LeastUsed> {
        let bounded = self.max_results.is_some() || self.max_entities.is_some();
        bounded.then_some(least_recently_used as LeastUsed)
    }

    /// Keeps everything until [`reset`](Controller::reset).
    pub const KEEP_ALL: Retention = Retention {
        min_unused: None,
        expiry_factor: 2,
        max_results: None,
        max_entities: None,
    };

    /// How long a result whose data expiry is `expiry` stays unused.
    fn keep(&self, expiry: Duration) -> Option<Duration> {
        let min = self.min_unused?;
        Some(min.max(expiry.saturating_mul(self.expiry_factor)))
    }

    /// How often a sweep runs: every quarter of the shortest keep time.
    fn sweep_every(&self) -> Option<Duration> {
        self.min_unused
            .map(|min| (min / 4).max(Duration::from_millis(100)))
    }
}

impl Default for Retention {
    /// Unused results go after 2 minutes, or twice their data expiry if
    /// longer; no bounds.
    fn default() -> Self {
        Retention {
            min_unused: Some(Duration::from_secs(120)),
            ..Retention::KEEP_ALL
        }
    }
}

/// What one collection freed.
///
/// ```
/// use restcache::Collected;
/// assert_eq!(Collected::default(), Collected { results: 0, records: 0 });
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Collected {
    /// Results removed.
    pub results: usize,
    /// Records removed (with their slots).
    pub records: usize,
}

/// When a key was last used, and how long it stays unused.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Used {
    at: Timestamp,
    keep: Option<Duration>,
}

impl Used {
    fn expired(&self, now: Timestamp) -> bool {
        self.keep.is_some_and(|keep| self.at + keep < now)
    }
}

impl State {
    /// Notes that `key`, whose data expiry is `expiry`, was used at `now`;
    /// returns what is kept of it.
    pub(super) fn note_use(
        &mut self,
        key: &str,
        now: Timestamp,
        expiry: Duration,
    ) -> &mut KeyState {
        let keep = self.retention.keep(expiry);
        let kept = self.keys.state_mut(key);
        kept.used = Some(Used { at: now, keep });
        kept
    }

    /// Whether a bound is passed by more than the last collection could
    /// not help: a bound that held results alone pass does not make every
    /// write collect.
    fn over_bounds(&self) -> bool {
        let (results, slots) = self.collect_above;
        self.store.result_count() > results || self.store.slot_count() > slots
    }

    /// Removes every trace of the result `key`. Returns whether the store
    /// held it.
    fn forget(&mut self, key: &str) -> bool {
        if !self.store.remove_result(key) && self.store.result_meta(key).is_some() {
            return false; // under an optimistic layer: it stays
        }
        self.memo.forget(key);
        self.keys.edit(key, |kept| {
            kept.error = None;
            kept.pages = None;
            kept.used = None;
            // A read answered from a record keeps only an invalidation
            // or expiry by its key, for its next read.
            kept.from_record.take_if(|answer| answer.is_plain());
        });
        self.touch(key);
        self.handoff.recorded.remove(key);
        true
    }
}

impl Controller {
    /// Collects now what nothing uses (see [`Retention`]); the controller
    /// also does so on its own after a write, every quarter of the
    /// shortest keep time and whenever a bound is passed.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::Collected;
    /// use std::{rc::Rc, time::Duration};
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// let clock = ManualClock::at(Timestamp::from_millis(0));
    /// let ctrl = Controller::builder(Client::new("http://127.0.0.1:8080")).clock(clock.clone()).build();
    /// ctrl.set_response(&TodoResource::get(), &TodoResourceParams { id: 1 }, Rc::new(Todo { id: 1 }))?;
    /// clock.advance(Duration::from_secs(121));
    /// assert_eq!(ctrl.collect_garbage(), Collected { results: 1, records: 1 });
    /// # Ok::<(), restcache::WriteError>(())
    /// ```
    pub fn collect_garbage(&self) -> Collected {
        let collected = self.collect_now();
        // Observers hear of what went (a read of it finds nothing now).
        self.notify();
        collected
    }

    /// Collects now, without telling observers (the caller does).
    fn collect_now(&self) -> Collected {
        let subscribers = self.inner.observers.borrow();
        let mut state = self.state_mut();
        let longest_request = self.inner.client.timeout();
        collect(&mut state, subscribers.held(), self.now(), longest_request)
    }

    /// Collects when a collection is due.
    pub(super) fn collect_if_due(&self) {
        let now = self.now();
        let due = {
            let state = self.inner.state.borrow();
            now >= state.next_sweep || state.over_bounds()
        };
        if due {
            self.collect_now();
        }
    }
}

/// Collects in `state` what nothing among `held` and the reads on their way
/// holds, as of `now`; a response may still land `longest_request` after
/// its request started, and a read on its way whenever it lands (an
/// endpoint may allow longer, and retries add to it).
fn collect<'h>(
    state: &mut State,
    held: impl Iterator<Item = &'h Holds>,
    now: Timestamp,
    longest_request: Duration,
) -> Collected {
    let retention = state.retention;
    // A list whose next page is on its way is in use too.
    let reading = state
        .keys
        .having(|kept| kept.requests().next().is_some() || kept.next_page.is_some());
    let mut keys: FxHashSet<String> = reading.cloned().collect();
    // The records derived queries read by pk, owned here: their reads
    // are borrowed only while they are looked at.
    let mut derived_roots: Vec<(&'static str, Pk)> = Vec::new();
    let mut roots: Vec<(&str, &Pk)> = Vec::new();
    let mut whole_tables: Vec<&str> = Vec::new();
    for holds in held {
        match holds {
            Holds::Result(key) => drop(keys.insert(key.clone())),
            Holds::ResultAndTable(key, entity) => {
                keys.insert(key.clone());
                whole_tables.push(entity);
            }
            Holds::Derived(read) => {
                let read = read.borrow();
                keys.extend(read.results.iter().cloned());
                whole_tables.extend(read.tables.iter().copied());
                derived_roots.extend(read.records.iter().cloned());
            }
            Holds::ResultAndRecord(key, entity, pk) => {
                keys.insert(key.clone());
                roots.push((entity, pk));
            }
            Holds::Record(entity, pk) => roots.push((entity, pk)),
            Holds::Nothing => {}
        }
    }
    roots.extend(derived_roots.iter().map(|(entity, pk)| (*entity, pk)));
    note_uses(state, &keys, now);
    let expired: Vec<String> = state
        .keys
        .iter()
        .filter(|(key, kept)| {
            !keys.contains(*key) && kept.used.is_some_and(|used| used.expired(now))
        })
        .map(|(key, _)| key.clone())
        .collect();
    let mut collected = Collected {
        results: forget_all(state, expired),
        records: 0,
    };

    // Over a bound, the least recently used results nothing holds go
    // first (not one used this very moment: it may be a read that is about
    // to be looked at), down to 90% of the bound.
    let mut evictable = match state.least_used {
        Some(least_used) => least_used(state, &keys, now),
        None => Vec::new(),
    };
    let mut evicted = false;
    if let Some(max) = retention.max_results
        && state.store.result_count() > max
    {
        let excess = state.store.result_count() - (max - max / 10);
        let chosen: Vec<String> = evictable.drain(..excess.min(evictable.len())).collect();
        collected.results += forget_all(state, chosen);
        evicted = true;
    }
    let ago = |duration: Duration| {
        let micros = u64::try_from(duration.as_micros()).unwrap_or(u64::MAX);
        Timestamp::from_micros(now.as_micros().saturating_sub(micros))
    };
    // A response handed over or restored and not read yet goes once
    // unused as long as a result would; while it waits, the records and
    // deletion marks it may meet stay (a newer copy must win over it).
    if let Some(min) = retention.min_unused {
        state
            .handoff
            .pending
            .retain(|_, pending| pending.taken >= ago(min));
    }
    let oldest_waiting = state
        .handoff
        .pending
        .values()
        .map(|pending| pending.arrived)
        .min();
    let mut rule = Unreached {
        // Records no result reaches go once as old as the shortest keep
        // time (one a mutation brought may still be read by pk); after an
        // eviction, at once.
        before: match retention.min_unused {
            _ if evicted => now.next(),
            _ if oldest_waiting.is_some() => Timestamp::default(),
            Some(min) => ago(min),
            None => Timestamp::default(),
        },
        gone_before: state
            .keys
            .values()
            .flat_map(|kept| kept.requests().map(|request| request.started))
            .chain(oldest_waiting)
            .fold(ago(longest_request), Timestamp::min),
        at_most: retention.max_entities.map(|max| max - max / 10),
    };
    loop {
        let dropped = state.store.collect_records(&roots, &whole_tables, rule);
        collected.records += dropped.records;
        let over = rule
            .at_most
            .is_some_and(|most| state.store.slot_count() > most);
        if dropped.skipped || !over || evictable.is_empty() {
            break;
        }
        // Records that results still hold: evict the least recently used
        // tenth of those results, and look again.
        let chosen: Vec<String> = evictable.drain(..evictable.len().div_ceil(10)).collect();
        collected.results += forget_all(state, chosen);
        rule.before = now.next();
    }

    if collected.results > 0 {
        shrink_if_sparse(state);
    }
    state.next_sweep = match retention.sweep_every() {
        Some(every) => now + every,
        None => Timestamp::from_micros(u64::MAX),
    };
    let above = |max: Option<usize>, count: usize| match max {
        Some(max) => max.max(count + max / 10),
        None => usize::MAX,
    };
    state.collect_above = (
        above(retention.max_results, state.store.result_count()),
        above(retention.max_entities, state.store.slot_count()),
    );
    collected
}

/// Gives back the room of the maps by key that a collection emptied
/// (a hash map keeps its room when keys go).
fn shrink_if_sparse(state: &mut State) {
    state.store.shrink_if_sparse();
    state.memo.shrink_if_sparse();
    state.keys.shrink_if_sparse();
}

/// Notes a use at `now` of every key in `held`, and of every stored key no
/// read noted (stored through the store's own API).
fn note_uses(state: &mut State, held: &FxHashSet<String>, now: Timestamp) {
    let keep = state.retention.keep(Duration::ZERO);
    let State { store, keys, .. } = state;
    for key in store.result_keys() {
        if keys.get(key).is_none_or(|kept| kept.used.is_none()) {
            keys.state_mut(key).used = Some(Used { at: now, keep });
        }
    }
    for key in held {
        if let Some(used) = keys.get_mut(key).and_then(|kept| kept.used.as_mut()) {
            used.at = now;
        }
    }
}

/// Forgets every trace of `keys`; returns how many results went.
fn forget_all(state: &mut State, keys: Vec<String>) -> usize {
    keys.iter()
        .filter(|key| {
            let stored = state.store.result_meta(key).is_some();
            state.forget(key) && stored
        })
        .count()
}

/// Lists the stored results nothing in `held` holds and not used at
/// `now`, least recently used first.
pub(crate) type LeastUsed = fn(&State, &FxHashSet<String>, Timestamp) -> Vec<String>;

/// The stored results nothing in `held` holds and not used at `now`, least
/// recently used first.
fn least_recently_used(state: &State, held: &FxHashSet<String>, now: Timestamp) -> Vec<String> {
    let left: BinaryHeap<(Timestamp, &String)> = state
        .keys
        .iter()
        .filter_map(|(key, kept)| Some((key, kept.used?)))
        .filter(|(key, used)| {
            used.at < now && !held.contains(*key) && state.store.result_meta(key).is_some()
        })
        .map(|(key, used)| (used.at, key))
        .collect();
    // A heap sort (each key is once, so the order is the same as any
    // sort's): far less code in a browser bundle than the slice sorts.
    left.into_sorted_vec()
        .into_iter()
        .map(|(_, key)| key.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::controller::state::FromRecord;
    use crate::controller::{Controller, ManualClock};
    use crate::http::Client;
    use crate::meta::Timestamp;

    #[test]
    fn a_read_answered_from_a_record_leaves_no_state_once_unused() {
        let clock = ManualClock::at(Timestamp::from_millis(1_000_000));
        let ctrl = Controller::builder(Client::new("http://127.0.0.1:9"))
            .clock(clock.clone())
            .build();
        let expiry = Duration::from_secs(60);
        let (now, marked) = (
            ctrl.now(),
            FromRecord {
                invalid_as_of: Some(ctrl.now()),
                ..FromRecord::default()
            },
        );
        for (key, answer) in [("/todos/1", FromRecord::default()), ("/todos/2", marked)] {
            let mut state = ctrl.state_mut();
            state.note_use(key, now, expiry).from_record = Some(answer);
        }
        clock.advance(Duration::from_secs(121));
        ctrl.collect_garbage();
        let state = ctrl.state_mut();
        let left: Vec<&str> = state.keys.iter().map(|(key, _)| key.as_str()).collect();
        assert_eq!(
            left,
            ["/todos/2"],
            "a plain answer goes; an invalidation by key is kept for the next read"
        );
    }
}
