//! Normalizing: splitting the entities of a response out into their tables.

use std::any::Any;
use std::collections::hash_map::Entry;
use std::rc::Rc;

use crate::entity::Entity;
use crate::error::SchemaError;
use crate::meta::Meta;
use crate::path::FieldPath;
use crate::store::{Store, Undo};
use crate::table::{Dep, Deps, Former, Slot};

/// The state of one write into the store, handed to [`Schema::normalize`](crate::Schema::normalize).
///
/// It records, for the value being stored, where each of its entities
/// lives, and keeps what every write replaced so that a failure can put
/// the store back exactly as it was.
pub struct Normalizer<'s> {
    store: &'s mut Store,
    meta: Meta,
    version: u64,
    /// Entity references of the values being walked, innermost last.
    deps: Vec<Dep>,
}

impl<'s> Normalizer<'s> {
    /// Runs `walk` as one write: commits it when it succeeds, undoes it
    /// when it fails. Returns the entity references of the top value.
    pub(crate) fn run(
        store: &'s mut Store,
        meta: Meta,
        version: u64,
        walk: impl FnOnce(&mut Normalizer<'_>) -> Result<(), SchemaError>,
    ) -> Result<Vec<Dep>, SchemaError> {
        store.journal.clear();
        let mut cx = Normalizer {
            store,
            meta,
            version,
            deps: Vec::new(),
        };
        let outcome = walk(&mut cx);
        let Normalizer { store, deps, .. } = cx;
        match outcome {
            Ok(()) => {
                store.journal.clear();
                Ok(deps)
            }
            Err(error) => {
                while let Some(undo) = store.journal.pop() {
                    match undo {
                        Undo::Replaced {
                            table,
                            slot,
                            former,
                        } => store.tables[table as usize].restore(slot, former),
                        Undo::Added { table } => store.tables[table as usize].pop(),
                    }
                }
                Err(error)
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
        let deps: Deps = if E::HAS_NESTED {
            let start = self.deps.len();
            let nested = Rc::make_mut(record).normalize_nested(self);
            let deps = self.deps.drain(start..).collect();
            nested?;
            deps
        } else {
            Deps::new()
        };
        let table = self.store.table_index::<E>()?;
        let (meta, version) = (self.meta, self.version);
        let Some(records) = self.store.table_mut::<E>(table) else {
            unreachable!("a table is registered under the TypeId of its entity type")
        };
        let (slot, undo) = match records.index.entry(pk) {
            Entry::Occupied(entry) => {
                let index = *entry.get();
                let slot = &mut records.slots[index as usize];
                if slot.version == version || slot.meta.fetched_at > meta.fetched_at {
                    if let Some(kept) = &slot.record {
                        *record = Rc::clone(kept);
                    }
                    self.deps.push(Dep { table, slot: index });
                    return Ok(());
                }
                let former = Former {
                    record: slot
                        .record
                        .replace(Rc::clone(record))
                        .map(|r| r as Rc<dyn Any>),
                    deps: std::mem::replace(&mut slot.deps, deps),
                    meta: std::mem::replace(&mut slot.meta, meta),
                    version: std::mem::replace(&mut slot.version, version),
                };
                (
                    index,
                    Undo::Replaced {
                        table,
                        slot: index,
                        former,
                    },
                )
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
                (index, Undo::Added { table })
            }
        };
        self.store.journal.push(undo);
        self.store.stamp(table, version);
        self.deps.push(Dep { table, slot });
        Ok(())
    }
}
