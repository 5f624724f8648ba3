//! Normalizing: splitting the entities of a response out into their
//! tables, and the store's writes that do it ([`Store::set`],
//! [`Store::set_json`], [`Store::set_entity`]).

use std::any::{Any, TypeId};
use std::rc::Rc;

use serde::de::DeserializeOwned;
use smallvec::SmallVec;

use crate::cache::entity::{Entity, type_key};
use crate::cache::partial::{Absent, Presence};
use crate::cache::schema::{Decoded, Schema, from_json};
use crate::cache::store::registry::{Registry, Stamps, TypeKey, new_table};
use crate::cache::store::table::{AnyTable, EntityRef, EntityRefs, Located, Merged, Table};
use crate::cache::store::{Joined, Layer, ListEdit, ResultSlot, Store};
use crate::error::SchemaError;
use crate::meta::{Meta, Timestamp};
use crate::path::{FieldPath, Segment};
use crate::pk::{Pk, PkValue};

use forecast::FORECAST_FROM;

mod forecast;

/// A table the write in progress touched.
pub(crate) struct Touched {
    ty: TypeId,
    /// The table.
    pub table: u32,
    /// The table's slot count before the write: slots from here on were
    /// added by it.
    pub len: usize,
    /// Whether the write created the table (its first record of the type).
    pub created: bool,
}

/// The tables one write touched; responses hold few entity types.
pub(crate) type TouchedTables = SmallVec<[Touched; 4]>;

/// The state of one write into the store, handed to each schema's walk.
///
/// Each record goes to its table, which keeps the slots it replaces aside
/// until the write ends; the store then commits the write, rolls it back
/// (a bad response: a record without a pk, found halfway) or keeps what it
/// replaced to take it back later.
pub struct Normalizer<'s> {
    tables: &'s mut Registry,
    /// Which fields the response's records left out.
    presence: &'s Presence,
    meta: Meta,
    version: u64,
    /// Whether the write is an optimistic layer.
    layer: bool,
    /// Whether a record equal to its stored copy keeps the stored copy.
    share: bool,
    /// Set while walking nested values a partial record kept from its
    /// stored copy: their records are the store's already, and stay.
    keeping: bool,
    /// The fields of the record being merged that it kept from its stored
    /// copy (bits of `Entity::MAY_BE_ABSENT`), for its nested walk.
    kept: u64,
    /// Entity references of the values being walked, innermost last.
    refs: Vec<EntityRef>,
    /// The tables written so far; a scan here is cheaper than the
    /// registry's type map.
    touched: TouchedTables,
    /// Whether a list being walked forecasts the growth of the tables
    /// (lists nested in it do not).
    forecasting: bool,
    /// How deep in nested records the walk is: a full replace (a `PUT`'s
    /// answer) replaces the records at its top, not those nested in them.
    depth: u32,
}

