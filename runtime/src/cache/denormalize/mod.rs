//! Denormalizing: walking a stored value and joining the current copies of
//! its entities back in, remembering what each read handed out when it
//! reads through a memo (a value that holds the same entities as last time
//! is handed out again, the same `Rc`; a record whose nested records were
//! not written since is answered without a walk), and the store's reads
//! that do it ([`Store::read`], [`Store::get_entity`]). `results.rs` reads
//! stored results through a memo.

mod every;
mod results;

use std::rc::Rc;

use crate::cache::entity::Entity;
use crate::cache::memo::entries::{EntityMemo, ItemStamps, MemoState};
use crate::cache::schema::Schema;
use crate::cache::store::registry::stamp_bit;
use crate::cache::store::table::{EntityRef, SlotRef, Table};
use crate::cache::store::{Lookup, Refs, Store};
use crate::meta::Meta;
use crate::pk::{PkKey, PkRef, PkValue};

/// The stamps of a read that depends on every record of a type (one
/// created later joins it): all of them, which no look at the records it
/// refers to can stand for.
const EVERY_STAMP: u64 = u64::MAX;

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

/// The state of one read, handed to each schema's walk: the entity
/// references of the stored value being walked, in the order
/// its schema visits them.
pub struct Denormalizer<'r, 's> {
    reader: &'r mut Reader<'s>,
    input: Refs<'r>,
    next: usize,
    /// At the top of a memoized list of records: the stamps of each item
    /// and the records it nests, by position, and whether an item nests a
    /// record sharing its own stamp.
    items: Option<&'r mut ItemStamps>,
}

impl<'s> Denormalizer<'_, 's> {
    /// The next entity the value refers to, held as `held`: `Same` while
    /// `held` is the current copy (found without touching it), else the
    /// current copy, or `Missing` when it is gone.
    pub(crate) fn entity<E: Entity>(&mut self, held: &Rc<E>) -> Denorm<Rc<E>> {
        let index = self.next;
        self.next += 1;
        self.entity_at(index, held)
    }

    /// [`entity`](Self::entity) for each record of a list, in order,
    /// with their table looked up once: the list rebuilt when one
    /// changed, without those that are gone.
    pub(crate) fn entities<E: Entity>(&mut self, held: &[Rc<E>]) -> Denorm<Vec<Rc<E>>> {
        let mut table = None;
        let mut list = ListRebuild::new(held);
        for (position, item) in held.iter().enumerate() {
            let index = self.next;
            self.next += 1;
            list.settle(position, self.entity_in_table(index, &mut table, item));
        }
        list.finish()
    }

    /// The entity of reference `index` of the value, held as `held` (see
    /// [`entity`](Self::entity)): what a patch of a list reads again.
    pub(crate) fn entity_at<E: Entity>(&mut self, index: usize, held: &Rc<E>) -> Denorm<Rc<E>> {
        self.entity_in_table(index, &mut None, held)
    }

    /// [`entity_at`](Self::entity_at), with `table` the last table of
    /// `E` looked up (kept for the next record of a list).
    #[inline]
    fn entity_in_table<E: Entity>(
        &mut self,
        index: usize,
        table: &mut Option<(u32, &'s Table<E>)>,
        held: &Rc<E>,
    ) -> Denorm<Rc<E>> {
        let Some(at) = self.input.get(index) else {
            return Denorm::Missing;
        };
        let records = match *table {
            Some((number, records)) if number == at.table => Some(records),
            _ => {
                let records = self.reader.store.tables().get::<E>(at.table);
                *table = records.map(|records| (at.table, records));
                records
            }
        };
        let Some(items) = self.items.as_deref_mut() else {
            // The read depends on the record whether it is there or gone
            // (a record that comes back changes it too).
            self.reader.stamp(at);
            return self.reader.entity_unstamped(at, records, Some(held));
        };
        let outer = std::mem::take(&mut self.reader.mask);
        let found = self.reader.entity_unstamped(at, records, Some(held));
        let nested = std::mem::replace(&mut self.reader.mask, outer);
        let own = stamp_bit(at.table, at.slot);
        self.reader.add_stamps(nested | own);
        if let Some(item) = items.stamps.get_mut(index) {
            *item = nested | own;
            items.shared |= nested != u64::MAX && nested & own != 0;
        }
        found
    }
}

