//! Collecting what nothing uses: results removed by key, and the records
//! that no result reaches, dropped and their tables compacted.

use super::Store;
use super::table::{EntityRef, renumber};
use crate::meta::Timestamp;
use crate::pk::Pk;

/// What a collection of records dropped.
#[derive(Debug, Default)]
pub(crate) struct Dropped {
    /// How many records (live, invalidated or deleted) went.
    pub records: usize,
    /// Whether the collection was skipped: an optimistic layer is on.
    pub skipped: bool,
}

/// Which records a collection may drop.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Unreached {
    /// Records fetched before this go when nothing reaches them.
    pub before: Timestamp,
    /// A deleted or invalidated record's marker stays while a response
    /// that started before it may still land: it goes only if set before
    /// this.
    pub gone_before: Timestamp,
    /// At most this many slots stay: the least recently fetched records
    /// nothing reaches go first, whatever their age.
    pub at_most: Option<usize>,
}

impl Store {
    /// Removes the result under `key`; one under an optimistic layer stays
    /// until its layer goes. Returns whether it was removed.
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
    /// assert!(store.remove_result("one"));
    /// assert!(matches!(store.read::<Rc<Todo>>("one"), Lookup::Absent));
    /// assert_eq!(store.entity_count("Todo"), 1, "records go with collect_records");
    /// # Ok::<(), restcache::SchemaError>(())
    /// ```
    pub fn remove_result(&mut self, key: &str) -> bool {
        if self.result_layers.contains_key(key) {
            return false;
        }
        self.results.remove(key).is_some()
    }

    /// How many record slots the tables hold (live, invalidated, deleted).
    pub(crate) fn slot_count(&self) -> usize {
        (0..self.tables.len() as u32)
            .map(|table| self.tables.any(table).slot_count())
            .sum()
    }

    /// Drops the records that no result reaches (directly or nested in
    /// another record) and no root in `roots` names, as `rule` says; a
    /// record that a kept record points at is kept. Nothing is dropped
    /// while an optimistic layer is on (the layer's records are numbered
    /// by slot).
    pub(crate) fn collect_records(&mut self, roots: &[(&str, &Pk)], rule: Unreached) -> Dropped {
        let tables = self.tables.len() as u32;
        let layered =
            !self.result_layers.is_empty() || (0..tables).any(|t| self.tables.any(t).has_layers());
        if layered {
            return Dropped {
                records: 0,
                skipped: true,
            };
        }
        let mut keep = self.reached(roots);
        let mut candidates = Vec::new();
        for (table, keep) in keep.iter_mut().enumerate() {
            let records = self.tables.any(table as u32);
            for (slot, kept) in keep.iter_mut().enumerate() {
                let (fetched_at, live) = records.slot_state(slot as u32);
                if *kept {
                    continue;
                }
                if !live && fetched_at >= rule.gone_before {
                    *kept = true; // a marker a late response must still meet
                } else if fetched_at >= rule.before {
                    *kept = true;
                    candidates.push((fetched_at, table, slot));
                }
            }
        }
        self.close(&mut keep);
        if let Some(at_most) = rule.at_most {
            let mut left: usize = keep.iter().flatten().filter(|k| **k).count();
            candidates.sort_unstable();
            for (_, table, slot) in candidates {
                if left <= at_most {
                    break;
                }
                keep[table][slot] = false;
                left -= 1;
            }
            self.close(&mut keep); // a dropped one another still points at stays
        }
        Dropped {
            records: self.compact(&keep),
            skipped: false,
        }
    }

    /// Which slots of each table a result, a nested reference or a root
    /// reaches.
    fn reached(&self, roots: &[(&str, &Pk)]) -> Vec<Vec<bool>> {
        let tables = self.tables.len() as u32;
        let mut reached: Vec<Vec<bool>> = (0..tables)
            .map(|t| vec![false; self.tables.any(t).slot_count()])
            .collect();
        let mut pending: Vec<EntityRef> = self
            .results
            .values()
            .flat_map(|result| result.refs.iter().copied())
            .collect();
        for (key, pk) in roots {
            if let Some(table) = self.tables.by_key(key)
                && let Some(slot) = self.tables.any(table).slot_index(pk)
            {
                pending.push(EntityRef { table, slot });
            }
        }
        self.mark(&mut reached, pending);
        reached
    }

    /// Marks in `keep` every slot the kept ones point at, at any depth.
    fn close(&self, keep: &mut [Vec<bool>]) {
        let mut pending = Vec::new();
        for (table, slots) in keep.iter_mut().enumerate() {
            for (slot, kept) in slots.iter_mut().enumerate() {
                if *kept {
                    // Unmark so that `mark` walks it.
                    *kept = false;
                    pending.push(EntityRef {
                        table: table as u32,
                        slot: slot as u32,
                    });
                }
            }
        }
        self.mark(keep, pending);
    }

    /// Marks `pending` and every slot they point at, at any depth.
    fn mark(&self, marks: &mut [Vec<bool>], mut pending: Vec<EntityRef>) {
        while let Some(next) = pending.pop() {
            let Some(seen) = marks
                .get_mut(next.table as usize)
                .and_then(|slots| slots.get_mut(next.slot as usize))
            else {
                continue;
            };
            if !*seen {
                *seen = true;
                pending.extend_from_slice(self.tables.any(next.table).refs_of(next.slot));
            }
        }
    }

    /// Drops the slots whose `keep` is false and renumbers every
    /// reference to the slots that moved. Returns how many went.
    fn compact(&mut self, keep: &[Vec<bool>]) -> usize {
        let mut dropped = 0;
        let mut moved: Vec<Option<Vec<u32>>> = Vec::with_capacity(keep.len());
        for (table, keep) in keep.iter().enumerate() {
            let gone = keep.iter().filter(|k| !**k).count();
            if gone == 0 {
                moved.push(None);
                continue;
            }
            dropped += gone;
            moved.push(Some(self.tables.any_mut(table as u32).compact(keep)));
        }
        if dropped == 0 {
            return 0;
        }
        for table in 0..self.tables.len() as u32 {
            self.tables.any_mut(table).renumber_refs(&moved);
        }
        for result in self.results.values_mut() {
            renumber(&mut result.refs, &moved);
        }
        self.layout += 1;
        dropped
    }
}
