//! Entity tables: one per entity type, each record stored once per pk.

use std::any::Any;
use std::rc::Rc;

use smallvec::SmallVec;

use crate::cache::entity::Entity;
use crate::cache::store::pk_index::PkIndex;
use crate::meta::{Meta, Timestamp};
use crate::pk::Pk;

/// Where a record lives: its table and its slot in that table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Dep {
    pub table: u32,
    pub slot: u32,
}

/// The entity references of one stored value, in the order its schema
/// visits them.
pub(crate) type Deps = SmallVec<[Dep; 2]>;

/// One record and what the store knows of it. Its pk is the table's
/// index key, not kept here: a slot is written on every record a response
/// brings, and 64 bytes write and copy faster than 88.
pub(crate) struct Slot<E> {
    /// `None` once the record was invalidated (or deleted).
    pub record: Option<Rc<E>>,
    /// The entities the record's nested fields point at.
    pub deps: Deps,
    pub meta: Meta,
    /// The store write that last changed this slot.
    pub version: u64,
}

impl<E> Slot<E> {
    /// A slot once its record is gone as of `at` (invalidated or deleted),
    /// from a slot with `meta`: responses that started before `at` do not
    /// bring the record back.
    pub fn gone(meta: Meta, at: Timestamp, version: u64) -> Self {
        Slot {
            record: None,
            deps: Deps::new(),
            meta: Meta {
                fetched_at: meta.fetched_at.max(at),
                expires_at: at,
                ..meta
            },
            version,
        }
    }
}

impl<E> Clone for Slot<E> {
    fn clone(&self) -> Self {
        Slot {
            record: self.record.clone(),
            deps: self.deps.clone(),
            meta: self.meta,
            version: self.version,
        }
    }
}

/// The records of one entity type.
pub(crate) struct Table<E> {
    pub index: PkIndex,
    pub slots: Vec<Slot<E>>,
    /// The slots the write in progress replaced, with their former
    /// contents; empty between writes.
    pub replaced: Vec<(u32, Slot<E>)>,
}

impl<E> Table<E> {
    pub fn new() -> Self {
        Table {
            index: PkIndex::default(),
            slots: Vec::new(),
            replaced: Vec::new(),
        }
    }

    /// Replaces slot `index` within a write, keeping the former contents
    /// until the write commits or rolls back.
    pub fn replace(&mut self, index: u32, slot: Slot<E>) {
        let old = std::mem::replace(&mut self.slots[index as usize], slot);
        self.replaced.push((index, old));
    }

    pub fn slot_of(&self, pk: &Pk) -> Option<u32> {
        self.index.get(pk)
    }
}

/// What the store does with a table whose entity type it does not know.
pub(crate) trait AnyTable: Any {
    fn clone_table(&self) -> Box<dyn AnyTable>;
    fn type_name(&self) -> &'static str;
    /// Number of records that can be read (not invalidated).
    fn live(&self) -> usize;
    /// Drops the record (keeping its slot so the invalidation is ordered
    /// like any write); `false` when the pk is unknown.
    fn invalidate(&mut self, pk: &Pk, at: Timestamp, version: u64) -> bool;
    fn meta(&self, pk: &Pk) -> Option<Meta>;
    /// Number of slots, live or not.
    fn slot_count(&self) -> usize;
    /// Ends a write that succeeded: forgets what it replaced.
    fn commit(&mut self);
    /// Undoes a write that failed: restores the slots it replaced and
    /// drops the ones it added (every slot from `len` on).
    fn rollback(&mut self, len: usize);
    /// Ends a write that may be taken back later: hands out what it
    /// replaced (a `Vec<(u32, Slot<E>)>`).
    fn take_replaced(&mut self) -> Box<dyn Any>;
    /// Takes back, at `now`, the write `version` whose replaced slots are
    /// `replaced` and which added every slot from `len` on: slots still at
    /// `version` get their former contents, added ones are emptied. Slots
    /// a later write changed keep what it brought. Returns whether any
    /// slot changed.
    fn undo(&mut self, replaced: Box<dyn Any>, len: usize, version: u64, now: u64) -> bool;
}

impl<E: Entity> AnyTable for Table<E> {
    fn clone_table(&self) -> Box<dyn AnyTable> {
        Box::new(Table {
            index: self.index.clone(),
            slots: self.slots.clone(),
            replaced: Vec::new(),
        })
    }

    fn type_name(&self) -> &'static str {
        std::any::type_name::<E>()
    }

    fn live(&self) -> usize {
        self.slots.iter().filter(|s| s.record.is_some()).count()
    }

    fn invalidate(&mut self, pk: &Pk, at: Timestamp, version: u64) -> bool {
        let Some(index) = self.slot_of(pk) else {
            return false;
        };
        let slot = &mut self.slots[index as usize];
        *slot = Slot::gone(slot.meta, at, version);
        true
    }

    fn meta(&self, pk: &Pk) -> Option<Meta> {
        self.slot_of(pk).map(|i| self.slots[i as usize].meta)
    }

    fn slot_count(&self) -> usize {
        self.slots.len()
    }

    fn commit(&mut self) {
        self.replaced.clear();
        if self.replaced.capacity() > 1024 {
            self.replaced = Vec::new(); // do not hold a large write's undo space
        }
    }

    fn take_replaced(&mut self) -> Box<dyn Any> {
        Box::new(std::mem::take(&mut self.replaced))
    }

    fn undo(&mut self, replaced: Box<dyn Any>, len: usize, version: u64, now: u64) -> bool {
        let mut changed = false;
        for added in self.slots.iter_mut().skip(len) {
            if added.version == version {
                added.record = None;
                added.deps.clear();
                added.version = now;
                changed = true;
            }
        }
        let Ok(replaced) = replaced.downcast::<Vec<(u32, Slot<E>)>>() else {
            return changed;
        };
        for (index, old) in *replaced {
            let slot = &mut self.slots[index as usize];
            if slot.version == version {
                *slot = old;
                slot.version = now;
                changed = true;
            }
        }
        changed
    }

    fn rollback(&mut self, len: usize) {
        while let Some((index, old)) = self.replaced.pop() {
            self.slots[index as usize] = old;
        }
        if self.slots.len() > len {
            self.slots.truncate(len);
            self.index.retain_below(len);
        }
    }
}
