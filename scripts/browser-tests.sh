#!/usr/bin/env bash
# Runs the browser tests (or, with --bench, the browser benchmark): starts
# the demo API on 127.0.0.1, runs tests/browser in headless Chromium
# through wasm-bindgen-test, and stops the demo API whatever happens.
# scripts/test.sh calls it; scripts/setup.sh installs what it needs.
set -euo pipefail
cd "$(dirname "$0")/.."

filter=()
if [ "${1:-}" = "--bench" ]; then
    filter=(rerender_cost --include-ignored --nocapture)
fi

cargo build -p restcache-demo --bin demo-api --locked
target=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
out=$(mktemp)
"$target/debug/demo-api" >"$out" &
demo=$!
trap 'kill "$demo" 2>/dev/null || true; rm -f "$out"' EXIT
for _ in $(seq 100); do
    grep -q '^DEMO_API_URL=' "$out" && break
    sleep 0.1
done
url=$(sed -n 's/^DEMO_API_URL=//p' "$out")
if [ -z "$url" ]; then
    echo "browser-tests: the demo API did not start" >&2
    exit 1
fi
echo "== demo API on $url"

export DEMO_API_URL="$url"
export CHROMEDRIVER="${CHROMEDRIVER:-$(command -v chromedriver)}"
export WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-180}"
cargo test -p restcache-browser-tests --target wasm32-unknown-unknown --locked -- "${filter[@]}"
