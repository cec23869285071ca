#!/usr/bin/env bash
# Compile-time benchmark: the same 20 CRD types (types/) derived with crd-derive and
# with kube-derive 5, built side by side in one run:
#   - clean debug build   (`cargo build`, after `cargo clean`)
#   - clean release build (`cargo build --release`, after `cargo clean`)
#   - incremental debug rebuild after touching the types (what a user waits for)
# Builds go to a throw-away target directory (deleted at the end: the disk is shared).
# Usage: benches/compile-time/run.sh [RUNS] [PHASE...]
#   RUNS: runs of each clean build (default 2); PHASE: debug, release, incremental
#   (default: all three), k8s (clean debug and incremental with feature `k8s`: kind 21,
#   whose spec embeds k8s-openapi's PodTemplateSpec, LabelSelector, ResourceRequirements,
#   IntOrString and Conditions), versions (a three-version kind: one #[versioned] module,
#   bench-versioned, against the same versions by hand, bench-hand-versions; clean debug,
#   the crate alone from scratch, and touch + rebuild, the two sides alternating round by
#   round). hyperfine's output (wall, user and system time) goes to stdout,
#   its tables to results/.
set -euo pipefail
cd "$(dirname "$0")"
runs="${1:-2}"
shift || true
phases="${*:-debug release incremental}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR_BENCH:-$(mktemp -d /tmp/crd-compile-time.XXXXXX)}"
trap 'echo "load average at exit: $(cut -d" " -f1-3 /proc/loadavg)"; rm -rf "$CARGO_TARGET_DIR"' EXIT
out="${RESULTS:-results}"
mkdir -p "$out"

echo "machine: nproc=$(nproc), $(lscpu | sed -n 's/^Model name: *//p'), rustc $(rustc --version | cut -d' ' -f2)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
cargo fetch --locked -q

for profile in debug release; do
  case " $phases " in *" $profile "*) ;; *) continue ;; esac
  flag=""; [ "$profile" = release ] && flag="--release"
  hyperfine --runs "$runs" --export-markdown "$out/clean-$profile.md" \
    --prepare 'cargo clean -q' \
    -n "crd-derive clean $profile" "cargo build -q --locked $flag -p bench-crd-derive" \
    -n "kube-derive 5 clean $profile" "cargo build -q --locked $flag -p bench-kube-derive"
done

# Incremental: dependencies built once, then each run touches types/mod.rs and rebuilds
# only the benchmark crate (debug profile, as in an edit-compile loop). All type files
# form one module tree of the one crate, so touching any of them makes cargo recompile
# the whole crate; mod.rs stands for them all.
case " $phases " in
  *" incremental "*)
    cargo build -q --locked -p bench-crd-derive -p bench-kube-derive
    hyperfine --warmup 1 --runs 5 --export-markdown "$out/incremental.md" \
      --prepare 'touch types/mod.rs' \
      -n "crd-derive touch + rebuild" "cargo build -q --locked -p bench-crd-derive" \
      -n "kube-derive 5 touch + rebuild" "cargo build -q --locked -p bench-kube-derive"
    echo "load average after (incremental): $(cut -d' ' -f1-3 /proc/loadavg)"
    ;;
esac

# Kind 21 with k8s-openapi types: crd-derive through crd-runtime's `kube` feature,
# kube-derive through k8s-openapi's schemars impls.
case " $phases " in
  *" k8s "*)
    hyperfine --runs "$runs" --export-markdown "$out/clean-k8s.md" \
      --prepare 'cargo clean -q' \
      -n "crd-derive clean debug, k8s" "cargo build -q --locked -p bench-crd-derive --features bench-crd-derive/k8s" \
      -n "kube-derive 5 clean debug, k8s" "cargo build -q --locked -p bench-kube-derive --features bench-kube-derive/k8s"
    cargo build -q --locked -p bench-crd-derive -p bench-kube-derive --features bench-crd-derive/k8s,bench-kube-derive/k8s
    hyperfine --warmup 1 --runs 5 --export-markdown "$out/incremental-k8s.md" \
      --prepare 'touch types/mod.rs' \
      -n "crd-derive touch + rebuild, k8s" "cargo build -q --locked -p bench-crd-derive --features bench-crd-derive/k8s" \
      -n "kube-derive 5 touch + rebuild, k8s" "cargo build -q --locked -p bench-kube-derive --features bench-kube-derive/k8s"
    echo "load average after (k8s): $(cut -d' ' -f1-3 /proc/loadavg)"
    ;;
esac

# A three-version kind: one `#[crd_runtime::versioned]` module against three
# `#[derive(CustomResource)]` modules and hand-written `From` impls, both derive-only. The
# sides alternate: each round runs both, and the order is swapped every round (ABBA...).
#   - clean debug build (`cargo clean`, every dependency included), RUNS rounds of 1 run;
#   - the crate alone from scratch (`cargo clean -p`, dependencies built), 4 rounds of 3;
#   - touch + rebuild of the crate (incremental), 4 rounds of 1 warm-up + 3 runs.
# One JSON file per round in results/ (hyperfine's --export-json).
case " $phases " in
  *" versions "*)
    macro="cargo build -q --locked -p bench-versioned"
    hand="cargo build -q --locked -p bench-hand-versions"
    # round NAME I HYPERFINE-ARGS... -- PREPARE-MACRO PREPARE-HAND: one hyperfine run of
    # both sides, the macro first in odd rounds and the hand-written side first in even ones.
    round() {
      local name="$1" i="$2"; shift 2
      local args=()
      while [ "$1" != "--" ]; do args+=("$1"); shift; done
      local prep_macro="$2" prep_hand="$3"
      local a=(--prepare "$prep_macro" -n "versioned, $name" "$macro")
      local b=(--prepare "$prep_hand" -n "by hand, $name" "$hand")
      if [ $((i % 2)) = 1 ]; then
        hyperfine "${args[@]}" --export-json "$out/versions-$name-$i.json" "${a[@]}" "${b[@]}"
      else
        hyperfine "${args[@]}" --export-json "$out/versions-$name-$i.json" "${b[@]}" "${a[@]}"
      fi
    }
    for i in $(seq 1 "$runs"); do
      round clean "$i" --runs 1 -- 'cargo clean -q' 'cargo clean -q'
    done
    cargo build -q --locked -p bench-versioned -p bench-hand-versions
    for i in 1 2 3 4; do
      round crate "$i" --runs 3 -- 'cargo clean -q -p bench-versioned' 'cargo clean -q -p bench-hand-versions'
    done
    cargo build -q --locked -p bench-versioned -p bench-hand-versions
    for i in 1 2 3 4; do
      round touch "$i" --warmup 1 --runs 3 -- 'touch versioned/src/lib.rs' 'touch hand-versions/src/lib.rs'
    done
    echo "load average after (versions): $(cut -d' ' -f1-3 /proc/loadavg)"
    ;;
esac
