//! The benchmark's one entry: every scenario on every app, run after run,
//! the three apps one after the other inside each scenario of each run
//! (so that a slow moment of the machine hits all three), then the table.

use wasm_bindgen_test::{console_log, wasm_bindgen_test, wasm_bindgen_test_configure};

use crate::apps::AppUnderTest;
use crate::apps::baseline::Baseline;
use crate::apps::cached::Cached;
use crate::apps::floor::Floor;
use crate::report::{Samples, table};
use crate::scenarios::SCENARIOS;
use crate::timing::now;

wasm_bindgen_test_configure!(run_in_browser);

/// How many times each scenario runs on each app, on a fresh app and API,
/// unless `RENDER_RUNS` says otherwise when the bench is built.
const RUNS: usize = 5;

/// The runs `RENDER_RUNS` asks for when the bench is built, else
/// [`RUNS`].
fn runs() -> usize {
    option_env!("RENDER_RUNS").map_or(RUNS, |runs| {
        runs.parse().expect("RENDER_RUNS is a number of runs")
    })
}

/// The scenarios to run: the ones `RENDER_SCENARIOS` names (by their
/// names in the table, comma-separated) when the bench is built, else
/// all of them.
fn scenarios() -> Vec<Samples> {
    let Some(named) = option_env!("RENDER_SCENARIOS") else {
        return SCENARIOS.into_iter().map(Samples::new).collect();
    };
    let names: Vec<&str> = named.split(',').map(str::trim).collect();
    for name in &names {
        assert!(
            SCENARIOS.iter().any(|scenario| scenario.name() == *name),
            "RENDER_SCENARIOS names no scenario {name:?}"
        );
    }
    SCENARIOS
        .into_iter()
        .filter(|scenario| names.contains(&scenario.name().as_str()))
        .map(Samples::new)
        .collect()
}

#[wasm_bindgen_test]
#[ignore = "a benchmark: benches/render.sh runs it"]
async fn render_throughput() {
    let mut samples = scenarios();
    let runs = runs();
    for run in 1..=runs {
        let started = now();
        for entry in &mut samples {
            let [cached, baseline, floor] = &mut entry.times;
            cached.extend(entry.scenario.run::<Cached>().await);
            baseline.extend(entry.scenario.run::<Baseline>().await);
            floor.extend(entry.scenario.run::<Floor>().await);
        }
        let seconds = (now() - started) / 1000.0;
        console_log!("run {run} of {runs} took {seconds:.0} s");
    }
    for line in table(&samples, [Cached::NAME, Baseline::NAME, Floor::NAME]) {
        console_log!("{line}");
    }
}
