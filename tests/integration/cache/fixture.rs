//! The Rust fixture generator writes the reference fixture byte for byte
//! (its size and SHA-256 are those the shared benchmark's README gives),
//! so benchmarks here and the JavaScript reference read the same data.

use restcache_demo::fixture;
use sha2::{Digest, Sha256};

/// The reference fixture's SHA-256, as the shared benchmark's README
/// states it.
const REFERENCE_SHA256: &str = "ddd68906ecf5bd39a822d43f8bc5d515abd41296b65464052b1599ea70ce4866";

#[test]
fn the_generated_fixture_is_the_reference_fixture() {
    let text = serde_json::to_string(&fixture::fixture()).unwrap();
    assert_eq!(text.len(), 1_591_839, "the reference fixture's size");
    let digest: String = Sha256::digest(text.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    assert_eq!(
        digest, REFERENCE_SHA256,
        "the generator differs from the reference"
    );
    let parsed: fixture::Fixture = serde_json::from_str(&text).unwrap();
    assert_eq!(parsed, fixture::fixture());
}
