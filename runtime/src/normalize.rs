//! Normalizing: splitting the entities of a response out into their tables.

use std::any::TypeId;
use std::collections::hash_map::Entry;
use std::rc::Rc;

use crate::entity::Entity;
use crate::error::SchemaError;
use crate::meta::Meta;
use crate::path::FieldPath;
use crate::store::Store;
use crate::table::{Dep, Deps, Slot};

use smallvec::SmallVec;

/// A table the write in progress touched.
struct Touched {
    ty: TypeId,
    table: u32,
    /// The table's slot count before the write: slots from here on were
    /// added by it.
    len: usize,
}

/// The state of one write into the store, handed to [`Schema::normalize`](crate::Schema::normalize).
///
/// A write is whole or nothing: a slot it replaces keeps its former
/// contents aside until the write ends, so a bad response (a record
/// without a pk, found halfway) puts back what it replaced and drops what
/// it added. A good one pays a move per replaced record, nothing more.
pub struct Normalizer<'s> {
    store: &'s mut Store,
    meta: Meta,
    version: u64,
    /// Entity references of the values being walked, innermost last.
    deps: Vec<Dep>,
    /// The tables written so far; responses hold few entity types, so a
    /// scan here is cheaper than the store's type map.
    touched: SmallVec<[Touched; 4]>,
}

impl<'s> Normalizer<'s> {
    /// Runs `walk` as one write, whole or nothing. Returns the entity
    /// references of the top value.
    pub(crate) fn run(
        store: &'s mut Store,
        meta: Meta,
        version: u64,
        walk: impl FnOnce(&mut Normalizer<'_>) -> Result<(), SchemaError>,
    ) -> Result<Vec<Dep>, SchemaError> {
        let mut cx = Normalizer {
            store,
            meta,
            version,
            deps: Vec::new(),
            touched: SmallVec::new(),
        };
        let outcome = walk(&mut cx);
        let Normalizer {
            store,
            deps,
            touched,
            ..
        } = cx;
        for touched in touched.iter().rev() {
            let table = &mut store.tables[touched.table as usize];
            match outcome {
                Ok(()) => table.commit(),
                Err(_) => table.rollback(touched.len),
            }
        }
        outcome.map(|()| deps)
    }

    /// The table of `E`, registered on first use.
    fn table<E: Entity>(&mut self) -> Result<u32, SchemaError> {
        let ty = TypeId::of::<E>();
        if let Some(touched) = self.touched.iter().find(|t| t.ty == ty) {
            return Ok(touched.table);
        }
        let table = self.store.table_index::<E>()?;
        let len = self.store.tables[table as usize].slot_count();
        self.touched.push(Touched { ty, table, len });
        Ok(table)
    }

    /// Makes room for `len` records of `E` when its table is empty (a
    /// first load); a table that holds records already grows as needed,
    /// since most of a refetch replaces what it holds.
    pub(crate) fn reserve<E: Entity>(&mut self, len: usize) {
        let Ok(table) = self.table::<E>() else {
            return; // the first record reports the conflict
        };
        if let Some(records) = self.store.table_mut::<E>(table)
            && records.slots.is_empty()
        {
            records.index.reserve(len);
            records.slots.reserve(len);
        }
    }

    /// Merges one record into its table and points `record` at the
    /// store's copy.
    ///
    /// Nested entities are merged first. The record then replaces the
    /// stored one unless the stored one came from a request that started
    /// later, or from earlier in this same response (the first copy of a
    /// record in a response is the one kept).
    pub(crate) fn entity<E: Entity>(&mut self, record: &mut Rc<E>) -> Result<(), SchemaError> {
        let Some(pk) = record.pk() else {
            return Err(SchemaError::MissingPk {
                entity: E::KEY,
                field: E::PK_FIELD,
                path: FieldPath::default(),
            });
        };
        let table = self.table::<E>()?;
        let deps: Deps = if E::HAS_NESTED {
            let start = self.deps.len();
            Rc::make_mut(record).normalize_nested(self)?;
            self.deps.drain(start..).collect()
        } else {
            Deps::new()
        };
        let (meta, version) = (self.meta, self.version);
        let Some(records) = self.store.table_mut::<E>(table) else {
            unreachable!("a table is registered under the TypeId of its entity type")
        };
        let written = |pk| Slot {
            pk,
            record: Some(Rc::clone(record)),
            deps,
            meta,
            version,
        };
        let slot = match records.index.entry(pk) {
            Entry::Occupied(entry) => {
                let index = *entry.get();
                let slot = &records.slots[index as usize];
                if slot.version == version || slot.meta.fetched_at > meta.fetched_at {
                    if let Some(kept) = &slot.record {
                        *record = Rc::clone(kept);
                    }
                } else {
                    let slot = written(slot.pk.clone());
                    records.replace(index, slot);
                    self.store.stamp(table, version);
                }
                index
            }
            Entry::Vacant(entry) => {
                let index = u32::try_from(records.slots.len()).unwrap_or(u32::MAX);
                let slot = written(entry.key().clone());
                entry.insert(index);
                records.slots.push(slot);
                self.store.stamp(table, version);
                index
            }
        };
        self.deps.push(Dep { table, slot });
        Ok(())
    }
}
