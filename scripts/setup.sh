#!/usr/bin/env bash
# Installs what the test command needs beyond the pinned toolchain, and
# only what is missing: the wasm32-unknown-unknown target of the toolchain
# in rust-toolchain.toml. Safe to run again and again.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v rustup >/dev/null; then
    echo "setup: rustup is needed to install the toolchain of rust-toolchain.toml" >&2
    exit 1
fi
# rustup reads rust-toolchain.toml here, so this is the pinned toolchain.
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    echo "== rustup target add wasm32-unknown-unknown"
    rustup target add wasm32-unknown-unknown
fi