/// A list being read item by item: its items as they were while every
/// outcome is `Same`, a copy from the first that is not.
pub(crate) struct ListRebuild<'l, T> {
    items: &'l [T],
    rebuilt: Option<Vec<T>>,
}

impl<'l, T: Clone> ListRebuild<'l, T> {
    pub(crate) fn new(items: &'l [T]) -> Self {
        ListRebuild {
            items,
            rebuilt: None,
        }
    }

    /// Takes the outcome of the item at `index` (read in order): a
    /// changed item replaces it, a missing one leaves the list.
    #[inline]
    pub(crate) fn settle(&mut self, index: usize, outcome: Denorm<T>) {
        if self.rebuilt.is_none() && matches!(outcome, Denorm::Same) {
            return;
        }
        let items = self.items;
        let list = self.rebuilt.get_or_insert_with(|| {
            let mut list = Vec::with_capacity(items.len());
            list.extend_from_slice(&items[..index]);
            list
        });
        match outcome {
            Denorm::Same => list.push(items[index].clone()),
            Denorm::Changed(value) => list.push(value),
            Denorm::Missing => {}
        }
    }

    /// `Same` when every item was, else the list rebuilt.
    pub(crate) fn finish(self) -> Denorm<Vec<T>> {
        self.rebuilt.map_or(Denorm::Same, Denorm::Changed)
    }
}

/// `Same` when `current` is `held`, else `current` as the change.
#[inline]
fn against<E>(current: &Rc<E>, held: Option<&Rc<E>>) -> Denorm<Rc<E>> {
    match held {
        Some(held) if Rc::ptr_eq(held, current) => Denorm::Same,
        _ => Denorm::Changed(Rc::clone(current)),
    }
}

/// [`against`] for a copy just built: `Missing` when there is none.
fn built_against<E>(built: Option<Rc<E>>, held: Option<&Rc<E>>) -> Denorm<Rc<E>> {
    match built {
        Some(built) if held.is_some_and(|held| Rc::ptr_eq(held, &built)) => Denorm::Same,
        Some(built) => Denorm::Changed(built),
        None => Denorm::Missing,
    }
}

/// One read over a store, remembering into a memo when it has one.
#[doc(hidden)]
pub struct Reader<'s> {
    store: &'s Store,
    memo: Option<&'s mut MemoState>,
    /// Stamps of the records the value being read touched so far.
    mask: u64,
}

impl<'s> Reader<'s> {
    #[inline]
    pub(crate) fn new(store: &'s Store, memo: Option<&'s mut MemoState>) -> Self {
        Reader {
            store,
            memo,
            mask: 0,
        }
    }

    /// The stamps of every record the reads so far touched.
    pub fn mask(&self) -> u64 {
        self.mask
    }

    /// Adds the stamps `mask` to those the reads so far touched.
    #[inline]
    fn add_stamps(&mut self, mask: u64) {
        self.mask |= mask;
    }

    /// Adds the stamp of the record at `at`, when a memo keeps the stamps:
    /// a read without one skips the work.
    #[inline]
    fn stamp(&mut self, at: EntityRef) {
        if self.memo.is_some() {
            self.add_stamps(stamp_bit(at.table, at.slot));
        }
    }

    /// Runs `denormalize` over a stored value whose references are `refs`;
    /// returns its outcome and the stamps of every record it touched.
    fn walk<T>(
        &mut self,
        refs: Refs<'_>,
        denormalize: impl FnOnce(&mut Denormalizer<'_, 's>) -> T,
    ) -> (T, u64) {
        self.walk_items(refs, None, denormalize)
    }

