//! Partial records: one response carries a record with extra parts (an
//! embedded list of comments, an expanded author), another without them.
//! A field a response did not carry keeps its stored value; a field it
//! carried (even as `null`) replaces it.
//!
//! Which fields a response carried is read from its JSON by a second,
//! light pass beside the typed decoding (it reads keys and skips values),
//! for schemas whose records have fields that may be absent (`Option`s and
//! fields with a serde default): the absent ones are noted per record, and
//! the store consults the note when the record is merged.

use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::fmt;
use std::marker::PhantomData;
use std::rc::{Rc, Weak};

use rustc_hash::FxHashMap;
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::cache::schema::Schema;

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
    pub fn new(fields: &'static [&'static str], mask: u64) -> Self {
        Absent { fields, mask }
    }

    /// Whether the field `name` was left out.
    pub fn contains(&self, name: &str) -> bool {
        self.iter().any(|field| field == name)
    }

    /// Whether the bit `index` is set: the derive's fast check.
    #[doc(hidden)]
    pub fn has(&self, index: u32) -> bool {
        index < 64 && self.mask & (1 << index) != 0
    }

    /// The fields left out, in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.fields
            .iter()
            .take(64)
            .enumerate()
            .filter(|(i, _)| self.mask & (1 << i) != 0)
            .map(|(_, field)| *field)
    }

    /// Whether nothing was left out.
    pub fn is_empty(&self) -> bool {
        self.mask == 0
    }
}

/// What the light pass over a response's JSON found, in the shape of the
/// value: for each record, the fields it left out, and the same for the
/// records nested in it.
#[doc(hidden)]
#[derive(Debug, Default)]
pub enum Presence {
    /// Nothing to note (not a record, or not read).
    #[default]
    Unknown,
    /// A record: the bits of `Entity::MAY_BE_ABSENT` it left out, and what
    /// was found in its nested fields, in declaration order.
    Record { absent: u64, nested: Vec<Presence> },
    /// A list, item by item.
    List(Vec<Presence>),
    /// A map, entry by entry.
    Keyed(Vec<(String, Presence)>),
}

/// Reads the JSON of one value of `S` for which fields its records carry.
#[doc(hidden)]
pub struct ScanSeed<S>(PhantomData<fn() -> S>);

impl<S> ScanSeed<S> {
    pub fn new() -> Self {
        ScanSeed(PhantomData)
    }
}

impl<S> Default for ScanSeed<S> {
    fn default() -> Self {
        ScanSeed::new()
    }
}

impl<'de, S: Schema> DeserializeSeed<'de> for ScanSeed<S> {
    type Value = Presence;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Presence, D::Error> {
        S::scan_presence(deserializer)
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

/// The light pass over a list: each item's presence.
pub(crate) fn scan_list<'de, S: Schema, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Presence, D::Error> {
    struct List<S>(PhantomData<fn() -> S>);
    impl<'de, S: Schema> Visitor<'de> for List<S> {
        type Value = Presence;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a list")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Presence, A::Error> {
            let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
            while let Some(item) = seq.next_element_seed(ScanSeed::<S>::new())? {
                items.push(item);
            }
            Ok(Presence::List(items))
        }
    }
    deserializer.deserialize_seq(List::<S>(PhantomData))
}

/// The light pass over a map: each entry's presence.
pub(crate) fn scan_map<'de, S: Schema, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Presence, D::Error> {
    struct Keyed<S>(PhantomData<fn() -> S>);
    impl<'de, S: Schema> Visitor<'de> for Keyed<S> {
        type Value = Presence;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a map")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Presence, A::Error> {
            let mut entries = Vec::new();
            while let Some(key) = map.next_key::<String>()? {
                entries.push((key, map.next_value_seed(ScanSeed::<S>::new())?));
            }
            Ok(Presence::Keyed(entries))
        }
    }
    deserializer.deserialize_map(Keyed::<S>(PhantomData))
}

/// The light pass over an optional value.
pub(crate) fn scan_option<'de, S: Schema, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Presence, D::Error> {
    struct Maybe<S>(PhantomData<fn() -> S>);
    impl<'de, S: Schema> Visitor<'de> for Maybe<S> {
        type Value = Presence;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a value or null")
        }
        fn visit_none<E: de::Error>(self) -> Result<Presence, E> {
            Ok(Presence::Unknown)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Presence, E> {
            Ok(Presence::Unknown)
        }
        fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Presence, D::Error> {
            S::scan_presence(deserializer)
        }
    }
    deserializer.deserialize_option(Maybe::<S>(PhantomData))
}

/// Skips a value the light pass does not look into.
#[doc(hidden)]
pub fn skip<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Presence, D::Error> {
    IgnoredAny::deserialize(deserializer).map(|_| Presence::Unknown)
}

type Notes = FxHashMap<usize, (Weak<dyn Any>, u64)>;

thread_local! {
    /// The absent fields of records decoded and not merged yet, by the
    /// record's allocation (the weak reference keeps the address from
    /// being reused while the note stands).
    static NOTES: RefCell<(Notes, usize)> = RefCell::new((FxHashMap::default(), 64));
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

/// Notes that `record`'s fields `mask` were absent from its response.
#[doc(hidden)]
pub fn note_absent<E: 'static>(record: &Rc<E>, mask: u64) {
    if mask == 0 {
        return;
    }
    let weak: Weak<dyn Any> = Rc::downgrade(record) as Weak<dyn Any>;
    NOTES.with(|notes| {
        let (notes, purge_at) = &mut *notes.borrow_mut();
        if notes.len() >= *purge_at {
            // Records decoded and dropped without being stored.
            notes.retain(|_, (weak, _)| weak.strong_count() > 0);
            *purge_at = (notes.len() * 2).max(64);
        }
        notes.insert(Rc::as_ptr(record) as *const () as usize, (weak, mask));
    });
}

/// The absent fields noted for `record`, forgetting the note.
pub(crate) fn take_absent<E: 'static>(record: &Rc<E>) -> u64 {
    let address = Rc::as_ptr(record) as *const () as usize;
    NOTES.with(|notes| {
        let (notes, _) = &mut *notes.borrow_mut();
        if notes.is_empty() {
            return 0; // typed data stored as it is: nothing was noted
        }
        match notes.remove(&address) {
            Some((weak, mask)) if weak.strong_count() > 0 => mask,
            _ => 0,
        }
    })
}

thread_local! {
    static PARTIAL: RefCell<FxHashMap<TypeId, bool>> = RefCell::new(FxHashMap::default());
}

/// Whether a value of `S` may hold a record with fields that may be
/// absent: only then is a response's JSON read for which fields it
/// carried. Worked out once per schema type.
pub(crate) fn may_be_partial<S: Schema>() -> bool {
    let ty = TypeId::of::<S>();
    if let Some(known) = PARTIAL.with(|known| known.borrow().get(&ty).copied()) {
        return known;
    }
    let partial = S::may_be_partial(&mut Vec::new());
    PARTIAL.with(|known| known.borrow_mut().insert(ty, partial));
    partial
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
