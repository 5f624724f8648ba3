//! The normalized store: entity tables, results by key, and their meta.
//! It is the bottom of the cache: it keeps records and results without
//! knowing their types' traits, and imports nothing of the layers that
//! walk values into it and out of it.
//!
//! `mod.rs` holds the store and what a read finds ([`Lookup`]); `results`
//! the results by key; `layer` optimistic values over the confirmed data;
//! `reach` which results hold a record; `collect` dropping what nothing
//! uses; `table` and `pk_index` the records of one entity type;
//! `registry` which table holds which type, and the change stamps.
//!
//! The typed API that walks values lives with the walks: storing a
//! response (`set`, `set_json`, `set_entity`, `invalidate_entity`) in
//! `cache/normalize/`, reading one (`read`, `get_entity`,
//! `entity_meta`) in `cache/denormalize/`.

mod collect;
mod layer;
mod numbers;
pub(crate) mod pk_index;
mod reach;
pub(crate) mod registry;
mod result_refs;
mod results;
pub(crate) mod table;

use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use rustc_hash::FxHashMap;

use crate::cache::entity::Entity;
use crate::meta::{Meta, Timestamp};
use crate::pk::PkValue;
use layer::LayeredResult;
use registry::Registry;
use table::EntityRef;

pub(crate) use collect::Unreached;
pub(crate) use layer::Layer;
pub(crate) use result_refs::Refs;
pub(crate) use results::{Joined, Joining, ListEdit, ResultSlot};

/// What changed in a store over a span of writes (see
/// [`Store::take_changes`]).
#[derive(Debug, Default)]
pub(crate) struct Changes {
    /// The result keys written, with repeats.
    pub results: Vec<String>,
    /// The records written.
    pub records: Vec<table::EntityRef>,
    /// The stamp bits of the records written.
    pub stamps: u64,
}

/// What a read finds under a key.
///
/// ```
/// use restcache::{Lookup, Meta};
/// use std::rc::Rc;
///
/// let read = Lookup::Found(Rc::new(5), Meta::default());
/// assert_eq!(read.value().map(|v| **v), Some(5));
/// assert!(Lookup::<i32>::Invalid.value().is_none());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Lookup<T> {
    /// The value, with the meta of the response that stored it.
    Found(Rc<T>, Meta),
    /// Stored once, but invalidated or deleted, or it needs an entity that
    /// was; a read should fetch again.
    Invalid,
    /// Nothing was ever stored under the key.
    Absent,
}

impl<T> Lookup<T> {
    /// The value, if found.
    pub fn value(&self) -> Option<&Rc<T>> {
        match self {
            Lookup::Found(value, _) => Some(value),
            _ => None,
        }
    }

    /// The value, if found.
    pub fn into_value(self) -> Option<Rc<T>> {
        match self {
            Lookup::Found(value, _) => Some(value),
            _ => None,
        }
    }

    /// The meta, if found.
    pub fn meta(&self) -> Option<&Meta> {
        match self {
            Lookup::Found(_, meta) => Some(meta),
            _ => None,
        }
    }
}

/// How a result stands with a response recorded for it (see
/// `Store::recorded_standing`).
pub(crate) struct RecordedStanding {
    /// When the result's value was fetched (a saved response's time).
    #[cfg_attr(not(feature = "persist"), allow(dead_code))]
    pub fetched_at: Timestamp,
    /// Written over since the response, or holding a record gone since
    /// (deleted or invalidated): the response no longer gives it.
    pub changed: bool,
    /// Past its expiry (expired by hand, or by time).
    pub expired: bool,
}

