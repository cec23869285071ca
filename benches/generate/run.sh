#!/usr/bin/env bash
# Whole-process benchmark of `crd-gen generate` over the whole corpus against kopium,
# side by side in one hyperfine run:
#   - crd-gen: one process, every version of every CRD, into a directory;
#   - kopium per CRD: one process per manifest (its CLI takes one CRD per run and
#     emits one version);
#   - kopium per version: one process per CRD version (`--api-version`), the same set
#     of versions crd-gen emits (corpus-versions.tsv: manifest path under the corpus
#     and version name, one line per version, 394 lines).
# Usage: benches/generate/run.sh [RUNS]; CRD_GEN_BEFORE=path/to/older/crd-gen adds that
# binary as a fourth command (before/after in the same run). (kopium 0.24.1: `cargo install kopium --locked
# --version 0.24.1`; hyperfine from Debian). Run from anywhere; needs ../shared.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${1:-5}"
corpus=../shared/corpus/crds
versions=benches/generate/corpus-versions.tsv
out=$(mktemp -d /tmp/crd-gen-bench.XXXXXX)
trap 'echo "load average at exit: $(cut -d" " -f1-3 /proc/loadavg)"; rm -rf "$out"' EXIT

echo "machine: nproc=$(nproc), $(lscpu | sed -n 's/^Model name: *//p'), rustc $(rustc --version | cut -d' ' -f2), $(kopium --version)"
echo "commit: $(git rev-parse --short HEAD)"
cargo build --release --locked -q -p crd-gen
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
before=()
if [ -n "${CRD_GEN_BEFORE:-}" ]; then
  before=(-n "crd-gen before ($CRD_GEN_BEFORE)" "$CRD_GEN_BEFORE generate $corpus -o $out/before")
fi
# -i: kopium exits 1 on kopium-tests/clusterworkflowtemplates.argoproj.io ("Empty inner array").
hyperfine --shell bash --warmup 1 --runs "$runs" -i \
  -n crd-gen "./target/release/crd-gen generate $corpus -o $out/crd-gen" \
  -n 'kopium, per CRD' "for f in $corpus/*/*.yaml; do kopium -A -f \"\$f\" >/dev/null 2>&1; done" \
  -n 'kopium, per version' "while IFS=\$'\\t' read -r f v; do kopium -A --api-version \"\$v\" -f \"$corpus/\$f\" >/dev/null 2>&1; done < $versions" \
  "${before[@]}"