    /// [`walk`](Self::walk), noting the stamps of each item in `items`
    /// (a list of records, one reference an item).
    fn walk_items<T>(
        &mut self,
        refs: Refs<'_>,
        items: Option<&mut ItemStamps>,
        denormalize: impl FnOnce(&mut Denormalizer<'_, 's>) -> T,
    ) -> (T, u64) {
        let outer = std::mem::take(&mut self.mask);
        let outcome = denormalize(&mut Denormalizer {
            reader: self,
            input: refs,
            next: 0,
            items,
        });
        let mask = std::mem::replace(&mut self.mask, outer);
        self.mask |= mask;
        (outcome, mask)
    }

    /// The current copy of the record at `at` (of `records`, its table),
    /// nested entities joined, against `held` (see
    /// [`Denormalizer::entity`]; with no `held`, never `Same`), without
    /// the record's own stamp: the stamps it adds are those of the
    /// records it nests.
    fn entity_unstamped<E: Entity>(
        &mut self,
        at: EntityRef,
        records: Option<&'s Table<E>>,
        held: Option<&Rc<E>>,
    ) -> Denorm<Rc<E>> {
        let Some((records, slot)) =
            records.and_then(|records| Some((records, records.slot(at.slot)?)))
        else {
            return Denorm::Missing;
        };
        self.slot_unstamped(at, records, slot, held)
    }

    /// The current copy of the record in `slot` (of `records`), nested
    /// entities joined, with its own stamp.
    #[inline]
    fn entity_in<E: Entity>(
        &mut self,
        at: EntityRef,
        records: &'s Table<E>,
        slot: SlotRef<'s, E>,
        held: Option<&Rc<E>>,
    ) -> Denorm<Rc<E>> {
        self.stamp(at);
        self.slot_unstamped(at, records, slot, held)
    }

    /// [`entity_in`](Self::entity_in) without the record's own stamp.
    #[inline]
    fn slot_unstamped<E: Entity>(
        &mut self,
        at: EntityRef,
        records: &'s Table<E>,
        slot: SlotRef<'s, E>,
        held: Option<&Rc<E>>,
    ) -> Denorm<Rc<E>> {
        let Some(record) = slot.record.as_ref() else {
            return Denorm::Missing;
        };
        if !E::HAS_NESTED {
            return against(record, held);
        }
        self.nested_in(
            at,
            records.origin_of(slot.origin).version,
            slot,
            record,
            held,
        )
    }

    /// One record by pk, borrowed: a read by a text pk makes no copy of
    /// it. Also returns the record's slot, when it has one (found or
    /// invalid).
    #[inline(always)]
    pub(crate) fn entity_by_pk<E: Entity>(
        &mut self,
        pk: Option<PkRef<'_>>,
    ) -> (Lookup<E>, Option<EntityRef>) {
        let tables = self.store.tables();
        let Some(table) = tables.find(E::type_index(), std::any::TypeId::of::<E>()) else {
            return (Lookup::Absent, None);
        };
        let Some(records) = tables.get::<E>(table) else {
            return (Lookup::Absent, None);
        };
        let Some((index, slot)) = pk
            .and_then(|pk| records.slot_of_ref(pk))
            .and_then(|index| Some((index, records.slot(index)?)))
        else {
            return (Lookup::Absent, None);
        };
        let at = EntityRef { table, slot: index };
        let read = match self.entity_in::<E>(at, records, slot, None) {
            Denorm::Changed(value) => Lookup::Found(value, records.origin_of(slot.origin).meta),
            Denorm::Same | Denorm::Missing => Lookup::Invalid,
        };
        (read, Some(at))
    }
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
    /// A record with nested entities, joined: from the memo while none of
    /// the records it nests was written since, else walked and
    /// remembered.
    fn nested_in<E: Entity>(
        &mut self,
        at: EntityRef,
        version: u64,
        slot: SlotRef<'s, E>,
        record: &'s Rc<E>,
        held: Option<&Rc<E>>,
    ) -> Denorm<Rc<E>> {
        let store = self.store;
        let Some(memo) = self.memo.as_deref_mut() else {
            let (outcome, _) = self.walk(slot.refs.into(), |cx| record.denormalize_nested(cx));
            return built_against(settle(outcome, record, None, E::same_nested), held);
        };
        // The record itself is unchanged while its slot's version is: a
        // memo entry depends on the stamps of its nested records alone.
        let remembered = memo
            .entity::<E>(at.table, at.slot)
            .filter(|entry| entry.version == version);
        if let Some(entry) = remembered {
            // A stamp is shared by many records: when one of its stamps
            // was written, what the record nests is looked at one by one
            // before it is built again (unless it nests every record of
            // a type, which its references do not list).
            let stamped = store.unchanged_since(entry.mask, entry.at);
            if stamped
                || (entry.mask != EVERY_STAMP
                    && store.tables().reach_unwritten_since(slot.refs, entry.at))
            {
                let (found, mask) = (against(&entry.output, held), entry.mask);
                if !stamped {
                    let now = store.last_write();
                    self.memo_mut()
                        .entities::<E>(at.table)
                        .checked(at.slot, now);
                }
                self.add_stamps(mask);
                return found;
            }
        }
        let previous = remembered.map(|entry| Rc::clone(&entry.output));
        let (outcome, mask) = self.walk(slot.refs.into(), |cx| record.denormalize_nested(cx));
        let output = settle(outcome, record, previous, E::same_nested);
        let entry = output.as_ref().map(|output| EntityMemo {
            output: Rc::clone(output),
            version,
            mask,
            at: store.last_write(),
        });
        self.memo_mut().entities::<E>(at.table).put(at.slot, entry);
        built_against(output, held)
    }

