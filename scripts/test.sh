#!/usr/bin/env bash
# Every check this project runs: formatting, lints, and every test (unit,
# integration, doc, compile-fail, native server rendering, and the browser
# tests in headless Chromium, and the demo app driven over WebDriver). One
# shared target directory.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy --all-targets --features ssr,legacy -- -D warnings"
cargo clippy --workspace --all-targets --locked --features ssr,legacy -- -D warnings
echo "== cargo test --features ssr,legacy"
cargo test --workspace --locked --features ssr,legacy
echo "== each feature combination builds without warnings (native and wasm)"
scripts/features.sh
echo "== cargo clippy --target wasm32-unknown-unknown (browser tests, the demo app, the wasm benches)"
cargo clippy -p restcache-browser-tests --target wasm32-unknown-unknown --tests --locked -- -D warnings
cargo clippy -p restcache-todo-app --target wasm32-unknown-unknown --lib --locked -- -D warnings
cargo clippy -p restcache-bench-wasm -p restcache-bench-bundle -p restcache-bench-render \
    --features restcache-bench-bundle/cache,restcache-bench-wasm/heap --target wasm32-unknown-unknown --all-targets \
    --locked -- -D warnings
echo "== browser tests (headless Chromium, demo API on 127.0.0.1)"
scripts/browser-tests.sh
echo "== the demo app, driven over WebDriver in headless Chromium"
bundle=$(scripts/todo-app.sh --build)
TODO_APP_BUNDLE="$bundle" cargo test -p restcache-todo-app --test browser --locked \
    -- --ignored --test-threads=1 --nocapture
