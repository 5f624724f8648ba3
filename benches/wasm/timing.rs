//! Timing inside wasm: node's `performance.now()`, and the two loops the
//! cases use, the same two criterion's `iter_batched` and `iter` stand for.

use std::hint::black_box;

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = performance)]
    fn now() -> f64;
}

/// How long to run a case: first unmeasured, then measured (milliseconds).
#[derive(Clone, Copy)]
pub struct Budget {
    pub warmup_ms: f64,
    pub time_ms: f64,
}

/// The fewest measured samples, however long each takes.
const MIN_SAMPLES: u32 = 10;

/// Takes samples of `sample` (milliseconds it timed, calls it made):
/// unmeasured for the warm-up, then measured for the budget's time.
/// Returns microseconds per call.
fn sampled(budget: Budget, mut sample: impl FnMut() -> (f64, u32)) -> f64 {
    let end = now() + budget.warmup_ms;
    while now() < end {
        sample();
    }
    let (mut total_ms, mut calls, mut samples) = (0.0, 0, 0);
    let end = now() + budget.time_ms;
    while samples < MIN_SAMPLES || now() < end {
        let (took, made) = sample();
        total_ms += took;
        calls += made;
        samples += 1;
    }
    total_ms * 1000.0 / f64::from(calls)
}

/// Times `routine` alone on a fresh input from `setup` each call; its
/// output is dropped outside the clock. Returns microseconds per call.
pub fn per_call<I, O>(
    budget: Budget,
    mut setup: impl FnMut() -> I,
    mut routine: impl FnMut(I) -> O,
) -> f64 {
    sampled(budget, || {
        let input = setup();
        let start = now();
        let output = black_box(routine(black_box(input)));
        let took = now() - start;
        drop(output);
        (took, 1)
    })
}

/// Calls in a row within one reading of the clock, for calls far shorter
/// than its resolution.
const BATCH: u32 = 500;

/// Times `routine` in batches of [`BATCH`] calls. Returns microseconds per
/// call.
pub fn batched<O>(budget: Budget, mut routine: impl FnMut() -> O) -> f64 {
    sampled(budget, || {
        let start = now();
        for _ in 0..BATCH {
            black_box(routine());
        }
        (now() - start, BATCH)
    })
}
