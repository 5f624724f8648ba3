//! Entity tables: one per entity type, each record stored once per pk.
//! `erased` is what the store does with a table whose type it does not
//! know.

mod erased;
mod origins;

pub(crate) use erased::AnyTable;
pub(crate) use origins::Origin;
use origins::{NO_ORIGIN, Origins};

use std::rc::Rc;

use smallvec::SmallVec;

use super::layer::LayeredSlots;
use super::pk_index::PkIndex;
use crate::cache::entity::Entity;
use crate::meta::{Meta, Timestamp};
use crate::pk::{Pk, PkKey, PkRef};

/// Where a record lives: its table and its slot in that table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct EntityRef {
    pub table: u32,
    pub slot: u32,
}

/// The entity references of one stored record, in the order its schema
/// visits them: the one reference of a record that nests one record (the
/// most common nesting) inline, more on the heap.
pub(crate) type EntityRefs = SmallVec<[EntityRef; 1]>;

/// Where a record's write goes: the slot its pk has, or a new slot at
/// the end of the table, which the write must fill before the table's
/// next [`Table::locate`].
#[must_use]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Located {
    Stored(u32),
    New,
}

/// A slot once its record is gone as of `at` (invalidated or deleted) in
/// the write `version`, from a slot fetched as `meta`, its origin added
/// to `origins`: responses that started before `at` do not bring the
/// record back. A function of the origins alone, so that a caller can
/// hold a layered slot while it builds one.
fn gone<E>(origins: &mut Origins, meta: Meta, at: Timestamp, version: u64) -> Slot<E> {
    let meta = Meta {
        fetched_at: meta.fetched_at.max(at),
        expires_at: at,
        ..meta
    };
    Slot {
        record: None,
        refs: EntityRefs::new(),
        origin: origins.of(meta, version),
    }
}

/// What a table knows of its record type.
pub(crate) trait TableRecord {
    /// Whether records of the type can nest other records, and so have
    /// references to keep.
    const NESTS: bool;

    /// The record's text pk, when a field of the record holds it: a
    /// table's pk index reads it there instead of keeping a copy.
    fn lent_pk(&self) -> Option<&str>;
}

impl<E: Entity> TableRecord for E {
    const NESTS: bool = E::HAS_NESTED;

    #[inline]
    fn lent_pk(&self) -> Option<&str> {
        self.pk_key()?.lent_text()
    }
}

/// The text pks the records of `slots` lend their table's index.
#[inline]
fn lent_by<'s, E: TableRecord>(
    slots: &'s [Held<E>],
) -> impl Fn(u32) -> Option<&'s str> + Copy + 's {
    |slot| slots.get(slot as usize)?.record.as_deref()?.lent_pk()
}

/// What merging one record into its table did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Merged {
    /// The stored copy stays: nothing was written.
    Kept,
    /// The same record again (the very `Rc`, or a copy judged equal to
    /// it, with the same nested records): only its meta moved, no read
    /// shows anything new.
    Refreshed,
    /// What reads see changed.
    Replaced,
}

/// One record and what the store knows of it. Its pk is the table's
/// index key, and its meta and version are an entry of the table's
/// [`Origin`]s, shared by every slot one write stored: a slot is written
/// on every record a response brings, and small slots write, copy and
/// stay in memory cheaper than ones that carry all of that.
pub(crate) struct Slot<E> {
    /// `None` once the record was invalidated (or deleted).
    pub record: Option<Rc<E>>,
    /// The entities the record's nested fields point at.
    pub refs: EntityRefs,
    /// Where its contents came from: an index into its table's origins.
    pub origin: u32,
}

impl<E> Slot<E> {
    /// The slot of a record the store did not hold: what an optimistic
    /// create's record reveals when its layer goes.
    pub fn absent() -> Self {
        Slot {
            record: None,
            refs: EntityRefs::new(),
            origin: NO_ORIGIN,
        }
    }
}

impl<E> Clone for Slot<E> {
    fn clone(&self) -> Self {
        Slot {
            record: self.record.clone(),
            refs: self.refs.clone(),
            origin: self.origin,
        }
    }
}

