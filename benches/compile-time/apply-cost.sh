#!/usr/bin/env bash
# Compile cost of the apply configurations the derive emits (issue 35): the 20
# benchmark types built by bench-crd-derive with this checkout's crd-derive/crd-runtime
# ("with apply types") and with those of BASE, a commit before them ("without"), as an
# incremental debug rebuild (dependencies built once, then touch types/mod.rs and
# rebuild only the benchmark crate), 1 warm-up + RUNS runs each.
# Usage: benches/compile-time/apply-cost.sh [BASE] [RUNS]   (default: 9aed419, 5)
# BASE's tree is exported with `git archive` to a throw-away directory; both target
# directories are throw-away too, all deleted at the end. `--offline` rather than
# `--locked`: the committed lock file lags the path crates' dependencies (cargo fills
# them in, in the throw-away copies).
set -euo pipefail
cd "$(dirname "$0")"
base="${1:-9aed419}"
runs="${2:-5}"
tmp="$(mktemp -d /tmp/crd-apply-cost.XXXXXX)"
trap 'echo "load average at exit: $(cut -d" " -f1-3 /proc/loadavg)"; rm -rf "$tmp"' EXIT
# Both trees exported (HEAD: the committed state). Trees from before issue 41 built
# crd-runtime on a `cel` patched through the repository's `[patch.crates-io]`: their
# benchmark workspace gets that section too (later trees depend on the fork by name).
for t in base head; do
  rev="$base"; [ "$t" = head ] && rev=HEAD
  mkdir -p "$tmp/$t"
  git -C ../.. archive "$rev" | tar -x -C "$tmp/$t"
  if grep -q '^\[patch.crates-io\]' "$tmp/$t/Cargo.toml"; then
    printf '\n[patch.crates-io]\ncel = { path = "%s" }\n' "$tmp/$t/vendor/cel" >> "$tmp/$t/benches/compile-time/Cargo.toml"
  fi
done
base_dir="$tmp/base/benches/compile-time"
head_dir="$tmp/head/benches/compile-time"
out="${RESULTS:-results}"
mkdir -p "$out"

echo "machine: nproc=$(nproc), $(lscpu | sed -n 's/^Model name: *//p'), rustc $(rustc --version | cut -d' ' -f2)"
echo "base: $(git -C ../.. rev-parse --short "$base"), head: $(git -C ../.. rev-parse --short HEAD)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
(cd "$base_dir" && CARGO_TARGET_DIR="$tmp/t-base" cargo build -q --offline -p bench-crd-derive)
(cd "$head_dir" && CARGO_TARGET_DIR="$tmp/t-head" cargo build -q --offline -p bench-crd-derive)
hyperfine --warmup 1 --runs "$runs" --export-markdown "$out/apply-cost.md" \
  -n "without apply types ($base)" \
  --prepare "touch $base_dir/types/mod.rs" \
  "cd $base_dir && CARGO_TARGET_DIR=$tmp/t-base cargo build -q --offline -p bench-crd-derive" \
  -n "with apply types (HEAD)" \
  --prepare "touch $head_dir/types/mod.rs" \
  "cd $head_dir && CARGO_TARGET_DIR=$tmp/t-head cargo build -q --offline -p bench-crd-derive"
# Size of what rustc compiles: the benchmark crate's rlib (debug) in both trees.
for t in base head; do
  echo "bench_crd_derive rlib ($t): $(stat -c %s "$tmp/t-$t"/debug/deps/libbench_crd_derive-*.rlib | head -1) bytes"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
