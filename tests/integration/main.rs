//! Integration tests of restcache through its public API, in one test
//! binary (each binary links the whole crate graph again), with a module
//! per layer:
//!
//! - `cache`: records and envelopes, the normalized store, memoized reads,
//!   entity queries, and the benchmark fixture;
//! - `rest`: declared resources and custom endpoints making real HTTP
//!   requests to mockito on 127.0.0.1, their URLs and keys, their errors;
//! - `controller`: reads (expiry, shared requests, ordering, errors beside
//!   data, subscriptions) and mutations, against mockito and the demo API;
//! - `faults`: the controller under faults, races and churn;
//! - `servers`: meeting real REST servers (headers, pagination, partial
//!   records, filtered lists, params as servers name them) on the demo API;
//! - `legacy`: the older API generation (Resources and FetchShapes);
//! - `testing`: the testing kit (mock client, fixtures, render helpers)
//!   as an app's tests use it;
//! - `yew`: the hooks and boundaries, rendered natively by Yew's server
//!   rendering.

mod common;

/// Counts the heap each thread holds, for the memory tests.
#[global_allocator]
static HEAP: common::heap::Counting = common::heap::Counting;

mod cache;
mod controller;
mod faults;
mod legacy;
mod rest;
mod servers;
mod testing;
mod yew;
