//! Writes into the store: responses normalized into their tables and
//! kept as results, a create's record appended to cached lists, results
//! expired and invalidated.

use std::any::Any;
use std::rc::Rc;

use super::Store;
use super::undo::{TableUndo, Undo};
use crate::cache::normalize::Normalizer;
use crate::cache::schema::Schema;
use crate::cache::store::table::EntityRef;
use crate::error::SchemaError;
use crate::meta::{Meta, Timestamp};

/// A result stored under a key (e.g. `GET https://api.example/todos`).
pub(crate) struct ResultSlot {
    /// `None` once invalidated.
    pub value: Option<Rc<dyn Any>>,
    /// The entity references of `value`, in the order its schema visits
    /// them.
    pub refs: Vec<EntityRef>,
    pub meta: Meta,
    /// The write that last changed this result.
    pub version: u64,
}

impl ResultSlot {
    /// A result invalidated as of `at` (its reads are Invalid until a
    /// response that started at or after `at` is stored), from one with
    /// `meta`.
    fn invalidated(meta: Meta, at: Timestamp, version: u64) -> Self {
        ResultSlot {
            value: None,
            refs: Vec::new(),
            meta: Meta {
                fetched_at: meta.fetched_at.max(at),
                expires_at: at,
                ..meta
            },
            version,
        }
    }
}

impl Clone for ResultSlot {
    fn clone(&self) -> Self {
        ResultSlot {
            value: self.value.clone(),
            refs: self.refs.clone(),
            meta: self.meta,
            version: self.version,
        }
    }
}

/// What [`Store::write`] hands back.
pub(crate) struct Written<S> {
    /// The value as stored: its entities are the store's copies.
    pub value: Rc<S>,
    /// Its entity references.
    pub refs: Vec<EntityRef>,
    /// How to take the write back, when asked for.
    pub undo: Option<Undo>,
}

impl Store {
    /// Normalizes `value` and, with a `key`, stores it as that key's
    /// result (unless the stored one started later). The write is whole or
    /// nothing: on error every table it touched is put back as it was.
    /// With `undoable`, what it replaced is handed back so that
    /// [`undo`](Store::undo) can take it back later (an optimistic update
    /// whose request failed).
    pub(crate) fn write<S: Schema>(
        &mut self,
        key: Option<&str>,
        mut value: S,
        meta: Meta,
        undoable: bool,
    ) -> Result<Written<S>, SchemaError> {
        let version = self.tick();
        let (outcome, touched) =
            Normalizer::run(&mut self.tables, meta, version, |cx| value.normalize(cx));
        let refs = match outcome {
            Ok(refs) => refs,
            Err(error) => {
                for table in touched.iter().rev() {
                    self.tables.any_mut(table.table).rollback(table.len);
                    if table.created {
                        self.tables.unregister_last(table.table);
                    }
                }
                return Err(error);
            }
        };
        let mut undo = undoable.then(|| Undo::new(version));
        for table in touched.iter().rev() {
            let records = self.tables.any_mut(table.table);
            match &mut undo {
                Some(undo) => undo.tables.push(TableUndo {
                    table: table.table,
                    len: table.len,
                    replaced: records.take_replaced(),
                }),
                None => records.commit(),
            }
        }
        let value = Rc::new(value);
        let Some(key) = key else {
            return Ok(Written { value, refs, undo });
        };
        if self
            .results
            .get(key)
            .is_some_and(|old| old.meta.fetched_at > meta.fetched_at)
        {
            return Ok(Written { value, refs, undo });
        }
        let slot = ResultSlot {
            value: Some(Rc::clone(&value) as Rc<dyn Any>),
            refs: refs.clone(),
            meta,
            version,
        };
        let old = self.put_result(key, slot);
        if let Some(undo) = &mut undo {
            undo.results.push((key.to_owned(), old, version));
        }
        Ok(Written { value, refs, undo })
    }

    /// Stores `slot` under `key`, returning the slot it replaced.
    pub(super) fn put_result(&mut self, key: &str, slot: ResultSlot) -> Option<ResultSlot> {
        match self.results.get_mut(key) {
            Some(existing) => Some(std::mem::replace(existing, slot)),
            None => {
                self.results.insert(key.to_owned(), slot);
                None
            }
        }
    }

    /// Adds the record `item` (whose store references are `item_refs`) at
    /// the end of the list stored under `key`, keeping the list's meta.
    /// A result that is not a plain list of that record type (an envelope,
    /// a page) cannot take it and is invalidated instead, so its next read
    /// fetches it again.
    pub(crate) fn append<S: Schema>(
        &mut self,
        key: &str,
        item: &S,
        item_refs: &[EntityRef],
        undo: Option<&mut Undo>,
    ) {
        let Some(old) = self.results.get(key) else {
            return;
        };
        let Some(list) = old.value.as_deref() else {
            return; // already invalid: its next read fetches
        };
        let longer = item.append_to(list).map(|longer| {
            let mut refs = old.refs.clone();
            refs.extend_from_slice(item_refs);
            (longer, refs)
        });
        let meta = old.meta;
        let version = self.tick();
        let slot = match longer {
            Some((value, refs)) => ResultSlot {
                value: Some(value),
                refs,
                meta,
                version,
            },
            None => ResultSlot::invalidated(meta, meta.fetched_at, version),
        };
        let old = self.put_result(key, slot);
        if let Some(undo) = undo {
            undo.results.push((key.to_owned(), old, version));
        }
    }

    /// Marks the result under `key` stale: it stays readable, and a read
    /// fetches it again in the background. Returns whether the key was
    /// known.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Default, Deserialize)]
    /// struct Todo { id: u64 }
    ///
    /// let mut store = Store::new();
    /// let fresh = Meta::fetched(Timestamp::from_millis(0), Timestamp::from_millis(0), std::time::Duration::from_secs(60));
    /// store.set("one", Rc::new(Todo { id: 1 }), fresh)?;
    /// assert!(store.expire_result("one"));
    /// assert_eq!(store.result_meta("one").unwrap().expires_at, Timestamp::from_millis(0));
    /// assert!(store.read::<Rc<Todo>>("one").value().is_some());
    /// # Ok::<(), restcache::SchemaError>(())
    /// ```
    pub fn expire_result(&mut self, key: &str) -> bool {
        let Some(slot) = self.results.get_mut(key) else {
            return false;
        };
        slot.meta.expires_at = Timestamp::default();
        true
    }

    /// Invalidates the result under `key` as of `at`: its reads are
    /// `Invalid` until a response that started at or after `at` is stored.
    /// Returns whether the key was known.
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
    /// store.invalidate_result("one", Timestamp::from_millis(1));
    /// assert!(matches!(store.read::<Rc<Todo>>("one"), Lookup::Invalid));
    /// # Ok::<(), restcache::SchemaError>(())
    /// ```
    pub fn invalidate_result(&mut self, key: &str, at: Timestamp) -> bool {
        let version = self.tick();
        let Some(slot) = self.results.get_mut(key) else {
            return false;
        };
        *slot = ResultSlot::invalidated(slot.meta, at, version);
        true
    }
}
