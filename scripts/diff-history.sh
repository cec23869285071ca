#!/usr/bin/env bash
# Runs `crd-gen diff` over consecutive releases of a project's CRDs, straight from
# a git repository (docs/diff.md: how to run it, and what it found).
#
#   scripts/diff-history.sh GIT_DIR CRD_DIR TAG TAG...
#
# GIT_DIR is a clone or bare mirror; CRD_DIR the directory of CRD YAML inside it
# (at every tag). For each pair of consecutive tags, prints `== OLD -> NEW`, then
# crd-gen's lines and summary; exit status 2 if some revision could not be read.
set -euo pipefail
[ $# -ge 4 ] || { echo "usage: scripts/diff-history.sh GIT_DIR CRD_DIR TAG TAG..." >&2; exit 2; }
git_dir=$1 crd_dir=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${CRD_GEN:-$root/target/release/crd-gen}
[ -x "$bin" ] || cargo build --release -q -p crd-gen --manifest-path "$root/Cargo.toml"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for tag in "$@"; do
    mkdir -p "$work/$tag"
    git --git-dir="$git_dir" archive "$tag" "$crd_dir" | tar -x -C "$work/$tag"
done
previous=
for tag in "$@"; do
    if [ -n "$previous" ]; then
        echo "== $previous -> $tag"
        code=0
        "$bin" diff "$work/$previous/$crd_dir" "$work/$tag/$crd_dir" || code=$?
        [ "$code" -le 1 ] || status=2
    fi
    previous=$tag
done
exit "$status"
