//! # restcache
//!
//! Typed REST endpoints and a normalized, suspense-aware data cache for Rust
//! web apps (Yew first).
//!
//! - `#[derive(Entity)]` states a record type and how it is identified.
//! - `#[derive(Schema)]` states an envelope around entities (`{data: [...]}`,
//!   paginated pages, ...).
//! - [`Store`] keeps every record once per (entity key, pk): a response's
//!   entities are split out into their tables and joined back on read, so
//!   a changed record shows in every result that holds it.
//! - [`Memo`] remembers reads: a read with nothing changed hands out the
//!   same `Rc`, so UI props compare in O(1).
//!
//! ```
//! use restcache::prelude::*;
//! use std::rc::Rc;
//!
//! #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
//! #[serde(rename_all = "camelCase")]
//! struct User { id: u64, name: String }
//!
//! #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
//! #[serde(rename_all = "camelCase")]
//! struct Post {
//!     id: u64,
//!     title: String,
//!     #[entity(nested)]
//!     author: Rc<User>,
//! }
//!
//! let mut store = Store::new();
//! let mut memo = Memo::new();
//! let t = |ms| Meta { fetched_at: Timestamp::from_millis(ms), ..Meta::default() };
//!
//! store.set_json::<Vec<Rc<Post>>>(
//!     "GET /posts",
//!     r#"[{"id": 1, "title": "Hello", "author": {"id": 7, "name": "Ada"}},
//!         {"id": 2, "title": "Again", "author": {"id": 7, "name": "Ada"}}]"#,
//!     t(1),
//! )?;
//! assert_eq!(store.entity_count("User"), 1); // Ada is stored once
//!
//! let posts = memo.read::<Vec<Rc<Post>>>(&store, "GET /posts").into_value().unwrap();
//! assert!(Rc::ptr_eq(&posts[0].author, &posts[1].author));
//!
//! // A later response about Ada shows in every post that points at her.
//! store.set_json::<Rc<User>>("GET /users/7", r#"{"id": 7, "name": "Ada L."}"#, t(2))?;
//! let posts = memo.read::<Vec<Rc<Post>>>(&store, "GET /posts").into_value().unwrap();
//! assert_eq!(posts[1].author.name, "Ada L.");
//! # Ok::<(), restcache::SchemaError>(())
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use restcache_macros::{Entity, Schema, endpoint, resource};
pub use restcache_runtime::*;

/// The README's examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// Everything a program that declares entities and reads them needs.
///
/// ```
/// use restcache::prelude::*;
/// let _store = Store::new();
/// ```
pub mod prelude {
    pub use restcache_macros::{Entity, Schema, endpoint, resource};
    pub use restcache_runtime::http::{Body, Client};
    pub use restcache_runtime::rest::{Endpoint, Method};
    pub use restcache_runtime::{
        Cached, Controller, Entity, EntityQuery, ExpiryStatus, Lookup, ManualClock, Memo, Meta, Pk,
        PkValue, Schema, SchemaError, Store, Subscription, Timestamp,
    };
    pub use serde::{Deserialize, Serialize};
}
