//! The normalize cases as wasm in node, the engine the JavaScript
//! reference runs in. It builds `benches/wasm` for wasm32 (release), binds
//! it with `wasm-bindgen --target nodejs`, runs `benches/wasm/run.mjs`
//! (the median of five node processes) and writes each case's mean where
//! criterion writes its own, so the reference's comparison reads them:
//!
//!     ../shared/bench/compare.py --bench wasm
//!
//! It also prints text to store beside the reference's `JSON.parse` plus
//! normalize, which the reference's own benchmark leaves out, with the
//! parse alone on each side: the part of that figure no cache can speed
//! up. Needs the wasm32 target, wasm-bindgen-cli (`scripts/setup.sh --wasm`) and node.

#[path = "common/wasm_suite.rs"]
mod wasm_suite;

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};
use wasm_suite::{build_and_bind, checked, target_dir};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|arg| arg == "--list") {
        return; // `cargo bench -- --list`: no criterion cases to list.
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target = target_dir(root);
    let package = build_and_bind(root, &target, &[], "wasm-bench");

    // compare.py's --quick asks criterion for short runs.
    let quick = args.iter().any(|arg| arg == "--measurement-time");
    let filter = args
        .iter()
        .rev()
        .find(|arg| !arg.starts_with("--") && arg.parse::<f64>().is_err())
        .cloned()
        .unwrap_or_default();
    let reference = root.join("../shared/bench/js");
    let mut run = Command::new("node");
    run.arg(root.join("benches/wasm/run.mjs"))
        .arg(&package)
        .args(["--filter", &filter]);
    if quick {
        run.args(["--processes", "3", "--warmup", "100", "--time", "300"]);
    }
    if reference.join("node_modules").is_dir() {
        run.arg("--reference").arg(&reference);
    }
    let output = checked(&mut run).stdout;

    let rows: Vec<Value> = String::from_utf8(output)
        .expect("run.mjs prints UTF-8")
        .lines()
        .map(|line| serde_json::from_str(line).expect("run.mjs prints JSON lines"))
        .collect();
    let side = |row: &Value, side: &str| row["side"] == side;
    println!(
        "{:45} {:>12} {:>12} {:>12}",
        "case (wasm, node)", "median us", "min us", "max us"
    );
    for row in rows.iter().filter(|row| side(row, "ours")) {
        let case = row["case"].as_str().expect("a case name");
        let mean = row["mean_us"].as_f64().expect("a mean");
        println!(
            "{case:45} {mean:12.3} {:12.3} {:12.3}",
            row["min_us"].as_f64().unwrap_or(mean),
            row["max_us"].as_f64().unwrap_or(mean),
        );
        write_estimate(&target, case, mean);
    }
    let mean = |which: &str, case: &str| {
        rows.iter()
            .find(|row| side(row, which) && row["case"] == case)
            .and_then(|row| row["mean_us"].as_f64())
    };
    for fixture in ["projects_1000", "todos_10000"] {
        let whole = format!("parse_normalize_{fixture}");
        let reference_whole = mean("reference", &whole);
        if let (Some(reference), Some(ours)) = (reference_whole, mean("ours", &whole)) {
            println!(
                "text to store, {whole}: reference (JSON.parse + normalize) {reference:.3} us, \
                 ours {ours:.3} us, speed-up {:.1}x",
                reference / ours
            );
        }
        let parse = format!("parse_{fixture}");
        let (Some(reference_parse), Some(ours_parse)) =
            (mean("reference", &parse), mean("ours", &parse))
        else {
            continue;
        };
        println!(
            "  parsing alone, {parse}: JSON.parse {reference_parse:.3} us, serde_json \
             {ours_parse:.3} us ({:.2}x)",
            reference_parse / ours_parse
        );
        // Parsing is serde_json's work and the reference's is V8's
        // JSON.parse: with a normalize that cost nothing, the speed-up
        // could reach no further than the reference's whole time over our
        // parse alone.
        if let Some(reference) = reference_whole {
            println!(
                "  with a normalize that cost nothing, text to store would be at most {:.1}x",
                reference / ours_parse
            );
        }
    }
}

/// Writes `mean_us` as criterion's estimate of `case`, where compare.py
/// looks for it.
fn write_estimate(target: &Path, case: &str, mean_us: f64) {
    let dir = target.join("criterion").join(case).join("new");
    std::fs::create_dir_all(&dir).expect("the criterion folder can be made");
    let benchmark = json!({ "group_id": case, "function_id": null, "value_str": null,
        "throughput": null, "full_id": case, "directory_name": case, "title": case });
    let estimates = json!({ "mean": { "point_estimate": mean_us * 1000.0 } });
    std::fs::write(dir.join("benchmark.json"), benchmark.to_string()).expect("written");
    std::fs::write(dir.join("estimates.json"), estimates.to_string()).expect("written");
}
