//! Reads of stored results through a memo: a result whose records were
//! not written since is answered without a walk; a list of records read
//! after a write to a few of them reads those alone and patches its last
//! output; any other is walked whole, and keeps its identity when it holds
//! the same records (a result stored again, in a store that shares equal
//! copies: when it is equal). Also a read answered from the record its key
//! names.

use std::any::Any;
use std::rc::Rc;

use super::{Reader, settle};
use crate::cache::memo::entries::{ItemStamps, ResultMemo};
use crate::cache::schema::{Schema, SchemaParts};
use crate::cache::store::registry::stamp_bit;
use crate::cache::store::table::EntityRef;
use crate::cache::store::{Lookup, Refs};
use crate::pk::Pk;

impl Reader<'_> {
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
            let (outcome, _) = self.walk(slot.refs.view(), |cx| stored.denormalize(cx));
            return match settle(outcome, &stored, None, S::same_entities) {
                Some(value) => Lookup::Found(value, slot.meta),
                None => Lookup::Invalid,
            };
        };
        let mut previous = None;
        let mut stored_again = false;
        let mut items = ItemStamps::default();
        if let Some(entry) = memo.results.get_mut(key)
            && let Ok(output) = Rc::clone(&entry.output).downcast::<S>()
        {
            let same_version = entry.version == slot.version;
            if same_version {
                if store.unchanged_since(entry.mask, entry.at) {
                    return Lookup::Found(output, slot.meta);
                }
                items = std::mem::take(&mut entry.items);
                let (at, mask) = (entry.at, entry.mask);
                if let Some((patched, read_again)) =
                    self.patch::<S>(&stored, &output, slot.refs.view(), &mut items, at)
                {
                    let output = patched.map_or(output, Rc::new);
                    // The items' own stamps stay (the same records); what
                    // the items read again nest may have grown.
                    let mask = mask | read_again;
                    self.remember(key, &output, slot.version, mask, items);
                    return Lookup::Found(output, slot.meta);
                }
            }
            // Walked whole, the last output stays if it holds the same
            // records; for a result stored again (as a refetch stores
            // it), if it is equal and the store shares equal copies.
            if same_version || store.shares_equal_copies() {
                previous = Some(output);
                stored_again = !same_version;
            }
        }
        let listed = <S as SchemaParts>::LIST_OF_RECORDS.then(|| {
            items.stamps.clear();
            items.stamps.resize(slot.refs.view().len(), u64::MAX);
            items.shared = false;
            &mut items
        });
        let (outcome, mask) =
            self.walk_items(slot.refs.view(), listed, |cx| stored.denormalize(cx));
        let same = |a: &S, b: &S| match stored_again {
            true => a.same_value(b),
            false => a.same_entities(b),
        };
        let Some(output) = settle(outcome, &stored, previous, same) else {
            self.memo_mut().results.remove(key);
            return Lookup::Invalid;
        };
        self.remember(key, &output, slot.version, mask, items);
        Lookup::Found(output, slot.meta)
    }

    /// `previous`, the last read of the stored list `stored` (references
    /// `refs`, the stamps of each item and what it nests in `items`, as of
    /// the write `at`), with only the items read again whose own record or
    /// a record they nest was written since: `Some((None, _))` when
    /// `previous` stands, beside the stamps of the items read again;
    /// `None` when it cannot be patched (not a list of records, its items
    /// unknown, more than a quarter of them changed, or an item gone) and
    /// is walked whole.
    fn patch<S: Schema>(
        &mut self,
        stored: &S,
        previous: &S,
        refs: Refs<'_>,
        items: &mut ItemStamps,
        at: u64,
    ) -> Option<(Option<S>, u64)> {
        let count = items.stamps.len();
        if !<S as SchemaParts>::LIST_OF_RECORDS || count == 0 || count != refs.len() {
            return None;
        }
        let tables = self.store.tables();
        let written = tables.changed_since(at);
        // An item is read again when a record it nests may have been
        // written, or its own record was. A stamp is shared by many
        // records, so an item whose own stamp alone was written is told
        // by its record's version; when some item of the list nests a
        // record sharing its own stamp, every such item is told by the
        // versions of its record and all it nests. An item whose stamps
        // are unknown is read again. The first pass reads the stamps alone.
        let own_written = |own: EntityRef| match items.shared {
            false => tables.shown_changed_after(own, at),
            true => !tables.reach_unwritten_since(&[own], at),
        };
        let stamped = items
            .stamps
            .iter()
            .enumerate()
            .filter(|(_, stamps)| **stamps & written != 0);
        let changed: Vec<usize> = stamped
            .filter(|&(index, &stamps)| {
                // An item past the references (none is) is read again.
                refs.get(index).is_none_or(|own| {
                    stamps == u64::MAX
                        || stamps & !stamp_bit(own.table, own.slot) & written != 0
                        || own_written(own)
                })
            })
            .map(|(index, _)| index)
            .collect();
        if changed.len() > count / 4 {
            return None;
        }
        let (patched, read_again) =
            self.walk_items(refs, Some(items), |cx| stored.patch(previous, &changed, cx));
        Some((patched?, read_again))
    }

    /// Remembers `output` as the read of the result `key` (stored as
    /// `version`), which depends on the stamps `mask` (and, for a list of
    /// records, each item on `items`).
    fn remember<S: Schema>(
        &mut self,
        key: &str,
        output: &Rc<S>,
        version: u64,
        mask: u64,
        items: ItemStamps,
    ) {
        let entry = ResultMemo {
            output: Rc::clone(output) as Rc<dyn Any>,
            version,
            mask,
            at: self.store.last_write(),
            items,
        };
        let results = &mut self.memo_mut().results;
        match results.get_mut(key) {
            Some(existing) => *existing = entry,
            None => drop(results.insert(key.to_owned(), entry)),
        }
    }

    /// A read under `key`, whose result the store does not hold, answered
    /// from the record `pk` it names (a record schema only): the record's
    /// value, the same one while the record is the same.
    pub(crate) fn named<S: Schema>(mut self, key: &str, pk: &Pk) -> Lookup<S> {
        let Some(found) = S::read_record(&mut self, pk) else {
            return Lookup::Absent;
        };
        let Lookup::Found(value, meta) = found else {
            return found;
        };
        let mask = self.mask;
        let Some(memo) = self.memo.as_deref_mut() else {
            return Lookup::Found(value, meta);
        };
        let previous = memo
            .results
            .get(key)
            .and_then(|entry| Rc::clone(&entry.output).downcast::<S>().ok())
            .filter(|previous| S::same_entities(previous, &value));
        let output = previous.unwrap_or(value);
        // No stored result has this version: one stored later is read anew.
        self.remember(key, &output, u64::MAX, mask, ItemStamps::default());
        Lookup::Found(output, meta)
    }
}
