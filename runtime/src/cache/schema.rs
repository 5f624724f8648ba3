//! Schemas: the shapes a response can take, and how entities sit in them.

use std::any::Any;
use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::BuildHasher;
use std::rc::Rc;

use serde::de::{DeserializeOwned, DeserializeSeed, Deserializer, MapAccess};

use crate::cache::denormalize::{Denorm, Denormalizer};
use crate::cache::entity::Entity;
use crate::cache::filter::FieldText;
use crate::cache::normalize::Normalizer;
use crate::cache::page::Page;
use crate::cache::partial::{
    Presence, ScanSeed, may_be_partial, note_absent, scan_list, scan_map, scan_option, skip,
};
use crate::error::SchemaError;
use crate::path::Segment;

/// A response shape whose entities the store can split out and join back.
///
/// Implemented for `Rc<E>` of every [`Entity`] (one record), `Vec<S>` (a
/// list), `Option<S>`, `HashMap<String, S>`, values that hold no entities
/// (`()` and `serde_json::Value`: the results of RPCs), and for envelope structs
/// through `#[derive(Schema)]` (entity fields marked `#[schema(nested)]`,
/// every other field kept as it came).
///
/// Entities are held as `Rc<E>`: the record lives once in the store and
/// every result that shows it shares that allocation, so a read whose
/// inputs did not change hands out the very same pointers.
///
/// ```
/// use restcache::prelude::*;
/// use std::rc::Rc;
///
/// #[derive(Entity, Clone, Debug, Default, Deserialize)]
/// struct Todo { id: u64, title: String }
///
/// #[derive(Schema, Clone, Debug, Deserialize)]
/// struct Page {
///     #[schema(nested)]
///     data: Vec<Rc<Todo>>,
///     next: Option<String>,
/// }
///
/// let mut store = Store::new();
/// store.set_json::<Page>("page 1", r#"{"data": [{"id": 1, "title": "a"}], "next": "2"}"#, Meta::default())?;
/// let page = store.read::<Page>("page 1").into_value().unwrap();
/// assert_eq!(page.next.as_deref(), Some("2"));
/// assert!(Rc::ptr_eq(&page.data[0], &store.get_entity::<Todo>(1u64).into_value().unwrap()));
/// # Ok::<(), restcache::SchemaError>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a schema restcache can normalize",
    label = "not a schema",
    note = "a nested field holds `Rc<E>` of an `#[derive(Entity)]` type, a `Vec`, `Option` or `HashMap<String, _>` of schemas, or a `#[derive(Schema)]` struct",
    note = "an entity held by value (`E` instead of `Rc<E>`) is not a schema: wrap it in `Rc`"
)]
pub trait Schema: Clone + 'static {
    /// What a read through the [`Controller`](crate::Controller) hands
    /// out: a record's own `Rc<E>` for `Rc<E>`, and `Rc<Self>` for every
    /// other schema (lists, envelopes), so a value that did not change
    /// keeps its identity and compares in O(1).
    type Handle: Clone + 'static;

    /// The handle of a value a read produced.
    fn into_handle(value: Rc<Self>) -> Self::Handle;

    /// Moves every entity in `self` into the store, replacing each by the
    /// store's copy and recording where it lives.
    fn normalize(&mut self, cx: &mut Normalizer<'_>) -> Result<(), SchemaError>;

    /// Brings `self`, a value that normalize or an earlier read produced, up
    /// to date with the store.
    fn denormalize(&self, cx: &mut Denormalizer<'_, '_>) -> Denorm<Self>;

    /// Whether `self` and `other`, two reads of one stored value, hold the
    /// very same entity allocations (what is not an entity comes from the
    /// stored value in both). A memo keeps its last output when this holds.
    fn same_entities(&self, other: &Self) -> bool;

    /// The key of the innermost entity at `path` inside a value of this
    /// schema, if any (for error reports).
    fn entity_at(path: &[Segment]) -> Option<&'static str>;

    /// Told that a list of `len` values of this schema is about to be
    /// normalized, so tables can make room once instead of growing.
    #[doc(hidden)]
    fn reserve(cx: &mut Normalizer<'_>, len: usize) {
        let _ = (cx, len);
    }

    /// `list` (a stored result) with `self` added at its start or end,
    /// when `list` is a plain list of this schema (a create's record
    /// joining the cached lists of its resource); `None` otherwise.
    #[doc(hidden)]
    fn append_to(&self, list: &dyn Any, at_start: bool) -> Option<Joined> {
        let _ = (list, at_start);
        None
    }

    /// `self` (a stored page of a list) followed by `next`, the page after
    /// it, as one value: when this schema is a list that grows by pages
    /// (`Vec`, [`Page`](crate::Page), an envelope whose one nested field
    /// is such a list); `None` otherwise.
    ///
    /// `keep` has one entry per item of `next`'s list (when the list's
    /// items are records: see [`LIST_OF_RECORDS`](Self::LIST_OF_RECORDS)):
    /// an item whose entry is false is left out (a record the list holds
    /// already). An empty `keep` keeps every item.
    #[doc(hidden)]
    fn extend_page(&self, next: &Self, keep: &[bool]) -> Option<Self> {
        let _ = (next, keep);
        None
    }

    /// Whether a value of this schema is a record (`Rc<E>`): one store
    /// reference each.
    #[doc(hidden)]
    const IS_RECORD: bool = false;

    /// Whether this schema grows by pages as a list of records, each item
    /// one store reference: pages may then be joined without repeating a
    /// record.
    #[doc(hidden)]
    const LIST_OF_RECORDS: bool = false;

    /// Reads the JSON of a value of this schema for which fields its
    /// records carry (keys only; values are skipped).
    #[doc(hidden)]
    fn scan_presence<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Presence, D::Error>
    where
        Self: Sized,
    {
        skip(deserializer)
    }

    /// The light pass over the value of the map entry `map` is at, a
    /// value of this schema (what a derived visitor calls).
    #[doc(hidden)]
    fn scan_entry<'de, A: MapAccess<'de>>(map: &mut A) -> Result<Presence, A::Error>
    where
        Self: Sized,
    {
        map.next_value_seed(ScanSeed::<Self>::new())
    }

    /// Notes, for each record in `self`, which of its fields `presence`
    /// (what the scan of its JSON found) says were left out.
    #[doc(hidden)]
    fn mark_presence(&self, presence: &Presence) {
        let _ = presence;
    }

    /// Whether a value of this schema may hold records with fields that
    /// may be absent (types in `seen` were looked at already).
    #[doc(hidden)]
    fn may_be_partial(seen: &mut Vec<std::any::TypeId>) -> bool {
        let _ = seen;
        false
    }

    /// The field `field` of a record of this schema, as a list filter
    /// compares it; [`FieldText::NoField`] for what is not a record.
    #[doc(hidden)]
    fn field_text(&self, field: &str) -> FieldText {
        let _ = field;
        FieldText::NoField
    }
}

