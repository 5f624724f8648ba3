//! Reading every record of one entity type the store shows: what
//! [`All`](crate::All) and a derived view's [`all`](crate::QueryReader::all)
//! read.

use std::any::TypeId;
use std::rc::Rc;

use super::{Denorm, Denormalizer, Reader};
use crate::cache::entity::Entity;
use crate::cache::store::table::EntityRef;

impl Reader<'_> {
    /// Every record of `E` the store shows (an optimistic copy where one
    /// is on show), its nested entities joined, in the order the store
    /// first held them. The read depends on the records it found; one
    /// created later is the caller's to watch for (by every stamp, or
    /// by the table).
    pub(crate) fn every<E: Entity>(&mut self) -> Vec<Rc<E>> {
        let tables = self.store.tables();
        let Some(table) = tables.find(E::type_index(), TypeId::of::<E>()) else {
            return Vec::new();
        };
        let Some(records) = tables.get::<E>(table) else {
            return Vec::new();
        };
        let count = tables.any(table).slot_count() as u32;
        let mut every = Vec::with_capacity(tables.any(table).live());
        for index in 0..count {
            let Some(slot) = records.slot(index).filter(|slot| slot.record.is_some()) else {
                continue;
            };
            let at = EntityRef { table, slot: index };
            if let Denorm::Changed(record) = self.entity_in::<E>(at, records, slot, None) {
                every.push(record);
            }
        }
        every
    }
}

impl Denormalizer<'_, '_> {
    /// Passes over the next `count` references, unread.
    pub(crate) fn skip(&mut self, count: usize) {
        self.next += count;
    }

    /// Every record of `E` the store shows (see `Reader::every`); the
    /// read depends on every record (one created later joins it).
    pub(crate) fn every<E: Entity>(&mut self) -> Vec<Rc<E>> {
        self.reader.add_stamps(super::EVERY_STAMP);
        self.reader.every::<E>()
    }
}
