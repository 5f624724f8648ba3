//! Memo-aware reads: what a read keeps of the last output it handed out.
//! A value that holds the same entities as last time is handed out again
//! (the same `Rc`); a read whose tables were not written since is answered
//! without a walk.

use std::any::Any;
use std::rc::Rc;

use super::{EntityMemo, MemoState, ResultMemo};
use crate::cache::denormalize::{Denorm, Reader};
use crate::cache::entity::Entity;
use crate::cache::schema::Schema;
use crate::cache::store::Lookup;
use crate::cache::store::registry::stamp_bit;
use crate::cache::store::table::{EntityRef, Slot};

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
    /// A record with nested entities, joined: from the memo while none of
    /// the tables it depends on was written, else walked and remembered.
    pub(in crate::cache) fn nested_in<E: Entity>(
        &mut self,
        at: EntityRef,
        slot: &'s Slot<E>,
        record: &'s Rc<E>,
    ) -> Option<Rc<E>> {
        let store = self.store;
        let Some(memo) = self.memo.as_deref_mut() else {
            let (outcome, _) = self.walk(&slot.refs, 0, |cx| record.denormalize_nested(cx));
            return settle(outcome, record, None, E::same_nested);
        };
        let previous = memo
            .entity::<E>(at.table, at.slot)
            .filter(|entry| entry.version == slot.version)
            .map(|entry| (Rc::clone(&entry.output), entry.mask, entry.at));
        if let Some((output, mask, checked)) = &previous
            && store.unchanged_since(*mask, *checked)
        {
            self.add_stamps(*mask);
            return Some(Rc::clone(output));
        }
        let (outcome, mask) = self.walk(&slot.refs, stamp_bit(at.table), |cx| {
            record.denormalize_nested(cx)
        });
        let output = settle(outcome, record, previous.map(|p| p.0), E::same_nested);
        let entry = output.as_ref().map(|output| EntityMemo {
            output: Rc::clone(output),
            version: slot.version,
            mask,
            at: store.last_write(),
        });
        self.memo_mut().entities::<E>(at.table).put(at.slot, entry);
        output
    }

    fn memo_mut(&mut self) -> &mut MemoState {
        self.memo
            .as_deref_mut()
            .unwrap_or_else(|| unreachable!("only memo reads remember"))
    }

    /// The result stored under `key`, its entities joined.
    pub fn result<S: Schema>(mut self, key: &str) -> Lookup<S> {
        let store = self.store;
        let Some(slot) = store.result_slot(key) else {
            return Lookup::Absent;
        };
        let Some(stored) = slot
            .value
            .as_ref()
            .and_then(|v| Rc::clone(v).downcast::<S>().ok())
        else {
            return Lookup::Invalid;
        };
        let Some(memo) = self.memo.as_deref_mut() else {
            let (outcome, _) = self.walk(&slot.refs, 0, |cx| stored.denormalize(cx));
            return match settle(outcome, &stored, None, S::same_entities) {
                Some(value) => Lookup::Found(value, slot.meta),
                None => Lookup::Invalid,
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
        if let Some((output, mask, checked)) = &previous
            && store.unchanged_since(*mask, *checked)
        {
            return Lookup::Found(Rc::clone(output), slot.meta);
        }
        let (outcome, mask) = self.walk(&slot.refs, 0, |cx| stored.denormalize(cx));
        let Some(output) = settle(outcome, &stored, previous.map(|p| p.0), S::same_entities) else {
            self.memo_mut().results.remove(key);
            return Lookup::Invalid;
        };
        let entry = ResultMemo {
            output: Rc::clone(&output) as Rc<dyn Any>,
            version: slot.version,
            mask,
            at: store.last_write(),
        };
        let results = &mut self.memo_mut().results;
        match results.get_mut(key) {
            Some(existing) => *existing = entry,
            None => drop(results.insert(key.to_owned(), entry)),
        }
        Lookup::Found(output, slot.meta)
    }
}
