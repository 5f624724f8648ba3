//! Writes into the store: responses normalized into their tables and
//! kept as results, a create's record appended to cached lists, results
//! expired and invalidated.

use std::any::Any;
use std::rc::Rc;

use super::Store;
use super::layer::Layer;
use crate::cache::normalize::Normalizer;
use crate::cache::schema::Schema;
use crate::cache::store::table::EntityRef;
use crate::error::SchemaError;
use crate::meta::{Meta, Timestamp};

/// A result stored under a key (e.g. `GET https://api.example/todos`).
#[derive(Clone)]
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

/// What [`Store::write`] hands back.
pub(crate) struct Written<S> {
    /// The value as stored: its entities are the store's copies.
    pub value: Rc<S>,
    /// Its entity references.
    pub refs: Vec<EntityRef>,
    /// The write as an optimistic layer, when asked for.
    pub layer: Option<Layer>,
}

impl Store {
    /// Normalizes `value` and, with a `key`, stores it as that key's
    /// result (unless the stored one started later). The write is whole or
    /// nothing: on error every table it touched is put back as it was.
    /// With `layer` (an optimistic value), the write goes on show as a
    /// layer over the confirmed data, removed later with
    /// [`remove_layer`](Store::remove_layer).
    pub(crate) fn write<S: Schema>(
        &mut self,
        key: Option<&str>,
        mut value: S,
        meta: Meta,
        layer: bool,
    ) -> Result<Written<S>, SchemaError> {
        let version = self.tick();
        let (outcome, touched) = Normalizer::run(&mut self.tables, meta, version, layer, |cx| {
            value.normalize(cx)
        });
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
        let mut layer = layer.then(|| Layer::new(version));
        for table in touched.iter().rev() {
            let records = self.tables.any_mut(table.table);
            match &mut layer {
                Some(layer) => layer.covers(table.table, records.commit_layer(version, table.len)),
                None => records.commit(),
            }
        }
        let value = Rc::new(value);
        let Some(key) = key else {
            return Ok(Written { value, refs, layer });
        };
        if self
            .confirmed_result(key)
            .is_some_and(|old| old.meta.fetched_at > meta.fetched_at)
        {
            return Ok(Written { value, refs, layer });
        }
        let slot = ResultSlot {
            value: Some(Rc::clone(&value) as Rc<dyn Any>),
            refs: refs.clone(),
            meta,
            version,
        };
        match &mut layer {
            Some(layer) => {
                self.put_result_if_absent(key, &slot);
                self.layer_result(key, layer, Rc::new(move |_| slot.clone()));
            }
            None => self.put_result(key, slot),
        }
        Ok(Written { value, refs, layer })
    }

    /// Stores `slot` under `key` when the key holds nothing yet: an
    /// optimistic result over nothing reveals nothing (an invalid result)
    /// when its layer goes.
    fn put_result_if_absent(&mut self, key: &str, slot: &ResultSlot) {
        if !self.results.contains_key(key) {
            let nothing =
                ResultSlot::invalidated(Meta::default(), Timestamp::default(), slot.version);
            self.results.insert(key.to_owned(), nothing);
        }
    }

    /// Adds the record `item` (whose store references are `item_refs`) at
    /// the end of the list stored under `key`, keeping the list's meta.
    /// A result that is not a plain list of that record type (an envelope,
    /// a page) cannot take it and is invalidated instead, so its next read
    /// fetches it again.
    /// With `at_start`, it goes first instead. With a `layer` (an
    /// optimistic create), the record joins as part of that layer: it
    /// stays in the list when a refetch of the list lands beneath, and
    /// leaves with the layer.
    pub(crate) fn append<S: Schema>(
        &mut self,
        key: &str,
        item: Rc<S>,
        item_refs: Vec<EntityRef>,
        at_start: bool,
        layer: Option<&mut Layer>,
    ) {
        let edit = move |list: &ResultSlot| appended(list, &*item, &item_refs, at_start);
        match layer {
            Some(layer) => self.layer_result(key, layer, Rc::new(edit)),
            None => {
                let version = self.tick();
                let Some(old) = self.confirmed_result(key) else {
                    return;
                };
                let mut slot = edit(old);
                slot.version = version;
                self.put_result(key, slot);
            }
        }
    }

    /// Extends the list stored under `key` with `page`, the page after it
    /// (whose store references are `page_refs`): the list keeps its meta.
    /// Returns whether the key held a list of this schema that grows by
    /// pages.
    pub(crate) fn extend_result<S: Schema>(
        &mut self,
        key: &str,
        page: &S,
        page_refs: &[EntityRef],
    ) -> bool {
        let version = self.tick();
        let Some(old) = self.confirmed_result(key) else {
            return false;
        };
        // A record the list holds already (the pages shifted as the
        // collection changed) is not repeated.
        let keep: Vec<bool> = match S::LIST_OF_RECORDS {
            true => {
                let held: rustc_hash::FxHashSet<EntityRef> = old.refs.iter().copied().collect();
                page_refs.iter().map(|r| !held.contains(r)).collect()
            }
            false => Vec::new(),
        };
        let stored = old.value.as_deref().and_then(|v| v.downcast_ref::<S>());
        let Some(longer) = stored.and_then(|stored| stored.extend_page(page, &keep)) else {
            return false;
        };
        let mut refs = Vec::with_capacity(old.refs.len() + page_refs.len());
        refs.extend_from_slice(&old.refs);
        let kept = page_refs.iter().enumerate();
        refs.extend(
            kept.filter(|(i, _)| keep.get(*i).copied().unwrap_or(true))
                .map(|(_, r)| *r),
        );
        let slot = ResultSlot {
            value: Some(Rc::new(longer) as Rc<dyn Any>),
            refs,
            meta: old.meta,
            version,
        };
        self.put_result(key, slot);
        true
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
        if let Some(under) = self.result_layers.get_mut(key) {
            under.confirmed.meta.expires_at = Timestamp::default();
        }
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
        let Some(slot) = self.confirmed_result(key) else {
            return false;
        };
        let slot = ResultSlot::invalidated(slot.meta, at, version);
        self.put_result(key, slot);
        true
    }
}

/// `list` with `item` (whose store references are `item_refs`) added at
/// its start or end, keeping the list's meta; invalid when `list` is not a
/// plain list of the item's type. An invalid list stays invalid.
fn appended<S: Schema>(
    list: &ResultSlot,
    item: &S,
    item_refs: &[EntityRef],
    at_start: bool,
) -> ResultSlot {
    let Some(value) = list.value.as_deref() else {
        return list.clone(); // already invalid: its next read fetches
    };
    match item.append_to(value, at_start) {
        Some(joined) => {
            let item_refs = if joined.holds_it { item_refs } else { &[] };
            let mut refs = Vec::with_capacity(list.refs.len() + item_refs.len());
            if at_start {
                refs.extend_from_slice(item_refs);
            }
            refs.extend_from_slice(&list.refs);
            if !at_start {
                refs.extend_from_slice(item_refs);
            }
            ResultSlot {
                value: Some(joined.list),
                refs,
                meta: list.meta,
                version: list.version,
            }
        }
        None => ResultSlot::invalidated(list.meta, list.meta.fetched_at, list.version),
    }
}
