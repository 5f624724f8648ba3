//! What restcache's examples, tests and benchmarks share:
//!
//! - [`DemoApi`]: an in-process REST server on 127.0.0.1 holding the
//!   records the library's docs use (todos, users, comments, profiles,
//!   birthdays, paginated posts), with real create, update and delete.
//! - [`fixture`]: the benchmark fixture of `../shared/bench`, rebuilt in
//!   Rust byte for byte.
//!
//! ```
//! let api = restcache_demo::DemoApi::start()?;
//! assert!(api.url().starts_with("http://127.0.0.1:"));
//! # Ok::<(), std::io::Error>(())
//! ```

mod api;
pub mod fixture;

pub use api::{DemoApi, Held};

/// Runs `future` to its end on a one-thread tokio runtime: what a doc
/// example or a small program needs to await the library's futures.
///
/// ```
/// assert_eq!(restcache_demo::block_on(async { 1 + 1 }), 2);
/// ```
pub fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a one-thread tokio runtime starts")
        .block_on(future)
}
