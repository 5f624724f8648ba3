//! Schemas: the shapes a response can take, and how entities sit in them.
//!
//! `mod.rs` holds the public [`Schema`] trait, the machinery it rests on
//! ([`SchemaParts`], written by `#[derive(Schema)]` and implemented here
//! for the standard shapes in `impls.rs`), and decoding a response's JSON
//! with which fields its records carried ([`from_json`], [`Decoded`],
//! the light pass of `scan.rs`).

mod all;
mod impls;
mod lazy;
mod scan;

use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::fmt;
use std::ops::Deref;
use std::rc::Rc;

use rustc_hash::FxHashMap;
use serde::de::{DeserializeOwned, DeserializeSeed, Deserializer, MapAccess};

use crate::cache::denormalize::{Denorm, Denormalizer, ListRebuild, Reader};
use crate::cache::filter::FieldText;
use crate::cache::normalize::Normalizer;
use crate::cache::partial::{Presence, skip};
use crate::cache::store::{Joined, Lookup};
use crate::error::SchemaError;
use crate::path::Segment;
use crate::pk::Pk;

pub use all::All;
pub use lazy::Lazy;
pub(crate) use scan::ScanSeed;
pub use scan::{UnionTag, VariantScan, scan_lenient, scan_union};

/// A response shape whose entities the store can split out and join back.
///
/// Implemented for `Rc<E>` of every [`Entity`](crate::Entity) (one
/// record), `Vec<S>` (a list), `Option<S>`, `HashMap<String, S>`, values
/// that hold no entities (`()` and `serde_json::Value`: the results of
/// RPCs), [`Page<E>`](crate::rest::Page), and for envelope structs
/// through `#[derive(Schema)]` (entity fields marked `#[schema(nested)]`,
/// every other field kept as it came). The derive also writes the
/// machinery the store walks values with, which is not public API.
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
pub trait Schema: SchemaParts {
    /// What a read through the [`Controller`](crate::Controller) hands
    /// out: a record's own `Rc<E>` for `Rc<E>`, and `Rc<Self>` for every
    /// other schema (lists, envelopes), so a value that did not change
    /// keeps its identity and compares in O(1).
    type Handle: Clone + 'static;

    /// The handle of a value a read produced.
    ///
    /// ```
    /// use restcache::Schema;
    /// use std::rc::Rc;
    /// let list = Rc::new(vec![serde_json::json!(1)]);
    /// assert!(Rc::ptr_eq(&<Vec<serde_json::Value>>::into_handle(list.clone()), &list));
    /// ```
    fn into_handle(value: Rc<Self>) -> Self::Handle;
}