/// A list a created record joined: the list as it is now, and whether it
/// holds the record (a list with pages still to load takes nothing at its
/// end).
#[doc(hidden)]
pub struct Joined {
    pub list: Rc<dyn Any>,
    pub holds_it: bool,
}

impl<E: Entity> Schema for Rc<E> {
    type Handle = Rc<E>;

    const IS_RECORD: bool = true;

    fn into_handle(value: Rc<Self>) -> Rc<E> {
        Rc::unwrap_or_clone(value)
    }

    fn normalize(&mut self, cx: &mut Normalizer<'_>) -> Result<(), SchemaError> {
        cx.entity(self)
    }

    fn denormalize(&self, cx: &mut Denormalizer<'_, '_>) -> Denorm<Self> {
        match cx.entity::<E>() {
            Some(current) if Rc::ptr_eq(self, &current) => Denorm::Same,
            Some(current) => Denorm::Changed(current),
            None => Denorm::Missing,
        }
    }

    fn same_entities(&self, other: &Self) -> bool {
        Rc::ptr_eq(self, other)
    }

    fn entity_at(path: &[Segment]) -> Option<&'static str> {
        E::entity_at(path)
    }

    fn reserve(cx: &mut Normalizer<'_>, len: usize) {
        cx.reserve::<E>(len);
    }

    fn append_to(&self, list: &dyn Any, at_start: bool) -> Option<Joined> {
        if let Some(page) = list.downcast_ref::<Page<E>>() {
            return Some(page.with_record(self, at_start));
        }
        let list = list.downcast_ref::<Vec<Rc<E>>>()?;
        let mut longer = Vec::with_capacity(list.len() + 1);
        if at_start {
            longer.push(Rc::clone(self));
        }
        longer.extend(list.iter().cloned());
        if !at_start {
            longer.push(Rc::clone(self));
        }
        Some(Joined {
            list: Rc::new(longer),
            holds_it: true,
        })
    }

    fn field_text(&self, field: &str) -> FieldText {
        E::field_text(self, field)
    }

    fn scan_presence<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Presence, D::Error> {
        E::scan_record(deserializer)
    }

    fn mark_presence(&self, presence: &Presence) {
        if let Presence::Record { absent, nested } = presence {
            note_absent(self, *absent);
            E::mark_nested_presence(self, nested);
        }
    }

    fn may_be_partial(seen: &mut Vec<std::any::TypeId>) -> bool {
        E::may_be_partial(seen)
    }
}

