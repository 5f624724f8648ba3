//! The observers of one controller, indexed by what they watch: a write
//! re-checks only the observers of the result keys and records it
//! touched.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use futures_util::future::AbortHandle;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::poll::Poller;
use crate::cache::store::table::EntityRef;
use crate::controller::{Controller, State};
use crate::meta::Timestamp;
use crate::small_sort::insertion_sort;

/// Re-checks one observed read.
pub(crate) type Check = Box<dyn FnMut(&mut State, Timestamp) -> Look>;

/// What a look at an observed read found.
pub(crate) struct Look {
    /// Whether it changed since the last look.
    pub changed: bool,
    /// What a write must touch to change it now.
    pub watching: Watching,
    /// When its data expires, if it has data.
    pub expires_at: Option<Timestamp>,
}

/// Refetches an observed read in the background if it is stale.
pub(crate) type Revalidate = Rc<dyn Fn(&Controller)>;

/// What a write must touch to change an observed read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) enum Watching {
    /// Nothing beside its key: no data, or no records in it.
    #[default]
    Key,
    /// These records (a read without nested records: every record it
    /// shows is one of them).
    Records(Vec<EntityRef>),
    /// Any record with these stamp bits (a read whose
    /// records nest others).
    Stamps(u64),
    /// Any change at all (a derived view, which may read anything).
    Any,
}

