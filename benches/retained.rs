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
//!
//! The same counts are taken again inside wasm32, where a browser holds
//! the store (4-byte pointers, as V8's compressed heap has): `benches/wasm`
//! built with its `heap` feature and run in node. That needs the wasm32
//! target, wasm-bindgen-cli and node (`scripts/setup.sh --bench`); without
//! them the wasm32 columns read `-`.

#[path = "../tests/integration/common/heap.rs"]
#[allow(dead_code)]
mod heap;
#[path = "common/held.rs"]
mod held;
#[path = "common/wasm_suite.rs"]
mod wasm_suite;

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

use held::{parsed_mib, stored_mib};
use restcache_demo::fixture::{self, Projects, Todos};

#[global_allocator]
static ALLOCATOR: heap::Counting = heap::Counting;

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

/// The wasm32 counts, `[projects store, projects records, todos store,
/// todos records]` in MiB, when the tools to build and run them are here.
fn wasm32() -> Option<Vec<f64>> {
    let found = |tool: &str| {
        Command::new(tool)
            .arg("--version")
            .output()
            .is_ok_and(|out| out.status.success())
    };
    if !found("node") || !found("wasm-bindgen") {
        eprintln!("no wasm32 counts: node or wasm-bindgen is missing (scripts/setup.sh --bench)");
        return None;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target = wasm_suite::target_dir(root);
    let package = wasm_suite::build_and_bind(root, &target, &["heap"], "wasm-bench-heap");
    let script = "const { held_mib } = require(process.argv[1] + '/restcache_bench_wasm.js');\n\
                  console.log(JSON.stringify(Array.from(held_mib())));";
    let output = wasm_suite::checked(Command::new("node").args(["-e", script]).arg(&package));
    serde_json::from_slice(&output.stdout).ok()
}

fn main() {
    if std::env::args().any(|arg| arg == "--list") {
        return; // `cargo bench -- --list`: no criterion cases to list.
    }
    let (projects, todos) = fixture::texts();
    let ours = [
        (
            "heap_after_normalize_projects_1000",
            stored_mib::<Projects>("GET /projects", &projects),
            parsed_mib::<Projects>(&projects),
        ),
        (
            "heap_after_normalize_todos_10000",
            stored_mib::<Todos>("GET /todos", &todos),
            parsed_mib::<Todos>(&todos),
        ),
    ];
    let theirs = reference().unwrap_or_default();
    let wasm32 = wasm32();
    println!(
        "{:36} {:>9} {:>9} {:>9} {:>9} {:>10} {:>10}",
        "case (MiB)", "ours 64", "ours 32", "ref", "32/ref", "records 64", "records 32"
    );
    let shown = |mib: Option<f64>| mib.map_or("-".to_owned(), |mib| format!("{mib:.2}"));
    for (at, (case, mine, records)) in ours.into_iter().enumerate() {
        let reference = theirs.get(case).copied();
        let ours32 = wasm32.as_ref().map(|held| held[2 * at]);
        let records32 = wasm32.as_ref().map(|held| held[2 * at + 1]);
        let ratio = ours32
            .zip(reference)
            .map(|(ours, reference)| ours / reference);
        println!(
            "{case:36} {mine:>9.2} {:>9} {:>9} {:>9} {records:>10.2} {:>10}",
            shown(ours32),
            shown(reference),
            shown(ratio),
            shown(records32),
        );
    }
}