impl<S: Schema> Schema for Vec<S> {
    type Handle = Rc<Self>;

    fn into_handle(value: Rc<Self>) -> Rc<Self> {
        value
    }

    fn normalize(&mut self, cx: &mut Normalizer<'_>) -> Result<(), SchemaError> {
        S::reserve(cx, self.len());
        for (index, item) in self.iter_mut().enumerate() {
            item.normalize(cx)
                .map_err(|e| e.within(Segment::Index(index)))?;
        }
        Ok(())
    }

    /// Items whose entity is gone (deleted, invalidated) are dropped.
    fn denormalize(&self, cx: &mut Denormalizer<'_, '_>) -> Denorm<Self> {
        let mut rebuilt: Option<Vec<S>> = None;
        for (index, item) in self.iter().enumerate() {
            let outcome = item.denormalize(cx);
            if rebuilt.is_none() && matches!(outcome, Denorm::Same) {
                continue;
            }
            let list = rebuilt.get_or_insert_with(|| {
                let mut list = Vec::with_capacity(self.len());
                list.extend_from_slice(&self[..index]);
                list
            });
            match outcome {
                Denorm::Same => list.push(item.clone()),
                Denorm::Changed(value) => list.push(value),
                Denorm::Missing => {}
            }
        }
        rebuilt.map_or(Denorm::Same, Denorm::Changed)
    }

    fn same_entities(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|(a, b)| a.same_entities(b))
    }

    fn scan_presence<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Presence, D::Error> {
        scan_list::<S, D>(deserializer)
    }

    fn mark_presence(&self, presence: &Presence) {
        if let Presence::List(items) = presence {
            for (item, presence) in self.iter().zip(items) {
                item.mark_presence(presence);
            }
        }
    }

    fn may_be_partial(seen: &mut Vec<std::any::TypeId>) -> bool {
        S::may_be_partial(seen)
    }

    const LIST_OF_RECORDS: bool = S::IS_RECORD;

    fn extend_page(&self, next: &Self, keep: &[bool]) -> Option<Self> {
        let mut both = Vec::with_capacity(self.len() + next.len());
        both.extend_from_slice(self);
        let kept = next.iter().enumerate();
        both.extend(
            kept.filter(|(i, _)| keep.get(*i).copied().unwrap_or(true))
                .map(|(_, item)| item.clone()),
        );
        Some(both)
    }

    fn entity_at(path: &[Segment]) -> Option<&'static str> {
        match path.split_first() {
            Some((Segment::Index(_), rest)) => S::entity_at(rest),
            _ => None,
        }
    }
}

impl<S: Schema> Schema for Option<S> {
    type Handle = Rc<Self>;

    fn into_handle(value: Rc<Self>) -> Rc<Self> {
        value
    }

    fn normalize(&mut self, cx: &mut Normalizer<'_>) -> Result<(), SchemaError> {
        match self {
            Some(value) => value.normalize(cx),
            None => Ok(()),
        }
    }

    fn scan_presence<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Presence, D::Error> {
        scan_option::<S, D>(deserializer)
    }

    fn mark_presence(&self, presence: &Presence) {
        if let Some(inner) = self {
            inner.mark_presence(presence);
        }
    }

    fn may_be_partial(seen: &mut Vec<std::any::TypeId>) -> bool {
        S::may_be_partial(seen)
    }

    /// A value whose entity is gone becomes `None`.
    fn denormalize(&self, cx: &mut Denormalizer<'_, '_>) -> Denorm<Self> {
        match self.as_ref().map(|value| value.denormalize(cx)) {
            None | Some(Denorm::Same) => Denorm::Same,
            Some(Denorm::Changed(value)) => Denorm::Changed(Some(value)),
            Some(Denorm::Missing) => Denorm::Changed(None),
        }
    }

    fn same_entities(&self, other: &Self) -> bool {
        match (self, other) {
            (Some(a), Some(b)) => a.same_entities(b),
            (None, None) => true,
            _ => false,
        }
    }

    fn entity_at(path: &[Segment]) -> Option<&'static str> {
        S::entity_at(path)
    }
}

