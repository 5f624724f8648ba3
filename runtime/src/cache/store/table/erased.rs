//! A table seen without its entity type: what the store does across
//! tables (collection, invalidation by key, renumbering, the end of a
//! write).

use std::any::Any;

use super::super::layer::Layered;
use super::{EntityRef, Slot, Table, TableRecord, gone, lent_by, renumber};
use crate::meta::{Meta, Timestamp};
use crate::pk::Pk;

/// What the store does with a table whose entity type it does not know.
pub(crate) trait AnyTable: Any {
    fn clone_table(&self) -> Box<dyn AnyTable>;
    fn type_name(&self) -> &'static str;
    /// Number of records that can be read (not invalidated).
    fn live(&self) -> usize;
    /// Drops the record as of `at` (keeping its slot so the invalidation
    /// is ordered like any write), unless a request that started after
    /// `at` brought it; `false` when the pk is unknown.
    fn invalidate(&mut self, pk: &Pk, at: Timestamp, version: u64) -> bool;
    fn meta(&self, pk: &Pk) -> Option<Meta>;
    /// The slot of `pk`, live or not.
    fn slot_index(&self, pk: &Pk) -> Option<u32>;
    /// The entities the record in `slot` points at.
    fn refs_of(&self, slot: u32) -> &[EntityRef];
    /// The entities the record in `slot` points at, when the slot was not
    /// written after the write `at`; `None` when it was (or is unknown).
    fn refs_if_unwritten_since(&self, slot: u32, at: u64) -> Option<&[EntityRef]>;
    /// The pks of `slots` (a scan of the table's index).
    #[cfg(feature = "persist")]
    fn pks_of(&self, slots: &rustc_hash::FxHashSet<u32>) -> Vec<Pk>;
    /// Number of slots, live or not.
    fn slot_count(&self) -> usize;
    /// Makes room for `additional` more records (a write that expects
    /// them).
    fn reserve(&mut self, additional: usize);
    /// Gives back the room its records do not use.
    fn shrink_to_fit(&mut self);
    /// When the record in `slot` was last fetched, and whether it holds a
    /// record (not a deletion's or an invalidation's marker).
    fn slot_state(&self, slot: u32) -> (Timestamp, bool);
    /// Whether any slot is under an optimistic layer.
    fn has_layers(&self) -> bool;
    /// Drops every slot whose `keep` is false, moving the others down.
    /// Returns each old slot's new number (`u32::MAX`: dropped). Only
    /// between writes and with no layer.
    fn compact(&mut self, keep: &[bool]) -> Vec<u32>;
    /// Renumbers the references of every record: `moved[table]`, when
    /// set, gives the new slot numbers of `table`.
    fn renumber_refs(&mut self, moved: &[Option<Vec<u32>>]);
    /// Ends a write that succeeded: forgets what it replaced.
    fn commit(&mut self);
    /// Undoes a write that failed: restores the slots it replaced and
    /// drops the ones it added (every slot from `len` on).
    fn rollback(&mut self, len: usize);
    /// Ends an optimistic write as the layer `layer`: each slot it
    /// replaced or added (every slot from `len` on) keeps what it shows as
    /// that layer, over its confirmed copy. Returns those slots.
    fn commit_layer(&mut self, layer: u64, len: usize) -> Vec<u32>;
    /// Removes the layer `layer` from `slots` as the write `now`: each one
    /// shows the layer beneath, or its confirmed copy when none is left.
    /// Returns whether what reads see changed.
    fn remove_layer(&mut self, layer: u64, slots: &[u32], now: u64) -> bool;
}

