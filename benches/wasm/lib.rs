//! The normalize benchmark of `benches/normalize.rs`, built for wasm32 and
//! run in node, the engine the JavaScript reference runs in. Every case
//! keeps the name `../shared/bench/README.md` gives it, so its figures sit
//! beside the reference's:
//!
//!     ../shared/bench/compare.py --bench wasm
//!
//! `benches/wasm.rs` builds this library, binds it for node and runs
//! `run.mjs`, which times every case in several node processes through
//! [`Suite`] and reports the median. With the `heap` feature it also
//! counts the heap a store keeps in wasm32 (`held_mib`), for `cargo bench
//! --bench retained`. Natively the library is empty.

#[cfg(target_arch = "wasm32")]
mod cases;
#[cfg(target_arch = "wasm32")]
#[path = "../../examples/demo/src/fixture.rs"]
mod fixture;
#[cfg(all(target_arch = "wasm32", feature = "heap"))]
#[path = "../common/held.rs"]
mod fixture_heap;
#[cfg(all(target_arch = "wasm32", feature = "heap"))]
#[path = "../../tests/integration/common/heap.rs"]
mod heap;
#[cfg(all(target_arch = "wasm32", feature = "heap"))]
mod held;
#[cfg(target_arch = "wasm32")]
mod timing;

#[cfg(target_arch = "wasm32")]
pub use cases::Suite;
