#!/usr/bin/env bash
# What restcache adds to a Yew app's release bundle: builds benches/bundle
# (the smallest app that reads a list) for wasm32 with the `wasm-size`
# profile (opt-level "z", LTO, one codegen unit), without and with the
# `cache` feature, binds each with wasm-bindgen (names dropped), and
# prints their sizes raw and gzipped (-9), then what grew most by crate
# (twiggy; `scripts/setup.sh --bench` installs it). It builds both apps
# again reading a second resource (`second-resource`), to tell what each
# further resource adds beside what it adds to the app without
# restcache. It leaves out
# `wasm-opt -Oz`: on these bundles it trims the raw size by about 9% but
# grows the gzipped size by about 2% (binaryen 132), and Debian's
# binaryen (108) cannot read what Rust emits today.
#
#     benches/bundle.sh
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh --bench >&2
target=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
out="$target/bundle-size"
rm -rf "$out"
mkdir -p "$out"

gzipped() { gzip -9 -c "$1" | wc -c; }
bytes() { wc -c <"$1"; }

for variant in yew-alone with-restcache yew-alone-2 with-restcache-2; do
    features=()
    case "$variant" in
    with-restcache) features=(--features cache) ;;
    yew-alone-2) features=(--features second-resource) ;;
    with-restcache-2) features=(--features cache,second-resource) ;;
    esac
    cargo rustc --quiet -p restcache-bench-bundle --lib --crate-type cdylib \
        --target wasm32-unknown-unknown --profile wasm-size --locked "${features[@]}" >&2
    built="$target/wasm32-unknown-unknown/wasm-size/restcache_bench_bundle.wasm"
    wasm-bindgen --target web --remove-name-section --remove-producers-section \
        --out-dir "$out/$variant" --out-name app "$built"
    # A copy with its names, for twiggy.
    wasm-bindgen --target web --out-dir "$out/$variant-named" --out-name app "$built"
done

row() {
    local dir="$out/$1"
    printf '%-16s %12s %12s %10s %10s\n' "$1" \
        "$(bytes "$dir/app_bg.wasm")" "$(gzipped "$dir/app_bg.wasm")" \
        "$(bytes "$dir/app.js")" "$(gzipped "$dir/app.js")"
}
echo
echo "bundle size, bytes (wasm-size profile; names dropped; gzip -9)"
printf '%-16s %12s %12s %10s %10s\n' app wasm "wasm gz" js "js gz"
row yew-alone
row with-restcache
row yew-alone-2
row with-restcache-2
python3 - "$out" <<'PY'
import gzip, pathlib, sys
out = pathlib.Path(sys.argv[1])
size = lambda v: sum(len(gzip.compress((out / v / f).read_bytes(), 9)) for f in ("app_bg.wasm", "app.js"))
added = size("with-restcache") - size("yew-alone")
print(f"added by restcache, gzipped, wasm and js: {added} bytes ({added / 1024:.1f} KiB)")
alone, cached = size("yew-alone-2") - size("yew-alone"), size("with-restcache-2") - size("with-restcache")
print(f"a second resource adds, gzipped: {cached} bytes with restcache, {alone} without "
      f"({(cached - alone) / 1024:+.1f} KiB a resource)")
PY

echo
echo "what grew most, by crate (twiggy; raw bytes of code before gzip):"
for variant in yew-alone with-restcache; do
    twiggy top -n 1000000 --format csv "$out/$variant-named/app_bg.wasm" >"$out/$variant.csv"
done
python3 - "$out" <<'PY'
import collections, csv, pathlib, re, sys
out = pathlib.Path(sys.argv[1])

def by_crate(variant):
    sizes = collections.Counter()
    with open(out / f"{variant}.csv") as rows:
        for row in csv.DictReader(rows):
            name = row["Name"]
            if name.endswith("subsection") or name.startswith("data segment"):
                crate = "(data)" if name.startswith("data segment") else None
            else:
                path = re.search(r"([A-Za-z_][A-Za-z0-9_]*)(\[[0-9a-f]+\])?::", name)
                crate = path.group(1) if path else "(other)"
            if crate:
                sizes[crate] += int(row["ShallowSize"])
    return sizes

before, after = by_crate("yew-alone"), by_crate("with-restcache")
grown = sorted(set(before) | set(after), key=lambda c: before[c] - after[c])
print(f"{'crate':28} {'yew alone':>10} {'with restcache':>15} {'grew':>8}")
for crate in grown[:15]:
    print(f"{crate:28} {before[crate]:10} {after[crate]:15} {after[crate] - before[crate]:+8}")
PY