    fn memo_mut(&mut self) -> &mut MemoState {
        self.memo
            .as_deref_mut()
            .unwrap_or_else(|| unreachable!("only memo reads remember"))
    }
}

impl Store {
    /// Reads the result under `key` as `S`, joining its entities back in,
    /// without remembering anything: an unchanged store gives back the
    /// records it holds, a changed one gives freshly built values. Use a
    /// [`Memo`](crate::Memo) for reads that keep their identity.
    ///
    /// A result stored with another schema type reads as `Invalid`.
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
    /// assert_eq!(store.read::<Rc<Todo>>("one").value().map(|t| t.id), Some(1));
    /// assert!(matches!(store.read::<Rc<Todo>>("two"), Lookup::Absent));
    /// # Ok::<(), restcache::SchemaError>(())
    /// ```
    pub fn read<S: Schema>(&self, key: &str) -> Lookup<S> {
        Reader::new(self, None).result::<S>(key)
    }

    /// The record `pk` names, as the schema `S` of one record holds it
    /// (`Rc<Todo>`), without remembering anything; `None` when the store
    /// holds none (or `S` is no record).
    pub(crate) fn record_as<S: Schema>(&self, pk: &crate::pk::Pk) -> Option<Rc<S>> {
        match Reader::new(self, None).named::<S>("", pk) {
            Lookup::Found(record, _) => Some(record),
            Lookup::Invalid | Lookup::Absent => None,
        }
    }

    /// Reads one record by pk, joining its nested entities back in.
    ///
    /// ```
    /// use restcache::prelude::*;
    ///
    /// #[derive(Entity, Clone, Default, Deserialize)]
    /// struct Todo { id: u64 }
    ///
    /// let mut store = Store::new();
    /// store.set_entity(Todo { id: 7 }, Meta::default())?;
    /// assert!(store.get_entity::<Todo>("7").value().is_some()); // "7" and 7 are one pk
    /// assert!(matches!(store.get_entity::<Todo>(8u64), Lookup::Absent));
    /// # Ok::<(), restcache::SchemaError>(())
    /// ```
    #[inline]
    pub fn get_entity<E: Entity>(&self, pk: impl PkValue) -> Lookup<E> {
        let key = pk.pk_key();
        Reader::new(self, None)
            .entity_by_pk::<E>(key.as_ref().map(PkKey::as_ref))
            .0
    }

    /// The meta of one record (also when invalidated).
    pub fn entity_meta<E: Entity>(&self, pk: impl PkValue) -> Option<Meta> {
        self.entity_meta_by_key(E::KEY, pk)
    }
}
