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

/// Which walk over a value a [`Normalizer`] is doing.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    /// Finds every mistake (a record without a pk, a key claimed twice)
    /// before anything is written.
    Check,
    /// Writes; cannot fail, since the check passed.
    Apply,
}

/// The state of one write into the store, handed to [`Schema::normalize`](crate::Schema::normalize).
///
/// A write walks the value twice: a check that writes nothing, then the
/// writes, which cannot fail. So a bad response leaves the store exactly as
/// it was, and a good one pays for no undo log.
pub struct Normalizer<'s> {
    store: &'s mut Store,
    pass: Pass,
    meta: Meta,
    version: u64,
    /// Entity references of the values being walked, innermost last.
    deps: Vec<Dep>,
    /// The last table looked up, by entity type (responses repeat types).
    last_table: Option<(TypeId, u32)>,
}

impl<'s> Normalizer<'s> {
    /// Runs `walk` as one write, whole or nothing. Returns the entity
    /// references of the top value.
    pub(crate) fn run(
        store: &'s mut Store,
        meta: Meta,
        version: u64,
        mut walk: impl FnMut(&mut Normalizer<'_>) -> Result<(), SchemaError>,
    ) -> Result<Vec<Dep>, SchemaError> {
        let mut cx = Normalizer {
            store,
            pass: Pass::Check,
            meta,
            version,
            deps: Vec::new(),
            last_table: None,
        };
        walk(&mut cx)?;
        cx.pass = Pass::Apply;
        walk(&mut cx)?;
        Ok(cx.deps)
    }

    /// The table of `E`, registered on first use.
    fn table<E: Entity>(&mut self) -> Result<u32, SchemaError> {
        let id = TypeId::of::<E>();
        match self.last_table {
            Some((last, table)) if last == id => Ok(table),
            _ => {
                let table = self.store.table_index::<E>()?;
                self.last_table = Some((id, table));
                Ok(table)
            }
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
        if self.pass == Pass::Check {
            if E::HAS_NESTED {
                Rc::make_mut(record).normalize_nested(self)?;
            }
            return Ok(());
        }
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
        let slot = match records.index.entry(pk) {
            Entry::Occupied(entry) => {
                let index = *entry.get();
                let slot = &mut records.slots[index as usize];
                if slot.version == version || slot.meta.fetched_at > meta.fetched_at {
                    if let Some(kept) = &slot.record {
                        *record = Rc::clone(kept);
                    }
                } else {
                    slot.record = Some(Rc::clone(record));
                    slot.deps = deps;
                    slot.meta = meta;
                    slot.version = version;
                    self.store.stamp(table, version);
                }
                index
            }
            Entry::Vacant(entry) => {
                let index = u32::try_from(records.slots.len()).unwrap_or(u32::MAX);
                let pk = entry.key().clone();
                entry.insert(index);
                records.slots.push(Slot {
                    pk,
                    record: Some(Rc::clone(record)),
                    deps,
                    meta,
                    version,
                });
                self.store.stamp(table, version);
                index
            }
        };
        self.deps.push(Dep { table, slot });
        Ok(())
    }
}
