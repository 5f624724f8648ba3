//! Normalizing: splitting the entities of a response out into their tables.

use std::any::{Any, TypeId};
use std::rc::Rc;

use crate::cache::entity::Entity;
use crate::cache::store::table::{Dep, Deps, Slot};
use crate::cache::store::{ResultSlot, Store};
use crate::error::SchemaError;
use crate::meta::Meta;
use crate::path::FieldPath;
use crate::pk::Pk;

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
    /// references of the top value and, when `undoable`, what the write
    /// replaced and added, so that [`Store::undo`] can take it back later
    /// (an optimistic update whose request failed).
    pub(crate) fn run(
        store: &'s mut Store,
        meta: Meta,
        version: u64,
        undoable: bool,
        walk: impl FnOnce(&mut Normalizer<'_>) -> Result<(), SchemaError>,
    ) -> Result<(Vec<Dep>, Option<Undo>), SchemaError> {
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
        let mut undo = undoable.then(|| Undo::new(version));
        for touched in touched.iter().rev() {
            let table = &mut store.tables[touched.table as usize];
            match (&outcome, &mut undo) {
                (Ok(()), Some(undo)) => undo.tables.push(TableUndo {
                    table: touched.table,
                    len: touched.len,
                    replaced: table.take_replaced(),
                }),
                (Ok(()), None) => table.commit(),
                (Err(_), _) => table.rollback(touched.len),
            }
        }
        outcome.map(|()| (deps, undo))
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
            let deps = Deps::from_slice(&self.deps[start..]);
            self.deps.truncate(start);
            deps
        } else {
            Deps::new()
        };
        let (meta, version) = (self.meta, self.version);
        let Some(records) = self.store.table_mut::<E>(table) else {
            unreachable!("a table is registered under the TypeId of its entity type")
        };
        let written = || Slot {
            record: Some(Rc::clone(record)),
            deps,
            meta,
            version,
        };
        let fresh = u32::try_from(records.slots.len()).unwrap_or(u32::MAX);
        let slot = match records.index.get_or_insert(&pk, fresh) {
            Some(index) => {
                let slot = &records.slots[index as usize];
                if slot.version == version || slot.meta.fetched_at > meta.fetched_at {
                    if let Some(kept) = &slot.record {
                        *record = Rc::clone(kept);
                    }
                } else {
                    let slot = written();
                    records.replace(index, slot);
                    self.store.stamp(table, version);
                }
                index
            }
            None => {
                // Room first, then the slot built in place: a slot built
                // before the push would be copied across the growth check,
                // a copy whose 16-byte loads stall on the 8-byte stores
                // that just wrote it.
                records.slots.extend(std::iter::once_with(written));
                self.store.stamp(table, version);
                fresh
            }
        };
        self.deps.push(Dep { table, slot });
        Ok(())
    }

    /// Marks the record `pk` of `E` as gone (a delete's response): direct
    /// reads of it are Invalid and lists drop it. A record that a request
    /// started later than this one has shown alive is kept; an unknown pk
    /// leaves a tombstone, so a response that started earlier does not
    /// bring the record back.
    pub(crate) fn invalidate<E: Entity>(&mut self, pk: &Pk) -> Result<(), SchemaError> {
        let table = self.table::<E>()?;
        let (meta, version) = (self.meta, self.version);
        let Some(records) = self.store.table_mut::<E>(table) else {
            unreachable!("a table is registered under the TypeId of its entity type")
        };
        let gone = || Slot::gone(meta, meta.fetched_at, version);
        let fresh = u32::try_from(records.slots.len()).unwrap_or(u32::MAX);
        match records.index.get_or_insert(pk, fresh) {
            Some(index) => {
                let slot = &records.slots[index as usize];
                if slot.meta.fetched_at > meta.fetched_at {
                    return Ok(());
                }
                let slot = gone();
                records.replace(index, slot);
            }
            None => records.slots.push(gone()),
        }
        self.store.stamp(table, version);
        Ok(())
    }
}

/// What one table needs to take a write back.
pub(crate) struct TableUndo {
    pub table: u32,
    /// The slot count before the write: slots from here on were added.
    pub len: usize,
    /// The slots the write replaced, with their former contents
    /// (a `Vec<(u32, Slot<E>)>` of the table's type).
    pub replaced: Box<dyn Any>,
}

/// What a write replaced and added, kept so that it can be taken back
/// (see [`Store::undo`]).
pub(crate) struct Undo {
    /// The version of the write: only slots still at it are restored, so
    /// what later writes brought is never lost.
    pub version: u64,
    pub tables: Vec<TableUndo>,
    /// Results the write changed: the key, its former slot (`None`: the
    /// key was new) and the version the change gave it.
    pub results: Vec<(String, Option<ResultSlot>, u64)>,
}

impl Undo {
    fn new(version: u64) -> Self {
        Undo {
            version,
            tables: Vec::new(),
            results: Vec::new(),
        }
    }
}
