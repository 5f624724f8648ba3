//! The table registry: one table per entity type, found by the derive's
//! type index (or `TypeId` for types without one) and by entity key; and
//! the change stamps that tell a memo whether the records a value depends
//! on were written since it last looked.

use std::any::{Any, TypeId};
use std::sync::atomic::{AtomicU32, Ordering};

use rustc_hash::FxHashMap;

use super::table::{AnyTable, EntityRef, Table, TableRecord};
use crate::error::SchemaError;

/// Number of change stamps. Each record stamps one, so that a write to
/// one record leaves most values that hold others as they are: a value
/// depends on the stamps of the records it holds, and a stamp shared
/// with a record it does not hold only costs its memo one more look.
const STAMPS: u32 = 64;

/// The stamps of one table: a table's records stamp within their own
/// range, so that a write to a record of one table does not look like a
/// write to the records of another, which many values nest (a list of
/// 1,000 issues nests the same 20 users). The fifth table shares the
/// first one's range, the sixth the second's, and so on.
const TABLE_STAMPS: u32 = 16;

/// The stamp bit of the record in `slot` of `table`, in a mask of the
/// stamps a value depends on: in the table's range, picked by a hash of
/// the slot.
#[inline]
pub(crate) fn stamp_bit(table: u32, slot: u32) -> u64 {
    let range = (table % (STAMPS / TABLE_STAMPS)) * TABLE_STAMPS;
    let spread = (u64::from(table) << 32 | u64::from(slot)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    1 << (range + (spread >> (64 - TABLE_STAMPS.trailing_zeros())) as u32)
}

/// How many records [`Registry::reach_unwritten_since`] looks at before it
/// gives up: a record's own nested records, a few levels down.
const REACH_CHECKED: u32 = 32;

static NEXT_TYPE_INDEX: AtomicU32 = AtomicU32::new(0);

/// The process-wide index of one entity type, assigned on first use; the
/// derive keeps one in a static per type.
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

/// What the registry knows of an entity type: its identity, the index
/// the derive gave it (`u32::MAX`: none), its entity key and its Rust
/// name (for a key conflict's error).
#[derive(Clone, Copy, Debug)]
pub(crate) struct TypeKey {
    pub id: TypeId,
    pub index: u32,
    pub key: &'static str,
    pub name: &'static str,
}

/// An empty table of `E`.
pub(crate) fn new_table<E: TableRecord + 'static>() -> Box<dyn AnyTable> {
    Box::new(Table::<E>::new())
}

/// The entity tables of one store, and when each was last written.
pub(crate) struct Registry {
    tables: Vec<Box<dyn AnyTable>>,
    /// Table by the type's index ([`TypeIndex`]), plus one (0: no table
    /// yet).
    by_index: Vec<u32>,
    /// Table by `TypeId`, for the types without an index.
    by_type: FxHashMap<TypeId, u32>,
    by_key: FxHashMap<&'static str, u32>,
    stamps: Stamps,
}

/// When the records of a store were last written: by stamp, by table, and
/// record by record while someone watches.
#[derive(Clone)]
pub(crate) struct Stamps {
    /// The last write to any record of each stamp.
    changed_at: [u64; STAMPS as usize],
    /// The last write to any record of each table.
    table_changed_at: Vec<u64>,
    /// The records written since the log was last taken, when someone
    /// watches (see [`Store::watch_changes`](super::Store::watch_changes)).
    log: Option<Vec<EntityRef>>,
}

impl Stamps {
    /// Records that the record in `slot` of `table` changed at the write
    /// `version`: its stamp, and the log when it is kept.
    #[inline]
    pub fn changed(&mut self, table: u32, slot: u32, version: u64) {
        let bit = stamp_bit(table, slot).trailing_zeros() as usize;
        self.changed_at[bit] = version;
        if let Some(at) = self.table_changed_at.get_mut(table as usize) {
            *at = version;
        }
        if let Some(log) = &mut self.log {
            log.push(EntityRef { table, slot });
        }
    }