/// The normalized cache: every record stored once per (entity key, pk),
/// results stored by key as references to those records, and the meta
/// (fetch time, expiry) of each.
///
/// A write is whole or nothing: when any part of a response is bad, the
/// store is left exactly as it was. Of two responses that touch one record,
/// the one whose request *started* later wins, whatever order they arrive in.
///
/// ```
/// use restcache::prelude::*;
/// use std::rc::Rc;
///
/// #[derive(Entity, Clone, Debug, Default, PartialEq, Deserialize)]
/// #[serde(rename_all = "camelCase")]
/// struct Todo { id: u64, user_id: u64, title: String, completed: bool }
///
/// let mut store = Store::new();
/// let at = |ms| Meta { fetched_at: Timestamp::from_millis(ms), ..Meta::default() };
/// store.set_json::<Vec<Rc<Todo>>>("GET /todos", r#"[{"id":1,"userId":1,"title":"a","completed":false}]"#, at(1))?;
/// store.set_json::<Rc<Todo>>("GET /todos/1", r#"{"id":1,"userId":1,"title":"a","completed":true}"#, at(2))?;
///
/// // The list shows the newer copy of todo 1: it is stored once.
/// let list = store.read::<Vec<Rc<Todo>>>("GET /todos").into_value().unwrap();
/// assert!(list[0].completed);
/// assert_eq!(store.entity_count("Todo"), 1);
/// # Ok::<(), restcache::SchemaError>(())
/// ```
pub struct Store {
    /// Tells stores apart, so that a memo knows which one it remembers.
    id: u64,
    tables: Registry,
    results: FxHashMap<String, ResultSlot>,
    /// The results under optimistic layers, with their confirmed copies.
    result_layers: FxHashMap<String, LayeredResult>,
    /// Bumped whenever collection drops records and renumbers slots.
    layout: u64,
    /// The number of writes so far: each write takes the next number as
    /// its version, and slots, results and stamps record the version that
    /// last changed them.
    writes: u64,
    /// Names what the store holds: a number no other store, and no other
    /// moment of this one, has had. Each write and each renumbering takes a
    /// new one, so a reader that kept it knows, with one comparison, that
    /// nothing changed since.
    state: u64,
    /// The result keys written since the log was last taken, when someone
    /// watches.
    result_log: Option<Vec<String>>,
    /// Whether a record written again equal to its stored copy keeps it.
    share_equal: bool,
}

static NEXT_STORE_ID: AtomicU64 = AtomicU64::new(1);
static NEXT_STATE: AtomicU64 = AtomicU64::new(1);

/// A state number no store has had yet.
fn new_state() -> u64 {
    NEXT_STATE.fetch_add(1, Ordering::Relaxed)
}

impl Default for Store {
    fn default() -> Self {
        Store::new()
    }
}

impl Clone for Store {
    /// A copy that evolves on its own; records are shared, not copied.
    fn clone(&self) -> Self {
        Store {
            id: NEXT_STORE_ID.fetch_add(1, Ordering::Relaxed),
            tables: self.tables.clone(),
            results: self.results.clone(),
            result_layers: self.result_layers.clone(),
            layout: self.layout,
            writes: self.writes,
            state: new_state(),
            result_log: None,
            share_equal: self.share_equal,
        }
    }
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut map = f.debug_map();
        for (key, table) in self.tables.keys() {
            map.entry(&key, &self.tables.any(table).live());
        }
        map.entry(&"results", &self.results.len()).finish()
    }
}

impl Store {
    /// An empty store.
    pub fn new() -> Self {
        Store {
            id: NEXT_STORE_ID.fetch_add(1, Ordering::Relaxed),
            tables: Registry::new(),
            results: FxHashMap::default(),
            result_layers: FxHashMap::default(),
            layout: 0,
            writes: 0,
            state: new_state(),
            result_log: None,
            share_equal: false,
        }
    }