/// Entries are visited in key order, so a map and its rebuilt copy line up
/// with the entity references recorded when it was stored.
impl<S: Schema, H: BuildHasher + Default + Clone + 'static> Schema for HashMap<String, S, H> {
    type Handle = Rc<Self>;

    fn into_handle(value: Rc<Self>) -> Rc<Self> {
        value
    }

    fn normalize(&mut self, cx: &mut Normalizer<'_>) -> Result<(), SchemaError> {
        let mut entries: Vec<(&String, &mut S)> = self.iter_mut().collect();
        entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
        for (key, value) in entries {
            value
                .normalize(cx)
                .map_err(|e| e.within(Segment::Key(Cow::Owned(key.clone()))))?;
        }
        Ok(())
    }

    fn scan_presence<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Presence, D::Error> {
        scan_map::<S, D>(deserializer)
    }

    fn mark_presence(&self, presence: &Presence) {
        if let Presence::Keyed(entries) = presence {
            for (key, presence) in entries {
                if let Some(item) = self.get(key) {
                    item.mark_presence(presence);
                }
            }
        }
    }

    fn may_be_partial(seen: &mut Vec<std::any::TypeId>) -> bool {
        S::may_be_partial(seen)
    }

    /// Entries whose entity is gone are dropped.
    fn denormalize(&self, cx: &mut Denormalizer<'_, '_>) -> Denorm<Self> {
        let mut keys: Vec<&String> = self.keys().collect();
        keys.sort_unstable();
        let mut changed = false;
        let mut outcomes = Vec::with_capacity(keys.len());
        for key in keys {
            let outcome = self[key].denormalize(cx);
            changed |= !matches!(outcome, Denorm::Same);
            outcomes.push((key, outcome));
        }
        if !changed {
            return Denorm::Same;
        }
        let mut rebuilt = HashMap::with_capacity_and_hasher(outcomes.len(), H::default());
        for (key, outcome) in outcomes {
            match outcome {
                Denorm::Same => drop(rebuilt.insert(key.clone(), self[key].clone())),
                Denorm::Changed(value) => drop(rebuilt.insert(key.clone(), value)),
                Denorm::Missing => {}
            }
        }
        Denorm::Changed(rebuilt)
    }

    fn same_entities(&self, other: &Self) -> bool {
        self.len() == other.len()
            && self
                .iter()
                .all(|(key, a)| other.get(key).is_some_and(|b| a.same_entities(b)))
    }

    fn entity_at(path: &[Segment]) -> Option<&'static str> {
        match path.split_first() {
            Some((Segment::Key(_), rest)) => S::entity_at(rest),
            _ => None,
        }
    }
}

/// Schemas that hold no entities: kept in the cache as they came.
macro_rules! plain_schema {
    ($($ty:ty),* $(,)?) => {$(
        impl Schema for $ty {
            type Handle = Rc<Self>;

            fn into_handle(value: Rc<Self>) -> Rc<Self> {
                value
            }

            fn normalize(&mut self, _: &mut Normalizer<'_>) -> Result<(), SchemaError> {
                Ok(())
            }

            fn denormalize(&self, _: &mut Denormalizer<'_, '_>) -> Denorm<Self> {
                Denorm::Same
            }

            fn same_entities(&self, _: &Self) -> bool {
                true
            }

            fn entity_at(_: &[Segment]) -> Option<&'static str> {
                None
            }
        }
    )*};
}

// The results of RPCs and other endpoints that answer with no records:
// nothing (`()`, for an empty body) or any JSON. Scalars stay out, so that
// marking a plain field `nested` remains a compile error.
plain_schema!((), serde_json::Value);

/// Parses `text` as the schema `S`.
///
/// JSON that does not fit gives [`SchemaError::Decode`] naming the field
/// at fault and the innermost entity around it.
///
/// ```
/// use restcache::prelude::*;
/// use std::rc::Rc;
///
/// #[derive(Entity, Clone, Debug, Default, Deserialize)]
/// struct Todo { id: u64, completed: bool }
///
/// let todos = restcache::from_json::<Vec<Rc<Todo>>>(r#"[{"id": 1, "completed": true}]"#)?;
/// assert!(todos[0].completed);
///
/// let err = restcache::from_json::<Vec<Rc<Todo>>>(r#"[{"id": 1, "completed": "yes"}]"#).unwrap_err();
/// assert_eq!(err.entity(), Some("Todo"));
/// assert_eq!(err.path().unwrap().to_string(), "[0].completed");
/// # Ok::<(), restcache::SchemaError>(())
/// ```
pub fn from_json<S: Schema + DeserializeOwned>(text: &str) -> Result<S, SchemaError> {
    if !may_be_partial::<S>() {
        return crate::json::decode(text, S::entity_at);
    }
    // Records whose fields may be absent: a light second pass reads which
    // ones the JSON carried.
    let typed: S = crate::json::decode(text, S::entity_at)?;
    let mut json = serde_json::Deserializer::from_str(text);
    if let Ok(presence) = ScanSeed::<S>::new().deserialize(&mut json) {
        typed.mark_presence(&presence);
    }
    Ok(typed)
}
