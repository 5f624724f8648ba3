//! The runtime of [restcache](https://docs.rs/restcache). Use it through
//! the `restcache` crate, which re-exports everything here together with
//! the derive and declaration macros.
//!
//! It is built in layers, each importing only from the layers below it:
//!
//! 1. **Leaf types** (`pk`, `meta`, `path`, `error`, `json`, `wire`):
//!    primary keys, fetch times and expiry, field paths, the errors of
//!    storing a response and of making a URL, JSON decoding that says
//!    where it failed, bounded error text, and wire-format helpers.
//! 2. **`cache`**: the normalized cache, with no HTTP in it. The store's
//!    tables and results at its bottom; above them the walks that
//!    normalize and denormalize values, the traits [`Schema`] and
//!    [`Entity`] they walk, the [`Store`]'s typed API, the [`Memo`] and
//!    memoized reads, and [`EntityQuery`].
//! 3. **`http`**: the [`Client`](http::Client) and its shared fetch
//!    helper, methods, bodies and the one [`Error`](http::Error) of a
//!    request. It knows nothing of endpoints.
//! 4. **`rest`**: path templates, [`Endpoint`](rest::Endpoint)s (what
//!    `resource!` and `endpoint!` declare) and calling them through a
//!    client.
//! 5. **`controller`**: the [`Controller`], which fetches, dedupes,
//!    stores, classifies reads by expiry and tells subscribers what
//!    changed. The UI front-ends sit on it.
//! 6. **Front-ends**, each behind a feature: `yew` (hooks, provider,
//!    error boundaries) and `legacy` (the older API generation: Resources
//!    with FetchShapes, and their hooks when `yew` is on too).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

// Leaf types: no imports from the layers above.
mod blob;
mod error;
mod json;
mod meta;
mod path;
mod pk;
mod small_sort;
mod sparse;
mod text;
pub mod wire;

// The normalized cache: schemas, the store, memoized reads. No HTTP.
mod cache;

// HTTP transport: the client, methods, bodies, the request error.
pub mod http;

// REST endpoints on top of HTTP and the cache's schemas.
pub mod rest;

// The engine the front-ends use: fetch, dedup, expiry, mutations.
mod controller;

// Live streams (server-sent events, websockets) written through the
// controller, behind their feature.
#[cfg(feature = "live")]
pub mod live;

// Records as JSON by entity type, for tabs and a saved cache.
#[cfg(any(feature = "tabs", feature = "persist"))]
mod records;

// A cache that survives a reload, behind its feature.
#[cfg(feature = "persist")]
pub mod persist;

// Tabs that agree (records, invalidations and resets shared over a
// BroadcastChannel), behind their feature.
#[cfg(feature = "tabs")]
pub mod tabs;

// Front-ends, each behind its feature.
#[cfg(feature = "legacy")]
pub mod legacy;
#[cfg(feature = "testing")]
pub mod testing;
#[cfg(feature = "yew")]
pub mod yew;

pub use blob::Blob;
pub use cache::derived::{Query, QueryReader};
pub use cache::entity::Entity;
pub use cache::memo::Memo;
pub use cache::partial::{Absent, replace_whole};
pub use cache::query::EntityQuery;
pub use cache::schema::{All, Decoded, Lazy, Schema, from_json};
pub use cache::store::{Lookup, Store};
pub use controller::{
    Cached, Clock, Collected, Controller, ControllerBuilder, DEFAULT_DATA_EXPIRY,
    DEFAULT_ERROR_EXPIRY, Event, EventListener, ExpiryStatus, HANDOFF_SCRIPT_ID, HandoffError,
    MAX_HANDOFF_BYTES, ManualClock, Observe, PageListener, ReadObserver, RecordChange, Retention,
    Retry, Subscription, SystemClock, WriteError, handoff_script,
};
pub use error::SchemaError;
pub use meta::{Meta, Timestamp};
pub use path::{FieldPath, Segment};
pub use pk::{Pk, PkValue};

/// What the derive and declaration macros expand to. Not public API: it
/// may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use std::borrow::Cow;
    pub use std::clone::Clone;
    pub use std::cmp::{Ord, Ordering};
    pub use std::option::Option::{self, None, Some};
    pub use std::result::Result::{self, Err, Ok};

    pub use serde;

    pub use crate::cache::denormalize::{Denorm, Denormalizer};
    pub use crate::cache::entity::EntityParts;
    pub use crate::cache::equal::{ByEq, Compared, Incomparable};
    pub use crate::cache::filter::field as filter_field;
    pub use crate::cache::normalize::Normalizer;
    pub use crate::cache::partial::{KeyIndex, PkSeed, Presence, first_visit, skip};
    pub use crate::cache::schema::{SchemaParts, UnionTag, VariantScan, scan_lenient, scan_union};
    pub use crate::cache::stand_in::{ByDefault, NoStandIn, Probe};
    pub use crate::cache::store::registry::TypeIndex;
    pub use crate::pk::PkKey;
    pub use crate::rest::declared::Declared;
    pub use serde::de::IgnoredAny;
    pub use std::any::TypeId;
    pub use std::fmt;
    pub use std::marker::PhantomData;
    pub use std::vec::Vec;

    use crate::{SchemaError, Segment};

    /// The six standard endpoints of a declared resource.
    pub mod resource {
        pub use crate::rest::declared::{
            create, delete, deleted, get, get_list, partial_update, update,
        };
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
