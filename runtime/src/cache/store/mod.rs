//! The normalized store: entity tables, results by key, and their meta.

pub(crate) mod pk_index;
pub(crate) mod table;

use std::any::{Any, TypeId};
use std::rc::Rc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use rustc_hash::FxHashMap;
use serde::de::DeserializeOwned;

use crate::cache::denormalize::Reader;
use crate::cache::entity::Entity;
use crate::cache::normalize::{Normalizer, TableUndo, Undo};
use crate::cache::schema::Schema;
use crate::error::SchemaError;
use crate::json::from_json;
use crate::meta::{Meta, Timestamp};
use crate::pk::PkValue;
use table::{AnyTable, Dep, Table};

/// What a read finds under a key.
///
/// ```
/// use restcache::{Read, Meta};
/// use std::rc::Rc;
///
/// let read = Read::Found(Rc::new(5), Meta::default());
/// assert_eq!(read.value().map(|v| **v), Some(5));
/// assert!(Read::<i32>::Invalid.value().is_none());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Read<T> {
    /// The value, with the meta of the response that stored it.
    Found(Rc<T>, Meta),
    /// Stored once, but invalidated or deleted, or it needs an entity that
    /// was; a read should fetch again.
    Invalid,
    /// Nothing was ever stored under the key.
    Absent,
}

impl<T> Read<T> {
    /// The value, if found.
    pub fn value(&self) -> Option<&Rc<T>> {
        match self {
            Read::Found(value, _) => Some(value),
            _ => None,
        }
    }

    /// The value, if found.
    pub fn into_value(self) -> Option<Rc<T>> {
        match self {
            Read::Found(value, _) => Some(value),
            _ => None,
        }
    }

    /// The meta, if found.
    pub fn meta(&self) -> Option<&Meta> {
        match self {
            Read::Found(_, meta) => Some(meta),
            _ => None,
        }
    }
}

/// A result stored under a key (e.g. `GET https://api.example/todos`).
pub(crate) struct ResultSlot {
    /// `None` once invalidated.
    pub value: Option<Rc<dyn Any>>,
    pub deps: Vec<Dep>,
    pub meta: Meta,
    pub version: u64,
}

impl ResultSlot {
    /// A result invalidated as of `at` (its reads are Invalid until a
    /// response that started at or after `at` is stored), from one with
    /// `meta`.
    fn invalidated(meta: Meta, at: Timestamp, version: u64) -> Self {
        ResultSlot {
            value: None,
            deps: Vec::new(),
            meta: Meta {
                fetched_at: meta.fetched_at.max(at),
                expires_at: at,
                ..meta
            },
            version,
        }
    }
}

impl Clone for ResultSlot {
    fn clone(&self) -> Self {
        ResultSlot {
            value: self.value.clone(),
            deps: self.deps.clone(),
            meta: self.meta,
            version: self.version,
        }
    }
}

/// What [`Store::write`] hands back.
pub(crate) struct Written<S> {
    /// The value as stored: its entities are the store's copies.
    pub value: Rc<S>,
    /// Its entity references.
    pub deps: Vec<Dep>,
    /// How to take the write back, when asked for.
    pub undo: Option<Undo>,
}

/// Number of change stamps: table `t` stamps `changed_at[t % STAMPS]`.
pub(crate) const STAMPS: usize = 64;

static NEXT_STORE_ID: AtomicU64 = AtomicU64::new(1);

static NEXT_TYPE_INDEX: AtomicU32 = AtomicU32::new(0);

/// The process-wide index of one entity type, assigned on first use; the
/// derive keeps one in a static per type (see [`Entity::type_index`]).
#[doc(hidden)]
pub struct TypeIndex(AtomicU32);

impl TypeIndex {
    #[allow(clippy::new_without_default)] // only ever a static
    pub const fn new() -> Self {
        TypeIndex(AtomicU32::new(u32::MAX))
    }

    /// This type's index, taking the next free one on first call.
    #[inline]
    pub fn get(&self) -> u32 {
        let index = self.0.load(Ordering::Relaxed);
        if index != u32::MAX {
            return index;
        }
        self.take()
    }