    /// Whether a record written again equal to its stored copy keeps the
    /// stored copy (off in a new store; a controller's is on, see
    /// [`ControllerBuilder::share_equal_copies`](crate::ControllerBuilder::share_equal_copies)). Equal
    /// means field by field, by each field type's `PartialEq` (nested
    /// records by identity); a record with a field whose type has none is
    /// never equal (as is one of a generic type parameter, unless the
    /// struct bounds it by `PartialEq`). Reads that hold the stored copy
    /// keep it, so a response that repeats what the store holds changes
    /// no view; a list result stored again keeps its last read when it
    /// is equal. The compare makes a write that repeats many records take
    /// longer (`refetch_projects_*` in `benches/normalize.rs`).
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Debug, Default, PartialEq, Deserialize)]
    /// struct Todo { id: u64, title: String }
    ///
    /// let mut store = Store::new();
    /// store.share_equal_copies(true);
    /// let todo = || Todo { id: 1, title: "milk".into() };
    /// let first = store.set_entity(todo(), Meta::default())?;
    /// let again = store.set_entity(todo(), Meta::default())?;
    /// assert!(Rc::ptr_eq(&first, &again));
    ///
    /// let mut plain = Store::new(); // takes each copy as it comes
    /// let first = plain.set_entity(todo(), Meta::default())?;
    /// let again = plain.set_entity(todo(), Meta::default())?;
    /// assert!(!Rc::ptr_eq(&first, &again));
    /// # Ok::<(), restcache::SchemaError>(())
    /// ```
    pub fn share_equal_copies(&mut self, share: bool) {
        self.share_equal = share;
    }

    /// An empty store that shares equal copies when `share` says.
    pub(crate) fn sharing(share: bool) -> Self {
        let mut store = Store::new();
        store.share_equal_copies(share);
        store
    }

    /// Whether the store keeps a stored record against an equal copy (see
    /// [`share_equal_copies`](Self::share_equal_copies)).
    pub fn shares_equal_copies(&self) -> bool {
        self.share_equal
    }

    /// [`invalidate_entity`](Store::invalidate_entity) by entity key, for
    /// code that knows the key but not the type.
    pub fn invalidate_entity_key(&mut self, key: &str, pk: impl PkValue, at: Timestamp) -> bool {
        let (Some(table), Some(pk)) = (self.tables.by_key(key), pk.to_pk()) else {
            return false;
        };
        let version = self.tick();
        let records = self.tables.any_mut(table);
        if !records.invalidate(&pk, at, version) {
            return false;
        }
        if let Some(slot) = records.slot_index(&pk) {
            self.tables.changed(table, slot, version);
        }
        true
    }

    /// The meta of the record `pk` in the table `key` (also when
    /// invalidated).
    pub(crate) fn entity_meta_by_key(&self, key: &str, pk: impl PkValue) -> Option<Meta> {
        let table = self.tables.by_key(key)?;
        self.tables.any(table).meta(&pk.to_pk()?)
    }

    /// The meta of the record in the slot `at` of a table of `E` (also
    /// when invalidated): no lookup by pk.
    pub(crate) fn meta_at<E: Entity>(&self, at: EntityRef) -> Option<Meta> {
        let records = self.tables.get::<E>(at.table)?;
        let slot = records.slot(at.slot)?;
        Some(records.origin_of(slot.origin).meta)
    }

    /// The meta of the result under `key` (also when invalidated).
    pub fn result_meta(&self, key: &str) -> Option<Meta> {
        self.results.get(key).map(|slot| slot.meta)
    }

    /// How many readable records the table `key` holds.
    pub fn entity_count(&self, key: &str) -> usize {
        self.tables
            .by_key(key)
            .map_or(0, |t| self.tables.any(t).live())
    }

    /// How many result keys the store holds (invalidated ones included).
    pub fn result_count(&self) -> usize {
        self.results.len()
    }

    /// The result keys the store holds, in no particular order.
    pub fn result_keys(&self) -> impl Iterator<Item = &str> {
        self.results.keys().map(String::as_str)
    }

    /// Tells this store from every other one (a clone gets its own).
    #[inline]
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// The slot layout: it changes when collection renumbers slots.
    #[inline]
    pub(crate) fn layout(&self) -> u64 {
        self.layout
    }

    /// The version of the last write.
    #[inline]
    pub(crate) fn last_write(&self) -> u64 {
        self.writes
    }

    /// What the store holds now, as a number that changes with every write
    /// and renumbering and is never reused, by this store or another.
    #[inline]
    pub(crate) fn state(&self) -> u64 {
        self.state
    }

    /// Whether no record among the stamps `mask` was written after the
    /// write `at`.
    #[inline]
    pub(crate) fn unchanged_since(&self, mask: u64, at: u64) -> bool {
        at == self.writes || self.tables.unchanged_since(mask, at)
    }

    /// The entity tables.
    /// How many writes the store has made: the version of the last.
    pub(crate) fn writes(&self) -> u64 {
        self.writes
    }

    /// How the result under `key` stands with a response recorded for it
    /// at write `written`, as of `now`; `None` when it holds no value
    /// (none, or invalidated).
    pub(crate) fn recorded_standing(
        &self,
        key: &str,
        written: u64,
        now: Timestamp,
    ) -> Option<RecordedStanding> {
        let slot = self.results.get(key)?;
        slot.value.as_ref()?;
        let gone = slot
            .refs
            .view()
            .iter()
            .any(|at| !self.tables.any(at.table).slot_state(at.slot).1);
        Some(RecordedStanding {
            fetched_at: slot.meta.fetched_at,
            changed: slot.version > written || gone,
            expired: slot.meta.expires_at < now,
        })
    }

    /// The records of `E` written after write `since` (see
    /// `Table::written_after`).
    #[cfg(any(feature = "tabs", feature = "persist"))]
    pub(crate) fn records_written_after<E: crate::cache::entity::Entity>(
        &self,
        since: u64,
    ) -> Vec<(crate::pk::Pk, Option<Rc<E>>, Timestamp)> {
        self.tables
            .by_key(E::KEY)
            .and_then(|table| self.tables.get::<E>(table))
            .map(|table| table.written_after(since))
            .unwrap_or_default()
    }

    /// The records of `E` the optimistic layer `layer` shows (see
    /// `Table::layer_records`).
    #[cfg(feature = "tabs")]
    pub(crate) fn records_in_layer<E: crate::cache::entity::Entity>(
        &self,
        layer: u64,
    ) -> Vec<(crate::pk::Pk, Rc<E>, Timestamp)> {
        self.tables
            .by_key(E::KEY)
            .and_then(|table| self.tables.get::<E>(table))
            .map(|table| table.layer_records(layer))
            .unwrap_or_default()
    }

    /// The meta of the confirmed copy of the record `pk` of `E`, beneath
    /// its optimistic layers if any.
    #[cfg(any(feature = "tabs", feature = "persist"))]
    pub(crate) fn confirmed_entity_meta<E: crate::cache::entity::Entity>(
        &self,
        pk: &crate::pk::Pk,
    ) -> Option<Meta> {
        self.tables
            .by_key(E::KEY)
            .and_then(|table| self.tables.get::<E>(table))
            .and_then(|table| table.confirmed_meta(pk))
    }

    #[inline]
    pub(crate) fn tables(&self) -> &Registry {
        &self.tables
    }

    /// The entity tables, to write.
    #[inline]
    pub(crate) fn tables_mut(&mut self) -> &mut Registry {
        &mut self.tables
    }

    /// The result slot under `key`.
    #[inline]
    pub(crate) fn result_slot(&self, key: &str) -> Option<&ResultSlot> {
        self.results.get(key)
    }

    /// Starts keeping a log of what changes: the result keys and the
    /// records written, taken with [`take_changes`](Self::take_changes).
    pub(crate) fn watch_changes(&mut self) {
        self.result_log.get_or_insert_with(Vec::new);
        self.tables.keep_log();
    }

    /// What changed since the last call: the result keys written (with
    /// repeats), the records written, and the stamp bits of the records
    /// written after the write `since`.
    pub(crate) fn take_changes(&mut self, since: u64) -> Changes {
        Changes {
            results: self
                .result_log
                .as_mut()
                .map(std::mem::take)
                .unwrap_or_default(),
            records: self.tables.take_log(),
            stamps: self.tables.changed_since(since),
        }
    }

    /// Whether the store keeps a log of what changes.
    pub(crate) fn is_watched(&self) -> bool {
        self.result_log.is_some()
    }

    /// Whether the result under `key` holds a value of another schema than
    /// `S` (two endpoints of different schemas share the key).
    pub(crate) fn holds_other_than<S: 'static>(&self, key: &str) -> bool {
        self.results
            .get(key)
            .and_then(|slot| slot.value.as_ref())
            .is_some_and(|value| !value.is::<S>())
    }

    /// Where the record `pk` of the entity table `key` lives, if it has
    /// a slot.
    /// Whether the record `pk` of the entity `key` is gone (deleted or
    /// invalidated) as the store shows it.
    pub(crate) fn record_gone(&self, key: &str, pk: &crate::pk::Pk) -> bool {
        self.record_ref(key, pk).is_some_and(|record| {
            let (_, held) = self.tables.any(record.table).slot_state(record.slot);
            !held
        })
    }

    pub(crate) fn record_ref(&self, key: &str, pk: &crate::pk::Pk) -> Option<table::EntityRef> {
        let table = self.tables.by_key(key)?;
        let slot = self.tables.any(table).slot_index(pk)?;
        Some(table::EntityRef { table, slot })
    }

    /// The records the result under `key` refers to directly (for a
    /// schema without nested records: every record its reads show).
    pub(crate) fn result_refs(&self, key: &str) -> Refs<'_> {
        self.results
            .get(key)
            .map_or(Refs::NONE, |slot| slot.refs.view())
    }

    /// Notes that the result under `key` changed, when someone watches.
    pub(crate) fn log_result(&mut self, key: &str) {
        if let Some(log) = &mut self.result_log {
            log.push(key.to_owned());
        }
    }

    /// Gives the store a new state: a reader that kept the old one reads
    /// again.
    fn renew_state(&mut self) {
        self.state = new_state();
    }

    /// Notes that slots were renumbered.
    fn renumbered(&mut self) {
        self.renew_state();
        self.layout += 1;
    }

    /// Goes on numbering its writes after `writes` (a store that takes
    /// another's place, emptied by a reset): an optimistic layer's id, a
    /// write's version, is never given twice in one controller.
    pub(crate) fn numbered_after(mut self, writes: u64) -> Self {
        self.writes = writes;
        self
    }

    /// Takes the next write version.
    pub(crate) fn tick(&mut self) -> u64 {
        self.renew_state();
        self.writes += 1;
        self.writes
    }
}
