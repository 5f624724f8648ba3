//! The light pass over a response's JSON, for schemas whose records have
//! fields that may be absent: it reads keys and skips values, and notes
//! for each record the fields it left out (see `partial.rs`). Here: the
//! seed that runs a schema's pass, and the passes of the standard
//! containers.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::SchemaParts;
use crate::cache::partial::Presence;

/// Reads the JSON of one value of `S` for which fields its records carry,
/// noting what it finds in a [`Presence`].
pub struct ScanSeed<'a, S> {
    found: &'a mut Presence,
    schema: PhantomData<fn() -> S>,
}

impl<'a, S> ScanSeed<'a, S> {
    pub fn new(found: &'a mut Presence) -> Self {
        ScanSeed {
            found,
            schema: PhantomData,
        }
    }
}

impl<'de, S: SchemaParts> DeserializeSeed<'de> for ScanSeed<'_, S> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        S::scan_presence(deserializer, self.found)
    }
}

/// The light pass over a list: each item's.
pub(crate) fn scan_list<'de, S: SchemaParts, D: Deserializer<'de>>(
    deserializer: D,
    found: &mut Presence,
) -> Result<(), D::Error> {
    struct List<'a, S>(&'a mut Presence, PhantomData<fn() -> S>);
    impl<'de, S: SchemaParts> Visitor<'de> for List<'_, S> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a list")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            while seq.next_element_seed(ScanSeed::<S>::new(self.0))?.is_some() {}
            Ok(())
        }
    }
    scan_lenient(deserializer, List::<S>(found, PhantomData))
}

/// The light pass over a map: each entry's.
pub(crate) fn scan_map<'de, S: SchemaParts, D: Deserializer<'de>>(
    deserializer: D,
    found: &mut Presence,
) -> Result<(), D::Error> {
    struct Keyed<'a, S>(&'a mut Presence, PhantomData<fn() -> S>);
    impl<'de, S: SchemaParts> Visitor<'de> for Keyed<'_, S> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a map")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while map.next_key::<IgnoredAny>()?.is_some() {
                map.next_value_seed(ScanSeed::<S>::new(self.0))?;
            }
            Ok(())
        }
    }
    scan_lenient(deserializer, Keyed::<S>(found, PhantomData))
}

/// The light pass over an optional value.
pub(crate) fn scan_option<'de, S: SchemaParts, D: Deserializer<'de>>(
    deserializer: D,
    found: &mut Presence,
) -> Result<(), D::Error> {
    struct Maybe<'a, S>(&'a mut Presence, PhantomData<fn() -> S>);
    impl<'de, S: SchemaParts> Visitor<'de> for Maybe<'_, S> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a value or null")
        }
        fn visit_none<E: de::Error>(self) -> Result<(), E> {
            Ok(())
        }
        fn visit_unit<E: de::Error>(self) -> Result<(), E> {
            Ok(())
        }
        fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
            S::scan_presence(deserializer, self.0)
        }
    }
    deserializer.deserialize_option(Maybe::<S>(found, PhantomData))
}

/// How a union's JSON names the variant of a value, as the union's
/// `Deserialize` reads it.
#[derive(Clone, Copy, Debug)]
pub enum UnionTag {
    /// An object with one key, the variant's name, over the variant's
    /// value (serde's default).
    External,
    /// A field of the variant's own object (serde's `tag`).
    Internal(&'static str),
    /// One field names the variant, another holds its value (serde's
    /// `tag` and `content`).
    Adjacent(&'static str, &'static str),
}

/// The light pass of one variant of a union over its value.
pub type VariantScan = fn(&serde_json::Value, &mut Presence) -> Result<(), serde_json::Error>;

/// The light pass over a union's value: the value is read whole, its
/// variant found by `tag` among `variants` (the names each is read under,
/// with its pass), and that variant's pass run over it. A value whose
/// variant cannot be told notes nothing: its records are written whole.
pub fn scan_union<'de, D: Deserializer<'de>>(
    deserializer: D,
    found: &mut Presence,
    tag: UnionTag,
    variants: &[(&[&str], VariantScan)],
) -> Result<(), D::Error> {
    use serde::Deserialize;
    use serde_json::Value;

    let value = Value::deserialize(deserializer)?;
    let Value::Object(object) = &value else {
        return Ok(());
    };
    let named = |name: Option<&str>| {
        variants
            .iter()
            .find(|(names, _)| name.is_some_and(|name| names.contains(&name)))
    };
    let (variant, content) = match tag {
        UnionTag::External if object.len() == 1 => {
            let (name, content) = object.iter().next().expect("one entry");
            (named(Some(name)), Some(content))
        }
        UnionTag::External => (None, None),
        UnionTag::Internal(tag) => (named(object.get(tag).and_then(Value::as_str)), Some(&value)),
        UnionTag::Adjacent(tag, content) => (
            named(object.get(tag).and_then(Value::as_str)),
            object.get(content),
        ),
    };
    match (variant, content) {
        (Some((_, scan)), Some(content)) => scan(content, found).map_err(de::Error::custom),
        _ => Ok(()),
    }
}

/// Runs the light pass `visitor` (over a list or an object) on a value of
/// any shape: a value of another shape (`null` where a list was due, a
/// bare id where a record was, which the type's own `Deserialize` may
/// accept) notes nothing, and the pass goes on with the rest of the
/// response.
pub fn scan_lenient<'de, D, V>(deserializer: D, visitor: V) -> Result<(), D::Error>
where
    D: Deserializer<'de>,
    V: Visitor<'de, Value = ()>,
{
    deserializer.deserialize_any(Lenient(visitor))
}

/// A light pass's visitor that takes a value of any other shape as one
/// with nothing to note.
struct Lenient<V>(V);

impl<'de, V: Visitor<'de, Value = ()>> Visitor<'de> for Lenient<V> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.expecting(f)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        self.0.visit_map(map)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        self.0.visit_seq(seq)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
}
