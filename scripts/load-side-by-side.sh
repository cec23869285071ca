#!/usr/bin/env bash
# The crd-server load benchmark (crd-server/benches/load.rs) against two versions of
# crd-server in one run: the same bench source built against the server at BASE (a
# commit) and against the working tree, then run alternately ROUNDS times on the
# embedded store, so both see the same machine load. Prints each run's lines, then
# the median creates/s and gets/s of each side, and the median CPU µs the process spent
# per create and per GET (client, server and controllers: steadier than a rate).
#
#   scripts/load-side-by-side.sh BASE [ROUNDS]
#
# BASE is checked out in a worktree beside this checkout (so ../shared resolves) and
# built with its own target directory (the first run takes a few minutes). The side
# that runs first alternates from round to round.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: scripts/load-side-by-side.sh BASE [ROUNDS]" >&2; exit 2; }
base=$1 rounds=${2:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
short=$(git -C "$root" rev-parse --short "$base")
before=$(dirname "$root")/crd-toolkit-load-$short
if [ ! -d "$before" ]; then
    git -C "$root" worktree add --detach "$before" "$base" >/dev/null
fi
# The same benchmark on both sides: only the server differs.
cp "$root/crd-server/benches/load.rs" "$before/crd-server/benches/load.rs"
cp -r "$root/crd-server/benches/support/." "$before/crd-server/benches/support/"
# A base from before the native etcd client has no `EtcdStore::raw_put`: there etcd's
# raw puts (not part of the embedded run this script compares) are left out.
if ! grep -rq "fn raw_put" "$before/crd-server/src/store/"; then
    python3 - "$before/crd-server/benches/load.rs" <<'PY'
import re, sys
path = sys.argv[1]
src = open(path).read()
start = src.index("async fn raw_etcd_puts(")
end = src.index("\nfn main()", start)
src = src[:start] + "async fn raw_etcd_puts(_url: &str) {}\n" + src[end:]
open(path, "w").write(src)
PY
fi
# A base from before the workload controllers has no `Controllers::lifecycle()`: there
# every controller (`all`) is a lifecycle one.
if ! grep -q "fn lifecycle" "$before/crd-server/src/controllers/selection.rs"; then
    sed -i 's/Controllers::lifecycle()/Controllers::all()/' "$before/crd-server/benches/load.rs"
fi

bench_binary() { # DIR TARGET_DIR
    (cd "$1" && CARGO_TARGET_DIR=$2 cargo bench -q -p crd-server --bench load --profile load \
        --no-run --message-format=json 2>/dev/null) |
        sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | grep "/deps/load-" | tail -1
}
old=$(bench_binary "$before" "$before/target")
new=$(bench_binary "$root" "${CARGO_TARGET_DIR:-$root/target}")
[ -x "$old" ] && [ -x "$new" ] || { echo "error: a bench binary did not build" >&2; exit 1; }

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for i in $(seq "$rounds"); do
    # The side that runs first alternates: a run follows the other side's run in every
    # round alike (its temp dir's removal, the page cache it leaves).
    order="before after"
    [ $((i % 2)) -eq 0 ] && order="after before"
    for side in $order; do
        bin=$old
        [ "$side" = after ] && bin=$new
        echo "== round $i, $side ($(cut -d' ' -f1-3 /proc/loadavg) load)"
        (cd "$root/crd-server" && "$bin" embedded) | tee -a "$out/$side"
    done
done

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
for side in before after; do
    creates=$(grep 'validated creates/s' "$out/$side" | sed 's/.*: //' | median)
    gets=$(grep 'gets/s' "$out/$side" | sed 's/.*: //' | median)
    # CPU µs per operation (client, server and controllers): steadier than a rate.
    cpu_create=$(grep 'CPU per create' "$out/$side" | sed 's/.*: //; s/ µs//' | median)
    cpu_get=$(grep 'CPU per GET' "$out/$side" | sed 's/.*: //; s/ µs//' | median)
    echo "$side ($([ "$side" = before ] && echo "$short" || echo "working tree")): median creates/s $creates, gets/s $gets, CPU per create $cpu_create µs, per GET $cpu_get µs over $rounds runs"
done
