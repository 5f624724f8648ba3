//! The normalized cache, with no HTTP: records and envelopes on the wire,
//! the store, memoized reads and entity queries.

mod decode_errors;
mod envelopes;
mod fixture;
mod lazy;
mod memo;
mod query;
mod records;
mod store;
mod unions;
