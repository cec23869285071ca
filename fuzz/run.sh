#!/usr/bin/env bash
# Builds and runs the fuzz targets (FUZZING.md).
#
#   fuzz/run.sh smoke [RUNS]             every target on its whole seed corpus, then RUNS
#                                        (default 2000) mutations each from a fixed seed:
#                                        deterministic, so CI fails only on a real change
#   fuzz/run.sh long SECONDS [TARGET...] fuzz each target SECONDS or 10 million executions,
#                                        whichever comes first, in turn (all by default),
#                                        keeping the corpus; one summary line per target
#                                        in fuzz/logs/summary.tsv (MAX_RUNS overrides 10M)
#   fuzz/run.sh deep SECONDS             the codegen target in its deep-schema mode only
#                                        (chains of up to ~10,000 levels), SECONDS long
#
# Any crash, leak of Debug text, hang (>30 s on one input) or memory blow-up (>3 GB)
# stops with a non-zero exit; the input is in fuzz/artifacts/TARGET/.
set -euo pipefail
cd "$(dirname "$0")"

TARGETS=(load_documents yaml_differential json_in_place crd_check engine_admit codegen cel_eval server_request)
# Optimized, with debug assertions (integer overflow panics), without AddressSanitizer:
# the code under test has no `unsafe`, and ASan made big-stack parser threads ~50x slower.
BUILD=(-O -a -s none)
FLAGS=(-rss_limit_mb=3072 -timeout=30 -print_final_stats=1)

# cargo-fuzz needs nightly features; use a nightly toolchain when rustup has one,
# else let the stable compiler accept them.
cargo_fuzz() {
    if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
        cargo +nightly fuzz "$@"
    else
        RUSTC_BOOTSTRAP=1 cargo fuzz "$@"
    fi
}

# Text targets get short inputs in long runs: mutations of 1 MB CRDs are slow and
# rarely reach new code (the seeds still run whole in the smoke run).
max_len() {
    case "$1" in
        load_documents | yaml_differential | crd_check | codegen) echo 32768 ;;
        *) echo 4096 ;;
    esac
}

# Package versions from a lockfile, one `name version` per line.
locked_versions() {
    awk '/^name = / { gsub(/"/, "", $3); name = $3 }
         /^version = / { gsub(/"/, "", $3); print name, $3 }' "$1" | sort -u
}

# The fuzz workspace must build the dependency versions the product ships with: a
# package both lockfiles hold must be locked here at a version the main one has
# (a newer serde-saphyr here once made yaml_differential test another YAML reader).
check_lockfiles_agree() {
    local drift
    drift=$(awk 'NR == FNR { main[$1] = main[$1] " " $2 " "; next }
                 ($1 in main) && index(main[$1], " " $2 " ") == 0 {
                     print "  " $1 " " $2 " (main workspace:" main[$1] ")" }' \
        <(locked_versions ../Cargo.lock) <(locked_versions Cargo.lock))
    if [ -n "$drift" ]; then
        echo "fuzz/Cargo.lock has versions the main Cargo.lock does not:" >&2
        echo "$drift" >&2
        echo "re-sync: cp Cargo.lock fuzz/Cargo.lock && (cd fuzz && cargo metadata --format-version 1 >/dev/null)" >&2
        exit 1
    fi
}

build_and_seed() {
    check_lockfiles_agree
    cargo_fuzz build "${BUILD[@]}"
    # The seed writer is built by the same `cargo fuzz build` (a plain bin).
    local seed
    seed=$(ls target/*/release/seed | head -n1)
    "$seed"
}

mode=${1:-smoke}
case "$mode" in
    smoke)
        runs=${2:-2000}
        # A smoke run checks behaviour on a few thousand inputs, not speed: optimized
        # less, the build (most of its time) is shorter. Long runs keep opt-level 3.
        export CARGO_PROFILE_RELEASE_OPT_LEVEL=1 CARGO_PROFILE_RELEASE_DEBUG=line-tables-only
        build_and_seed
        for t in "${TARGETS[@]}"; do
            echo "== $t: seed corpus"
            cargo_fuzz run "${BUILD[@]}" "$t" -- "${FLAGS[@]}" -runs=0
            echo "== $t: $runs mutations from seed 1"
            cargo_fuzz run "${BUILD[@]}" "$t" -- "${FLAGS[@]}" -seed=1 -runs="$runs" -max_len="$(max_len "$t")"
        done
        ;;
    long)
        seconds=${2:?usage: fuzz/run.sh long SECONDS [TARGET...]}
        shift 2
        chosen=("$@")
        [ ${#chosen[@]} -gt 0 ] || chosen=("${TARGETS[@]}")
        build_and_seed
        mkdir -p logs
        for t in "${chosen[@]}"; do
            log=logs/$t.log
            echo "== $t: ${seconds}s (log $log)"
            status=0
            cargo_fuzz run "${BUILD[@]}" "$t" -- "${FLAGS[@]}" -max_total_time="$seconds" \
                -runs="${MAX_RUNS:-10000000}" -max_len="$(max_len "$t")" >"$log" 2>&1 || status=$?
            runs=$(grep -oE '^stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
            speed=$(grep -oE '^stat::average_exec_per_sec: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
            corpus=$(grep -oE 'corp: [0-9]+/[0-9a-zA-Z]+' "$log" | tail -n1 | cut -d' ' -f2)
            printf '%s\t%s\t%ss\t%s runs\t%s exec/s\tcorpus %s\texit %s\n' \
                "$(date -u +%FT%TZ)" "$t" "$seconds" "$runs" "$speed" "$corpus" "$status" | tee -a logs/summary.tsv
        done
        ;;
    deep)
        seconds=${2:?usage: fuzz/run.sh deep SECONDS}
        build_and_seed
        mkdir -p logs
        log=logs/codegen-deep.log
        echo "== codegen, deep mode: ${seconds}s (log $log)"
        status=0
        FUZZ_CODEGEN_MODE=deep cargo_fuzz run "${BUILD[@]}" codegen -- "${FLAGS[@]}" \
            -max_total_time="$seconds" -max_len=64 >"$log" 2>&1 || status=$?
        runs=$(grep -oE '^stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
        speed=$(grep -oE '^stat::average_exec_per_sec: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
        printf '%s\t%s\t%ss\t%s runs\t%s exec/s\texit %s\n' \
            "$(date -u +%FT%TZ)" codegen-deep "$seconds" "$runs" "$speed" "$status" | tee -a logs/summary.tsv
        exit "$status"
        ;;
    *)
        echo "usage: fuzz/run.sh smoke [RUNS] | long SECONDS [TARGET...] | deep SECONDS" >&2
        exit 2
        ;;
esac
