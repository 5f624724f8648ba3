#!/usr/bin/env bash
# A change's effect on render throughput, timed as a pair: builds the
# render benchmark (benches/render) on the working tree and on the library
# of an older commit (its runtime and macros, under this tree's bench),
# then runs the two builds in turn in headless Chromium, round after
# round, and prints each build's restcache ÷ floor time per scenario: the
# median over the rounds, and the median of each round's new ÷ old. One
# run against another is not enough: the machine's speed moves by 10 to
# 15% between runs, as much as a change does.
#
#     benches/render-pair.sh REV [ROUNDS] [SCENARIOS]
#
# ROUNDS defaults to 6, SCENARIOS (names from the table, comma-separated)
# to update-entity,update-user. Each build runs each scenario three times
# a round.
set -euo pipefail
cd "$(dirname "$0")/.."

label=${1:?usage: benches/render-pair.sh REV [ROUNDS] [SCENARIOS]}
# Resolved here: a relative name (HEAD~2) means another commit inside the
# worktree.
rev=$(git rev-parse --verify "$label^{commit}")
rounds=${2:-6}
export RENDER_SCENARIOS=${3:-update-entity,update-user}
export RENDER_RUNS=3

scripts/setup.sh >&2
export CHROMEDRIVER="${CHROMEDRIVER:-$(command -v chromedriver)}"
export WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-900}"
target=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
out="$target/render-pair"
mkdir -p "$out"

# Builds the bench of the workspace at $1 into $2.
build() {
    rm -f "$2"
    cargo test --manifest-path "$1/Cargo.toml" -p restcache-bench-render --release \
        --target wasm32-unknown-unknown --no-run --message-format=json-render-diagnostics |
        python3 -c '
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message.get("reason") == "compiler-artifact" and message.get("executable"):
        print(message["executable"])' | tail -1 | xargs -I{} cp {} "$2"
    test -s "$2"
}

echo "== building the bench on the working tree" >&2
build . "$out/new.wasm"
echo "== building it on the library of $label ($rev)" >&2
tree="$out/tree"
git worktree prune
if [ ! -d "$tree" ]; then
    git worktree add --quiet --detach "$tree" "$rev"
fi
git -C "$tree" checkout --quiet --force --detach "$rev"
# This tree's bench, against that commit's library.
rm -rf "$tree/benches/render"
cp -r benches/render "$tree/benches/render"
# In a target directory of its own: cargo names a workspace's own crates
# by their path inside it, so the older tree's runtime would take the
# place of this one's in a shared directory, and a later build here would
# link it as up to date.
CARGO_TARGET_DIR="$out/target" build "$tree" "$out/old.wasm"

# One round: both builds, in an order that alternates between rounds.
log="$out/rounds.log"
: >"$log"
for round in $(seq 1 "$rounds"); do
    order="old new"
    if [ $((round % 2)) -eq 0 ]; then order="new old"; fi
    for build in $order; do
        echo "== round $round of $rounds: $build" >&2
        echo "== round $round $build" >>"$log"
        wasm-bindgen-test-runner "$out/$build.wasm" --include-ignored --nocapture >>"$log" 2>&1
    done
done

python3 - "$log" "$label" <<'PY'
import re, statistics, sys
log, rev = sys.argv[1], sys.argv[2]
ratios = {}  # (scenario, build) -> [restcache ÷ floor, one a round]
build = None
for line in open(log, encoding="utf-8"):
    started = re.match(r"== round (\d+) (old|new)", line)
    if started:
        build = started.group(2)
        continue
    cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
    if len(cells) >= 7 and cells[6].endswith("x") and re.match(r"[a-z]", cells[0]):
        ratios.setdefault((cells[0], build), []).append(float(cells[6][:-1]))
print(f"render throughput, paired: restcache ÷ floor (time per op; lower is better), "
      f"the working tree (new) against {rev} (old)")
print(f"| {'scenario':<21} | {'rounds':>6} | {'old':>7} | {'new':>7} | {'new ÷ old':>9} |")
print(f"|{'-' * 23}|{'-' * 8}|{'-' * 9}|{'-' * 9}|{'-' * 11}|")
for scenario in dict.fromkeys(name for name, _ in ratios):
    old, new = ratios.get((scenario, "old"), []), ratios.get((scenario, "new"), [])
    pairs = [n / o for o, n in zip(old, new)]
    print(f"| {scenario:<21} | {len(pairs):>6} | {statistics.median(old):>6.2f}x | "
          f"{statistics.median(new):>6.2f}x | {statistics.median(pairs):>8.3f}x |")
print("(each build's figure: the median over the rounds of its restcache ÷ floor; "
      "new ÷ old: the median of each round's ratio of the two)")
PY
