//! The heap the store keeps for the fixture of `../shared/bench`, beside
//! the JavaScript reference's in the same run:
//!
//!     cargo bench --bench retained
//!
//! Ours: the bytes a counting allocator sees held after the response's
//! text is stored (`Store::set_json`) and everything but the store is
//! gone; the text stays alive throughout, outside the count. Theirs: the
//! reference's `store_retained_mb` (V8's `heapUsed` after forced full
//! collections, the input dropped), from its worker's memory mode, when
//! `../shared/bench/js` is there with its packages installed (`npm ci`).
//! Each side is the median of five rounds. The last column is the
//! records alone, parsed with no store (`Vec<Rc<Todo>>` and the like):
//! the part of ours that is the app's own types.

#[path = "../tests/integration/common/heap.rs"]
#[allow(dead_code)]
mod heap;

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use restcache::prelude::*;
use restcache_demo::fixture::{self, Projects, Todos};

#[global_allocator]
static ALLOCATOR: heap::Counting = heap::Counting;

const ROUNDS: usize = 5;
const MIB: f64 = 1024.0 * 1024.0;

fn meta() -> Meta {
    let at = Timestamp::from_millis(1);
    Meta::fetched(at, at, Duration::from_secs(60))
}

/// The median bytes `build`'s value holds on the heap, over the rounds.
fn median_held<T>(build: impl Fn() -> T) -> f64 {
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

/// The bytes a store holds after storing `text` as `S`.
fn retained<S: Schema + serde::de::DeserializeOwned>(key: &str, text: &str) -> f64 {
    median_held(|| {
        let mut store = Store::new();
        store
            .set_json::<S>(key, text, meta())
            .expect("the fixture stores");
        store
    })
}

/// The bytes `text` takes parsed as `S` alone, with no store: the
/// records themselves, the floor of what a store of them holds.
fn parsed<S: serde::de::DeserializeOwned>(text: &str) -> f64 {
    median_held(|| serde_json::from_str::<S>(text).expect("the fixture parses"))
}

/// The reference's retained heap per case, if it can run here.
fn reference() -> Option<HashMap<String, f64>> {
    let js = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/bench/js");
    if !js.join("node_modules").is_dir() {
        eprintln!(
            "no reference: {} has no node_modules (npm ci)",
            js.display()
        );
        return None;
    }
    let output = Command::new("node")
        .args(["--expose-gc", "bench-worker.mjs", "0.18", "--memory"])
        .env("NODE_ENV", "production")
        .current_dir(&js)
        .output()
        .map_err(|e| eprintln!("no reference: node does not run ({e})"))
        .ok()?;
    let cases = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter_map(|row| {
            Some((
                row["case"].as_str()?.to_owned(),
                row["store_retained_mb"].as_f64()?,
            ))
        })
        .collect();
    Some(cases)
}

fn main() {
    let (projects, todos) = fixture::texts();
    let ours = [
        (
            "heap_after_normalize_projects_1000",
            retained::<Projects>("GET /projects", &projects),
        ),
        (
            "heap_after_normalize_todos_10000",
            retained::<Todos>("GET /todos", &todos),
        ),
    ];
    let theirs = reference().unwrap_or_default();
    println!(
        "{:36} {:>12} {:>12} {:>8} {:>14}",
        "case", "ours MiB", "ref MiB", "ours/ref", "records MiB"
    );
    let records = [parsed::<Projects>(&projects), parsed::<Todos>(&todos)];
    for ((case, mine), records) in ours.into_iter().zip(records) {
        let (reference, ratio) = match theirs.get(case) {
            Some(reference) => (
                format!("{reference:.2}"),
                format!("{:.2}", mine / reference),
            ),
            None => ("-".to_owned(), "-".to_owned()),
        };
        println!("{case:36} {mine:>12.2} {reference:>12} {ratio:>8} {records:>14.2}");
    }
}