/// A slot as a table holds it: its record and origin. Its references
/// live apart, in the table's `refs`, so that a table of records that
/// nest nothing (most of them) spends nothing on them: 8 bytes a slot
/// in wasm32, not 20.
struct Held<E> {
    record: Option<Rc<E>>,
    origin: u32,
}

impl<E> Clone for Held<E> {
    fn clone(&self) -> Self {
        Held {
            record: self.record.clone(),
            origin: self.origin,
        }
    }
}

/// A slot of a table, as a read sees it.
pub(crate) struct SlotRef<'t, E> {
    /// `None` once the record was invalidated (or deleted).
    pub record: &'t Option<Rc<E>>,
    /// The entities the record's nested fields point at.
    pub refs: &'t [EntityRef],
    /// Where its contents came from: an index into its table's origins.
    pub origin: u32,
}

impl<E> Clone for SlotRef<'_, E> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E> Copy for SlotRef<'_, E> {}

/// The records of one entity type.
///
/// A slot shows its record as a read sees it. A record an optimistic write
/// covers also has an entry in `layered`: the confirmed copy beneath (the
/// one real responses update) and the optimistic layers over it.
pub(crate) struct Table<E> {
    index: PkIndex,
    slots: Vec<Held<E>>,
    /// The references of each slot's record, by slot; the slots past its
    /// end have none.
    refs: Vec<EntityRefs>,
    /// The slots the write in progress replaced, with their former
    /// contents; empty between writes.
    replaced: Vec<(u32, Slot<E>)>,
    /// The slots under optimistic layers.
    layered: LayeredSlots<E>,
    /// The confirmed copies under layers that the write in progress
    /// replaced, with their former contents; empty between writes.
    replaced_confirmed: Vec<(u32, Slot<E>)>,
    /// Where the slots (the layered ones too) got their contents.
    origins: Origins,
}

