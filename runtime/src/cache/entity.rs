//! Entities: record types with an identity.

use std::any::TypeId;
use std::fmt;

use serde::{Deserializer, Serialize};

use crate::cache::denormalize::{Denorm, Denormalizer};
use crate::cache::filter::FieldText;
use crate::cache::normalize::Normalizer;
use crate::cache::partial::{Absent, Presence, skip};
use crate::cache::store::registry::TypeKey;
use crate::error::SchemaError;
use crate::path::Segment;
use crate::pk::{Pk, PkKey, PkValue};

/// A record type with an identity: stored once per `(KEY, pk)`.
///
/// Derive it with `#[derive(Entity)]`: the key defaults to the struct's name
/// and the pk to its field `id`; `#[entity(key = "...")]` and a field marked
/// `#[entity(pk)]` override them. Fields that hold other entities are marked
/// `#[entity(nested)]` and are split out into their own tables when a
/// response is stored, then joined back on read. A nested record that a
/// response may leave out is an `Option<Rc<E>>`: one serde would make up
/// (`Rc<E>` under a `#[serde(default)]`) is refused at compile time, since
/// the store would keep that default record as if the server had sent it.
///
/// ```
/// use restcache::prelude::*;
/// use std::rc::Rc;
///
/// #[derive(Entity, Clone, Debug, Default, Deserialize)]
/// #[entity(key = "Person")]
/// struct User { id: u64, name: String }
///
/// #[derive(Entity, Clone, Debug, Default, Deserialize)]
/// struct Article {
///     #[entity(pk)]
///     slug: String,
///     #[entity(nested)]
///     author: Rc<User>,
/// }
///
/// assert_eq!(User::KEY, "Person");
/// let article = Article { slug: "hello".into(), author: Rc::new(User::default()) };
/// assert_eq!(article.pk(), Some(Pk::from("hello")));
/// ```
///
/// # Partial records
///
/// A server may send a record with extra parts on request (an embedded
/// list, an expanded parent) and without them elsewhere. A record is
/// stored by merging: a field the response carried (even as `null`)
/// replaces the stored one; a field it left out keeps its stored value.
/// The fields that may be left out are the `Option`s (written as
/// `Option<..>`: the derive cannot see through an alias of it), the
/// fields with a serde default (all of them under `#[serde(default)]` on
/// the struct), and the fields serde never reads (`skip`,
/// `skip_deserializing`: the app's own, which always keep their stored
/// value); the first 64 of them in declaration order.
/// A value stored from Rust rather than JSON is whole, and so is a record
/// of a generic type. Reading which fields a response carried is a light
/// second pass over its JSON (keys only), made only for schemas that hold
/// such records. The answer to a `PUT` (a full replace on the server)
/// replaces the records at its top whole: a field it leaves out is gone
/// from the cache too, as from the server, but for the fields serde
/// never reads (the app's own). The records nested in them (an author's
/// summary) merge, as the `PUT` did not replace them; reads of partial views (`_embed`,
/// sparse fields) and `PATCH` answers merge. An entity with
/// `#[entity(merge = path)]` decides for itself in both cases (its
/// function is asked about a `PUT`'s records too). A server that leaves out `null` fields (Go's
/// `omitempty`, Jackson's `NON_NULL`) never clears a field this way: give
/// its records `#[entity(merge = restcache::replace_whole)]`.
/// `#[entity(merge = path)]` names any function
/// `fn(&mut Self, stored: &Self, absent: &Absent)` that merges instead.
/// The fields are read under their serde names and aliases; a record with
/// a `Deserialize` of its own that reads other keys should name its
/// merge.
///
/// ```
/// use restcache::prelude::*;
/// use std::rc::Rc;
///
/// #[derive(Entity, Clone, Debug, Default, Deserialize)]
/// struct Post { id: u64, title: String, #[entity(nested)] comments: Option<Vec<Rc<Comment>>> }
/// #[derive(Entity, Clone, Debug, Default, Deserialize)]
/// struct Comment { id: u64 }
///
/// let mut store = Store::new();
/// let at = |ms| Meta { fetched_at: Timestamp::from_millis(ms), ..Meta::default() };
/// store.set_json::<Rc<Post>>("embedded", r#"{"id": 1, "title": "a", "comments": [{"id": 7}]}"#, at(1))?;
/// store.set_json::<Vec<Rc<Post>>>("list", r#"[{"id": 1, "title": "b"}]"#, at(2))?;
/// let post = store.read::<Rc<Post>>("embedded").into_value().unwrap();
/// assert_eq!(post.title, "b"); // carried: replaced
/// assert_eq!(post.comments.as_ref().unwrap().len(), 1); // left out: kept
/// # Ok::<(), restcache::SchemaError>(())
/// ```
///
/// Implement it with the derive: besides these items, it writes the
/// machinery the store walks records with (nested entities, partial
/// records, list filters), which is not public API and may change in any
/// release. The derive works on generic types too.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an entity",
    label = "not an `#[derive(Entity)]` type",
    note = "a resource's schema is a record type with `#[derive(Entity)]`"
)]
pub trait Entity: EntityParts {
    /// The name of the entity type: its table in the store.
    const KEY: &'static str;
    /// The Rust name of the pk field (for error messages).
    const PK_FIELD: &'static str;

