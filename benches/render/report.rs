//! The table: each scenario's median op on each app as ops/s, the two
//! ratios the goals are about, and the reference's published figures
//! beside them.

use crate::scenarios::Scenario;

/// The apps in the order of the table's columns.
pub const APPS: usize = 3;
/// The restcache app's column.
const CACHED: usize = 0;
/// The baseline app's column.
const BASELINE: usize = 1;
/// The floor app's column.
const FLOOR: usize = 2;

/// The most a mutation may take on restcache, as a multiple of the
/// floor's time (the goal: the cache adds almost nothing to what Yew
/// itself costs).
const FLOOR_GOAL: f64 = 1.3;

/// The milliseconds of every timed op of one scenario, per app.
pub struct Samples {
    pub scenario: Scenario,
    pub times: [Vec<f64>; APPS],
}

impl Samples {
    pub fn new(scenario: Scenario) -> Self {
        Samples {
            scenario,
            times: Default::default(),
        }
    }
}

/// The median of `times` (not empty).
fn median(times: &[f64]) -> f64 {
    let mut sorted = times.to_vec();
    sorted.sort_by(f64::total_cmp);
    let middle = sorted.len() / 2;
    if sorted.len().is_multiple_of(2) {
        (sorted[middle - 1] + sorted[middle]) / 2.0
    } else {
        sorted[middle]
    }
}

/// Ops per second, from milliseconds per op.
fn ops_per_second(ms: f64) -> f64 {
    1000.0 / ms
}

/// Whether a goal was met, as the table says it.
fn verdict(met: bool) -> &'static str {
    if met { "yes" } else { "NO" }
}

/// The table's lines, `names` heading the apps' columns.
pub fn table(samples: &[Samples], names: [&str; APPS]) -> Vec<String> {
    let mut lines = vec![
        "render throughput in headless Chromium: ops/s of each app's median op (higher is better)"
            .to_owned(),
        format!(
            "| {:<21} | {:>4} | {:>12} | {:>12} | {:>12} | {:>15} | {:>15} | {:>24} | {:>11} | {:>15} |",
            "scenario",
            "ops",
            names[CACHED],
            names[BASELINE],
            names[FLOOR],
            "restcache ÷ (a)",
            "(b) ÷ restcache",
            "reference: dc ÷ its (a)",
            "≥ reference",
            "(b) ÷ rc ≤ 1.3x",
        ),
        format!(
            "|{:-<23}|{:->6}|{:->14}|{:->14}|{:->14}|{:->17}|{:->17}|{:->26}|{:->13}|{:->17}|",
            "", "", "", "", "", "", "", "", "", ""
        ),
    ];
    for entry in samples {
        let [cached_ms, baseline_ms, floor_ms] = entry.times.each_ref().map(|times| median(times));
        // Ratios of ops/s, from times per op.
        let over_baseline = baseline_ms / cached_ms;
        let floor_over_cached = cached_ms / floor_ms;
        let (reference, reference_baseline) = entry.scenario.reference();
        let reference_ratio = reference / reference_baseline;
        let floor_goal = if entry.scenario.is_mutation() {
            verdict(floor_over_cached <= FLOOR_GOAL)
        } else {
            "-"
        };
        lines.push(format!(
            "| {:<21} | {:>4} | {:>12.2} | {:>12.2} | {:>12.2} | {:>14.2}x | {:>14.2}x | {:>24} | {:>11} | {:>15} |",
            entry.scenario.name(),
            entry.times[CACHED].len(),
            ops_per_second(cached_ms),
            ops_per_second(baseline_ms),
            ops_per_second(floor_ms),
            over_baseline,
            floor_over_cached,
            format!("{reference:.2} ÷ {reference_baseline:.2} = {reference_ratio:.2}x"),
            verdict(over_baseline >= reference_ratio),
            floor_goal,
        ));
    }
    lines.push(
        "(ops: timed ops of restcache and of the floor, over every run (the baseline times a \
         third as many of a change, a sixth on update-user-10000); rc: restcache; dc: data-client, the \
         reference's React bindings, as its README publishes them: update-entity 666.67 ops/s \
         against its baseline's 7.23, list-detail-switch-10 17.38 against 0.73; the goal \
         against the floor is about mutations)"
            .to_owned(),
    );
    lines
}
