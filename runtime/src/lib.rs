//! The runtime of [restcache](https://docs.rs/restcache): schemas, the
//! normalized store, memoized reads, REST endpoints and their HTTP client.
//!
//! Use it through the `restcache` crate, which re-exports everything here
//! together with the derive macros.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod cache;
mod controller;
mod error;
pub mod http;
mod json;
mod meta;
mod path;
mod pk;
pub mod rest;
pub mod wire;

pub use cache::denormalize::{Denorm, Denormalizer};
pub use cache::entity::Entity;
pub use cache::memo::Memo;
pub use cache::normalize::Normalizer;
pub use cache::query::EntityQuery;
pub use cache::schema::{Schema, from_json};
pub use cache::store::{Lookup, Store};
pub use controller::{
    Cached, Clock, Controller, ControllerBuilder, DEFAULT_DATA_EXPIRY, DEFAULT_ERROR_EXPIRY,
    ExpiryStatus, ManualClock, Subscription, SystemClock,
};
pub use error::SchemaError;
pub use meta::{Meta, Timestamp};
pub use path::{FieldPath, Segment};
pub use pk::{Pk, PkValue};

/// What the derive macros expand to. Not public API.
#[doc(hidden)]
pub mod __private {
    pub use std::borrow::Cow;
    pub use std::clone::Clone;
    pub use std::option::Option::{self, None, Some};
    pub use std::result::Result::{self, Err, Ok};

    pub use serde;

    pub use crate::cache::store::registry::TypeIndex;

    use crate::rest::Deleted;
    use crate::{Entity, FieldPath, PkValue, SchemaError, Segment};

    /// The result of deleting the record whose pk param is `id`.
    pub fn deleted<E: Entity>(id: &E::Id) -> Result<Deleted<E>, SchemaError> {
        match id.to_pk() {
            Some(pk) => Ok(Deleted::new(pk)),
            None => Err(SchemaError::MissingPk {
                entity: E::KEY,
                field: E::PK_FIELD,
                path: FieldPath::default(),
            }),
        }
    }

    /// `error`, located inside the field `name` (its wire name).
    pub fn in_field(error: SchemaError, name: &'static str) -> SchemaError {
        error.within(Segment::Key(Cow::Borrowed(name)))
    }

    /// Whether `segment` is the field `name` (its wire name).
    pub fn is_field(segment: &Segment, name: &str) -> bool {
        matches!(segment, Segment::Key(key) if key == name)
    }
}
