//! `restcache::testing` as an app's own tests use it, with no server: a
//! two-component app rendered from fixtures, through a mutation and a
//! failure; fixtures, interceptors and the recorded requests; hooks
//! rendered alone.

mod app;
mod mock;
