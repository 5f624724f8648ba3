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

pub use api::DemoApi;