    /// Records that the record in `slot` of `table` was written again
    /// as it was, with a new meta: in the log when it is kept (the
    /// record's own readers look at its meta again), but not in its
    /// stamp, so reads that nest it stay as they are.
    #[inline]
    pub fn refreshed(&mut self, table: u32, slot: u32) {
        if let Some(log) = &mut self.log {
            log.push(EntityRef { table, slot });
        }
    }
}

impl Clone for Registry {
    /// A copy whose tables evolve on their own; records are shared.
    fn clone(&self) -> Self {
        Registry {
            tables: self.tables.iter().map(|t| t.clone_table()).collect(),
            by_index: self.by_index.clone(),
            by_type: self.by_type.clone(),
            by_key: self.by_key.clone(),
            stamps: Stamps {
                log: None,
                ..self.stamps.clone()
            },
        }
    }
}

impl Registry {
    pub fn new() -> Self {
        Registry {
            tables: Vec::new(),
            by_index: Vec::new(),
            by_type: FxHashMap::default(),
            by_key: FxHashMap::default(),
            stamps: Stamps {
                changed_at: [0; STAMPS as usize],
                table_changed_at: Vec::new(),
                log: None,
            },
        }
    }

    /// The table of the type `ty`, and whether this call created it (an
    /// empty `Table<E>` of that type). Another type that already holds its
    /// key is a conflict.
    #[cfg(test)]
    pub fn register<E: TableRecord + 'static>(
        &mut self,
        ty: TypeKey,
    ) -> Result<(u32, bool), SchemaError> {
        self.register_with(ty, new_table::<E>)
    }

    /// [`register`](Self::register), the table made by `new_table` when the
    /// type has none: one copy of this code serves every entity type.
    pub fn register_with(
        &mut self,
        ty: TypeKey,
        new_table: fn() -> Box<dyn AnyTable>,
    ) -> Result<(u32, bool), SchemaError> {
        if let Some(table) = self.find(ty.index, ty.id) {
            return Ok((table, false));
        }
        if let Some(&other) = self.by_key.get(ty.key) {
            return Err(SchemaError::KeyConflict {
                key: ty.key,
                first: self.tables[other as usize].type_name(),
                second: ty.name,
            });
        }
        let table = u32::try_from(self.tables.len()).unwrap_or(u32::MAX);
        self.tables.push(new_table());
        self.stamps.table_changed_at.push(0);
        match ty.index {
            u32::MAX => drop(self.by_type.insert(ty.id, table)),
            index => {
                let index = index as usize;
                if self.by_index.len() <= index {
                    self.by_index.resize(index + 1, 0);
                }
                self.by_index[index] = table + 1;
            }
        }
        self.by_key.insert(ty.key, table);
        Ok((table, true))
    }

    /// Forgets the table `table`, the last one registered (a failed write
    /// created it): its type and key are free again.
    pub fn unregister_last(&mut self, table: u32) {
        if table as usize + 1 != self.tables.len() {
            return; // only the newest table can go without moving others
        }
        self.tables.pop();
        self.stamps.table_changed_at.pop();
        self.by_index
            .iter_mut()
            .filter(|t| **t == table + 1)
            .for_each(|t| *t = 0);
        self.by_type.retain(|_, t| *t != table);
        self.by_key.retain(|_, t| *t != table);
        // The change stamps stay: other records share them, and a stamp
        // that says "changed" when nothing did only costs a memo one more
        // look.
    }

    /// The table of the type whose index is `index` (`u32::MAX`: none; it
    /// is then found by its `id`), if it has one.
    #[inline]
    pub fn find(&self, index: u32, id: TypeId) -> Option<u32> {
        match index {
            u32::MAX => self.by_type.get(&id).copied(),
            index => self
                .by_index
                .get(index as usize)
                .and_then(|&t| t.checked_sub(1)),
        }
    }

    /// How many tables there are.
    pub fn len(&self) -> usize {
        self.tables.len()
    }

    /// The table registered under the entity key `key`.
    pub fn by_key(&self, key: &str) -> Option<u32> {
        self.by_key.get(key).copied()
    }

    /// Every entity key with its table.
    pub fn keys(&self) -> impl Iterator<Item = (&'static str, u32)> + '_ {
        self.by_key.iter().map(|(&key, &table)| (key, table))
    }

    /// The table `table`, whose type is `E`.
    #[inline]
    pub fn get<E: 'static>(&self, table: u32) -> Option<&Table<E>> {
        let table: &dyn Any = self.tables.get(table as usize)?.as_ref();
        table.downcast_ref()
    }

    /// The table `table`, whose type is `E`, to write.
    #[inline]
    pub fn get_mut<E: 'static>(&mut self, table: u32) -> Option<&mut Table<E>> {
        let table: &mut dyn Any = self.tables.get_mut(table as usize)?.as_mut();
        table.downcast_mut()
    }

    /// The table `table`, whatever its type.
    pub fn any(&self, table: u32) -> &dyn AnyTable {
        self.tables[table as usize].as_ref()
    }

    /// The table `table`, whatever its type, to write.
    pub fn any_mut(&mut self, table: u32) -> &mut dyn AnyTable {
        self.tables[table as usize].as_mut()
    }

    /// Records that the record in `slot` of `table` changed at the write
    /// `version` (see [`Stamps::changed`]).
    #[inline]
    pub fn changed(&mut self, table: u32, slot: u32, version: u64) {
        self.stamps.changed(table, slot, version);
    }

    /// The table `table`, whose type is `E`, to write, with the stamps its
    /// writes set: a list's records are merged with one look-up of their
    /// table.
    #[inline]
    pub fn get_mut_with_stamps<E: 'static>(
        &mut self,
        table: u32,
    ) -> Option<(&mut Table<E>, &mut Stamps)> {
        let table: &mut dyn Any = self.tables.get_mut(table as usize)?.as_mut();
        Some((table.downcast_mut()?, &mut self.stamps))
    }

    /// Starts keeping the log of changed records.
    pub fn keep_log(&mut self) {
        self.stamps.log.get_or_insert_with(Vec::new);
    }

    /// The records changed since the last call (none when no log is
    /// kept).
    pub fn take_log(&mut self) -> Vec<EntityRef> {
        self.stamps
            .log
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// The stamp bits of the records written after the write `at`.
    pub fn changed_since(&self, at: u64) -> u64 {
        let mut bits = 0;
        for (bit, &changed) in self.stamps.changed_at.iter().enumerate() {
            if changed > at {
                bits |= 1 << bit;
            }
        }
        bits
    }

    /// Whether no record of the table of entity key `key` changed after
    /// the write `at` (true when there is no such table).
    pub fn table_unchanged_since(&self, key: &str, at: u64) -> bool {
        self.by_key(key)
            .and_then(|table| self.stamps.table_changed_at.get(table as usize))
            .is_none_or(|&changed| changed <= at)
    }

    /// Whether what reads see of `record` changed after the write `since`
    /// (or it is unknown), by its version.
    pub fn shown_changed_after(&self, record: EntityRef, since: u64) -> bool {
        self.any(record.table)
            .refs_if_unwritten_since(record.slot, since)
            .is_none()
    }

    /// Whether no record that `refs` lead to, at any depth, was written
    /// after the write `at`, by each record's own version: exact where a
    /// stamp is shared by many records. Answers `false` once it has
    /// looked at [`REACH_CHECKED`] records (a record reached twice counts
    /// twice), so a cycle ends.
    pub fn reach_unwritten_since(&self, refs: &[EntityRef], at: u64) -> bool {
        let mut budget = REACH_CHECKED;
        self.unwritten_within(refs, at, &mut budget)
    }

    fn unwritten_within(&self, refs: &[EntityRef], at: u64, budget: &mut u32) -> bool {
        refs.iter().all(|to| {
            let Some(left) = budget.checked_sub(1) else {
                return false;
            };
            *budget = left;
            self.any(to.table)
                .refs_if_unwritten_since(to.slot, at)
                .is_some_and(|nested| self.unwritten_within(nested, at, budget))
        })
    }

    /// Whether no record among the stamps `mask` changed after the write
    /// `at`.
    #[inline]
    pub fn unchanged_since(&self, mask: u64, at: u64) -> bool {
        let mut bits = mask;
        while bits != 0 {
            let bit = bits.trailing_zeros() as usize;
            if self.stamps.changed_at[bit] > at {
                return false;
            }
            bits &= bits - 1;
        }
        true
    }
}