/// The machinery `#[derive(Schema)]` writes beside [`Schema`], and that
/// the standard shapes implement: how the store walks a value's entities
/// into its tables and back, pages and joins a list, and reads which
/// fields a response's records carried. Not public API: it may change in
/// any release.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a schema restcache can normalize",
    label = "not a schema",
    note = "a nested field holds `Rc<E>` of an `#[derive(Entity)]` type, a `Vec`, `Option` or `HashMap<String, _>` of schemas, or a `#[derive(Schema)]` struct",
    note = "an entity held by value (`E` instead of `Rc<E>`) is not a schema: wrap it in `Rc`"
)]
pub trait SchemaParts: Clone + 'static {
    /// Moves every entity in `self` into the store, replacing each by the
    /// store's copy and recording where it lives.
    fn normalize(&mut self, cx: &mut Normalizer<'_>) -> Result<(), SchemaError>;

    /// [`normalize`](Self::normalize) for each item of a list, in order;
    /// an item's error says its index. Records override it to look their
    /// table up once for the whole list.
    fn normalize_list(items: &mut [Self], cx: &mut Normalizer<'_>) -> Result<(), SchemaError>
    where
        Self: Sized,
    {
        for (index, item) in items.iter_mut().enumerate() {
            item.normalize(cx)
                .map_err(|e| e.within(Segment::Index(index)))?;
        }
        Ok(())
    }

    /// Brings `self`, a value that normalize or an earlier read produced, up
    /// to date with the store.
    fn denormalize(&self, cx: &mut Denormalizer<'_, '_>) -> Denorm<Self>;

    /// [`denormalize`](Self::denormalize) for each item of a list, in
    /// order; an item whose entity is gone is dropped. Records override
    /// it to look their table up once for the whole list.
    fn denormalize_list(items: &[Self], cx: &mut Denormalizer<'_, '_>) -> Denorm<Vec<Self>>
    where
        Self: Sized,
    {
        let mut list = ListRebuild::new(items);
        for (index, item) in items.iter().enumerate() {
            list.settle(index, item.denormalize(cx));
        }
        list.finish()
    }

    /// Whether `self` and `other`, two reads of one stored value, hold the
    /// very same entity allocations (what is not an entity comes from the
    /// stored value in both). A memo keeps its last output when this holds.
    fn same_entities(&self, other: &Self) -> bool;

    /// Whether `self` and `other`, two values of this schema, are equal:
    /// their entities the very same allocations, everything else equal
    /// by its `PartialEq`. False when something has none (and by
    /// default). A record written again keeps the stored copy when its
    /// nested values are equal so, and a list stored again keeps its last
    /// read.
    fn same_value(&self, other: &Self) -> bool {
        let _ = other;
        false
    }

    /// The key of the innermost entity at `path` inside a value of this
    /// schema, if any (for error reports).
    fn entity_at(path: &[Segment]) -> Option<&'static str>;

    /// Told that a list of `len` values of this schema is about to be
    /// normalized, so tables can make room once instead of growing.
    fn reserve(cx: &mut Normalizer<'_>, len: usize) {
        let _ = (cx, len);
    }

    /// `self` (a stored list) with `record` (a value of the record schema
    /// a create answered with) added at its start or end, when this list
    /// holds such records; `None` otherwise.
    fn join(&self, record: &dyn Any, at_start: bool) -> Option<Joined> {
        let _ = (record, at_start);
        None
    }

    /// `self` (a stored list of records) without its item at `index`
    /// (a record that was deleted, or no longer matches the list's
    /// filters), when this schema is a list of records (see
    /// [`LIST_OF_RECORDS`](Self::LIST_OF_RECORDS)); `None` otherwise.
    fn leave(&self, index: usize) -> Option<Self> {
        let _ = index;
        None
    }

    /// `self` (a stored list grown by pages, with pages left to load)
    /// counting one record less: one of the collection's, on a page it
    /// has not loaded, was deleted. `None` when it counts nothing.
    fn uncount(&self) -> Option<Self> {
        None
    }

    /// `self` (a stored page of a list) followed by `next`, the page after
    /// it, as one value: when this schema is a list that grows by pages
    /// (`Vec`, `Page`, an envelope whose one nested field is such a list);
    /// `None` otherwise.
    ///
    /// `keep` has one entry per item of `next`'s list (when the list's
    /// items are records: see [`LIST_OF_RECORDS`](Self::LIST_OF_RECORDS)):
    /// an item whose entry is false is left out (a record the list holds
    /// already). An empty `keep` keeps every item.
    fn extend_page(&self, next: &Self, keep: &[bool]) -> Option<Self> {
        let _ = (next, keep);
        None
    }

    /// For a list of records (see
    /// [`LIST_OF_RECORDS`](Self::LIST_OF_RECORDS)): `previous`, the last
    /// read of this stored list, with its items at the positions
    /// `changed` read again through `cx` (each item is the reference at
    /// its own position). `Some(None)` when `previous` stands; `None`
    /// when it cannot be patched (an item is gone, or `previous` does not
    /// line up with the list), and is read whole.
    fn patch(
        &self,
        previous: &Self,
        changed: &[usize],
        cx: &mut Denormalizer<'_, '_>,
    ) -> Option<Option<Self>>
    where
        Self: Sized,
    {
        let _ = (previous, changed, cx);
        None
    }

    /// For a record schema: the current copy of the reference at
    /// position `index` of the value being read, held as `self`.
    fn denormalize_at(&self, index: usize, cx: &mut Denormalizer<'_, '_>) -> Denorm<Self>
    where
        Self: Sized,
    {
        let _ = (index, cx);
        Denorm::Missing
    }

    /// A value of this schema that says nothing (an empty list, no
    /// record, a record's `Default`), if it has one: what a component of
    /// a stopped server render renders with, so that the render ends.
    fn stand_in() -> Option<Self>
    where
        Self: Sized,
    {
        None
    }

    /// Whether an answer of this schema is bytes ([`Blob`](crate::Blob)),
    /// not JSON: its request accepts any content type and keeps the body
    /// as it came.
    const BINARY: bool = false;

    /// A value of this schema made from an answer's bytes, for a
    /// [`BINARY`](Self::BINARY) schema.
    fn from_bytes(bytes: Vec<u8>, content_type: Option<&str>) -> Option<Self>
    where
        Self: Sized,
    {
        let _ = (bytes, content_type);
        None
    }

    /// Whether a value of this schema is a record (`Rc<E>`): one store
    /// reference each.
    const IS_RECORD: bool = false;

    /// For a record schema (`Rc<E>`): the entity's key and pk field. A
    /// read whose params hold that field may be answered from the record.
    const RECORD: Option<(&'static str, &'static str)> = None;

    /// For a schema that shows every record of one entity type (`All<E>`):
    /// that type's key. A read of it holds every record of the type.
    const EVERY_OF: Option<&'static str> = None;

    /// For a record schema: the record `pk` as a value of this schema,
    /// read through `reader`; `None` for other schemas.
    fn read_record(reader: &mut Reader<'_>, pk: &Pk) -> Option<Lookup<Self>>
    where
        Self: Sized,
    {
        let _ = (reader, pk);
        None
    }

    /// Whether every record a value of this schema shows is one of its
    /// result's own references (no record nests another): a write that
    /// touches none of them, nor the result, leaves its reads unchanged.
    const FLAT: bool = false;

    /// Whether this schema grows by pages as a list of records, each item
    /// one store reference: pages may then be joined without repeating a
    /// record.
    const LIST_OF_RECORDS: bool = false;

    /// Reads the JSON of a value of this schema for which fields its
    /// records carry (keys only; values are skipped), noting in `found`
    /// the ones each record left out.
    fn scan_presence<'de, D: Deserializer<'de>>(
        deserializer: D,
        found: &mut Presence,
    ) -> Result<(), D::Error>
    where
        Self: Sized,
    {
        let _ = found;
        skip(deserializer)
    }

    /// The light pass over the value of the map entry `map` is at, a
    /// value of this schema (what a derived visitor calls).
    fn scan_entry<'de, A: MapAccess<'de>>(map: &mut A, found: &mut Presence) -> Result<(), A::Error>
    where
        Self: Sized,
    {
        map.next_value_seed(ScanSeed::<Self>::new(found))
    }

    /// Whether a value of this schema may need the light pass at all:
    /// `false` when no record it may hold has a field that may be absent
    /// or nests another record. A parse then never scans, and a build
    /// carries no scan code for the schema. When it is `false`,
    /// [`may_be_partial`](Self::may_be_partial) is too.
    const SCANS: bool = false;

    /// Whether a value of this schema may hold records with fields that
    /// may be absent (types in `seen` were looked at already).
    fn may_be_partial(seen: &mut Vec<TypeId>) -> bool {
        let _ = seen;
        false
    }

    /// The field `field` of a record of this schema, as a list filter
    /// compares it; [`FieldText::NoField`] for what is not a record.
    fn field_text(&self, field: &str) -> FieldText {
        let _ = field;
        FieldText::NoField
    }
}

/// A value decoded from a response, with what the decoding read of it:
/// which fields each of its records carried. A record stored from it
/// keeps the cached value of a field its JSON left out (see
/// [`Entity`](crate::Entity), "Partial records"); a value made in Rust
/// (`Decoded::from(value)`) is whole.
///
/// It derefs to the value; [`map`](Self::map) builds another value from
/// it (an envelope around a record, say) and keeps what was read.
///
/// ```
/// use restcache::prelude::*;
/// use std::rc::Rc;
///
/// #[derive(Entity, Clone, Debug, Default, Deserialize)]
/// struct Todo { id: u64, note: Option<String> }
///
/// let decoded = restcache::from_json::<Rc<Todo>>(r#"{"id": 1}"#)?;
/// assert_eq!(decoded.id, 1); // the value, through `Deref`
/// let list: Decoded<Vec<Rc<Todo>>> = decoded.map(|todo| vec![todo]);
/// assert_eq!(list.into_value().len(), 1);
/// # Ok::<(), SchemaError>(())
/// ```
#[derive(Clone)]
pub struct Decoded<S> {
    value: S,
    presence: Presence,
}

impl<S> Decoded<S> {
    /// The value.
    ///
    /// ```
    /// use restcache::Decoded;
    /// assert_eq!(Decoded::from(5).into_value(), 5);
    /// ```
    pub fn into_value(self) -> S {
        self.value
    }

    /// Another value made from this one (an envelope around it, a part of
    /// it), with what the decoding read of this one's records.
    ///
    /// ```
    /// use restcache::Decoded;
    /// assert_eq!(Decoded::from(2).map(|n| n * 10).into_value(), 20);
    /// ```
    pub fn map<T>(self, make: impl FnOnce(S) -> T) -> Decoded<T> {
        Decoded {
            value: make(self.value),
            presence: self.presence,
        }
    }

    /// This value as a full replace's answer (a `PUT`'s): its records
    /// replace the stored ones whole.
    pub(crate) fn replacing_whole(mut self) -> Self {
        self.presence.replace_whole();
        self
    }

    /// This value as another cache's copy: each record in it, nested or
    /// not, replaces the stored one whole but for the fields serde never
    /// reads (which no copy carries).
    #[cfg(any(feature = "tabs", feature = "persist"))]
    pub(crate) fn copied_whole(mut self) -> Self {
        self.presence.copy_whole();
        self
    }

    /// Whether the record `pk` of `E` in it left out fields it may leave
    /// out.
    #[cfg(feature = "live")]
    pub(crate) fn leaves_out<E: 'static>(&self, pk: &crate::pk::Pk) -> bool {
        self.presence.absent::<E>(pk) != 0
    }

    /// The value and what the decoding read of it.
    pub(crate) fn into_parts(self) -> (S, Presence) {
        (self.value, self.presence)
    }
}

/// A value made in Rust: its records are whole.
impl<S> From<S> for Decoded<S> {
    fn from(value: S) -> Self {
        Decoded {
            value,
            presence: Presence::default(),
        }
    }
}

impl<S> Deref for Decoded<S> {
    type Target = S;

    fn deref(&self) -> &S {
        &self.value
    }
}

impl<S: fmt::Debug> fmt::Debug for Decoded<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Decoded")
            .field("value", &self.value)
            .field("partial_records", &self.presence.len())
            .finish()
    }
}

