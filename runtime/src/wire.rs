//! serde helpers for wire forms that differ from how a record holds a field.
//!
//! # Ids as servers send them
//!
//! Servers are not always consistent about ids: one sends `7`, another
//! `"7"`, a third mixes numbers with text ids (`"7"`, `"a1b2"`) in one
//! collection. A record's identity is the string form of its pk, so `7`
//! and `"7"` name one record whichever way it is held. Pick the helper
//! that fits what arrives:
//!
//! - numbers, sometimes as text (`7` or `"7"`): hold a number, with
//!   [`number_as_string`] (or [`opt_number_as_string`] for an optional one);
//! - text, sometimes as numbers (`"a1b2"` or `7`): hold a `String`, with
//!   [`text_or_number`].
//!
//! A record whose id fits neither fails the whole response, and the error
//! quotes that record, so that one bad row among thousands is found at
//! once.
//!
//! A profile API that sends its `id` as a string, for a record that holds
//! it as an optional number:
//!
//! ```
//! use restcache::prelude::*;
//!
//! #[derive(Entity, Clone, Debug, Default, Deserialize, Serialize)]
//! #[serde(rename_all = "camelCase")]
//! struct Profile {
//!     #[serde(default, with = "restcache::wire::opt_number_as_string")]
//!     id: Option<u64>,
//!     full_name: String,
//! }
//!
//! let p: Profile = serde_json::from_str(r#"{"id": "12", "fullName": "Ada"}"#).unwrap();
//! assert_eq!(p.id, Some(12));
//! assert_eq!(serde_json::to_string(&p).unwrap(), r#"{"id":"12","fullName":"Ada"}"#);
//! let q: Profile = serde_json::from_str(r#"{"id": 12, "fullName": "Ada"}"#).unwrap();
//! assert_eq!(q.id, Some(12));
//! ```

use std::fmt::{self, Display};
use std::marker::PhantomData;
use std::str::FromStr;

use serde::de::{self, Deserializer, Visitor};
use serde::ser::Serializer;

/// A number written as a string on the wire; a bare number is accepted too.
///
/// ```
/// #[derive(serde::Deserialize)]
/// struct Row { #[serde(with = "restcache::wire::number_as_string")] id: u32 }
/// let row: Row = serde_json::from_str(r#"{"id": "7"}"#).unwrap();
/// assert_eq!(row.id, 7);
/// ```
pub mod number_as_string {
    use super::*;

    /// Writes the number as a string.
    pub fn serialize<T: Display, S: Serializer>(
        value: &T,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.collect_str(value)
    }

    /// Reads a string holding a number, or a number.
    pub fn deserialize<'de, T, D>(deserializer: D) -> Result<T, D::Error>
    where
        T: FromStr,
        T::Err: Display,
        D: Deserializer<'de>,
    {
        deserializer.deserialize_any(NumberVisitor(PhantomData))
    }
}

/// An optional number written as a string on the wire; `null`, a missing
/// field (with `#[serde(default)]`) and `""` are `None`.
///
/// ```
/// #[derive(serde::Deserialize)]
/// struct Row { #[serde(default, with = "restcache::wire::opt_number_as_string")] id: Option<u32> }
/// let row: Row = serde_json::from_str(r#"{"id": null}"#).unwrap();
/// assert_eq!(row.id, None);
/// let row: Row = serde_json::from_str(r#"{}"#).unwrap();
/// assert_eq!(row.id, None);
/// ```
pub mod opt_number_as_string {
    use super::*;

    /// Writes the number as a string, `None` as `null`.
    pub fn serialize<T: Display, S: Serializer>(
        value: &Option<T>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(value) => serializer.collect_str(value),
            None => serializer.serialize_none(),
        }
    }

    /// Reads `null`, a string holding a number (`""` is `None`), or a number.
    pub fn deserialize<'de, T, D>(deserializer: D) -> Result<Option<T>, D::Error>
    where
        T: FromStr,
        T::Err: Display,
        D: Deserializer<'de>,
    {
        deserializer.deserialize_any(OptionalVisitor(PhantomData))
    }
}

/// A text field (an id, usually) that some servers send as a number:
/// `"a1b2"` and `7` are both read, the number as its decimal text.
///
/// ```
/// use restcache::prelude::*;
///
/// #[derive(Entity, Clone, Debug, Default, Deserialize)]
/// struct Item { #[serde(with = "restcache::wire::text_or_number")] id: String }
///
/// let items: Vec<Item> = serde_json::from_str(r#"[{"id": 7}, {"id": "a1b2"}]"#).unwrap();
/// assert_eq!(items[0].id, "7");
/// assert_eq!(items[0].pk(), Some(Pk::from(7u64)), "one record with the number 7");
/// assert_eq!(items[1].id, "a1b2");
/// ```
pub mod text_or_number {
    use super::*;

    /// Writes the text.
    pub fn serialize<S: Serializer>(value: &str, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(value)
    }

    /// Reads a string, or a number as its decimal text.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
        deserializer.deserialize_any(TextVisitor)
    }
}

struct TextVisitor;

impl Visitor<'_> for TextVisitor {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string or a number")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<String, E> {
        Ok(text.to_owned())
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<String, E> {
        Ok(n.to_string())
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<String, E> {
        Ok(n.to_string())
    }

    fn visit_f64<E: de::Error>(self, n: f64) -> Result<String, E> {
        Ok(n.to_string())
    }
}

struct NumberVisitor<T>(PhantomData<T>);

impl<T> NumberVisitor<T>
where
    T: FromStr,
    T::Err: Display,
{
    fn parse<E: de::Error>(text: &str) -> Result<T, E> {
        text.trim()
            .parse()
            .map_err(|e| E::custom(format_args!("`{text}` is not a number: {e}")))
    }
}

impl<T> Visitor<'_> for NumberVisitor<T>
where
    T: FromStr,
    T::Err: Display,
{
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a number or a string holding one")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<T, E> {
        Self::parse(text)
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<T, E> {
        Self::parse(&n.to_string())
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<T, E> {
        Self::parse(&n.to_string())
    }

    fn visit_f64<E: de::Error>(self, n: f64) -> Result<T, E> {
        Self::parse(&n.to_string())
    }
}

struct OptionalVisitor<T>(PhantomData<T>);

impl<T> Visitor<'_> for OptionalVisitor<T>
where
    T: FromStr,
    T::Err: Display,
{
    type Value = Option<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("null, a number or a string holding one")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_none<E: de::Error>(self) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Option<T>, E> {
        if text.is_empty() {
            return Ok(None);
        }
        NumberVisitor::parse(text).map(Some)
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Option<T>, E> {
        NumberVisitor::<T>(PhantomData).visit_u64(n).map(Some)
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Option<T>, E> {
        NumberVisitor::<T>(PhantomData).visit_i64(n).map(Some)
    }

    fn visit_f64<E: de::Error>(self, n: f64) -> Result<Option<T>, E> {
        NumberVisitor::<T>(PhantomData).visit_f64(n).map(Some)
    }
}
