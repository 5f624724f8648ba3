#!/usr/bin/env bash
# Installs what the test command needs beyond the pinned toolchain, and
# only what is missing; safe to run again and again:
#
# - the wasm32-unknown-unknown target of the toolchain in rust-toolchain.toml;
# - wasm-bindgen-cli (the bundler and the test runner), from crates.io, at
#   exactly the version of wasm-bindgen in Cargo.lock;
# - Chromium and ChromeDriver, from Debian's packages (the browser tests),
#   unless called with --wasm: then only the two above, which building
#   the demo app's bundle needs (scripts/todo-app.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

wasm_only=false
if [ "${1:-}" = "--wasm" ]; then
    wasm_only=true
fi

if ! command -v rustup >/dev/null; then
    echo "setup: rustup is needed to install the toolchain of rust-toolchain.toml" >&2
    exit 1
fi
# rustup reads rust-toolchain.toml here, so this is the pinned toolchain.
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    echo "== rustup target add wasm32-unknown-unknown"
    rustup target add wasm32-unknown-unknown
fi

if ! $wasm_only && { ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; }; then
    echo "== apt-get install chromium chromium-driver"
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        sudo="sudo"
    fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
        chromium chromium-driver
fi

# The runner must be the very version of the wasm-bindgen the tests link.
bindgen=$(awk '$0 == "name = \"wasm-bindgen\"" { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if [ -z "$bindgen" ]; then
    echo "setup: no wasm-bindgen in Cargo.lock" >&2
    exit 1
fi
installed=$(wasm-bindgen-test-runner --version 2>/dev/null | awk '{ print $2 }' || true)
if [ "$installed" != "$bindgen" ]; then
    echo "== cargo install wasm-bindgen-cli --version $bindgen"
    cargo install wasm-bindgen-cli --version "$bindgen"
fi
