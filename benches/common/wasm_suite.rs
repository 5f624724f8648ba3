//! Building `benches/wasm` for node, shared by the benches that run it
//! (`wasm` times it, `retained` counts its heap).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// Builds the suite for wasm32 with `features` and binds it for node
/// into `out` under the target directory; returns that folder.
pub fn build_and_bind(root: &Path, target: &Path, features: &[&str], out: &str) -> PathBuf {
    let mut build = Command::new(env!("CARGO"));
    build.current_dir(root).args([
        "rustc",
        "--quiet",
        "-p",
        "restcache-bench-wasm",
        "--lib",
        "--crate-type",
        "cdylib",
        "--target",
        "wasm32-unknown-unknown",
        "--release",
        "--locked",
    ]);
    if !features.is_empty() {
        build.args(["--features", &features.join(",")]);
    }
    checked(&mut build);
    let wasm = target.join("wasm32-unknown-unknown/release/restcache_bench_wasm.wasm");
    let package = target.join(out);
    checked(
        Command::new("wasm-bindgen")
            .args(["--target", "nodejs", "--out-dir"])
            .arg(&package)
            .arg(&wasm),
    );
    package
}

/// The workspace's target directory, as cargo reports it.
pub fn target_dir(root: &Path) -> PathBuf {
    let metadata = checked(Command::new(env!("CARGO")).current_dir(root).args([
        "metadata",
        "--format-version",
        "1",
        "--no-deps",
    ]))
    .stdout;
    let metadata: Value = serde_json::from_slice(&metadata).expect("cargo metadata prints JSON");
    PathBuf::from(
        metadata["target_directory"]
            .as_str()
            .expect("a target directory"),
    )
}

/// Runs `command`, its errors shown; panics unless it succeeds.
pub fn checked(command: &mut Command) -> std::process::Output {
    let output = command
        .stderr(std::process::Stdio::inherit())
        .output()
        .unwrap_or_else(|error| panic!("could not run {command:?}: {error}"));
    assert!(
        output.status.success(),
        "{command:?} failed: {}",
        output.status
    );
    output
}
