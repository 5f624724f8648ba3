//! Partial records: one response carries a record with extra parts (an
//! embedded list of comments, an expanded author), another without them.
//! A field a response did not carry keeps its stored value; a field it
//! carried (even as `null`) replaces it.
//!
//! Which fields a response carried is read from its JSON by a second,
//! light pass beside the typed decoding (`schema/scan.rs`: it reads keys
//! and skips values), for schemas whose records have fields that may be
//! absent (`Option`s and fields with a serde default). It notes, for each
//! record by type and pk, the fields it left out ([`Presence`]); the
//! notes travel with the decoded value ([`Decoded`](super::schema::Decoded))
//! into the write that merges the records.

use std::any::TypeId;
use std::fmt;

use rustc_hash::FxHashMap;
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, Visitor};

use crate::pk::Pk;

/// The fields a response left out of one record, by wire name: what a
/// merge keeps from the stored copy.
///
/// ```
/// use restcache::Absent;
///
/// let absent = Absent::new(&["comments", "author", "note"], 0b101);
/// assert!(absent.contains("comments") && absent.contains("note"));
/// assert!(!absent.contains("author"));
/// assert_eq!(absent.iter().collect::<Vec<_>>(), ["comments", "note"]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Absent {
    fields: &'static [&'static str],
    mask: u64,
}

impl Absent {
    /// The fields among `fields` whose bit is set in `mask` (bit `i` for
    /// `fields[i]`).
    ///
    /// ```
    /// use restcache::Absent;
    /// assert!(Absent::new(&["a"], 0).is_empty());
    /// ```
    pub fn new(fields: &'static [&'static str], mask: u64) -> Self {
        Absent { fields, mask }
    }

    /// Whether the field `name` was left out.
    ///
    /// ```
    /// use restcache::Absent;
    /// assert!(Absent::new(&["a", "b"], 0b10).contains("b"));
    /// ```
    pub fn contains(&self, name: &str) -> bool {
        self.iter().any(|field| field == name)
    }

    /// Whether the bit `index` is set: the derive's fast check.
    #[doc(hidden)]
    pub fn has(&self, index: u32) -> bool {
        index < 64 && self.mask & (1 << index) != 0
    }

    /// The fields left out, in declaration order.
    ///
    /// ```
    /// use restcache::Absent;
    /// assert_eq!(Absent::new(&["a", "b", "c"], 0b110).iter().collect::<Vec<_>>(), ["b", "c"]);
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.fields
            .iter()
            .take(64)
            .enumerate()
            .filter(|(i, _)| self.mask & (1 << i) != 0)
            .map(|(_, field)| *field)
    }

    /// Whether nothing was left out.
    ///
    /// ```
    /// use restcache::Absent;
    /// assert!(!Absent::new(&["a"], 1).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.mask == 0
    }
}

/// What the light pass over a response's JSON found: for each record
/// that left out fields it may leave out, by its type and pk, the bits of
/// `EntityParts::MAY_BE_ABSENT` it left out. A record with no note is
/// whole. Of two copies of one record in a response, the first one's note
/// stands (the first copy is the one stored).
#[doc(hidden)]
#[derive(Clone, Debug, Default)]
pub struct Presence(Option<Box<FxHashMap<(TypeId, Pk), u64>>>, Replacing);

/// Which records of a value replace their stored copies whole (but for
/// the fields serde never reads, and unless their entity merges its own
/// way); the rest merge.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Replacing {
    /// None: a response's records merge.
    #[default]
    None,
    /// The records at the value's top, not those nested in them: a full
    /// replace's answer (a `PUT`'s).
    Top,
    /// Every record, nested or not: whole copies from another cache.
    #[cfg(any(feature = "tabs", feature = "persist"))]
    Every,
}

impl Presence {
    /// Marks the response a full replace (a `PUT`'s answer): its records
    /// replace the stored ones whole, unless their entity merges its own
    /// way.
    pub(crate) fn replace_whole(&mut self) {
        self.1 = Replacing::Top;
    }

    /// Marks every record of the value, nested or not, a whole copy
    /// (another cache's): each replaces its stored copy but for the
    /// fields serde never reads.
    #[cfg(any(feature = "tabs", feature = "persist"))]
    pub(crate) fn copy_whole(&mut self) {
        self.1 = Replacing::Every;
    }