impl<E: TableRecord + 'static> AnyTable for Table<E> {
    fn clone_table(&self) -> Box<dyn AnyTable> {
        Box::new(Table {
            index: self.index.clone(),
            slots: self.slots.clone(),
            refs: self.refs.clone(),
            replaced: Vec::new(),
            layered: self.layered.clone(),
            replaced_confirmed: Vec::new(),
            origins: self.origins.clone(),
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
        // The slot may be left with no record to lend its pk.
        self.index.keep(index, pk.as_ref());
        if let Some(under) = self.layered.get_mut(index) {
            let meta = self.origins.get(under.confirmed.origin).meta;
            if meta.fetched_at <= at {
                under.confirmed = gone(&mut self.origins, meta, at, version);
            }
            return true;
        }
        let meta = self.origins.get(self.slots[index as usize].origin).meta;
        if meta.fetched_at <= at {
            let gone = gone(&mut self.origins, meta, at, version);
            self.put(index, gone);
        }
        true
    }

    fn meta(&self, pk: &Pk) -> Option<Meta> {
        self.slot_of(pk)
            .map(|i| self.origin_of(self.slots[i as usize].origin).meta)
    }

    fn slot_index(&self, pk: &Pk) -> Option<u32> {
        self.slot_of(pk)
    }

    #[cfg(feature = "persist")]
    fn pks_of(&self, slots: &rustc_hash::FxHashSet<u32>) -> Vec<Pk> {
        let mut pks = Vec::with_capacity(slots.len());
        self.index.each(&lent_by(&self.slots), |pk, slot| {
            if slots.contains(&slot) {
                pks.push(pk);
            }
        });
        pks
    }

    fn refs_of(&self, slot: u32) -> &[EntityRef] {
        self.refs_at(slot)
    }

    fn refs_if_unwritten_since(&self, slot: u32, at: u64) -> Option<&[EntityRef]> {
        let held = self.slots.get(slot as usize)?;
        (self.origin_of(held.origin).version <= at).then(|| self.refs_at(slot))
    }

    fn slot_count(&self) -> usize {
        self.slots.len()
    }

    fn reserve(&mut self, additional: usize) {
        Table::reserve(self, additional);
    }

    fn shrink_to_fit(&mut self) {
        Table::shrink_to_fit(self);
    }

    fn slot_state(&self, slot: u32) -> (Timestamp, bool) {
        self.slots
            .get(slot as usize)
            .map_or((Timestamp::default(), false), |s| {
                (self.origin_of(s.origin).meta.fetched_at, s.record.is_some())
            })
    }

    fn has_layers(&self) -> bool {
        !self.layered.is_empty()
    }

    fn compact(&mut self, keep: &[bool]) -> Vec<u32> {
        let mut moved = Vec::with_capacity(self.slots.len());
        let mut next = 0_u32;
        for index in 0..self.slots.len() {
            if keep.get(index).copied().unwrap_or(true) {
                moved.push(next);
                next += 1;
            } else {
                moved.push(u32::MAX);
            }
        }
        let kept = |index: &mut usize| {
            *index += 1;
            moved[*index - 1] != u32::MAX
        };
        let mut index = 0;
        self.slots.retain(|_| kept(&mut index));
        self.slots.shrink_to(self.slots.len() * 2);
        let mut index = 0;
        self.refs.retain(|_| kept(&mut index));
        self.refs.shrink_to(self.refs.len() * 2);
        self.index.renumber(&moved, &lent_by(&self.slots));
        self.gather_origins();
        moved
    }

    fn renumber_refs(&mut self, moved: &[Option<Vec<u32>>]) {
        for refs in &mut self.refs {
            renumber(refs, moved);
        }
    }

    fn commit(&mut self) {
        self.replaced.clear();
        self.replaced_confirmed.clear();
        if self.replaced.capacity() > 1024 {
            self.replaced = Vec::new(); // do not hold a large write's undo space
        }
        self.gather_origins_when_due();
    }

    fn commit_layer(&mut self, layer: u64, len: usize) -> Vec<u32> {
        let mut replaced = std::mem::take(&mut self.replaced);
        // A slot this write added and then replaced again is an added one.
        replaced.retain(|(index, _)| (*index as usize) < len);
        // A slot this write added shows no record once the layer goes.
        for index in len..self.slots.len() {
            self.index.keep_lent(index as u32, &lent_by(&self.slots));
        }
        let added = (len..self.slots.len()).map(|index| (index as u32, Slot::absent()));
        let mut covered = Vec::with_capacity(replaced.len());
        for (index, beneath) in replaced.into_iter().chain(added) {
            let on_show = self.slot_copy(index);
            self.layered
                .get_or_insert_with(index, || Layered::over(beneath))
                .push(layer, on_show);
            covered.push(index);
        }
        covered
    }

    fn remove_layer(&mut self, layer: u64, slots: &[u32], now: u64) -> bool {
        let mut changed = false;
        for &index in slots {
            let Some(under) = self.layered.get_mut(index) else {
                continue;
            };
            let Some(mut on_show) = under.remove(layer) else {
                continue; // a layer beneath another: what shows stays
            };
            if under.is_bare() {
                on_show = self
                    .layered
                    .remove(index)
                    .map_or(on_show, Layered::into_confirmed);
            }
            on_show.origin = self.origin(self.origin_of(on_show.origin).meta, now);
            self.put(index, on_show);
            changed = true;
        }
        changed
    }

    fn rollback(&mut self, len: usize) {
        while let Some((index, old)) = self.replaced.pop() {
            self.put(index, old);
        }
        while let Some((index, old)) = self.replaced_confirmed.pop() {
            if let Some(under) = self.layered.get_mut(index) {
                under.confirmed = old;
            }
        }
        if self.slots.len() > len {
            self.truncate(len);
            self.index.retain_below(len, &lent_by(&self.slots));
        }
    }
}
