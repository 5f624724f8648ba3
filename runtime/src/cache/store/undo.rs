//! Taking a write back: an optimistic update whose request failed.

use std::any::Any;

use super::Store;
use super::write::ResultSlot;

/// What one table needs to take a write back.
pub(crate) struct TableUndo {
    pub table: u32,
    /// The slot count before the write: slots from here on were added.
    pub len: usize,
    /// The slots the write replaced, with their former contents
    /// (a `Vec<(u32, Slot<E>)>` of the table's type).
    pub replaced: Box<dyn Any>,
}

/// What a write replaced and added, kept so that it can be taken back
/// (see [`Store::undo`]).
pub(crate) struct Undo {
    /// The version of the write: only slots still at it are restored, so
    /// what later writes brought is never lost.
    pub version: u64,
    pub tables: Vec<TableUndo>,
    /// Results the write changed: the key, its former slot (`None`: the
    /// key was new) and the version the change gave it.
    pub results: Vec<(String, Option<ResultSlot>, u64)>,
}

impl Undo {
    pub(super) fn new(version: u64) -> Self {
        Undo {
            version,
            tables: Vec::new(),
            results: Vec::new(),
        }
    }
}

impl Store {
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
            if self
                .tables
                .any_mut(table)
                .undo(replaced, len, undo.version, now)
            {
                self.tables.stamp(table, now);
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
}
