//! Results by key: a response's value and the entity references it
//! holds, a record joining or leaving cached lists, a next page appended
//! to its list, results expired and invalidated.
//!
//! The store does not know the types of the values it keeps: a result
//! carries the function that edits it as a list (set by the write that
//! stored it), and a next page comes with the function that grows its
//! list.

use std::any::Any;
use std::rc::Rc;

use super::Store;
use super::layer::Layer;
use super::result_refs::ResultRefs;
use crate::cache::store::table::EntityRef;
use crate::meta::{Meta, Timestamp};

/// A list a record joined: the list as it is now, and whether it holds
/// the record (a list with pages still to load takes nothing at its end).
pub struct Joined {
    /// The list with the record.
    pub list: Rc<dyn Any>,
    /// Whether the list holds the record.
    pub holds_it: bool,
}

/// A change to a stored list of records.
#[derive(Clone, Copy)]
pub(crate) enum ListEdit<'a> {
    /// `record` (a value of the record schema) joins at the start or end.
    Join { record: &'a dyn Any, at_start: bool },
    /// The item at `index` (one store reference an item) leaves.
    Leave { index: usize },
    /// One record less on the pages a paged list has not loaded.
    Uncount,
}

/// Makes `edit` to `list` (a stored result): the list it gives, or
/// `None` when the list cannot take it.
pub(crate) type EditFn = fn(list: &dyn Any, edit: ListEdit<'_>) -> Option<Joined>;

/// A result stored under a key (e.g. `GET https://api.example/todos`).
#[derive(Clone)]
pub(crate) struct ResultSlot {
    /// `None` once invalidated.
    pub value: Option<Rc<dyn Any>>,
    /// The entity references of `value`, in the order its schema visits
    /// them.
    pub refs: ResultRefs,
    pub meta: Meta,
    /// The write that last changed this result.
    pub version: u64,
    /// How the value changes as a list (a record joins or leaves).
    pub join: EditFn,
}

impl ResultSlot {
    /// A result invalidated as of `at` (its reads are Invalid until a
    /// response that started at or after `at` is stored), from one with
    /// `meta`.
    fn invalidated(meta: Meta, at: Timestamp, version: u64, join: EditFn) -> Self {
        ResultSlot {
            value: None,
            refs: ResultRefs::default(),
            meta: Meta {
                fetched_at: meta.fetched_at.max(at),
                expires_at: at,
                ..meta
            },
            version,
            join,
        }
    }
}

impl Store {
    /// Stores `slot` as the result under `key` as part of the write that
    /// produced it, unless the stored one started later. With `layer`
    /// (an optimistic value), it goes on show as a layer over the result.
    pub(crate) fn put_written(&mut self, key: &str, slot: ResultSlot, layer: Option<&mut Layer>) {
        if self
            .confirmed_result(key)
            .is_some_and(|old| old.meta.fetched_at > slot.meta.fetched_at)
        {
            return;
        }
        match layer {
            Some(layer) => {
                self.put_result_if_absent(key, &slot);
                self.layer_result(key, layer, Rc::new(move |_| slot.clone()));
            }
            None => self.put_result(key, slot),
        }
    }

    /// Stores `slot` under `key` when the key holds nothing yet: an
    /// optimistic result over nothing reveals nothing (an invalid result)
    /// when its layer goes.
    fn put_result_if_absent(&mut self, key: &str, slot: &ResultSlot) {
        if !self.results.contains_key(key) {
            let nothing = ResultSlot::invalidated(
                Meta::default(),
                Timestamp::default(),
                slot.version,
                slot.join,
            );
            self.results.insert(key.to_owned(), nothing);
        }
    }

    /// Adds the record `item` (whose store references are `item_refs`) at
    /// the end of the list stored under `key`, keeping the list's meta.
    /// A result that cannot take it (an envelope, a list of another type)
    /// is invalidated instead, so its next read fetches it again; a paged
    /// one is left as it is or made stale, as [`Joining::paged`] says.
    /// With `at_start`, it goes first instead. With a `layer` (an
    /// optimistic create), the record joins as part of that layer: it
    /// stays in the list when a refetch of the list lands beneath, and
    /// leaves with the layer.
    ///
    /// A record that is not `new` to the collection (an update's) joins
    /// only a list that then shows it: a paged list with pages left to
    /// load keeps it for its page, and its total counts it already.
    /// Returns whether the list changed.
    pub(crate) fn append(
        &mut self,
        key: &str,
        item: Rc<dyn Any>,
        item_refs: Vec<EntityRef>,
        joining: Joining,
        layer: Option<&mut Layer>,
    ) -> bool {
        let edit = move |list: &ResultSlot| appended(list, &*item, &item_refs, joining);
        match layer {
            Some(layer) => {
                let edit = move |list: &ResultSlot| edit(list).unwrap_or_else(|| list.clone());
                self.layer_result(key, layer, Rc::new(edit));
                true
            }
            None => {
                let version = self.tick();
                let Some(mut slot) = self.confirmed_result(key).and_then(edit) else {
                    return false;
                };
                slot.version = version;
                self.put_result(key, slot);
                true
            }
        }
    }

    /// Extends the list stored under `key` with the page after it (whose
    /// store references are `page_refs`): `grow` makes the longer list
    /// from the stored one, keeping the page's items whose entry in its
    /// second argument is true (an item the list holds already is left
    /// out when the list's items are records, `records`). The list keeps
    /// its meta. Returns whether the key held a list that `grow` could
    /// extend.
    pub(crate) fn extend_result(
        &mut self,
        key: &str,
        page_refs: &[EntityRef],
        records: bool,
        grow: impl FnOnce(&dyn Any, &[bool]) -> Option<Rc<dyn Any>>,
    ) -> bool {
        let version = self.tick();
        let Some(old) = self.confirmed_result(key) else {
            return false;
        };
        // A record the list holds already (the pages shifted as the
        // collection changed) is not repeated.
        let keep: Vec<bool> = match records {
            true => {
                let held: rustc_hash::FxHashSet<EntityRef> = old.refs.view().iter().collect();
                page_refs.iter().map(|r| !held.contains(r)).collect()
            }
            false => Vec::new(),
        };
        let Some(longer) = old.value.as_deref().and_then(|stored| grow(stored, &keep)) else {
            return false;
        };
        let mut refs = Vec::with_capacity(old.refs.view().len() + page_refs.len());
        refs.extend(old.refs.view().iter());
        let kept = page_refs.iter().enumerate();
        refs.extend(
            kept.filter(|(i, _)| keep.get(*i).copied().unwrap_or(true))
                .map(|(_, r)| *r),
        );
        let slot = ResultSlot {
            value: Some(longer),
            refs: refs.into(),
            meta: old.meta,
            version,
            join: old.join,
        };
        self.put_result(key, slot);
        true
    }

    /// Takes the record `item` out of the list stored under `key` (a list
    /// of records, one store reference an item), keeping the list's meta;
    /// a paged list's total counts one less. With a `layer`, it leaves as
    /// part of that optimistic layer. Returns whether the list held it and
    /// let it go (a list of another shape keeps it).
    pub(crate) fn leave(&mut self, key: &str, item: EntityRef, layer: Option<&mut Layer>) -> bool {
        self.edit_list(key, layer, move |list| left(list, item))
    }

    /// Makes `edit` to the list stored under `key`, when it takes it: the
    /// confirmed list at once, or, with a `layer`, the list on show, as
    /// part of that optimistic layer (made again over whatever lies
    /// beneath it). Returns whether the list took it.
    fn edit_list(
        &mut self,
        key: &str,
        layer: Option<&mut Layer>,
        edit: impl Fn(&ResultSlot) -> Option<ResultSlot> + 'static,
    ) -> bool {
        let list = match layer {
            Some(_) => self.results.get(key),
            None => self.confirmed_result(key),
        };
        let Some(edited) = list.and_then(&edit) else {
            return false;
        };
        match layer {
            Some(layer) => {
                let edit = move |list: &ResultSlot| edit(list).unwrap_or_else(|| list.clone());
                self.layer_result(key, layer, Rc::new(edit));
            }
            None => {
                let version = self.tick();
                self.put_result(key, ResultSlot { version, ..edited });
            }
        }
        true
    }

    /// Dates the result under `key` as fetched at `at` at least (a write
    /// changed it as of then): a response to a request that started
    /// before is turned down.
    pub(crate) fn date_result(&mut self, key: &str, at: Timestamp) {
        let raise = |slot: &mut ResultSlot| slot.meta.fetched_at = slot.meta.fetched_at.max(at);
        if let Some(under) = self.result_layers.get_mut(key) {
            raise(&mut under.confirmed);
        }
        if let Some(slot) = self.results.get_mut(key) {
            raise(slot);
        }
    }

    /// Counts one record less in the paged list stored under `key` (one
    /// on a page it has not loaded was deleted), keeping its items and
    /// meta; with a `layer`, as part of that optimistic layer. Returns
    /// whether the list counted it.
    pub(crate) fn uncount(&mut self, key: &str, layer: Option<&mut Layer>) -> bool {
        self.edit_list(key, layer, |list| {
            let value = list.value.as_deref()?;
            let joined = (list.join)(value, ListEdit::Uncount)?;
            Some(ResultSlot {
                value: Some(joined.list),
                ..list.clone()
            })
        })
    }

    /// The keys of the results that hold the record `item` as one of
    /// their own items (not nested in another record).
    pub(crate) fn results_holding(&self, item: EntityRef) -> Vec<String> {
        self.results
            .iter()
            .filter(|(_, slot)| slot.refs.view().contains(item))
            .map(|(key, _)| key.clone())
            .collect()
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
        self.log_result(key);
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
        let slot = ResultSlot::invalidated(slot.meta, at, version, slot.join);
        self.put_result(key, slot);
        true
    }
}

/// `list` with `item` (whose store references are `item_refs`) added at
/// its start or end, keeping the list's meta; invalid when `list` cannot
/// take the item, unless it is paged (see [`Joining::paged`]). An
/// invalid list stays invalid.
fn appended(
    list: &ResultSlot,
    item: &dyn Any,
    item_refs: &[EntityRef],
    joining: Joining,
) -> Option<ResultSlot> {
    let Some(value) = list.value.as_deref() else {
        return Some(list.clone()); // already invalid: its next read fetches
    };
    if joining
        .record
        .is_some_and(|record| list.refs.view().contains(record))
    {
        return None;
    }
    let at_start = joining.at_start;
    let edit = ListEdit::Join {
        record: item,
        at_start,
    };
    match (list.join)(value, edit) {
        // An updated record a paged list did not take (pages are left to
        // load): with no filters, it is on one of them; a filtered list
        // may take it anew (it now matches), which only the server can
        // place, so the list goes stale (once the server confirmed it).
        Some(joined) if !joined.holds_it && !joining.new => {
            (joining.filtered && !joining.optimistic).then(|| expired(list))
        }
        Some(joined) => {
            let item_refs = if joined.holds_it { item_refs } else { &[] };
            let mut refs = Vec::with_capacity(list.refs.view().len() + item_refs.len());
            if at_start {
                refs.extend_from_slice(item_refs);
            }
            refs.extend(list.refs.view().iter());
            if !at_start {
                refs.extend_from_slice(item_refs);
            }
            Some(ResultSlot {
                value: Some(joined.list),
                refs: refs.into(),
                meta: list.meta,
                version: list.version,
                join: list.join,
            })
        }
        None if joining.paged && !joining.new && !joining.filtered => None,
        None if joining.paged => Some(expired(list)),
        None => Some(ResultSlot::invalidated(
            list.meta,
            list.meta.fetched_at,
            list.version,
            list.join,
        )),
    }
}

/// `list`, stale: shown while it is fetched again.
fn expired(list: &ResultSlot) -> ResultSlot {
    let mut stale = list.clone();
    stale.meta.expires_at = Timestamp::default();
    stale
}

/// How a record joins a list: at its start or end, whether it is new to
/// the collection (a create's) or was in it already (an update's), and
/// whether the list is loaded by pages.
#[derive(Clone, Copy)]
pub(crate) struct Joining {
    pub at_start: bool,
    pub new: bool,
    /// The record's own reference, when the item is a record: a list
    /// that holds it already (an optimistic join made again over a list
    /// that took it meanwhile) does not take it twice.
    pub record: Option<EntityRef>,
    /// A paged list that cannot take the record (an envelope of its own
    /// type) is not dropped: with no filters, an updated record it does
    /// not hold is on a page not loaded yet, and comes with it; a created
    /// one, or one a filtered list now takes, makes it stale (it shows
    /// its pages while it is fetched again).
    pub paged: bool,
    /// The list has filters (beside its page params).
    pub filtered: bool,
    /// The write is an optimistic layer's: a paged list it cannot place
    /// waits for the server's answer.
    pub optimistic: bool,
}

/// `list` without the record `item`: `None` when it does not hold it as
/// an item, or cannot let it go.
fn left(list: &ResultSlot, item: EntityRef) -> Option<ResultSlot> {
    let index = list.refs.view().position(item)?;
    let value = list.value.as_deref()?;
    let shorter = (list.join)(value, ListEdit::Leave { index })?;
    let mut refs = list.refs.view().to_vec();
    refs.remove(index);
    Some(ResultSlot {
        value: Some(shorter.list),
        refs: refs.into(),
        ..list.clone()
    })
}
