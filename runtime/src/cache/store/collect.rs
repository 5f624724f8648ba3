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
    /// The tables whose slots moved: what was remembered by slot number
    /// for them (memo entries) is void.
    pub tables: Vec<u32>,
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
    /// another record) and no root in `roots` names, and that were fetched
    /// before `before`; with `at_most`, also the least recently fetched
    /// unreached ones while more than `at_most` slots are left. Nothing is
    /// dropped while an optimistic layer is on (the layer's records are
    /// numbered by slot).
    pub(crate) fn collect_records(
        &mut self,
        roots: &[(&str, &Pk)],
        before: Timestamp,
        at_most: Option<usize>,
    ) -> Dropped {
        let tables = self.tables.len();
        let layered = !self.result_layers.is_empty()
            || (0..tables as u32).any(|t| self.tables.any(t).has_layers());
        if layered {
            return Dropped::default();
        }
        let reached = self.reached(roots);
        let mut keep: Vec<Vec<bool>> = reached.clone();
        let mut unreached_young = Vec::new();
        for (table, keep) in keep.iter_mut().enumerate() {
            let records = self.tables.any(table as u32);
            for (slot, kept) in keep.iter_mut().enumerate() {
                let fetched_at = records.fetched_at(slot as u32);
                if !*kept && fetched_at >= before {
                    *kept = true;
                    unreached_young.push((fetched_at, table, slot));
                }
            }
        }
        if let Some(at_most) = at_most {
            let mut left: usize = keep.iter().flatten().filter(|k| **k).count();
            unreached_young.sort_unstable();
            for (_, table, slot) in unreached_young {
                if left <= at_most {
                    break;
                }
                keep[table][slot] = false;
                left -= 1;
            }
        }
        self.compact(&keep)
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
        while let Some(next) = pending.pop() {
            let seen = &mut reached[next.table as usize][next.slot as usize];
            if !*seen {
                *seen = true;
                pending.extend_from_slice(self.tables.any(next.table).refs_of(next.slot));
            }
        }
        reached
    }

    /// Drops the slots whose `keep` is false and renumbers every
    /// reference to the slots that moved.
    fn compact(&mut self, keep: &[Vec<bool>]) -> Dropped {
        let mut dropped = Dropped::default();
        let mut moved: Vec<Option<Vec<u32>>> = Vec::with_capacity(keep.len());
        for (table, keep) in keep.iter().enumerate() {
            let gone = keep.iter().filter(|k| !**k).count();
            if gone == 0 {
                moved.push(None);
                continue;
            }
            dropped.records += gone;
            dropped.tables.push(table as u32);
            moved.push(Some(self.tables.any_mut(table as u32).compact(keep)));
        }
        if dropped.records == 0 {
            return dropped;
        }
        for table in 0..self.tables.len() as u32 {
            self.tables.any_mut(table).renumber_refs(&moved);
        }
        for result in self.results.values_mut() {
            renumber(&mut result.refs, &moved);
        }
        dropped
    }
}
