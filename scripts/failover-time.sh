#!/usr/bin/env bash
# Failover time: runs scripts/failover-cascade.sh RUNS times (10) and prints the median
# time from SIGKILL of the Lease holder to the other replica holding the Lease and to
# its first deletion of the cascade (the cascade resumed), and to the cascade's end.
#
#   scripts/failover-time.sh [RUNS]
#
# The same environment as failover-cascade.sh (LEASE, RENEW, RETRY, DEPENDENTS,
# KILL_AT, CRD_SERVER); the binary is built once.
set -euo pipefail
runs=${1:-10}
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
if [ -z "${CRD_SERVER:-}" ]; then
    (cd "$root" && cargo build -q --release -p crd-server)
    export CRD_SERVER=${CARGO_TARGET_DIR:-$root/target}/release/crd-server
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for i in $(seq "$runs"); do
    line=$(timeout 600 "$here/failover-cascade.sh" | tee >(cat >&2) | grep "^result: ") ||
        { echo "run $i failed" >&2; exit 1; }
    echo "run $i: ${line#result: }"
    echo "${line#result: }" >>"$out"
done
field() { sed -n "s/.*$1=\([0-9]*\).*/\1/p" "$out"; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
echo "over $runs runs (lease ${LEASE:-15s}, renew ${RENEW:-10s}, retry ${RETRY:-2s}):"
echo "  holder killed -> other replica holds the lease: median $(field acquired_ms | median) ms (min $(field acquired_ms | sort -n | head -1), max $(field acquired_ms | sort -n | tail -1))"
echo "  holder killed -> cascade resumed (first deletion): median $(field resumed_ms | median) ms (min $(field resumed_ms | sort -n | head -1), max $(field resumed_ms | sort -n | tail -1))"
echo "  holder killed -> cascade done: median $(field done_ms | median) ms"