/// Parses `text` as the schema `S`, reading which fields its records
/// carried (a second, light pass over the JSON, for schemas whose records
/// have fields that may be absent).
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
pub fn from_json<S: Schema + DeserializeOwned>(text: &str) -> Result<Decoded<S>, SchemaError> {
    let value: S = crate::json::decode(text, S::entity_at)?;
    if !S::SCANS || !may_be_partial::<S>() {
        return Ok(Decoded::from(value));
    }
    let mut presence = Presence::default();
    let mut json = serde_json::Deserializer::from_str(text);
    if ScanSeed::<S>::new(&mut presence)
        .deserialize(&mut json)
        .is_err()
    {
        presence = Presence::default(); // a pass that fails tells nothing
    }
    Ok(Decoded { value, presence })
}

thread_local! {
    /// What [`may_be_partial`] found for each schema type: a fact about
    /// the type, worked out once.
    static PARTIAL: RefCell<FxHashMap<TypeId, bool>> = RefCell::new(FxHashMap::default());
}

/// Whether a value of `S` may hold a record with fields that may be
/// absent: only then is a response's JSON read for which fields it
/// carried.
fn may_be_partial<S: Schema>() -> bool {
    let ty = TypeId::of::<S>();
    if let Some(known) = PARTIAL.with(|known| known.borrow().get(&ty).copied()) {
        return known;
    }
    let partial = S::may_be_partial(&mut Vec::new());
    PARTIAL.with(|known| known.borrow_mut().insert(ty, partial));
    partial
}