impl<'s> Normalizer<'s> {
    /// Runs `walk` over `tables` as the write `version` of a response
    /// fetched as `meta` (with `layer`, an optimistic value). Returns the entity references of the top value,
    /// or the error that stopped the walk, with the tables it touched: the
    /// caller ends the write on each of them.
    fn run(
        tables: &'s mut Registry,
        presence: &'s Presence,
        meta: Meta,
        version: u64,
        (layer, share): (bool, bool),
        walk: impl FnOnce(&mut Normalizer<'_>) -> Result<(), SchemaError>,
    ) -> (Result<Vec<EntityRef>, SchemaError>, TouchedTables) {
        let mut cx = Normalizer {
            tables,
            presence,
            meta,
            version,
            layer,
            share,
            keeping: false,
            kept: 0,
            refs: Vec::new(),
            touched: SmallVec::new(),
            forecasting: false,
            depth: 0,
        };
        let outcome = walk(&mut cx);
        (outcome.map(|()| cx.refs), cx.touched)
    }

    /// The table of `E`, registered on first use.
    fn table<E: Entity>(&mut self) -> Result<u32, SchemaError> {
        let ty = TypeId::of::<E>();
        if let Some(touched) = self.touched.iter().find(|t| t.ty == ty) {
            return Ok(touched.table);
        }
        self.touch(type_key::<E>(), new_table::<E>)
    }

    /// The table of the type `ty`, registered (made by `new_table`) if
    /// it has none, noted among the tables this write touched.
    fn touch(
        &mut self,
        ty: TypeKey,
        new_table: fn() -> Box<dyn AnyTable>,
    ) -> Result<u32, SchemaError> {
        let (table, created) = self.tables.register_with(ty, new_table)?;
        let len = self.tables.any(table).slot_count();
        self.touched.push(Touched {
            ty: ty.id,
            table,
            len,
            created,
        });
        Ok(table)
    }

    /// Makes room for `len` records of `E` when its table is empty (a
    /// first load).
    pub(crate) fn reserve<E: Entity>(&mut self, len: usize) {
        let Ok(table) = self.table::<E>() else {
            return; // the first record reports the conflict
        };
        if let Some(records) = self.tables.get_mut::<E>(table) {
            records.reserve_first_load(len);
        }
    }

    /// Merges one record into its table and points `record` at the
    /// store's copy. Nested entities are merged first. The record replaces
    /// the stored one unless the stored one came from a request that
    /// started later, or from earlier in this same response (the first
    /// copy of a record in a response is the one kept).
    pub(crate) fn entity<E: Entity>(&mut self, record: &mut Rc<E>) -> Result<(), SchemaError> {
        let Some(pk) = record.pk_key() else {
            return Err(missing_pk::<E>());
        };
        let table = self.table::<E>()?;
        let mut kept = 0;
        if self.keeping || self.may_merge_partial::<E>() {
            let pk = pk.into_pk();
            if self.keeping && self.keep_stored(table, &pk, record) {
                return Ok(());
            }
            kept = self.merge_partial(table, &pk, record);
        }
        // From here on the pk is read from the record each time, borrowing
        // its text: a nested walk does not write the pk field.
        if !E::HAS_NESTED {
            return self
                .flat_in(table, std::slice::from_mut(record))
                .map_err(|(_, error)| error);
        }
        let refs = match self.refs_if_shown(table, record) {
            Some(refs) => refs,
            None => self.normalize_nested(record, kept)?,
        };
        self.merge(table, record, refs).ok_or_else(missing_pk::<E>)
    }

    /// Merges `record`, with its nested references `refs`, into `table`,
    /// in the slot of its pk, and notes the write. `None` (the record names
    /// no pk) writes nothing.
    #[inline(always)]
    fn merge<E: Entity>(&mut self, table: u32, record: &mut Rc<E>, refs: EntityRefs) -> Option<()> {
        let write = self.write_of();
        let Some((records, stamps)) = self.tables.get_mut_with_stamps::<E>(table) else {
            unreachable!("a table is registered under the TypeId of its entity type")
        };
        let at = records.locate(&record.pk_key()?);
        let slot = merge_into(records, stamps, table, at, record, refs, write);
        self.refs.push(EntityRef { table, slot });
        Some(())
    }

    /// Whether a record of `E` in this write may take fields from its
    /// stored copy: its type has fields a response may leave out, and
    /// some record of the response left fields out. A full replace's
    /// records at its top take only the fields serde never reads (unless
    /// `E` merges its own way); the records nested in them merge.
    #[inline(always)]
    fn may_merge_partial<E: Entity>(&self) -> bool {
        !E::MAY_BE_ABSENT.is_empty()
            && self.presence.len() > 0
            && (!self.replacing_whole::<E>() || E::NEVER_READ != 0)
    }

    /// Whether a record of `E` here is replaced whole: it stands at the
    /// top of a full replace, and `E` does not merge its own way.
    #[inline(always)]
    fn replacing_whole<E: Entity>(&self) -> bool {
        self.presence.replaces_whole(self.depth) && !E::MERGES_ITS_OWN_WAY
    }

    /// What every record of this write is written with.
    #[inline(always)]
    fn write_of(&self) -> Write {
        Write {
            meta: self.meta,
            version: self.version,
            layer: self.layer,
            share: self.share,
        }
    }

    /// Merges the records of a list, as [`entity`](Self::entity) merges
    /// each. Records with no nested entity and no field a response may
    /// leave out (most lists) share one look-up of their table; the first
    /// record without a pk stops the walk, its index in the error.
    pub(crate) fn entities<E: Entity>(&mut self, records: &mut [Rc<E>]) -> Result<(), SchemaError> {
        if E::HAS_NESTED || self.may_merge_partial::<E>() || self.keeping || records.is_empty() {
            let forecast = records.len() >= FORECAST_FROM && !self.forecasting;
            self.forecasting |= forecast;
            let walked = self.each_entity(records, forecast);
            self.forecasting &= !forecast;
            return walked;
        }
        self.flat(records)
            .map_err(|(index, e)| e.within(Segment::Index(index)))
    }

    /// Merges `records`, of a type with no nested entity, none of which
    /// may take fields from its stored copy, through one borrow of their
    /// table. The first record without a pk stops the walk, with its
    /// index.
    fn flat<E: Entity>(&mut self, records: &mut [Rc<E>]) -> Result<(), (usize, SchemaError)> {
        if records
            .first()
            .is_some_and(|record| record.pk_key().is_none())
        {
            return Err((0, missing_pk::<E>())); // before its table is made
        }
        let table = self.table::<E>().map_err(|e| (0, e))?;
        self.flat_in(table, records)
    }

    /// [`flat`](Self::flat) into `table`, the table of `E`.
    #[inline]
    fn flat_in<E: Entity>(
        &mut self,
        table: u32,
        records: &mut [Rc<E>],
    ) -> Result<(), (usize, SchemaError)> {
        let write = self.write_of();
        let Some((table_records, stamps)) = self.tables.get_mut_with_stamps::<E>(table) else {
            unreachable!("a table is registered under the TypeId of its entity type")
        };
        self.refs.reserve(records.len());
        for (index, record) in records.iter_mut().enumerate() {
            let Some(pk) = record.pk_key() else {
                return Err((index, missing_pk::<E>()));
            };
            let at = table_records.locate(&pk);
            let slot = merge_into(
                table_records,
                stamps,
                table,
                at,
                record,
                EntityRefs::new(),
                write,
            );
            self.refs.push(EntityRef { table, slot });
        }
        Ok(())
    }

    /// Merges the nested records of `record` (`kept`: the fields a
    /// partial record took from its stored copy) and returns their
    /// references.
    #[inline]
    fn normalize_nested<E: Entity>(
        &mut self,
        record: &mut Rc<E>,
        kept: u64,
    ) -> Result<EntityRefs, SchemaError> {
        let start = self.refs.len();
        self.kept = kept;
        self.depth += 1;
        let walked = Rc::make_mut(record).normalize_nested(self);
        self.depth -= 1;
        self.kept = 0;
        walked?;
        let refs = EntityRefs::from_slice(&self.refs[start..]);
        self.refs.truncate(start);
        Ok(refs)
    }

    /// The nested references of `record` when it is the very record the
    /// store shows as `pk` (a cached value written back): its nested
    /// records are the store's own, so the write walks none of them and
    /// copies nothing. A record no one else holds (one just parsed) is
    /// not the store's: it costs no lookup.
    fn refs_if_shown<E: Entity>(&self, table: u32, record: &Rc<E>) -> Option<EntityRefs> {
        if Rc::strong_count(record) == 1 {
            return None;
        }
        let records = self.tables.get::<E>(table)?;
        let slot = records.slot(records.slot_of_ref(record.pk_key()?.as_ref())?)?;
        let shown = slot.record.as_ref()?;
        Rc::ptr_eq(shown, record).then(|| EntityRefs::from_slice(slot.refs))
    }

    /// A nested record a partial record kept from its stored copy: points
    /// it at the store's current copy and references it, without merging
    /// (the kept copy may be older). A record deleted since stays deleted
    /// (its slot is referenced, and reads leave it out). `false` when the
    /// store holds no slot for it.
    fn keep_stored<E: Entity>(&mut self, table: u32, pk: &Pk, record: &mut Rc<E>) -> bool {
        let Some(records) = self.tables.get::<E>(table) else {
            return false;
        };
        let Some(slot) = records.slot_of(pk) else {
            return false;
        };
        if let Some(current) = records.slot(slot).and_then(|s| s.record.as_ref()) {
            *record = Rc::clone(current);
        }
        self.refs.push(EntityRef { table, slot });
        true
    }

    /// A record whose response left fields out takes them from its stored
    /// copy; returns the fields it took.
    fn merge_partial<E: Entity>(&mut self, table: u32, pk: &Pk, record: &mut Rc<E>) -> u64 {
        if !self.may_merge_partial::<E>() {
            return 0;
        }
        let mut absent = self.presence.absent::<E>(pk);
        if self.replacing_whole::<E>() {
            absent &= E::NEVER_READ;
        }
        if absent == 0 {
            return 0;
        }
        let layer = self.layer;
        let stored = self
            .tables
            .get::<E>(table)
            .and_then(|records| records.stored_record(pk, layer));
        let Some(stored) = stored else {
            return 0;
        };
        Rc::make_mut(record).keep_absent(&stored, &Absent::new(E::MAY_BE_ABSENT, absent));
        absent
    }

    /// Runs `walk` storing what it meets without noting where: the value
    /// being walked does not refer to those records (a lazy link).
    pub(crate) fn detached(
        &mut self,
        walk: impl FnOnce(&mut Self) -> Result<(), SchemaError>,
    ) -> Result<(), SchemaError> {
        let outer = std::mem::take(&mut self.refs);
        let outcome = walk(self);
        self.refs = outer;
        outcome
    }

    /// Runs `walk` over nested values a partial record kept from its
    /// stored copy: their records stay as the store holds them.
    pub fn keeping(
        &mut self,
        walk: impl FnOnce(&mut Self) -> Result<(), SchemaError>,
    ) -> Result<(), SchemaError> {
        let was = std::mem::replace(&mut self.keeping, true);
        let outcome = walk(self);
        self.keeping = was;
        outcome
    }

    /// The fields the record being merged kept from its stored copy (bits
    /// of `EntityParts::MAY_BE_ABSENT`), read once by its nested walk.
    pub fn kept_fields(&mut self) -> u64 {
        std::mem::take(&mut self.kept)
    }

    /// Marks the record `pk` of `E` as gone (a delete's response): direct
    /// reads of it are Invalid and lists drop it. A record that a request
    /// started later than this one has shown alive is kept; an unknown pk
    /// leaves a tombstone, so a response that started earlier does not
    /// bring the record back.
    pub(crate) fn invalidate<E: Entity>(&mut self, pk: &Pk) -> Result<(), SchemaError> {
        let table = self.table::<E>()?;
        let (meta, version, layer) = (self.meta, self.version, self.layer);
        let Some(records) = self.tables.get_mut::<E>(table) else {
            unreachable!("a table is registered under the TypeId of its entity type")
        };
        if let Some(slot) = records.delete(pk, meta, version, layer) {
            self.tables.changed(table, slot, version);
        }
        Ok(())
    }
}

/// The error of a record of `E` without a pk.
fn missing_pk<E: Entity>() -> SchemaError {
    SchemaError::MissingPk {
        entity: E::KEY,
        field: E::PK_FIELD,
        path: FieldPath::default(),
    }
}

/// How the records of one write are written: fetched as `meta`, as the
/// write `version`, as an optimistic `layer` or not, and whether a record
/// equal to its stored copy keeps the stored copy (`share`).
#[derive(Clone, Copy)]
struct Write {
    meta: Meta,
    version: u64,
    layer: bool,
    share: bool,
}

/// Merges `record`, with its nested references `refs`, into the slot `at`
/// of `records` (the table `table`), notes the change in `stamps`, and
/// returns the slot.
#[inline(always)]
fn merge_into<E: Entity>(
    records: &mut Table<E>,
    stamps: &mut Stamps,
    table: u32,
    at: Located,
    record: &mut Rc<E>,
    refs: EntityRefs,
    write: Write,
) -> u32 {
    let share = write.share;
    let (slot, merged) = records.merge_at(
        at,
        record,
        refs,
        write.meta,
        write.version,
        write.layer,
        keeps_stored::<E>,
        |stored: &E, copy: &E| share && stored.equal_fields(copy),
    );
    match merged {
        Merged::Replaced => stamps.changed(table, slot, write.version),
        Merged::Refreshed => stamps.refreshed(table, slot),
        Merged::Kept => {}
    }
    slot
}

/// Whether `slot`, fetched as `stored`, keeps its record against
/// `incoming`, fetched as `meta`: when the entity's versions say the
/// stored copy is newer, or (when they say nothing) when its request
/// started later.
#[inline(always)]
fn keeps_stored<E: Entity>(
    stored_record: &Option<Rc<E>>,
    stored: &Meta,
    incoming: &E,
    meta: &Meta,
) -> bool {
    if E::HAS_VERSION
        && let Some(record) = stored_record
    {
        match incoming.compare_version(record) {
            Some(std::cmp::Ordering::Less) => return true,
            Some(std::cmp::Ordering::Greater) => return false,
            Some(std::cmp::Ordering::Equal) | None => {}
        }
    }
    stored.fetched_at > meta.fetched_at
}

/// What [`Store::write`] hands back.
pub(crate) struct Written<S> {
    /// The value as stored: its entities are the store's copies.
    pub value: Rc<S>,
    /// Its entity references.
    pub refs: Vec<EntityRef>,
    /// The write as an optimistic layer, when asked for.
    pub layer: Option<Layer>,
}

/// Makes `edit` to `list`, a stored value of the schema `S`: a record
/// joins it or leaves it.
fn join_as<S: Schema>(list: &dyn Any, edit: ListEdit<'_>) -> Option<Joined> {
    let list = list.downcast_ref::<S>()?;
    match edit {
        ListEdit::Join { record, at_start } => list.join(record, at_start),
        ListEdit::Leave { index } => Some(Joined {
            list: Rc::new(list.leave(index)?),
            holds_it: false,
        }),
        ListEdit::Uncount => Some(Joined {
            list: Rc::new(list.uncount()?),
            holds_it: false,
        }),
    }
}

impl Store {
    /// Stores `value` under `key`: its entities are merged into their
    /// tables, the result keeps references to them.
    ///
    /// On error nothing changes. A result whose stored copy started later
    /// than `meta.fetched_at` is kept (its entities still merge by their own
    /// fetch times).
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Default, Deserialize)]
    /// struct Todo { id: u64 }
    ///
    /// let mut store = Store::new();
    /// store.set("todos", vec![Rc::new(Todo { id: 1 }), Rc::new(Todo { id: 2 })], Meta::default())?;
    /// assert_eq!(store.entity_count("Todo"), 2);
    /// # Ok::<(), restcache::SchemaError>(())
    /// ```
    pub fn set<S: Schema>(
        &mut self,
        key: &str,
        value: S,
        meta: Meta,
    ) -> Result<Rc<S>, SchemaError> {
        self.write(Some(key), Decoded::from(value), meta, false)
            .map(|w| w.value)
    }

    /// Parses `text` as the schema `S` and stores it under `key`.
    ///
    /// JSON that does not fit `S` gives [`SchemaError::Decode`] naming the
    /// entity and the field path; the store is unchanged.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Default, Deserialize)]
    /// struct Todo { id: u64 }
    ///
    /// let mut store = Store::new();
    /// assert!(store.set_json::<Vec<Rc<Todo>>>("todos", "<html>oops</html>", Meta::default()).is_err());
    /// assert!(matches!(store.read::<Vec<Rc<Todo>>>("todos"), Lookup::Absent));
    /// ```
    pub fn set_json<S: Schema + DeserializeOwned>(
        &mut self,
        key: &str,
        text: &str,
        meta: Meta,
    ) -> Result<Rc<S>, SchemaError> {
        let value = from_json::<S>(text)?;
        self.write(Some(key), value, meta, false).map(|w| w.value)
    }

    /// Merges one record (and its nested entities) into its table, without
    /// a result; returns the store's copy.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Default, Deserialize)]
    /// struct Todo { id: u64, title: String }
    ///
    /// let mut store = Store::new();
    /// let stored = store.set_entity(Todo { id: 3, title: "x".into() }, Meta::default())?;
    /// assert!(Rc::ptr_eq(&stored, &store.get_entity::<Todo>(3u64).into_value().unwrap()));
    /// # Ok::<(), restcache::SchemaError>(())
    /// ```
    pub fn set_entity<E: Entity>(&mut self, record: E, meta: Meta) -> Result<Rc<E>, SchemaError> {
        let written = self.write(None, Decoded::from(Rc::new(record)), meta, false)?;
        Ok(Rc::unwrap_or_clone(written.value))
    }

    /// Invalidates one record as of `at`: direct reads of it are `Invalid`,
    /// lists that hold it drop it on their next read, and responses whose
    /// request started before `at` do not bring it back. Returns whether the
    /// record was known.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Default, Deserialize)]
    /// struct Todo { id: u64 }
    ///
    /// let mut store = Store::new();
    /// store.set("todos", vec![Rc::new(Todo { id: 1 }), Rc::new(Todo { id: 2 })], Meta::default())?;
    /// assert!(store.invalidate_entity::<Todo>(1u64, Timestamp::from_millis(5)));
    /// assert!(matches!(store.get_entity::<Todo>(1u64), Lookup::Invalid));
    /// assert_eq!(store.read::<Vec<Rc<Todo>>>("todos").into_value().unwrap().len(), 1);
    /// # Ok::<(), restcache::SchemaError>(())
    /// ```
    pub fn invalidate_entity<E: Entity>(&mut self, pk: impl PkValue, at: Timestamp) -> bool {
        self.invalidate_entity_key(E::KEY, pk, at)
    }

    /// Normalizes `value` (with what its decoding read of its records)
    /// and, with a `key`, stores it as that key's result (unless the
    /// stored one started later). The write is whole or nothing: on error
    /// every table it touched is put back as it was. With `layer` (an
    /// optimistic value), the write goes on show as a layer over the
    /// confirmed data, removed later with
    /// [`remove_layer`](Store::remove_layer).
    pub(crate) fn write<S: Schema>(
        &mut self,
        key: Option<&str>,
        value: Decoded<S>,
        meta: Meta,
        layer: bool,
    ) -> Result<Written<S>, SchemaError> {
        let (mut value, presence) = value.into_parts();
        let version = self.tick();
        let share = self.shares_equal_copies();
        let (outcome, touched) = Normalizer::run(
            self.tables_mut(),
            &presence,
            meta,
            version,
            (layer, share),
            |cx| value.normalize(cx),
        );
        let (refs, mut layer) = self.end_write(outcome, &touched, version, layer)?;
        let value = Rc::new(value);
        if let Some(key) = key {
            let slot = ResultSlot {
                value: Some(Rc::clone(&value) as Rc<dyn Any>),
                refs: refs.as_slice().into(),
                meta,
                version,
                join: join_as::<S>,
            };
            self.put_written(key, slot, layer.as_mut());
        }
        Ok(Written { value, refs, layer })
    }

    /// Ends the write `version`, whose walk gave `outcome`, on every table
    /// it `touched`: after an error each is put back as it was (a table
    /// the write created goes); else each keeps what it wrote, as an
    /// optimistic layer with `layer`. Knows nothing of the schema: one
    /// copy serves every write of an app.
    fn end_write(
        &mut self,
        outcome: Result<Vec<EntityRef>, SchemaError>,
        touched: &TouchedTables,
        version: u64,
        layer: bool,
    ) -> Result<(Vec<EntityRef>, Option<Layer>), SchemaError> {
        let tables = self.tables_mut();
        let refs = match outcome {
            Ok(refs) => refs,
            Err(error) => {
                for table in touched.iter().rev() {
                    tables.any_mut(table.table).rollback(table.len);
                    if table.created {
                        tables.unregister_last(table.table);
                    }
                }
                return Err(error);
            }
        };
        let mut layer = layer.then(|| Layer::new(version));
        for table in touched.iter().rev() {
            let records = tables.any_mut(table.table);
            match &mut layer {
                Some(layer) => layer.covers(table.table, records.commit_layer(version, table.len)),
                None => records.commit(),
            }
        }
        Ok((refs, layer))
    }
}