    /// Whether the records at `depth` (0: the value's top) replace their
    /// stored copies whole.
    #[inline]
    pub(crate) fn replaces_whole(&self, depth: u32) -> bool {
        match self.1 {
            Replacing::None => false,
            Replacing::Top => depth == 0,
            #[cfg(any(feature = "tabs", feature = "persist"))]
            Replacing::Every => true,
        }
    }

    /// Notes that the record `pk` of `E` left out the fields `absent`.
    pub fn note<E: 'static>(&mut self, pk: Pk, absent: u64) {
        if absent == 0 {
            return;
        }
        let notes = self.0.get_or_insert_with(Box::default);
        notes.entry((TypeId::of::<E>(), pk)).or_insert(absent);
    }

    /// The fields the record `pk` of `E` left out.
    #[inline]
    pub(crate) fn absent<E: 'static>(&self, pk: &Pk) -> u64 {
        match &self.0 {
            Some(notes) => notes
                .get(&(TypeId::of::<E>(), pk.clone()))
                .copied()
                .unwrap_or(0),
            None => 0,
        }
    }

    /// How many records left fields out.
    pub(crate) fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |notes| notes.len())
    }
}

/// Reads a map key as its index among `names` (`None`: another key),
/// without keeping the key.
#[doc(hidden)]
pub struct KeyIndex(pub &'static [&'static str]);

impl<'de> DeserializeSeed<'de> for KeyIndex {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<usize>, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for KeyIndex {
    type Value = Option<usize>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Option<usize>, E> {
        Ok(self.0.iter().position(|name| *name == key))
    }
}

/// Reads a record's pk as its JSON holds it (`7` and `"7"` alike): what
/// the light pass notes a record by. Anything else (null, a list) is no
/// pk.
#[doc(hidden)]
pub struct PkSeed;

impl<'de> DeserializeSeed<'de> for PkSeed {
    type Value = Option<Pk>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<Pk>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for PkSeed {
    type Value = Option<Pk>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a primary key")
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Option<Pk>, E> {
        Ok(Some(Pk::from(n)))
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Option<Pk>, E> {
        Ok(Pk::parse(&n.to_string()))
    }

    fn visit_f64<E: de::Error>(self, n: f64) -> Result<Option<Pk>, E> {
        Ok(Pk::parse(&n.to_string()))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Option<Pk>, E> {
        Ok(Pk::parse(text))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Option<Pk>, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Option<Pk>, E> {
        Ok(None)
    }

    fn visit_none<E: de::Error>(self) -> Result<Option<Pk>, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<Pk>, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<Option<Pk>, A::Error> {
        IgnoredAny.visit_seq(seq).map(|_| None)
    }

    fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Option<Pk>, A::Error> {
        IgnoredAny.visit_map(map).map(|_| None)
    }
}

/// Skips a value the light pass does not look into.
#[doc(hidden)]
pub fn skip<'de, D: Deserializer<'de>>(deserializer: D) -> Result<(), D::Error> {
    IgnoredAny::deserialize(deserializer).map(|_| ())
}

/// A merge for records a response always carries whole (a server that
/// leaves out `null` fields, say): what it left out is gone. Name it with
/// `#[entity(merge = restcache::replace_whole)]`.
///
/// ```
/// use restcache::prelude::*;
/// use std::rc::Rc;
///
/// #[derive(Entity, Clone, Debug, Default, Deserialize)]
/// #[entity(merge = restcache::replace_whole)]
/// struct Task { id: u64, assignee: Option<u64> }
///
/// let mut store = Store::new();
/// let at = |ms| Meta { fetched_at: Timestamp::from_millis(ms), ..Meta::default() };
/// store.set_json::<Rc<Task>>("task", r#"{"id": 1, "assignee": 5}"#, at(1))?;
/// store.set_json::<Rc<Task>>("task", r#"{"id": 1}"#, at(2))?; // `null` left out
/// assert_eq!(store.read::<Rc<Task>>("task").into_value().unwrap().assignee, None);
/// # Ok::<(), restcache::SchemaError>(())
/// ```
pub fn replace_whole<E>(incoming: &mut E, stored: &E, absent: &Absent) {
    let _ = (incoming, stored, absent);
}

/// Whether a schema holding records of a type not yet in `seen` may be
/// partial: `seen` breaks the cycles of records that nest their own kind.
#[doc(hidden)]
pub fn first_visit(seen: &mut Vec<TypeId>, ty: TypeId) -> bool {
    if seen.contains(&ty) {
        return false;
    }
    seen.push(ty);
    true
}
