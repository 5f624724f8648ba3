#!/usr/bin/env bash
# Serves the demo app from a fresh clone: installs what a wasm build
# needs and is missing (scripts/setup.sh --wasm), builds the browser
# bundle, then starts the demo API and the page server on 127.0.0.1,
# prints the page's URL and serves until stopped (Ctrl-C).
#
#   scripts/todo-app.sh [--port 8080] [--api-port N]   build, then serve
#   scripts/todo-app.sh --build                        build; print the bundle's folder
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh --wasm >&2

target=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
bundle="$target/todo-app/pkg"
echo "== building the bundle (wasm32, release) into $bundle" >&2
cargo rustc -p restcache-todo-app --lib --crate-type cdylib \
    --target wasm32-unknown-unknown --release --locked
wasm-bindgen --target web --no-typescript --out-dir "$bundle" \
    "$target/wasm32-unknown-unknown/release/restcache_todo_app.wasm"

if [ "${1:-}" = "--build" ]; then
    echo "$bundle"
    exit 0
fi
exec cargo run -p restcache-todo-app --locked -- --bundle "$bundle" "$@"