impl<E: TableRecord + 'static> Table<E> {
    pub fn new() -> Self {
        Table {
            index: PkIndex::default(),
            slots: Vec::new(),
            refs: Vec::new(),
            replaced: Vec::new(),
            layered: LayeredSlots::default(),
            replaced_confirmed: Vec::new(),
            origins: Origins::default(),
        }
    }

    /// The origin `origin` (a slot's), where a slot got its contents.
    #[inline(always)]
    pub fn origin_of(&self, origin: u32) -> &Origin {
        self.origins.get(origin)
    }

    /// The origin of a slot the write `version` of a response fetched as
    /// `meta` stores.
    #[inline(always)]
    fn origin(&mut self, meta: Meta, version: u64) -> u32 {
        self.origins.of(meta, version)
    }

    /// Drops the origins no slot names any more, when enough writes
    /// added new ones since the last time. Only between writes.
    pub(super) fn gather_origins_when_due(&mut self) {
        if self.origins.due(self.slots.len()) {
            self.gather_origins();
        }
    }

    /// Drops the origins no slot names any more. Only between writes.
    pub(super) fn gather_origins(&mut self) {
        let (slots, layered) = (&mut self.slots, &mut self.layered);
        self.origins.gather(slots.len(), |keep| {
            for slot in slots.iter_mut() {
                keep(&mut slot.origin);
            }
            for under in layered.values_mut() {
                under.each_slot_mut(|slot| keep(&mut slot.origin));
            }
        });
    }

    /// The slot holding `pk`.
    #[inline(always)]
    pub fn slot_of(&self, pk: &Pk) -> Option<u32> {
        self.index.get(pk.as_ref(), &lent_by(&self.slots))
    }

    /// The slot holding the pk `pk` names.
    #[inline(always)]
    pub fn slot_of_ref(&self, pk: PkRef<'_>) -> Option<u32> {
        self.index.get(pk, &lent_by(&self.slots))
    }

    /// Slot number `index`.
    #[inline(always)]
    pub fn slot(&self, index: u32) -> Option<SlotRef<'_, E>> {
        let held = self.slots.get(index as usize)?;
        Some(SlotRef {
            record: &held.record,
            refs: self.refs_at(index),
            origin: held.origin,
        })
    }

    /// The references of the record in slot `index`.
    #[inline(always)]
    fn refs_at(&self, index: u32) -> &[EntityRef] {
        self.refs.get(index as usize).map_or(&[], |refs| &refs[..])
    }

    /// A copy of slot `index`, references and all.
    fn slot_copy(&self, index: u32) -> Slot<E> {
        let held = &self.slots[index as usize];
        Slot {
            record: held.record.clone(),
            refs: EntityRefs::from_slice(self.refs_at(index)),
            origin: held.origin,
        }
    }

    /// Makes `refs` the references of slot `index`; returns the ones it
    /// had.
    #[inline]
    fn swap_refs(&mut self, index: u32, refs: EntityRefs) -> EntityRefs {
        let index = index as usize;
        if let Some(kept) = self.refs.get_mut(index) {
            return std::mem::replace(kept, refs);
        }
        if !refs.is_empty() {
            self.refs.resize_with(index, EntityRefs::new);
            self.refs.push(refs);
        }
        EntityRefs::new()
    }

    /// Puts `slot` in slot `index`, returning what it held.
    #[inline]
    fn put(&mut self, index: u32, slot: Slot<E>) -> Slot<E> {
        let Slot {
            record,
            refs,
            origin,
        } = slot;
        let old = std::mem::replace(&mut self.slots[index as usize], Held { record, origin });
        // A table of records that nest nothing holds no references.
        let old_refs = if !E::NESTS && self.refs.is_empty() && refs.is_empty() {
            refs
        } else {
            self.swap_refs(index, refs)
        };
        Slot {
            record: old.record,
            refs: old_refs,
            origin: old.origin,
        }
    }

    /// Adds `slot` after the last slot; returns its number.
    #[inline]
    fn push(&mut self, slot: Slot<E>) -> u32 {
        let index = u32::try_from(self.slots.len()).unwrap_or(u32::MAX);
        let Slot {
            record,
            refs,
            origin,
        } = slot;
        // Room first, then the slot built in place: a slot built before
        // the push would be copied across the growth check, a copy whose
        // loads stall on the stores that just wrote it.
        self.slots
            .extend(std::iter::once_with(|| Held { record, origin }));
        self.swap_refs(index, refs);
        index
    }

    /// Drops every slot from `len` on.
    fn truncate(&mut self, len: usize) {
        self.slots.truncate(len);
        self.refs.truncate(len);
    }

    /// The records written after write `since`: each pk with its
    /// confirmed copy (`None` once deleted or invalidated) and when it
    /// was fetched. Optimistic layers are left out.
    #[cfg(any(feature = "tabs", feature = "persist"))]
    pub fn written_after(&self, since: u64) -> Vec<(Pk, Option<Rc<E>>, crate::meta::Timestamp)> {
        let mut written = Vec::new();
        self.index.each(&lent_by(&self.slots), |pk, index| {
            let (record, origin) = match self.layered.get(index) {
                Some(layered) => (&layered.confirmed.record, layered.confirmed.origin),
                None => {
                    let held = &self.slots[index as usize];
                    (&held.record, held.origin)
                }
            };
            let origin = self.origin_of(origin);
            if origin.version > since {
                written.push((pk, record.clone(), origin.meta.fetched_at));
            }
        });
        written
    }

    /// The records the optimistic layer `layer` shows: each pk with the
    /// layer's copy and its fetch time (records it deletes are left out).
    #[cfg(feature = "tabs")]
    pub fn layer_records(&self, layer: u64) -> Vec<(Pk, Rc<E>, crate::meta::Timestamp)> {
        let mut shown = Vec::new();
        if !self
            .layered
            .values()
            .any(|under| under.layer(layer).is_some())
        {
            return shown;
        }
        self.index.each(&lent_by(&self.slots), |pk, index| {
            if let Some(under) = self.layered.get(index)
                && let Some(slot) = under.layer(layer)
                && let Some(record) = &slot.record
            {
                let fetched_at = self.origin_of(slot.origin).meta.fetched_at;
                shown.push((pk, Rc::clone(record), fetched_at));
            }
        });
        shown
    }

    /// The meta of `pk`'s confirmed copy: beneath its optimistic layers,
    /// if any.
    #[cfg(any(feature = "tabs", feature = "persist"))]
    pub fn confirmed_meta(&self, pk: &Pk) -> Option<Meta> {
        let index = self.slot_of(pk)?;
        let origin = match self.layered.get(index) {
            Some(under) => under.confirmed.origin,
            None => self.slots[index as usize].origin,
        };
        Some(self.origin_of(origin).meta)
    }

    /// The stored record of `pk` a partial record of a write merges over:
    /// the confirmed copy under an optimistic layer, unless the write is a
    /// `layer` itself (then what shows).
    pub fn stored_record(&self, pk: &Pk, layer: bool) -> Option<Rc<E>> {
        let index = self.slot_of(pk)?;
        if !layer && let Some(under) = self.layered.get(index) {
            return under.confirmed.record.clone();
        }
        self.slots[index as usize].record.clone()
    }

    /// Makes room for `len` records when the table is empty (a first
    /// load); a table that holds records already grows as needed, since
    /// most of a refetch replaces what it holds.
    pub fn reserve_first_load(&mut self, len: usize) {
        if self.slots.is_empty() {
            self.reserve(len);
        }
    }

    /// Makes room for `additional` more records.
    pub fn reserve(&mut self, additional: usize) {
        self.index.reserve(additional);
        self.slots.reserve(additional);
        if E::NESTS {
            self.refs.reserve(additional);
        }
    }

    /// Gives back the room its records do not use.
    pub fn shrink_to_fit(&mut self) {
        self.index.shrink_to_fit(&lent_by(&self.slots));
        self.slots.shrink_to_fit();
        self.refs.shrink_to_fit();
    }

    /// Finds the slot of the pk `key` names, or gives it the next new
    /// slot, which the [`merge_at`](Self::merge_at) that follows fills
    /// with the record `key` came from.
    #[inline]
    pub fn locate(&mut self, key: &PkKey<'_>) -> Located {
        let fresh = u32::try_from(self.slots.len()).unwrap_or(u32::MAX);
        let lent = lent_by(&self.slots);
        match self
            .index
            .get_or_insert(key.as_ref(), fresh, key.is_lent(), &lent)
        {
            Some(slot) => Located::Stored(slot),
            None => Located::New,
        }
    }

    /// Merges `record` (its nested references `refs`) into the slot `at`
    /// found for its pk, as part of the write `version`, and points
    /// `record` at the table's copy. The record replaces the stored one
    /// unless the stored one came from a request that started later, or
    /// from earlier in this same write (the first copy of a record in a
    /// response is the one kept). A `layer` write (an optimistic value)
    /// goes on show over everything; any other write to a record under
    /// layers goes to its confirmed copy, beneath them. `keeps` says
    /// whether a stored slot keeps its record against `record` fetched as
    /// `meta` (the newer copy wins); `equal` whether `record` equals the
    /// stored copy, which then stays (with the new meta). Returns its slot
    /// and what the merge did to it.
    #[inline]
    #[allow(clippy::too_many_arguments)] // one record's write, in the hot path
    pub fn merge_at(
        &mut self,
        at: Located,
        record: &mut Rc<E>,
        refs: EntityRefs,
        meta: Meta,
        version: u64,
        layer: bool,
        keeps: impl Fn(&Option<Rc<E>>, &Meta, &E, &Meta) -> bool,
        equal: impl Fn(&E, &E) -> bool,
    ) -> (u32, Merged) {
        let written = |record: &Rc<E>, refs, origin| Slot {
            record: Some(Rc::clone(record)),
            refs,
            origin,
        };
        match at {
            Located::Stored(index) => {
                if !layer
                    && !self.layered.is_empty()
                    && let Some(under) = self.layered.get_mut(index)
                {
                    let confirmed = &mut under.confirmed;
                    let stored = self.origins.get(confirmed.origin);
                    if stored.version == version
                        || keeps(&confirmed.record, &stored.meta, record, &meta)
                    {
                        if let Some(kept) = &confirmed.record {
                            *record = Rc::clone(kept);
                        }
                    } else {
                        let slot = written(record, refs, self.origins.of(meta, version));
                        let old = std::mem::replace(confirmed, slot);
                        self.replaced_confirmed.push((index, old));
                    }
                    return (index, Merged::Kept);
                }
                let slot = &self.slots[index as usize];
                let stored = self.origins.get(slot.origin);
                if stored.version == version || keeps(&slot.record, &stored.meta, record, &meta) {
                    if let Some(kept) = &slot.record {
                        *record = Rc::clone(kept);
                    }
                    return (index, Merged::Kept);
                }
                // The very record stored (a cached value written back, or
                // the nested copy of an edited record), or an equal copy of
                // it, changes no read: the stored copy stays.
                let same = *self.refs_at(index) == *refs
                    && slot
                        .record
                        .as_ref()
                        .is_some_and(|stored| Rc::ptr_eq(stored, record) || equal(stored, record));
                if same && let Some(stored) = &slot.record {
                    *record = Rc::clone(stored);
                    // An optimistic value that leaves the confirmed record
                    // as it is (an edited record's nested author) lays
                    // nothing over it: news of it shows through. Over
                    // another layer it does lay one, so that it stays
                    // should that layer go.
                    if layer && self.layered.get(index).is_none() {
                        return (index, Merged::Kept);
                    }
                }
                let origin = self.origin(meta, version);
                self.replace(index, written(record, refs, origin));
                (
                    index,
                    if same {
                        Merged::Refreshed
                    } else {
                        Merged::Replaced
                    },
                )
            }
            Located::New => {
                let origin = self.origin(meta, version);
                (self.push(written(record, refs, origin)), Merged::Replaced)
            }
        }
    }

    /// Marks the record `pk` gone as part of the write `version` (a
    /// delete's response). A record that a request started later than
    /// `meta.fetched_at` has shown alive is kept; an unknown pk gets a
    /// tombstone, so a response that started earlier does not bring the
    /// record back. Under layers, a write that is not itself a `layer`
    /// deletes the confirmed copy. Returns the slot when what reads see
    /// changed.
    pub fn delete(&mut self, pk: &Pk, meta: Meta, version: u64, layer: bool) -> Option<u32> {
        let fresh = u32::try_from(self.slots.len()).unwrap_or(u32::MAX);
        let lent = lent_by(&self.slots);
        match self.index.get_or_insert(pk.as_ref(), fresh, false, &lent) {
            Some(index) => {
                // The slot may be left with no record to lend its pk.
                self.index.keep(index, pk.as_ref());
                if !layer && let Some(under) = self.layered.get_mut(index) {
                    if self.origins.get(under.confirmed.origin).meta.fetched_at <= meta.fetched_at {
                        let gone = gone(&mut self.origins, meta, meta.fetched_at, version);
                        let old = std::mem::replace(&mut under.confirmed, gone);
                        self.replaced_confirmed.push((index, old));
                    }
                    return None;
                }
                if self
                    .origin_of(self.slots[index as usize].origin)
                    .meta
                    .fetched_at
                    > meta.fetched_at
                {
                    return None;
                }
                let slot = gone(&mut self.origins, meta, meta.fetched_at, version);
                self.replace(index, slot);
                Some(index)
            }
            None => {
                let gone = gone(&mut self.origins, meta, meta.fetched_at, version);
                Some(self.push(gone))
            }
        }
    }

    /// Replaces slot `index` within a write, keeping the former contents
    /// until the write commits or rolls back.
    #[inline]
    fn replace(&mut self, index: u32, slot: Slot<E>) {
        let old = self.put(index, slot);
        self.replaced.push((index, old));
    }
}

/// Renumbers `refs` after tables were compacted: `moved[table]`, when set,
/// gives the new slot numbers of `table`. Collection keeps every slot a
/// kept one points at, so no reference meets a dropped slot; one that did
/// would point past the table (read as gone), not at another record.
pub(crate) fn renumber(refs: &mut [EntityRef], moved: &[Option<Vec<u32>>]) {
    for entity in refs {
        if let Some(Some(slots)) = moved.get(entity.table as usize) {
            entity.slot = slots.get(entity.slot as usize).copied().unwrap_or(u32::MAX);
        }
    }
}

#[cfg(test)]
mod tests;
