//! The normalized cache: schemas and entities, normalizing and
//! denormalizing, the store, memoized reads and entity queries. No HTTP.

pub(crate) mod deleted;
pub(crate) mod denormalize;
pub(crate) mod entity;
pub mod filter;
pub(crate) mod memo;
pub(crate) mod normalize;
pub(crate) mod page;
pub(crate) mod partial;
pub(crate) mod query;
pub(crate) mod schema;
pub(crate) mod store;
