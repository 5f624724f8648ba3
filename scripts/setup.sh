#!/usr/bin/env bash
# Installs what the test command needs beyond the pinned toolchain, and
# only what is missing; safe to run again and again:
#
# - the wasm32-unknown-unknown target of the toolchain in rust-toolchain.toml;
# - wasm-bindgen-cli (the bundler and the test runner), from crates.io, at
#   exactly the version of wasm-bindgen in Cargo.lock;
# - Chromium and ChromeDriver, from Debian's packages (the browser tests),
#   unless called with --wasm: then only the two above, which building
#   the demo app's bundle needs (scripts/todo-app.sh);
# - with --bench, also what the benchmarks need beyond the tests: node,
#   from Debian's packages, and twiggy, from crates.io.
set -euo pipefail
cd "$(dirname "$0")/.."

wasm_only=false
bench=false
case "${1:-}" in
    --wasm) wasm_only=true ;;
    --bench) bench=true ;;
esac

apt_install() {
    echo "== apt-get install $*"
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        sudo="sudo"
    fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@"
}

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
    apt_install chromium chromium-driver
fi
if $bench && ! command -v node >/dev/null; then
    apt_install nodejs
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

if $bench && ! command -v twiggy >/dev/null; then
    echo "== cargo install twiggy"
    cargo install twiggy
fi
