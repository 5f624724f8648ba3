//! Denormalizing: walking a stored value and joining the current copies of
//! its entities back in. What to keep from one read to the next is the
//! memo's business (`memo/read.rs`); this module walks.

use std::rc::Rc;

use crate::cache::entity::Entity;
use crate::cache::memo::MemoState;
use crate::cache::store::registry::stamp_bit;
use crate::cache::store::table::{EntityRef, Slot};
use crate::cache::store::{Lookup, Store};
use crate::pk::Pk;

/// How a value compares with the store.
#[derive(Debug, Clone, PartialEq)]
pub enum Denorm<T> {
    /// Every entity it holds is the store's current copy: keep it.
    Same,
    /// Some entity changed: here is the value rebuilt with the current ones.
    Changed(T),
    /// A required entity is gone (invalidated or deleted).
    Missing,
}

/// The state of one read, handed to [`Schema::denormalize`](crate::Schema::denormalize):
/// the entity references of the stored value being walked, in the order
/// its schema visits them.
pub struct Denormalizer<'r, 's> {
    reader: &'r mut Reader<'s>,
    input: &'r [EntityRef],
    next: usize,
}

impl Denormalizer<'_, '_> {
    /// The current copy of the next entity the value refers to; `None` when
    /// it is gone.
    pub(crate) fn entity<E: Entity>(&mut self) -> Option<Rc<E>> {
        let at = *self.input.get(self.next)?;
        self.next += 1;
        self.reader.entity::<E>(at)
    }
}

/// One read over a store, remembering into a memo when it has one.
pub(crate) struct Reader<'s> {
    pub(in crate::cache) store: &'s Store,
    pub(in crate::cache) memo: Option<&'s mut MemoState>,
    /// Stamps of the tables the value being read touched so far.
    mask: u64,
}

impl<'s> Reader<'s> {
    #[inline]
    pub fn new(store: &'s Store, memo: Option<&'s mut MemoState>) -> Self {
        Reader {
            store,
            memo,
            mask: 0,
        }
    }

    /// The stamps of every table the reads so far touched.
    pub fn mask(&self) -> u64 {
        self.mask
    }

    /// Adds the stamps `mask` to those the reads so far touched.
    #[inline]
    pub(in crate::cache) fn add_stamps(&mut self, mask: u64) {
        self.mask |= mask;
    }

    /// Runs `denormalize` over a stored value whose references are `refs`,
    /// starting from the stamps `own`; returns its outcome and the stamps
    /// of every table it touched.
    pub(in crate::cache) fn walk<T>(
        &mut self,
        refs: &[EntityRef],
        own: u64,
        denormalize: impl FnOnce(&mut Denormalizer<'_, 's>) -> Denorm<T>,
    ) -> (Denorm<T>, u64) {
        let outer = std::mem::replace(&mut self.mask, own);
        let outcome = denormalize(&mut Denormalizer {
            reader: self,
            input: refs,
            next: 0,
        });
        let mask = std::mem::replace(&mut self.mask, outer);
        self.mask |= mask;
        (outcome, mask)
    }

    /// The current copy of the record at `at`, nested entities joined.
    fn entity<E: Entity>(&mut self, at: EntityRef) -> Option<Rc<E>> {
        let slot = self.store.tables().get::<E>(at.table)?.slot(at.slot)?;
        self.entity_in(at, slot)
    }

    /// [`entity`](Self::entity) for a caller that already holds the slot.
    #[inline]
    fn entity_in<E: Entity>(&mut self, at: EntityRef, slot: &'s Slot<E>) -> Option<Rc<E>> {
        let record = slot.record.as_ref()?;
        if !E::HAS_NESTED {
            self.mask |= stamp_bit(at.table);
            return Some(Rc::clone(record));
        }
        self.nested_in(at, slot, record)
    }

    /// One record by pk.
    ///
    /// The pk comes by reference, so the read loads it where it lies (a pk
    /// moved in by value is reloaded whole from two smaller stores, a
    /// store-forwarding stall that costs a third of a read).
    #[inline(always)]
    pub fn entity_by_pk<E: Entity>(&mut self, pk: Option<&Pk>) -> Lookup<E> {
        let tables = self.store.tables();
        let Some(table) = tables.find::<E>() else {
            return Lookup::Absent;
        };
        let Some(records) = tables.get::<E>(table) else {
            return Lookup::Absent;
        };
        let Some((index, slot)) = pk
            .and_then(|pk| records.slot_of(pk))
            .and_then(|index| Some((index, records.slot(index)?)))
        else {
            return Lookup::Absent;
        };
        let at = EntityRef { table, slot: index };
        match self.entity_in::<E>(at, slot) {
            Some(value) => Lookup::Found(value, slot.meta),
            None => Lookup::Invalid,
        }
    }
}
