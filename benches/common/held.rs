//! The median heap the fixture holds, stored and parsed alone, by the
//! counting allocator of `tests/integration/common/heap.rs` (the crate
//! that includes this file has it as its `heap` module), natively and in
//! wasm32 alike.

use std::time::Duration;

use restcache::prelude::*;
use serde::de::DeserializeOwned;

use crate::heap;

const ROUNDS: usize = 5;
const MIB: f64 = 1024.0 * 1024.0;

/// The median MiB that `build`'s value holds on the heap, over five
/// rounds.
fn median_held_mib<T>(build: impl Fn() -> T) -> f64 {
    let mut rounds: Vec<isize> = (0..ROUNDS)
        .map(|_| {
            let before = heap::held_bytes();
            let value = build();
            let held = heap::held_bytes() - before;
            drop(value);
            held
        })
        .collect();
    rounds.sort_unstable();
    rounds[ROUNDS / 2] as f64 / MIB
}

/// The MiB a store holds after storing `text` as `S` under `key`
/// (`Store::set_json`; everything but the store dropped, the text
/// outside the count).
pub fn stored_mib<S: Schema + DeserializeOwned>(key: &str, text: &str) -> f64 {
    let at = Timestamp::from_millis(1);
    let meta = Meta::fetched(at, at, Duration::from_secs(60));
    median_held_mib(|| {
        let mut store = Store::new();
        store
            .set_json::<S>(key, text, meta)
            .expect("the fixture stores");
        store
    })
}

/// The MiB `text` takes parsed as `S` alone, with no store: the records
/// themselves, the floor of what a store of them holds.
pub fn parsed_mib<S: DeserializeOwned>(text: &str) -> f64 {
    median_held_mib(|| serde_json::from_str::<S>(text).expect("the fixture parses"))
}