    #[cold]
    fn take(&self) -> u32 {
        let next = NEXT_TYPE_INDEX.fetch_add(1, Ordering::Relaxed);
        match self
            .0
            .compare_exchange(u32::MAX, next, Ordering::Relaxed, Ordering::Relaxed)
        {
            Ok(_) => next,
            Err(first) => first, // another thread got there first
        }
    }
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
    pub(crate) id: u64,
    pub(crate) tables: Vec<Box<dyn AnyTable>>,
    /// Table by [`Entity::type_index`], plus one (0: no table yet).
    by_index: Vec<u32>,
    /// Table by `TypeId`, for the types without an index.
    by_type: FxHashMap<TypeId, u32>,
    by_key: FxHashMap<&'static str, u32>,
    pub(crate) results: FxHashMap<String, ResultSlot>,
    /// Counts writes; every write takes the next value as its version.
    pub(crate) clock: u64,
    /// The last write to any table stamped `t % STAMPS`.
    pub(crate) changed_at: [u64; STAMPS],
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
            tables: self.tables.iter().map(|t| t.clone_table()).collect(),
            by_index: self.by_index.clone(),
            by_type: self.by_type.clone(),
            by_key: self.by_key.clone(),
            results: self.results.clone(),
            clock: self.clock,
            changed_at: self.changed_at,
        }
    }
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut map = f.debug_map();
        for (key, &t) in &self.by_key {
            map.entry(key, &self.tables[t as usize].live());
        }
        map.entry(&"results", &self.results.len()).finish()
    }
}

impl Store {
    /// An empty store.
    pub fn new() -> Self {
        Store {
            id: NEXT_STORE_ID.fetch_add(1, Ordering::Relaxed),
            tables: Vec::new(),
            by_index: Vec::new(),
            by_type: FxHashMap::default(),
            by_key: FxHashMap::default(),
            results: FxHashMap::default(),
            clock: 0,
            changed_at: [0; STAMPS],
        }
    }

