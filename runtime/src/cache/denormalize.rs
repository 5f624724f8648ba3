//! Denormalizing: joining stored entities back into the values a read
//! hands out, with or without a memo.

use std::any::Any;
use std::rc::Rc;

use crate::cache::entity::Entity;
use crate::cache::memo::{EntityMemo, MemoState, ResultMemo};
use crate::cache::schema::Schema;
use crate::cache::store::table::{Dep, Slot};
use crate::cache::store::{Read, STAMPS, Store};
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
    input: &'r [Dep],
    next: usize,
}

impl Denormalizer<'_, '_> {
    /// The current copy of the next entity the value refers to; `None` when
    /// it is gone.
    pub(crate) fn entity<E: Entity>(&mut self) -> Option<Rc<E>> {
        let dep = *self.input.get(self.next)?;
        self.next += 1;
        self.reader.entity::<E>(dep)
    }
}

/// One read over a store, remembering into a memo when it has one.
pub(crate) struct Reader<'s> {
    store: &'s Store,
    memo: Option<&'s mut MemoState>,
    /// Stamps of the tables the value being read touched so far.
    mask: u64,
}

fn stamp_bit(table: u32) -> u64 {
    1 << (table as usize % STAMPS)
}

/// The output of a walk over the stored value `stored`: the previous
/// output when it holds the same entities (so it keeps its identity), else
/// the stored value or the rebuilt one.
fn settle<T>(
    outcome: Denorm<T>,
    stored: &Rc<T>,
    previous: Option<Rc<T>>,
    same: impl Fn(&T, &T) -> bool,
) -> Option<Rc<T>> {
    let fresh = match outcome {
        Denorm::Missing => return None,
        Denorm::Same => {
            if let Some(previous) = previous.filter(|p| Rc::ptr_eq(p, stored) || same(p, stored)) {
                return Some(previous);
            }
            return Some(Rc::clone(stored));
        }
        Denorm::Changed(value) => value,
    };
    match previous {
        Some(previous) if same(&previous, &fresh) => Some(previous),
        _ => Some(Rc::new(fresh)),
    }
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

    /// Runs `denormalize` over a stored value whose references are `deps`;
    /// returns its outcome and the stamps of every table it touched.
    fn walk<T>(
        &mut self,
        deps: &[Dep],
        own: u64,
        denormalize: impl FnOnce(&mut Denormalizer<'_, 's>) -> Denorm<T>,
    ) -> (Denorm<T>, u64) {
        let outer = std::mem::replace(&mut self.mask, own);
        let outcome = denormalize(&mut Denormalizer {
            reader: self,
            input: deps,
            next: 0,
        });
        let mask = std::mem::replace(&mut self.mask, outer);
        self.mask |= mask;
        (outcome, mask)
    }

    /// The current copy of the record at `dep`, nested entities joined.
    fn entity<E: Entity>(&mut self, dep: Dep) -> Option<Rc<E>> {
        let slot = self
            .store
            .table::<E>(dep.table)?
            .slots
            .get(dep.slot as usize)?;
        self.entity_in(dep, slot)
    }

    /// [`entity`](Self::entity) for a caller that already holds the slot.
    #[inline]
    fn entity_in<E: Entity>(&mut self, dep: Dep, slot: &'s Slot<E>) -> Option<Rc<E>> {
        let record = slot.record.as_ref()?;
        if !E::HAS_NESTED {
            self.mask |= stamp_bit(dep.table);
            return Some(Rc::clone(record));
        }
        self.nested_in(dep, slot, record)
    }

    /// [`entity_in`](Self::entity_in) for a record with nested entities.
    fn nested_in<E: Entity>(
        &mut self,
        dep: Dep,
        slot: &'s Slot<E>,
        record: &'s Rc<E>,
    ) -> Option<Rc<E>> {
        let store = self.store;
        let Some(memo) = self.memo.as_deref_mut() else {
            let (outcome, _) = self.walk(&slot.deps, 0, |cx| record.denormalize_nested(cx));
            return settle(outcome, record, None, E::same_nested);
        };
        let previous = memo
            .entity::<E>(dep.table, dep.slot)
            .filter(|entry| entry.version == slot.version)
            .map(|entry| (Rc::clone(&entry.output), entry.mask, entry.at));
        if let Some((output, mask, at)) = &previous
            && self.store.unchanged_since(*mask, *at)
        {
            self.mask |= mask;
            return Some(Rc::clone(output));
        }
        let (outcome, mask) = self.walk(&slot.deps, stamp_bit(dep.table), |cx| {
            record.denormalize_nested(cx)
        });
        let output = settle(outcome, record, previous.map(|p| p.0), E::same_nested);
        let entry = output.as_ref().map(|output| EntityMemo {
            output: Rc::clone(output),
            version: slot.version,
            mask,
            at: store.clock,
        });
        self.memo_mut()
            .entities::<E>(dep.table)
            .put(dep.slot, entry);
        output
    }

    fn memo_mut(&mut self) -> &mut MemoState {
        self.memo
            .as_deref_mut()
            .unwrap_or_else(|| unreachable!("only memo reads remember"))
    }

    /// One record by pk.
    ///
    /// The pk comes by reference: moving it in by value made every read
    /// reload it whole from two smaller stores, a store-forwarding stall
    /// that cost a third of a read.
    #[inline(always)]
    pub fn entity_by_pk<E: Entity>(&mut self, pk: Option<&Pk>) -> Read<E> {
        let store = self.store;
        let Some(table) = store.find_table::<E>() else {
            return Read::Absent;
        };
        let Some(records) = store.table::<E>(table) else {
            return Read::Absent;
        };
        let Some((index, slot)) = pk
            .and_then(|pk| records.slot_of(pk))
            .and_then(|index| Some((index, records.slots.get(index as usize)?)))
        else {
            return Read::Absent;
        };
        let dep = Dep { table, slot: index };
        match self.entity_in::<E>(dep, slot) {
            Some(value) => Read::Found(value, slot.meta),
            None => Read::Invalid,
        }
    }

    /// The result stored under `key`.
    pub fn result<S: Schema>(mut self, key: &str) -> Read<S> {
        let store = self.store;
        let Some(slot) = store.results.get(key) else {
            return Read::Absent;
        };
        let Some(stored) = slot
            .value
            .as_ref()
            .and_then(|v| Rc::clone(v).downcast::<S>().ok())
        else {
            return Read::Invalid;
        };
        let Some(memo) = self.memo.as_deref_mut() else {
            let (outcome, _) = self.walk(&slot.deps, 0, |cx| stored.denormalize(cx));
            return match settle(outcome, &stored, None, S::same_entities) {
                Some(value) => Read::Found(value, slot.meta),
                None => Read::Invalid,
            };
        };
        let previous = memo
            .results
            .get(key)
            .filter(|entry| entry.version == slot.version)
            .and_then(|entry| {
                Some((
                    Rc::clone(&entry.output).downcast::<S>().ok()?,
                    entry.mask,
                    entry.at,
                ))
            });
        if let Some((output, mask, at)) = &previous
            && self.store.unchanged_since(*mask, *at)
        {
            return Read::Found(Rc::clone(output), slot.meta);
        }
        let (outcome, mask) = self.walk(&slot.deps, 0, |cx| stored.denormalize(cx));
        let Some(output) = settle(outcome, &stored, previous.map(|p| p.0), S::same_entities) else {
            self.memo_mut().results.remove(key);
            return Read::Invalid;
        };
        let entry = ResultMemo {
            output: Rc::clone(&output) as Rc<dyn Any>,
            version: slot.version,
            mask,
            at: store.clock,
        };
        let results = &mut self.memo_mut().results;
        match results.get_mut(key) {
            Some(existing) => *existing = entry,
            None => drop(results.insert(key.to_owned(), entry)),
        }
        Read::Found(output, slot.meta)
    }
}
