//! Denormalizing: joining stored entities back into the values a read
//! hands out, with or without a memo.

use std::any::Any;
use std::rc::Rc;

use crate::entity::Entity;
use crate::memo::{EntityMemo, MemoState, ResultMemo};
use crate::pk::Pk;
use crate::schema::Schema;
use crate::store::{Read, STAMPS, Store};
use crate::table::{Dep, Deps};

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
/// the entity references of the value being walked, in the order its
/// schema visits them.
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
        let current = self.reader.entity::<E>(dep)?;
        if self.reader.memo.is_some() {
            self.reader.out.push(dep);
        }
        Some(current)
    }

    /// Where the references recorded so far end; [`rewind`](Self::rewind)
    /// forgets what a value recorded after it when the value is dropped.
    pub(crate) fn mark(&self) -> usize {
        self.reader.out.len()
    }

    /// Forgets the references recorded since `mark`.
    pub(crate) fn rewind(&mut self, mark: usize) {
        self.reader.out.truncate(mark);
    }
}

/// One read over a store, remembering into a memo when it has one.
pub(crate) struct Reader<'s> {
    store: &'s Store,
    memo: Option<&'s mut MemoState>,
    /// Entity references of the values being rebuilt, innermost last.
    out: Vec<Dep>,
    /// Stamps of the tables the innermost value being read touched.
    mask: u64,
}

fn stamp_bit(table: u32) -> u64 {
    1 << (table as usize % STAMPS)
}

impl<'s> Reader<'s> {
    pub fn new(store: &'s Store, memo: Option<&'s mut MemoState>) -> Self {
        Reader {
            store,
            memo,
            out: Vec::new(),
            mask: 0,
        }
    }

    /// Whether nothing a value stamped `(mask, at)` depends on was written
    /// since `at`.
    fn fresh(&self, mask: u64, at: u64) -> bool {
        if at == self.store.clock {
            return true;
        }
        let mut bits = mask;
        while bits != 0 {
            let bit = bits.trailing_zeros() as usize;
            if self.store.changed_at[bit] > at {
                return false;
            }
            bits &= bits - 1;
        }
        true
    }

    /// Walks `base` (whose references are `deps`) against the store.
    /// Returns the outcome, the references of the outcome and the stamps it
    /// touched.
    fn walk<T>(
        &mut self,
        deps: &[Dep],
        own: u64,
        denormalize: impl FnOnce(&mut Denormalizer<'_, 's>) -> Denorm<T>,
    ) -> (Denorm<T>, Deps, u64) {
        let start = self.out.len();
        let outer = std::mem::replace(&mut self.mask, own);
        let outcome = denormalize(&mut Denormalizer {
            reader: self,
            input: deps,
            next: 0,
        });
        let out = self.out.drain(start..).collect();
        let mask = std::mem::replace(&mut self.mask, outer);
        self.mask |= mask;
        (outcome, out, mask)
    }

    /// The current copy of the record at `dep`, nested entities joined.
    fn entity<E: Entity>(&mut self, dep: Dep) -> Option<Rc<E>> {
        let store = self.store;
        let slot = store.table::<E>(dep.table)?.slots.get(dep.slot as usize)?;
        let record = slot.record.as_ref()?;
        if !E::HAS_NESTED {
            self.mask |= stamp_bit(dep.table);
            return Some(Rc::clone(record));
        }
        let Some(memo) = self.memo.as_deref_mut() else {
            let (outcome, _, _) = self.walk(&slot.deps, 0, |cx| record.denormalize_nested(cx));
            return match outcome {
                Denorm::Same => Some(Rc::clone(record)),
                Denorm::Changed(value) => Some(Rc::new(value)),
                Denorm::Missing => None,
            };
        };
        let remembered = memo.entities::<E>(dep.table).take(dep.slot);
        if let Some(entry) = &remembered {
            if entry.version == slot.version && self.fresh(entry.mask, entry.at) {
                let output = Rc::clone(&entry.output);
                self.mask |= entry.mask;
                self.memo_mut().entities::<E>(dep.table).put(dep.slot, remembered);
                return Some(output);
            }
        }
        // Rebuild from the last output when only nested entities changed,
        // so that what did not change keeps its identity.
        let (base, deps) = match &remembered {
            Some(entry) if entry.version == slot.version => (&entry.output, &entry.deps[..]),
            _ => (record, &slot.deps[..]),
        };
        let (outcome, out, mask) = self.walk(deps, stamp_bit(dep.table), |cx| base.denormalize_nested(cx));
        let output = match outcome {
            Denorm::Same => Rc::clone(base),
            Denorm::Changed(value) => Rc::new(value),
            Denorm::Missing => return None,
        };
        let entry = EntityMemo {
            output: Rc::clone(&output),
            deps: out,
            version: slot.version,
            mask,
            at: store.clock,
        };
        self.memo_mut().entities::<E>(dep.table).put(dep.slot, Some(entry));
        Some(output)
    }

    fn memo_mut(&mut self) -> &mut MemoState {
        self.memo.as_deref_mut().unwrap_or_else(|| unreachable!("only memo reads remember"))
    }

    /// One record by pk.
    pub fn entity_by_pk<E: Entity>(mut self, pk: Option<Pk>) -> Read<E> {
        let Some(dep) = pk.and_then(|pk| self.store.locate::<E>(&pk)) else {
            return Read::Absent;
        };
        let store = self.store;
        let Some(slot) = store.table::<E>(dep.table).and_then(|t| t.slots.get(dep.slot as usize)) else {
            return Read::Absent;
        };
        match self.entity::<E>(dep) {
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
        let Some(stored) = slot.value.as_ref().and_then(|v| Rc::clone(v).downcast::<S>().ok()) else {
            return Read::Invalid;
        };
        let Some(memo) = self.memo.as_deref_mut() else {
            let (outcome, _, _) = self.walk(&slot.deps, 0, |cx| stored.denormalize(cx));
            return match outcome {
                Denorm::Same => Read::Found(stored, slot.meta),
                Denorm::Changed(value) => Read::Found(Rc::new(value), slot.meta),
                Denorm::Missing => Read::Invalid,
            };
        };
        let remembered = memo.results.remove_entry(key);
        let previous = remembered.as_ref().and_then(|(_, entry)| {
            let output = Rc::clone(&entry.output).downcast::<S>().ok()?;
            (entry.version == slot.version).then_some((output, entry))
        });
        if let Some((output, entry)) = &previous {
            if self.fresh(entry.mask, entry.at) {
                let output = Rc::clone(output);
                if let Some((key, entry)) = remembered {
                    self.memo_mut().results.insert(key, entry);
                }
                return Read::Found(output, slot.meta);
            }
        }
        // Rebuild from the last output when only entities changed, so that
        // what did not change keeps its identity.
        let (base, deps) = match &previous {
            Some((output, entry)) => (Rc::clone(output), &entry.deps[..]),
            None => (stored, &slot.deps[..]),
        };
        let (outcome, out, mask) = self.walk(deps, 0, |cx| base.denormalize(cx));
        let output = match outcome {
            Denorm::Same => base,
            Denorm::Changed(value) => Rc::new(value),
            Denorm::Missing => return Read::Invalid,
        };
        let entry = ResultMemo {
            output: Rc::clone(&output) as Rc<dyn Any>,
            deps: out,
            version: slot.version,
            mask,
            at: store.clock,
        };
        let key = remembered.map_or_else(|| key.to_owned(), |(key, _)| key);
        self.memo_mut().results.insert(key, entry);
        Read::Found(output, slot.meta)
    }
}