    /// Stores `value` under `key`: its entities are merged into their
    /// tables, the result keeps references to them.
    ///
    /// On error nothing changes. A result whose stored copy started later
    /// than `meta.fetched_at` is kept (its entities still merge by their own
    /// fetch times).
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Default, Deserialize)]
    /// struct Todo { id: u64 }
    ///
    /// let mut store = Store::new();
    /// store.set("todos", vec![Rc::new(Todo { id: 1 }), Rc::new(Todo { id: 2 })], Meta::default())?;
    /// assert_eq!(store.entity_count("Todo"), 2);
    /// # Ok::<(), restcache::SchemaError>(())
    /// ```
    pub fn set<S: Schema>(
        &mut self,
        key: &str,
        value: S,
        meta: Meta,
    ) -> Result<Rc<S>, SchemaError> {
        self.write(Some(key), value, meta, false).map(|w| w.value)
    }

    /// Normalizes `value` and, with a `key`, stores it as that key's
    /// result (unless the stored one started later). With `undoable`, the
    /// write can be taken back by [`undo`](Store::undo).
    pub(crate) fn write<S: Schema>(
        &mut self,
        key: Option<&str>,
        mut value: S,
        meta: Meta,
        undoable: bool,
    ) -> Result<Written<S>, SchemaError> {
        let version = self.tick();
        let (deps, mut undo) =
            Normalizer::run(self, meta, version, undoable, |cx| value.normalize(cx))?;
        let value = Rc::new(value);
        let Some(key) = key else {
            return Ok(Written { value, deps, undo });
        };
        if self
            .results
            .get(key)
            .is_some_and(|old| old.meta.fetched_at > meta.fetched_at)
        {
            return Ok(Written { value, deps, undo });
        }
        let slot = ResultSlot {
            value: Some(Rc::clone(&value) as Rc<dyn Any>),
            deps: deps.clone(),
            meta,
            version,
        };
        let old = self.put_result(key, slot);
        if let Some(undo) = &mut undo {
            undo.results.push((key.to_owned(), old, version));
        }
        Ok(Written { value, deps, undo })
    }

    /// Stores `slot` under `key`, returning the slot it replaced.
    fn put_result(&mut self, key: &str, slot: ResultSlot) -> Option<ResultSlot> {
        match self.results.get_mut(key) {
            Some(existing) => Some(std::mem::replace(existing, slot)),
            None => {
                self.results.insert(key.to_owned(), slot);
                None
            }
        }
    }

    /// Adds the record `item` (whose store references are `item_deps`) at
    /// the end of the list stored under `key`, keeping the list's meta.
    /// A result that is not a plain list of that record type (an envelope,
    /// a page) cannot take it and is invalidated instead, so its next read
    /// fetches it again.
    pub(crate) fn append<S: Schema>(
        &mut self,
        key: &str,
        item: &S,
        item_deps: &[Dep],
        undo: Option<&mut Undo>,
    ) {
        let Some(old) = self.results.get(key) else {
            return;
        };
        let Some(list) = old.value.as_deref() else {
            return; // already invalid: its next read fetches
        };
        let longer = item.append_to(list).map(|longer| {
            let mut deps = old.deps.clone();
            deps.extend_from_slice(item_deps);
            (longer, deps)
        });
        let meta = old.meta;
        let version = self.tick();
        let slot = match longer {
            Some((value, deps)) => ResultSlot {
                value: Some(value),
                deps,
                meta,
                version,
            },
            None => ResultSlot::invalidated(meta, meta.fetched_at, version),
        };
        let old = self.put_result(key, slot);
        if let Some(undo) = undo {
            undo.results.push((key.to_owned(), old, version));
        }
    }

    /// Takes back the write `undo` came from: the records and results it
    /// changed get their former contents, unless a later write changed
    /// them again (what that write brought is kept). Records it added
    /// become Invalid.
    pub(crate) fn undo(&mut self, undo: Undo) {
        let now = self.tick();
        for table in undo.tables {
            let TableUndo {
                table,
                len,
                replaced,
            } = table;
            if self.tables[table as usize].undo(replaced, len, undo.version, now) {
                self.stamp(table, now);
            }
        }
        // Newest first: a key the write changed twice gets its first state.
        for (key, old, version) in undo.results.into_iter().rev() {
            if self.results.get(&key).is_none_or(|c| c.version != version) {
                continue; // a later write changed it: keep what it brought
            }
            match old {
                Some(mut old) => {
                    old.version = now;
                    self.results.insert(key, old);
                }
                None => drop(self.results.remove(&key)),
            }
        }
    }

    /// Marks the result under `key` stale: it stays readable, and a read
    /// fetches it again in the background. Returns whether the key was
    /// known.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Default, Deserialize)]
    /// struct Todo { id: u64 }
    ///
    /// let mut store = Store::new();
    /// let fresh = Meta::fetched(Timestamp::from_millis(0), Timestamp::from_millis(0), std::time::Duration::from_secs(60));
    /// store.set("one", Rc::new(Todo { id: 1 }), fresh)?;
    /// assert!(store.expire_result("one"));
    /// assert_eq!(store.result_meta("one").unwrap().expires_at, Timestamp::from_millis(0));
    /// assert!(store.read::<Rc<Todo>>("one").value().is_some());
    /// # Ok::<(), restcache::SchemaError>(())
    /// ```
    pub fn expire_result(&mut self, key: &str) -> bool {
        let Some(slot) = self.results.get_mut(key) else {
            return false;
        };
        slot.meta.expires_at = Timestamp::default();
        true
    }

    /// Parses `text` as the schema `S` and stores it under `key`.
    ///
    /// JSON that does not fit `S` gives [`SchemaError::Decode`] naming the
    /// entity and the field path; the store is unchanged.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Default, Deserialize)]
    /// struct Todo { id: u64 }
    ///
    /// let mut store = Store::new();
    /// assert!(store.set_json::<Vec<Rc<Todo>>>("todos", "<html>oops</html>", Meta::default()).is_err());
    /// assert!(matches!(store.read::<Vec<Rc<Todo>>>("todos"), Read::Absent));
    /// ```
    pub fn set_json<S: Schema + DeserializeOwned>(
        &mut self,
        key: &str,
        text: &str,
        meta: Meta,
    ) -> Result<Rc<S>, SchemaError> {
        let value = from_json::<S>(text)?;
        self.set(key, value, meta)
    }

    /// Merges one record (and its nested entities) into its table, without
    /// a result; returns the store's copy.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Default, Deserialize)]
    /// struct Todo { id: u64, title: String }
    ///
    /// let mut store = Store::new();
    /// let stored = store.set_entity(Todo { id: 3, title: "x".into() }, Meta::default())?;
    /// assert!(Rc::ptr_eq(&stored, &store.get_entity::<Todo>(3u64).into_value().unwrap()));
    /// # Ok::<(), restcache::SchemaError>(())
    /// ```
    pub fn set_entity<E: Entity>(&mut self, record: E, meta: Meta) -> Result<Rc<E>, SchemaError> {
        let written = self.write(None, Rc::new(record), meta, false)?;
        Ok(Rc::unwrap_or_clone(written.value))
    }

    /// Reads the result under `key` as `S`, joining its entities back in,
    /// without remembering anything: an unchanged store gives back the
    /// records it holds, a changed one gives freshly built values. Use a
    /// [`Memo`](crate::Memo) for reads that keep their identity.
    ///
    /// A result stored with another schema type reads as `Invalid`.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Default, Deserialize)]
    /// struct Todo { id: u64 }
    ///
    /// let mut store = Store::new();
    /// store.set("one", Rc::new(Todo { id: 1 }), Meta::default())?;
    /// assert_eq!(store.read::<Rc<Todo>>("one").value().map(|t| t.id), Some(1));
    /// assert!(matches!(store.read::<Rc<Todo>>("two"), Read::Absent));
    /// # Ok::<(), restcache::SchemaError>(())
    /// ```
    pub fn read<S: Schema>(&self, key: &str) -> Read<S> {
        Reader::new(self, None).result::<S>(key)
    }

    /// Reads one record by pk, joining its nested entities back in.
    ///
    /// ```
    /// use restcache::prelude::*;
    ///
    /// #[derive(Entity, Clone, Default, Deserialize)]
    /// struct Todo { id: u64 }
    ///
    /// let mut store = Store::new();
    /// store.set_entity(Todo { id: 7 }, Meta::default())?;
    /// assert!(store.get_entity::<Todo>("7").value().is_some()); // "7" and 7 are one pk
    /// assert!(matches!(store.get_entity::<Todo>(8u64), Read::Absent));
    /// # Ok::<(), restcache::SchemaError>(())
    /// ```
    #[inline]
    pub fn get_entity<E: Entity>(&self, pk: impl PkValue) -> Read<E> {
        Reader::new(self, None).entity_by_pk::<E>(pk.to_pk().as_ref())
    }

    /// Invalidates one record as of `at`: direct reads of it are `Invalid`,
    /// lists that hold it drop it on their next read, and responses whose
    /// request started before `at` do not bring it back. Returns whether the
    /// record was known.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Default, Deserialize)]
    /// struct Todo { id: u64 }
    ///
    /// let mut store = Store::new();
    /// store.set("todos", vec![Rc::new(Todo { id: 1 }), Rc::new(Todo { id: 2 })], Meta::default())?;
    /// assert!(store.invalidate_entity::<Todo>(1u64, Timestamp::from_millis(5)));
    /// assert!(matches!(store.get_entity::<Todo>(1u64), Read::Invalid));
    /// assert_eq!(store.read::<Vec<Rc<Todo>>>("todos").into_value().unwrap().len(), 1);
    /// # Ok::<(), restcache::SchemaError>(())
    /// ```
    pub fn invalidate_entity<E: Entity>(&mut self, pk: impl PkValue, at: Timestamp) -> bool {
        self.invalidate_entity_key(E::KEY, pk, at)
    }

    /// [`invalidate_entity`](Store::invalidate_entity) by entity key, for
    /// code that knows the key but not the type.
    pub fn invalidate_entity_key(&mut self, key: &str, pk: impl PkValue, at: Timestamp) -> bool {
        let (Some(&table), Some(pk)) = (self.by_key.get(key), pk.to_pk()) else {
            return false;
        };
        let version = self.tick();
        let known = self.tables[table as usize].invalidate(&pk, at, version);
        if known {
            self.stamp(table, version);
        }
        known
    }

    /// Invalidates the result under `key` as of `at`: its reads are
    /// `Invalid` until a response that started at or after `at` is stored.
    /// Returns whether the key was known.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Default, Deserialize)]
    /// struct Todo { id: u64 }
    ///
    /// let mut store = Store::new();
    /// store.set("one", Rc::new(Todo { id: 1 }), Meta::default())?;
    /// store.invalidate_result("one", Timestamp::from_millis(1));
    /// assert!(matches!(store.read::<Rc<Todo>>("one"), Read::Invalid));
    /// # Ok::<(), restcache::SchemaError>(())
    /// ```
    pub fn invalidate_result(&mut self, key: &str, at: Timestamp) -> bool {
        let version = self.tick();
        let Some(slot) = self.results.get_mut(key) else {
            return false;
        };
        *slot = ResultSlot::invalidated(slot.meta, at, version);
        true
    }

    /// The meta of the result under `key` (also when invalidated).
    pub fn result_meta(&self, key: &str) -> Option<Meta> {
        self.results.get(key).map(|slot| slot.meta)
    }

    /// The meta of one record (also when invalidated).
    pub fn entity_meta<E: Entity>(&self, pk: impl PkValue) -> Option<Meta> {
        let table = *self.by_key.get(E::KEY)?;
        self.tables[table as usize].meta(&pk.to_pk()?)
    }

    /// How many readable records the table `key` holds.
    pub fn entity_count(&self, key: &str) -> usize {
        self.by_key
            .get(key)
            .map_or(0, |&t| self.tables[t as usize].live())
    }

    /// How many result keys the store holds (invalidated ones included).
    pub fn result_count(&self) -> usize {
        self.results.len()
    }

    /// The result keys the store holds, in no particular order.
    pub fn result_keys(&self) -> impl Iterator<Item = &str> {
        self.results.keys().map(String::as_str)
    }

    /// Takes the next write version.
    pub(crate) fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    /// Records that table `table` changed at `version`.
    /// Whether no table among the stamps `mask` was written after the
    /// write `at`.
    #[inline]
    pub(crate) fn unchanged_since(&self, mask: u64, at: u64) -> bool {
        if at == self.clock {
            return true;
        }
        let mut bits = mask;
        while bits != 0 {
            let bit = bits.trailing_zeros() as usize;
            if self.changed_at[bit] > at {
                return false;
            }
            bits &= bits - 1;
        }
        true
    }

    pub(crate) fn stamp(&mut self, table: u32, version: u64) {
        self.changed_at[table as usize % STAMPS] = version;
    }

    /// The table of `E`, created on first use.
    pub(crate) fn table_index<E: Entity>(&mut self) -> Result<u32, SchemaError> {
        if let Some(table) = self.find_table::<E>() {
            return Ok(table);
        }
        if let Some(&other) = self.by_key.get(E::KEY) {
            return Err(SchemaError::KeyConflict {
                key: E::KEY,
                first: self.tables[other as usize].type_name(),
                second: std::any::type_name::<E>(),
            });
        }
        let table = u32::try_from(self.tables.len()).unwrap_or(u32::MAX);
        self.tables.push(Box::new(Table::<E>::new()));
        match E::type_index() {
            u32::MAX => drop(self.by_type.insert(TypeId::of::<E>(), table)),
            index => {
                let index = index as usize;
                if self.by_index.len() <= index {
                    self.by_index.resize(index + 1, 0);
                }
                self.by_index[index] = table + 1;
            }
        }
        self.by_key.insert(E::KEY, table);
        Ok(table)
    }

    /// The table of `E`, if it has one.
    #[inline]
    pub(crate) fn find_table<E: Entity>(&self) -> Option<u32> {
        match E::type_index() {
            u32::MAX => self.by_type.get(&TypeId::of::<E>()).copied(),
            index => self
                .by_index
                .get(index as usize)
                .and_then(|&t| t.checked_sub(1)),
        }
    }

    #[inline]
    pub(crate) fn table<E: Entity>(&self, table: u32) -> Option<&Table<E>> {
        let table: &dyn Any = self.tables.get(table as usize)?.as_ref();
        table.downcast_ref()
    }

    pub(crate) fn table_mut<E: Entity>(&mut self, table: u32) -> Option<&mut Table<E>> {
        let table: &mut dyn Any = self.tables.get_mut(table as usize)?.as_mut();
        table.downcast_mut()
    }
}
