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
    /// For a list of records: what each item depends on, so that a read
    /// after a write to a few of its records reads those alone.
    pub items: ItemStamps,
}

/// The stamps of each item of a memoized list of records, by position:
/// its own record's and those of the records it nests (`u64::MAX`:
/// unknown, or an item nesting every record of a type; empty: none
/// known).
#[derive(Default)]
pub(crate) struct ItemStamps {
    pub stamps: Vec<u64>,
    /// Whether some item nests a record that shares the item's own stamp
    /// (a record of its own type, or of a table whose stamps it shares):
    /// an item whose own stamp alone was written is then told by the
    /// versions of its record and all it nests, where its record's tells
    /// otherwise. It stays set through patches until the next whole walk;
    /// items whose stamps are `u64::MAX` never set it.
    pub shared: bool,
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
