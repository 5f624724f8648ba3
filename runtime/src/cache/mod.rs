//! The normalized cache: schemas and entities, normalizing and
//! denormalizing, the store, memoized reads and entity queries. No HTTP.
//!
//! The store (`store/`) is the bottom: it keeps records and results
//! without knowing their traits. The walks into it and out of it
//! (`normalize/`, `denormalize/`) and the traits of what they walk
//! (`entity.rs`, `schema/`, with `partial.rs` and `filter.rs` for what a
//! record carries and how a list's filters judge it) sit on it; the memo
//! (`memo/`) and entity queries (`query.rs`) read through them.
//! `stand_in.rs` gives a schema's empty value, for renders nobody reads;
//! `equal.rs` tells a record written again as it was from a changed one.

pub(crate) mod deleted;
pub(crate) mod denormalize;
pub(crate) mod derived;
pub(crate) mod entity;
pub(crate) mod equal;
pub(crate) mod filter;
pub(crate) mod memo;
pub(crate) mod normalize;
pub(crate) mod partial;
pub(crate) mod query;
pub(crate) mod schema;
pub(crate) mod stand_in;
pub(crate) mod store;
