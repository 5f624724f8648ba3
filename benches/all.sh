#!/usr/bin/env bash
# Every performance table of the browser-side work, in one run:
#
# 1. the normalize cases as wasm in node beside the JavaScript reference
#    (`../shared/bench/compare.py --bench wasm`, with text to store);
# 2. render throughput in headless Chromium beside two Yew apps without a
#    cache (benches/render.sh);
# 3. what the library adds to a release bundle (benches/bundle.sh);
# 4. the heap a store keeps, counted natively and inside wasm32, beside
#    the reference's (`cargo bench --bench retained`).
#
#     benches/all.sh [--quick]
#
# --quick shortens table 1 only. Needs the reference's packages in
# ../shared/bench/js (compare.py installs them with npm) and the tools of
# `scripts/setup.sh --bench`; needs no other network.
set -euo pipefail
cd "$(dirname "$0")/.."

quick=()
if [ "${1:-}" = "--quick" ]; then
    quick=(--quick)
fi
scripts/setup.sh --bench

echo "== 1. normalize as wasm in node, beside the reference"
../shared/bench/compare.py --bench wasm "${quick[@]}"
echo
echo "== 2. render throughput in headless Chromium"
benches/render.sh
echo
echo "== 3. bundle size"
benches/bundle.sh
echo
echo "== 4. heap held by the store"
cargo bench --bench retained --locked
