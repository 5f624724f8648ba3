//! The median heap a value holds, by the counting allocator of
//! `tests/integration/common/heap.rs` (the crate that includes this file
//! has it as its `heap` module), natively and in wasm32 alike.

use crate::heap;

const ROUNDS: usize = 5;
const MIB: f64 = 1024.0 * 1024.0;

/// The median MiB that `build`'s value holds on the heap, over five
/// rounds.
pub fn median_held_mib<T>(build: impl Fn() -> T) -> f64 {
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
