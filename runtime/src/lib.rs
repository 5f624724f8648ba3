//! The runtime of [restcache](https://docs.rs/restcache): schemas, the
//! normalized store and memoized reads.
//!
//! Use it through the `restcache` crate, which re-exports everything here
//! together with the derive macros.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod denormalize;
mod entity;
mod error;
mod json;
mod memo;
mod meta;
mod normalize;
mod path;
mod pk;
mod schema;
mod store;
mod table;
pub mod wire;

pub use denormalize::{Denorm, Denormalizer};
pub use entity::Entity;
pub use error::SchemaError;
pub use json::from_json;
pub use memo::Memo;
pub use meta::{Meta, Timestamp};
pub use normalize::Normalizer;
pub use path::{FieldPath, Segment};
pub use pk::{Pk, PkValue};
pub use schema::Schema;
pub use store::{Read, Store};

/// What the derive macros expand to. Not public API.
#[doc(hidden)]
pub mod __private {
    pub use std::borrow::Cow;
    pub use std::clone::Clone;
    pub use std::option::Option::{self, None, Some};
    pub use std::result::Result::{self, Err, Ok};

    use crate::{SchemaError, Segment};

    /// `error`, located inside the field `name` (its wire name).
    pub fn in_field(error: SchemaError, name: &'static str) -> SchemaError {
        error.within(Segment::Key(Cow::Borrowed(name)))
    }

    /// Whether `segment` is the field `name` (its wire name).
    pub fn is_field(segment: &Segment, name: &str) -> bool {
        matches!(segment, Segment::Key(key) if key == name)
    }
}
