//! Collecting what nothing uses: results removed by key, and the records
//! that no result reaches, dropped and their tables compacted.

use std::collections::BinaryHeap;

use super::Store;
use super::table::EntityRef;
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
        let removed = self.results.remove(key).is_some();
        if removed {
            self.renew_state();
            self.log_result(key);
        }
        removed
    }

    /// Gives back the room of the results map when most of it went.
    pub(crate) fn shrink_if_sparse(&mut self) {
        use crate::sparse::Sparse;
        self.results.shrink_if_sparse();
        self.result_layers.shrink_if_sparse();
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
    pub(crate) fn collect_records(
        &mut self,
        roots: &[(&str, &Pk)],
        whole_tables: &[&str],
        rule: Unreached,
    ) -> Dropped {
        let tables = self.tables.len() as u32;
        let layered =
            !self.result_layers.is_empty() || (0..tables).any(|t| self.tables.any(t).has_layers());
        if layered {
            return Dropped {
                records: 0,
                skipped: true,
            };
        }
        let mut keep = self.reached(roots, whole_tables);
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
            // A heap sort: each candidate is once, so the order is the
            // same as any sort's, and it is far less code in a browser
            // bundle than the slice sorts.
            for (_, table, slot) in BinaryHeap::from(candidates).into_sorted_vec() {
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

    /// Which slots of each table a result, a nested reference, a root or
    /// a table held whole reaches.
    fn reached(&self, roots: &[(&str, &Pk)], whole_tables: &[&str]) -> Vec<Vec<bool>> {
        let tables = self.tables.len() as u32;
        let mut reached: Vec<Vec<bool>> = (0..tables)
            .map(|t| vec![false; self.tables.any(t).slot_count()])
            .collect();
        let mut pending: Vec<EntityRef> = self
            .results
            .values()
            .flat_map(|result| result.refs.view().iter())
            .collect();
        for (key, pk) in roots {
            if let Some(table) = self.tables.by_key(key)
                && let Some(slot) = self.tables.any(table).slot_index(pk)
            {
                pending.push(EntityRef { table, slot });
            }
        }
        for key in whole_tables {
            if let Some(table) = self.tables.by_key(key) {
                let records = self.tables.any(table);
                let slots = 0..records.slot_count() as u32;
                let live = slots.filter(|&slot| records.slot_state(slot).1);
                pending.extend(live.map(|slot| EntityRef { table, slot }));
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
            result.refs.renumber(&moved);
        }
        self.renumbered();
        dropped
    }
}

#[cfg(test)]
mod tests {
    //! What a collection keeps: whatever a result, a root or a kept
    //! record reaches; deletion markers a late response may still meet;
    //! within a bound, the records fetched last. What it drops leaves no
    //! reference pointing at another record.

    use std::any::{Any, TypeId};
    use std::rc::Rc;

    use super::super::registry::TypeKey;
    use super::super::results::{Joined, ListEdit, ResultSlot};
    use super::super::table::{EntityRef, EntityRefs, Table};
    use super::*;
    use crate::meta::Meta;
    use crate::pk::PkKey;

    const NOTES: TypeKey = TypeKey {
        id: TypeId::of::<String>(),
        index: u32::MAX,
        key: "Note",
        name: "String",
    };

    fn fetched(ms: u64) -> Meta {
        Meta {
            fetched_at: Timestamp::from_millis(ms),
            ..Meta::default()
        }
    }

    fn no_join(_: &dyn Any, _: ListEdit<'_>) -> Option<Joined> {
        None
    }

    fn notes(store: &mut Store) -> &mut Table<String> {
        let (table, _) = store.tables.register::<String>(NOTES).unwrap();
        store.tables.get_mut::<String>(table).unwrap()
    }

    /// Stores note `pk` fetched at `ms`, pointing at the notes `links`.
    fn note(store: &mut Store, pk: u64, ms: u64, links: &[u64]) {
        let refs: EntityRefs = links
            .iter()
            .map(|&to| EntityRef {
                table: 0,
                slot: notes(store).slot_of(&Pk::from(to)).unwrap(),
            })
            .collect();
        let mut record = Rc::new(format!("note {pk}"));
        let table = notes(store);
        let at = table.locate(&PkKey::owned(Pk::from(pk)));
        table.merge_at(
            at,
            &mut record,
            refs,
            fetched(ms),
            ms,
            false,
            |_, _, _, _| false,
            |_, _| false,
        );
        crate::cache::store::table::AnyTable::commit(table);
    }

    /// Stores a result under `key` holding the notes `pks`.
    fn result(store: &mut Store, key: &str, pks: &[u64]) {
        let refs: Vec<EntityRef> = pks
            .iter()
            .map(|&pk| EntityRef {
                table: 0,
                slot: notes(store).slot_of(&Pk::from(pk)).unwrap(),
            })
            .collect();
        let slot = ResultSlot {
            value: Some(Rc::new(()) as Rc<dyn Any>),
            refs: refs.into(),
            meta: fetched(1),
            version: 1,
            join: no_join,
        };
        store.results.insert(key.to_owned(), slot);
    }

    fn held(store: &mut Store) -> Vec<u64> {
        (1..=9)
            .filter(|&pk| notes(store).slot_of(&Pk::from(pk)).is_some())
            .collect()
    }

    const EVERYTHING_OLD: Unreached = Unreached {
        before: Timestamp::from_millis(1_000),
        gone_before: Timestamp::from_millis(1_000),
        at_most: None,
    };

    #[test]
    fn what_a_result_a_root_or_a_kept_record_reaches_stays() {
        let mut store = Store::new();
        note(&mut store, 1, 10, &[]);
        note(&mut store, 2, 10, &[1]); // nested: 2 points at 1
        note(&mut store, 3, 10, &[]);
        note(&mut store, 4, 10, &[]);
        note(&mut store, 5, 10, &[]);
        result(&mut store, "list", &[2, 5]);
        let root = Pk::from(4_u64);
        let layout = store.layout();
        let dropped = store.collect_records(&[("Note", &root)], &[], EVERYTHING_OLD);
        assert_eq!(dropped.records, 1);
        assert_eq!(held(&mut store), [1, 2, 4, 5]);
        assert_ne!(store.layout(), layout, "slots were renumbered");
        // The result's references follow their records.
        let five = notes(&mut store).slot_of(&Pk::from(5_u64)).unwrap();
        assert_eq!(store.result_refs("list").get(1).unwrap().slot, five);
    }

    #[test]
    fn a_list_of_consecutive_slots_follows_them_when_slots_before_go() {
        let mut store = Store::new();
        for pk in 1..=5 {
            note(&mut store, pk, 10, &[]);
        }
        result(&mut store, "list", &[3, 4, 5]);
        let dropped = store.collect_records(&[], &[], EVERYTHING_OLD);
        assert_eq!(dropped.records, 2);
        assert_eq!(held(&mut store), [3, 4, 5]);
        let slots: Vec<u32> = [3_u64, 4, 5]
            .iter()
            .map(|&pk| notes(&mut store).slot_of(&Pk::from(pk)).unwrap())
            .collect();
        let listed: Vec<u32> = store.result_refs("list").iter().map(|at| at.slot).collect();
        assert_eq!(listed, slots);
        assert_eq!(slots, [0, 1, 2]);
    }

    #[test]
    fn recent_records_and_recent_deletion_markers_stay() {
        let mut store = Store::new();
        note(&mut store, 1, 10, &[]);
        note(&mut store, 2, 2_000, &[]);
        notes(&mut store).delete(&Pk::from(3_u64), fetched(2_000), 3, false);
        notes(&mut store).delete(&Pk::from(4_u64), fetched(10), 4, false);
        let dropped = store.collect_records(&[], &[], EVERYTHING_OLD);
        assert_eq!(dropped.records, 2, "the old record and the old marker");
        assert_eq!(held(&mut store), [2, 3]);
    }

    #[test]
    fn a_bound_drops_the_records_fetched_first() {
        let mut store = Store::new();
        for pk in 1..=4 {
            note(&mut store, pk, 2_000 + pk, &[]);
        }
        let rule = Unreached {
            at_most: Some(2),
            ..EVERYTHING_OLD
        };
        store.collect_records(&[], &[], rule);
        assert_eq!(held(&mut store), [3, 4]);
    }

    #[test]
    fn nothing_goes_while_an_optimistic_layer_is_on() {
        let mut store = Store::new();
        note(&mut store, 1, 10, &[]);
        let mut draft = Rc::new("draft".to_owned());
        let table = notes(&mut store);
        let at = table.locate(&PkKey::owned(Pk::from(1_u64)));
        table.merge_at(
            at,
            &mut draft,
            EntityRefs::new(),
            fetched(20),
            9,
            true,
            |_, _, _, _| false,
            |_, _| false,
        );
        crate::cache::store::table::AnyTable::commit_layer(table, 9, 1);
        let dropped = store.collect_records(&[], &[], EVERYTHING_OLD);
        assert!(dropped.skipped);
        assert_eq!(held(&mut store), [1]);
    }
}
