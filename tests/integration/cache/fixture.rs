//! The Rust fixture generator matches `../shared/bench/fixture.json` byte
//! for byte, so benchmarks here and the JavaScript reference read the same
//! data.

use restcache_demo::fixture;

#[test]
fn the_generated_fixture_is_the_reference_fixture() {
    let text = serde_json::to_string(&fixture::fixture()).unwrap();
    assert_eq!(
        text.len(),
        1_591_839,
        "the reference fixture's size (../shared/bench/README.md)"
    );
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/bench/fixture.json");
    let reference = std::fs::read_to_string(&path).unwrap_or_else(|error| {
        panic!(
            "the reference fixture {} cannot be read ({error}). It comes with the shared \
             benchmark folder beside this repository (../shared/bench); to write it again, run \
             `node ../shared/bench/js/fixture.mjs ../shared/bench/fixture.json` from the \
             repository's root",
            path.display()
        )
    });
    assert!(
        text == reference,
        "the generator differs from {}",
        path.display()
    );
    let parsed: fixture::Fixture = serde_json::from_str(&text).unwrap();
    assert_eq!(parsed, fixture::fixture());
}