/// What an observer keeps from collection while it lives.
pub(crate) enum Holds {
    Nothing,
    /// The result under this key, with every record in it.
    Result(String),
    /// One record.
    Record(&'static str, crate::pk::Pk),
    /// The result under this key, and the record it names (the read is
    /// answered from that record while the key holds no result).
    ResultAndRecord(String, &'static str, crate::pk::Pk),
    /// The result under this key, and every record of this entity type
    /// (a read that shows them all).
    ResultAndTable(String, &'static str),
    /// What a derived query read last: the entity types it listed every
    /// record of, the results and the records it read.
    Derived(Rc<RefCell<crate::cache::derived::LastRead>>),
}

impl Holds {
    /// What a read `key` of schema `S` holds, `named` the pks of the
    /// record it names.
    pub fn of_read<S: crate::cache::schema::Schema>(
        key: Option<&str>,
        named: &crate::controller::Named,
    ) -> Holds {
        let record = <S as crate::cache::schema::SchemaParts>::RECORD;
        if let (Some(key), Some(entity)) = (key, <S as crate::cache::schema::SchemaParts>::EVERY_OF)
        {
            return Holds::ResultAndTable(key.to_owned(), entity);
        }
        match (key, record, named.first()) {
            (Some(key), Some((entity, _)), Some(pk)) => {
                Holds::ResultAndRecord(key.to_owned(), entity, pk.clone())
            }
            (Some(key), _, _) => Holds::Result(key.to_owned()),
            (None, _, _) => Holds::Nothing,
        }
    }
}

/// One observer, as the controller knows it.
pub(crate) struct Entry {
    /// Cleared when its [`Subscription`](super::Subscription) is dropped.
    pub alive: Rc<Cell<bool>>,
    /// The result key it reads, if any.
    pub key: Option<String>,
    pub holds: Holds,
    pub check: Check,
    pub on_change: Rc<dyn Fn()>,
    /// Set for a read that refetches when stale on focus and reconnect.
    pub revalidate: Option<Revalidate>,
    /// Its polling period, for a read that polls.
    pub poll: Option<Duration>,
    pub watching: Watching,
    /// When its data expires, as of the last look.
    pub expires_at: Option<Timestamp>,
}

impl Look {
    /// A look at nothing (a read with no key): never a change.
    pub fn nothing() -> Self {
        Look {
            changed: false,
            watching: Watching::Key,
            expires_at: None,
        }
    }
}

impl Entry {
    /// An observer of `key` holding `holds`, told through `on_change` of
    /// what `check` finds; it neither revalidates nor polls.
    pub fn new(key: Option<String>, holds: Holds, check: Check, on_change: Rc<dyn Fn()>) -> Self {
        Entry {
            alive: Rc::default(),
            key,
            holds,
            check,
            on_change,
            revalidate: None,
            poll: None,
            watching: Watching::Key,
            expires_at: None,
        }
    }
}

/// What changed since observers last looked.
pub(crate) struct Touched {
    /// Result keys written, and keys whose error or request changed.
    pub keys: Vec<String>,
    pub records: Vec<EntityRef>,
    /// Stamp bits of the records written.
    pub stamps: u64,
    /// Everything may have changed (the store was emptied or renumbered).
    pub all: bool,
}

/// What a check of one observer calls for.
#[derive(Default)]
pub(crate) struct Checked {
    pub on_change: Option<Rc<dyn Fn()>>,
    /// Its read just went stale: revalidate it.
    pub revalidate: Option<Revalidate>,
    /// Its read, which revalidates, expires then (a new expiry).
    pub expires_at: Option<Timestamp>,
}

/// The observers of one controller.
#[derive(Default)]
pub(crate) struct Observers {
    entries: Vec<Option<Entry>>,
    free: Vec<u32>,
    by_key: FxHashMap<String, SmallVec<[u32; 2]>>,
    by_record: FxHashMap<EntityRef, SmallVec<[u32; 2]>>,
    /// The observers that watch stamps, or any change.
    by_stamps: Vec<u32>,
    /// The pollers, by key.
    pub polls: FxHashMap<String, Poller>,
    /// The store (id, slot layout, last write) as of the last look.
    pub seen: (u64, u64, u64),
    /// The timer that revalidates the reads that go stale, with when it
    /// fires.
    pub expiry_timer: Option<(Timestamp, AbortHandle)>,
    live: usize,
}

impl Observers {
    /// Adds `entry`; returns its id.
    pub fn add(&mut self, entry: Entry) -> u32 {
        self.live += 1;
        let id = match self.free.pop() {
            Some(id) => id,
            None => {
                self.entries.push(None);
                (self.entries.len() - 1) as u32
            }
        };
        if let Some(key) = &entry.key {
            self.by_key.entry(key.clone()).or_default().push(id);
        }
        self.index(id, &entry.watching);
        self.entries[id as usize] = Some(entry);
        id
    }

    /// Removes the observer `id` (and its share of its key's polling).
    pub fn remove(&mut self, id: u32) {
        let Some(entry) = self.entries.get_mut(id as usize).and_then(Option::take) else {
            return;
        };
        self.live -= 1;
        self.free.push(id);
        self.unindex(id, &entry.watching);
        if let Some(key) = &entry.key {
            unlist(&mut self.by_key, key, id);
            if entry.poll.is_some()
                && let Some(poller) = self.polls.get_mut(key)
            {
                poller.leave(id);
                if poller.is_idle() {
                    self.polls.remove(key);
                }
            }
        }
    }

    /// Removes the observer `id` if it is the one kept alive by `alive`
    /// (an id is reused once its observer is gone).
    pub fn remove_if(&mut self, id: u32, alive: &Rc<Cell<bool>>) {
        if self
            .get(id)
            .is_some_and(|entry| Rc::ptr_eq(&entry.alive, alive))
        {
            self.remove(id);
        }
    }

    /// Removes the observers in `dead`, whose subscription went while the
    /// registry was in use.
    pub fn prune(&mut self, dead: Vec<(u32, Rc<Cell<bool>>)>) {
        for (id, alive) in dead {
            self.remove_if(id, &alive);
        }
    }

    /// The ids of every observer.
    fn ids(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.entries.len() as u32).filter(|&id| self.entries[id as usize].is_some())
    }

    /// The observers a change of `touched` may concern, each once, in
    /// ascending id order.
    pub fn candidates(&self, touched: &Touched) -> Vec<u32> {
        if touched.all {
            return self.ids().collect();
        }
        let mut ids: Vec<u32> = Vec::new();
        for key in &touched.keys {
            if let Some(found) = self.by_key.get(key) {
                ids.extend(found);
            }
        }
        for record in &touched.records {
            if let Some(found) = self.by_record.get(record) {
                ids.extend(found);
            }
        }
        let any = touched.stamps != 0 || !touched.keys.is_empty() || !touched.records.is_empty();
        if any {
            ids.extend(self.by_stamps.iter().copied().filter(|&id| {
                match self.entries[id as usize].as_ref().map(|e| &e.watching) {
                    Some(Watching::Stamps(bits)) => bits & touched.stamps != 0,
                    Some(Watching::Any) => true,
                    _ => false,
                }
            }));
        }
        in_order_once(&mut ids, self.entries.len());
        ids
    }

    /// Re-checks the observer `id` against `state` at `now`: its callback
    /// when its read changed, and its revalidation when the read just
    /// went stale by a write (its expiry moved into the past).
    pub fn check(&mut self, id: u32, state: &mut State, now: Timestamp) -> Checked {
        let Some(entry) = self.entries.get_mut(id as usize).and_then(Option::as_mut) else {
            return Checked::default();
        };
        if !entry.alive.get() {
            return Checked::default();
        }
        let Look {
            changed,
            watching,
            expires_at,
        } = (entry.check)(state, now);
        let moved = expires_at != entry.expires_at;
        entry.expires_at = expires_at;
        let checked = Checked {
            on_change: changed.then(|| Rc::clone(&entry.on_change)),
            revalidate: entry
                .revalidate
                .clone()
                .filter(|_| moved && expires_at.is_some_and(|at| at < now)),
            expires_at: expires_at.filter(|_| moved && entry.revalidate.is_some()),
        };
        if watching != entry.watching {
            let old = std::mem::replace(&mut entry.watching, watching.clone());
            self.unindex(id, &old);
            self.index(id, &watching);
        }
        checked
    }

    /// The revalidations of the reads that went stale by `now`, and when
    /// the next read that revalidates goes stale.
    pub fn expired(&self, now: Timestamp) -> (Vec<Revalidate>, Option<Timestamp>) {
        let mut due = Vec::new();
        let mut next: Option<Timestamp> = None;
        for entry in self.entries() {
            let (Some(revalidate), Some(at)) = (&entry.revalidate, entry.expires_at) else {
                continue;
            };
            if at < now {
                due.push(Rc::clone(revalidate));
            } else {
                next = Some(next.map_or(at, |next| next.min(at)));
            }
        }
        (due, next)
    }

    fn index(&mut self, id: u32, watching: &Watching) {
        match watching {
            Watching::Key => {}
            Watching::Records(records) => {
                for record in records {
                    let ids = self.by_record.entry(*record).or_default();
                    if !ids.contains(&id) {
                        ids.push(id);
                    }
                }
            }
            Watching::Stamps(_) | Watching::Any => self.by_stamps.push(id),
        }
    }

    fn unindex(&mut self, id: u32, watching: &Watching) {
        match watching {
            Watching::Key => {}
            Watching::Records(records) => {
                for record in records {
                    unlist(&mut self.by_record, record, id);
                }
            }
            Watching::Stamps(_) | Watching::Any => self.by_stamps.retain(|&other| other != id),
        }
    }

    /// The observer `id`.
    pub fn get(&self, id: u32) -> Option<&Entry> {
        self.entries.get(id as usize)?.as_ref()
    }

    /// Whether a live observer of the read `key` refetches it once it is
    /// stale (or invalidated).
    #[cfg(feature = "tabs")]
    pub fn refetches(&self, key: &str) -> bool {
        self.by_key.get(key).is_some_and(|ids| {
            ids.iter().any(|&id| {
                self.get(id)
                    .is_some_and(|entry| entry.alive.get() && entry.revalidate.is_some())
            })
        })
    }

    /// The live observers.
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.entries
            .iter()
            .flatten()
            .filter(|entry| entry.alive.get())
    }

    /// What the live observers hold.
    pub fn held(&self) -> impl Iterator<Item = &Holds> {
        self.entries().map(|entry| &entry.holds)
    }

    /// How many observers are live.
    pub fn len(&self) -> usize {
        self.entries().count().min(self.live)
    }
}

/// Takes `id` off the list under `key`, and the list when it empties.
fn unlist<K: std::hash::Hash + Eq + Clone>(
    index: &mut FxHashMap<K, SmallVec<[u32; 2]>>,
    key: &K,
    id: u32,
) {
    if let Some(ids) = index.get_mut(key) {
        ids.retain(|other| *other != id);
        if ids.is_empty() {
            index.remove(key);
        }
    }
}

/// Puts `ids`, each below `len`, in ascending order, each once, without
/// std's slice sorts (see [`insertion_sort`]): a few ids (most writes
/// concern one or two observers) by insertion, more through a bitset.
fn in_order_once(ids: &mut Vec<u32>, len: usize) {
    if ids.len() <= 16 {
        insertion_sort(ids, |a, b| a > b);
        ids.dedup();
        return;
    }
    let mut marked = vec![0u64; len.div_ceil(64)];
    for &id in ids.iter() {
        marked[id as usize / 64] |= 1 << (id % 64);
    }
    ids.clear();
    for (word_at, mut word) in marked.into_iter().enumerate() {
        while word != 0 {
            ids.push(word_at as u32 * 64 + word.trailing_zeros());
            word &= word - 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::in_order_once;

    #[test]
    fn ids_come_out_in_order_and_once_few_or_many() {
        let mut few = vec![9, 3, 9, 0, 3];
        in_order_once(&mut few, 10);
        assert_eq!(few, [0, 3, 9]);

        // Past the insertion sort's reach: ids from both ends of several
        // words, each three times.
        let wanted: Vec<u32> = (0..200)
            .filter(|id| id % 7 == 0 || id % 64 == 0 || id % 64 == 63 || *id == 199)
            .collect();
        let mut many: Vec<u32> = wanted
            .iter()
            .rev()
            .chain(&wanted)
            .chain(&wanted)
            .copied()
            .collect();
        assert!(many.len() > 16);
        in_order_once(&mut many, 200);
        assert_eq!(many, wanted);
    }
}
