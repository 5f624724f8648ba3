//! What a memo remembers: the last output of each record with nested
//! entities (by table and slot) and of each result (by key), with what
//! they depend on.

use std::any::Any;
use std::rc::Rc;

use rustc_hash::FxHashMap;

/// The last output of one record with nested entities.
pub(crate) struct EntityMemo<E> {
    pub output: Rc<E>,
    /// The slot version `output` was built from.
    pub version: u64,
    /// Stamps of the nested records `output` depends on.
    pub mask: u64,
    /// The store's last write when `output` was last checked.
    pub at: u64,
}

/// The last output of one result.
pub(crate) struct ResultMemo {
    /// An `Rc<S>` of the result's schema.
    pub output: Rc<dyn Any>,
    pub version: u64,
    pub mask: u64,
    /// The store's last write when `output` was last checked.
    pub at: u64,
    /// For a list of records: the stamps of each item's own record and of
    /// the records it nests, by position (`u64::MAX`: unknown, or a
    /// nested record shares the item's own stamp; empty: none known), so that a read after a write to a few of its records
    /// reads those alone (an item whose own stamp alone was written is
    /// told by its record's version).
    pub items: Vec<u64>,
}

/// The memo entries of one entity table, by slot.
pub(crate) struct EntityMemos<E>(Vec<Option<EntityMemo<E>>>);

impl<E> EntityMemos<E> {
    #[inline]
    pub fn get(&self, slot: u32) -> Option<&EntityMemo<E>> {
        self.0.get(slot as usize).and_then(Option::as_ref)
    }

    /// Notes that the entry of `slot` still holds as of the write `at`.
    pub fn checked(&mut self, slot: u32, at: u64) {
        if let Some(Some(entry)) = self.0.get_mut(slot as usize) {
            entry.at = at;
        }
    }

    pub fn put(&mut self, slot: u32, entry: Option<EntityMemo<E>>) {
        let slot = slot as usize;
        if self.0.len() <= slot {
            self.0.resize_with(slot + 1, || None);
        }
        self.0[slot] = entry;
    }
}

/// The entries of a memo; belongs to one store.
#[derive(Default)]
pub(crate) struct MemoState {
    pub entities: Vec<Option<Box<dyn Any>>>,
    pub results: FxHashMap<String, ResultMemo>,
}

impl MemoState {
    /// The entry of `slot` in the entity table `table`, whose type is `E`.
    #[inline]
    pub fn entity<E: 'static>(&self, table: u32, slot: u32) -> Option<&EntityMemo<E>> {
        let cell = self.entities.get(table as usize)?.as_ref()?;
        cell.downcast_ref::<EntityMemos<E>>()?.get(slot)
    }

    /// The entries of the entity table `table`, whose type is `E`.
    pub fn entities<E: 'static>(&mut self, table: u32) -> &mut EntityMemos<E> {
        let table = table as usize;
        if self.entities.len() <= table {
            self.entities.resize_with(table + 1, || None);
        }
        let cell = &mut self.entities[table];
        if !cell.as_ref().is_some_and(|c| c.is::<EntityMemos<E>>()) {
            *cell = Some(Box::new(EntityMemos::<E>(Vec::new())));
        }
        match cell.as_mut().and_then(|c| c.downcast_mut()) {
            Some(memos) => memos,
            None => unreachable!("the cell was just filled with this type"),
        }
    }
}