    /// The type of the pk in params: the last placeholder of a resource's
    /// path (`:id` of `/todos/:id`) has this type. The derive takes it from
    /// the pk field: `u64` for `u64`, `String` for `String`, `u64` for a
    /// pk field held as `Option<u64>`.
    type Id: PkValue + Serialize + Clone + fmt::Debug + PartialEq + 'static;

    /// The record's identity, `None` when it has no usable one.
    fn pk(&self) -> Option<Pk>;

    /// The same identity, borrowing the pk field's text where it can: the
    /// store's writes find a record's slot by it. The derive reads the pk
    /// field's [`PkValue::pk_key`]; the default makes an owned pk.
    #[doc(hidden)]
    #[inline]
    fn pk_key(&self) -> Option<PkKey<'_>> {
        self.pk().map(PkKey::owned)
    }

    /// How this copy of the record compares with `stored`, the copy the
    /// store holds, when the server says which is newer (an `updatedAt`
    /// field, a version number): `Greater` keeps this copy, `Less` keeps
    /// the stored one, whichever request started later. `None` (the
    /// default), or `Equal`, leaves it to start order: the copy whose
    /// request started later wins.
    ///
    /// Start order alone cannot tell the one case a version can: a read
    /// that started after a write, but that the server answered before
    /// applying the write, holds older data and still wins.
    ///
    /// The derive implements it for a field marked `#[entity(version)]`,
    /// compared with `Ord`:
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use std::cmp::Ordering;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Deserialize)]
    /// #[serde(rename_all = "camelCase")]
    /// struct Doc { id: u64, text: String, #[entity(version)] updated_at: u64 }
    ///
    /// let old = Doc { id: 1, text: "a".into(), updated_at: 5 };
    /// let new = Doc { id: 1, text: "b".into(), updated_at: 9 };
    /// assert_eq!(new.compare_version(&old), Some(Ordering::Greater));
    /// ```
    fn compare_version(&self, stored: &Self) -> Option<std::cmp::Ordering> {
        let _ = stored;
        None
    }
}

