//! Normalizing: splitting the entities of a response out into their tables.

use std::any::TypeId;
use std::rc::Rc;

use smallvec::SmallVec;

use crate::cache::entity::Entity;
use crate::cache::partial::{Absent, take_absent};
use crate::cache::store::registry::Registry;
use crate::cache::store::table::{EntityRef, EntityRefs};
use crate::error::SchemaError;
use crate::meta::Meta;
use crate::path::FieldPath;
use crate::pk::Pk;

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

/// The state of one write into the store, handed to [`Schema::normalize`](crate::Schema::normalize).
///
/// Each record goes to its table, which keeps the slots it replaces aside
/// until the write ends; the store then commits the write, rolls it back
/// (a bad response: a record without a pk, found halfway) or keeps what it
/// replaced to take it back later.
pub struct Normalizer<'s> {
    tables: &'s mut Registry,
    meta: Meta,
    version: u64,
    /// Whether the write is an optimistic layer.
    layer: bool,
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
}

impl<'s> Normalizer<'s> {
    /// Runs `walk` over `tables` as the write `version` of a response
    /// fetched as `meta` (with `layer`, an optimistic value). Returns the entity references of the top value,
    /// or the error that stopped the walk, with the tables it touched: the
    /// caller ends the write on each of them.
    pub(crate) fn run(
        tables: &'s mut Registry,
        meta: Meta,
        version: u64,
        layer: bool,
        walk: impl FnOnce(&mut Normalizer<'_>) -> Result<(), SchemaError>,
    ) -> (Result<Vec<EntityRef>, SchemaError>, TouchedTables) {
        let mut cx = Normalizer {
            tables,
            meta,
            version,
            layer,
            keeping: false,
            kept: 0,
            refs: Vec::new(),
            touched: SmallVec::new(),
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
        let (table, created) = self.tables.register::<E>()?;
        let len = self.tables.any(table).slot_count();
        self.touched.push(Touched {
            ty,
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
        let Some(pk) = record.pk() else {
            return Err(SchemaError::MissingPk {
                entity: E::KEY,
                field: E::PK_FIELD,
                path: FieldPath::default(),
            });
        };
        let table = self.table::<E>()?;
        if self.keeping && self.keep_stored(table, &pk, record) {
            return Ok(());
        }
        let kept = if E::MAY_BE_ABSENT.is_empty() {
            0
        } else {
            self.merge_partial(table, &pk, record)
        };
        let refs: EntityRefs = if E::HAS_NESTED {
            let start = self.refs.len();
            self.kept = kept;
            let walked = Rc::make_mut(record).normalize_nested(self);
            self.kept = 0;
            walked?;
            let refs = EntityRefs::from_slice(&self.refs[start..]);
            self.refs.truncate(start);
            refs
        } else {
            EntityRefs::new()
        };
        let (meta, version, layer) = (self.meta, self.version, self.layer);
        let Some(records) = self.tables.get_mut::<E>(table) else {
            unreachable!("a table is registered under the TypeId of its entity type")
        };
        let (slot, changed) = records.merge(&pk, record, refs, meta, version, layer);
        if changed {
            self.tables.stamp(table, version);
        }
        self.refs.push(EntityRef { table, slot });
        Ok(())
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
        let absent = take_absent(record);
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
    /// of `Entity::MAY_BE_ABSENT`), read once by its nested walk.
    #[doc(hidden)]
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
        if records.delete(pk, meta, version, layer) {
            self.tables.stamp(table, version);
        }
        Ok(())
    }
}
