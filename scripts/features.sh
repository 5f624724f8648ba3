#!/usr/bin/env bash
# Lints the library under every combination of its features that a user
# can pick, natively and for the browser, so that no combination breaks
# unseen (the test run itself builds one: every feature on). The features:
# `yew` (hooks), `ssr` (server rendering; needs `yew`), `hydration` (the
# browser side of server rendering; needs `yew`), `legacy` (the older
# API; its hooks need `yew`), `rustls` (https on native targets),
# `testing` (the mock client; with `ssr`, the native render helpers),
# `live` (live streams; with `yew`, the `use_stream` hook), `tabs` (tabs
# that agree; with `yew`, the `use_tab_sync` hook), `persist` (a cache
# that survives a reload; with `yew`, the `use_persist` hook).
set -euo pipefail
cd "$(dirname "$0")/.."

native=(
    ""
    "legacy"
    "yew"
    "yew,legacy"
    "yew,ssr"
    "yew,ssr,legacy"
    "hydration"
    "yew,hydration"
    "yew,ssr,hydration"
    "rustls"
    "testing"
    "yew,ssr,testing"
    "live"
    "yew,live"
    "tabs"
    "yew,tabs"
    "persist"
    "yew,persist"
)
wasm=(
    ""
    "legacy"
    "yew"
    "yew,legacy"
    "yew,ssr"
    "hydration"
    "yew,hydration"
    "yew,ssr,hydration"
    "yew,hydration,tabs,persist"
    "testing"
    "yew,ssr,testing"
    "live"
    "yew,live"
    "tabs"
    "yew,tabs"
    "persist"
    "yew,persist"
)

lint() {
    local target=$1 features=$2
    echo "-- ${target:-native}: features [${features}]"
    cargo clippy -p restcache -p restcache-runtime --locked --no-default-features \
        ${features:+--features "$features"} ${target:+--target "$target"} -- -D warnings
}

for features in "${native[@]}"; do
    lint "" "$features"
done
for features in "${wasm[@]}"; do
    lint wasm32-unknown-unknown "$features"
done