/// The machinery `#[derive(Entity)]` writes beside [`Entity`]: how the
/// store walks a record's nested entities, merges a partial record,
/// compares a copy with the stored one, and judges it against a list's
/// filters. Not public API: the derive implements it, and it may change in
/// any release.
///
/// Every item has a default (no nested entities, no partial records, no
/// copy judged equal, no filterable field, no version, no type index),
/// which is what a record with none of those is.
#[doc(hidden)]
pub trait EntityParts: Clone + 'static {
    /// Whether records hold nested entities.
    const HAS_NESTED: bool = false;

    /// A record that says nothing (the type's `Default`), if it has one:
    /// what a component of a stopped server render renders with.
    fn stand_in() -> Option<Self>
    where
        Self: Sized,
    {
        None
    }
    /// Whether [`Entity::compare_version`] says anything (a field marked
    /// `#[entity(version)]`).
    const HAS_VERSION: bool = false;

    /// The wire names of the fields a response may leave out (`Option`s,
    /// fields with a serde default), at most 64: a field left out keeps its
    /// stored value when the record is merged.
    const MAY_BE_ABSENT: &'static [&'static str] = &[];

    /// The fields of [`MAY_BE_ABSENT`](Self::MAY_BE_ABSENT) serde never
    /// reads (`skip`, `skip_deserializing`), as bits: the app's own, which
    /// keep their stored values even through a full replace.
    const NEVER_READ: u64 = 0;

    /// Whether the entity merges its own way (`#[entity(merge = path)]`):
    /// its function is asked about a full replace's record too.
    const MERGES_ITS_OWN_WAY: bool = false;

    /// Takes from `stored` the fields `absent` says the response left
    /// out: a partial record merged over the stored one. The derive copies
    /// each absent field; `#[entity(merge = path)]` names a function of
    /// one's own instead.
    fn keep_absent(&mut self, stored: &Self, absent: &Absent) {
        let _ = (stored, absent);
    }

    /// Reads the JSON of one record for which fields it carries, and
    /// notes in `found` the ones it left out (with the same for its
    /// nested records). The default reads nothing: the record is stored
    /// whole.
    fn scan_record<'de, D: Deserializer<'de>>(
        deserializer: D,
        found: &mut Presence,
    ) -> Result<(), D::Error>
    where
        Self: Sized,
    {
        let _ = found;
        skip(deserializer)
    }

    /// Whether a record may need the light pass at all: it has a field
    /// that may be absent, or nests another record. When it is `false`,
    /// [`may_be_partial`](Self::may_be_partial) is too.
    const SCANS: bool = false;

    /// Whether this record, or one nested in it, has fields that may be
    /// absent (types in `seen` were looked at already).
    fn may_be_partial(seen: &mut Vec<TypeId>) -> bool {
        let _ = seen;
        false
    }

    /// The field `field` (its wire name), as a list filter compares it:
    /// every field whose type has a query-string form (numbers, text,
    /// bools, `Option`s of them) gives its text.
    fn field_text(&self, field: &str) -> FieldText {
        let _ = field;
        FieldText::NoField
    }

    /// A small number unique to this type in the process, which lets a
    /// store find the type's table without hashing its `TypeId`; `u32::MAX`
    /// when the type has none (a generic type).
    fn type_index() -> u32 {
        u32::MAX
    }

    /// Moves the nested entities of `self` into the store, replacing each by
    /// the store's copy.
    fn normalize_nested(&mut self, cx: &mut Normalizer<'_>) -> Result<(), SchemaError> {
        let _ = cx;
        Ok(())
    }

    /// Brings the nested entities of `self` up to date with the store.
    fn denormalize_nested(&self, cx: &mut Denormalizer<'_, '_>) -> Denorm<Self> {
        let _ = cx;
        Denorm::Same
    }

    /// Whether `self` and `other`, two copies of one record, hold equal
    /// fields: a copy written again equal to the stored one keeps it. False
    /// when any field's type has no `PartialEq` (and by default).
    fn equal_fields(&self, other: &Self) -> bool {
        let _ = other;
        false
    }

    /// Whether the nested fields of `self` and `other`, two reads of one
    /// stored record, hold the same entity allocations.
    fn same_nested(&self, other: &Self) -> bool {
        let _ = other;
        true
    }

    /// The key of the innermost entity at `path` inside one record (for
    /// error reports), when it is a nested one.
    fn nested_entity_at(path: &[Segment]) -> Option<&'static str> {
        let _ = path;
        None
    }
}

/// What the store's registry knows of the entity type `E`.
#[inline(always)]
pub(crate) fn type_key<E: Entity>() -> TypeKey {
    TypeKey {
        id: TypeId::of::<E>(),
        index: E::type_index(),
        key: E::KEY,
        name: std::any::type_name::<E>(),
    }
}
