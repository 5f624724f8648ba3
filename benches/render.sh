#!/usr/bin/env bash
# Render throughput in headless Chromium (benches/render): the reference's
# React scenarios on three Yew apps, restcache, the reference's refetching
# baseline (a) and a hand-written floor (b), timed until a
# MutationObserver sees each op's outcome. Prints the table on stdout and
# each run's progress on stderr; everything else goes to a log that is
# shown only on failure. Needs no network: the apps read a simulated API
# inside the page (scripts/setup.sh installs what is missing first, the
# browser and the test runner).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh

export CHROMEDRIVER="${CHROMEDRIVER:-$(command -v chromedriver)}"
export WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-900}"
log=$(mktemp)
trap 'rm -f "$log"' EXIT

echo "== cargo test -p restcache-bench-render (build, then about 3 minutes in Chromium)" >&2
if ! cargo test -p restcache-bench-render --release --target wasm32-unknown-unknown --locked \
    -- --include-ignored --nocapture 2>&1 | tee "$log" | grep --line-buffered '^run [0-9]* of ' >&2; then
    # grep finding nothing fails too: the test itself tells.
    if ! grep -q '^test result: ok' "$log"; then
        cat "$log" >&2
        exit 1
    fi
fi
sed -n '/^render throughput in headless Chromium/,/^(ops:/p' "$log"
