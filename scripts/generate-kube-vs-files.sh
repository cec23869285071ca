#!/usr/bin/env bash
# `crd-gen generate kube://` (every CRD of a cluster) against `crd-gen generate FILES`
# on the same CRDs: identical output, and the wall time of each (BENCHMARKS.md,
# `## crd-gen generate kube:// vs files (issue 35)`).
#
#   scripts/generate-kube-vs-files.sh [CORPUS_DIR] [ROUNDS]
#
# Builds crd-gen and crd-server with `--profile load` (SKIP_BUILD=1 to reuse them),
# starts crd-server in memory on a free loopback port, creates every CRD of the
# corpus with kubectl (server-side apply: the largest CRDs are over the client-side
# annotation limit; a CRD name found in two files keeps the later file, in path
# order), then times ROUNDS alternating runs of both commands (after one warm-up
# each) and compares their outputs byte for byte. Needs kubectl and python3.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
corpus=${1:-$root/../shared/corpus/crds}
rounds=${2:-5}
target=${CARGO_TARGET_DIR:-$root/target}
if [[ -z ${SKIP_BUILD:-} ]]; then
    (cd "$root" && cargo build -q --profile load -p crd-gen --bin crd-gen -p crd-server --bin crd-server)
fi
crd_gen=$target/load/crd-gen
crd_server=$target/load/crd-server

work=$(mktemp -d)
server_pid=
cleanup() {
    if [[ -n $server_pid ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$crd_server" --listen "127.0.0.1:$port" --in-memory >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 100); do
    curl -fs "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
    sleep 0.1
done
curl -fs "http://127.0.0.1:$port/readyz" >/dev/null || { echo "crd-server did not start:"; cat "$work/server.log"; exit 1; }

cat >"$work/kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: bench
  cluster:
    server: http://127.0.0.1:$port
users:
- name: bench
  user: {}
contexts:
- name: bench
  context:
    cluster: bench
    user: bench
current-context: bench
KUBECONFIG
export KUBECONFIG=$work/kubeconfig

# The corpus's manifests in path order (crd-gen's walker order) and each one's CRD name.
python3 - "$corpus" >"$work/files.tsv" <<'PY'
import os, re, sys
root = sys.argv[1]
paths = []
for d, dirs, files in os.walk(root):
    dirs.sort()
    paths += [os.path.join(d, f) for f in files if f.endswith((".yaml", ".yml", ".json"))]
name = re.compile(r'^metadata:\n(?:[ #].*\n|\n)*?  name: "?([^"\s]+)"?\s*$', re.M)
for p in sorted(paths):
    text = open(p, encoding="utf-8").read()
    if re.search(r'^kind: "?CustomResourceDefinition"?\s*$', text, re.M):
        m = name.search(text)
        if m:
            print(f"{m.group(1)}\t{p}")
PY
files=$(wc -l <"$work/files.tsv")
apply_args=()
while IFS=$'\t' read -r _ path; do apply_args+=(-f "$path"); done <"$work/files.tsv"
kubectl apply --server-side --force-conflicts "${apply_args[@]}" >/dev/null 2>"$work/apply.err" || true
applied_errors=$(grep -c . "$work/apply.err" || true)
kubectl get crd -o name | sed 's|.*/||' | sort >"$work/in-cluster.txt"
in_cluster=$(wc -l <"$work/in-cluster.txt")

# The files of the CRDs in the cluster, by CRD name (kube:// lists by name); for a
# name defined twice, the later file (the one applied last).
python3 - "$work/files.tsv" "$work/in-cluster.txt" >"$work/winners.txt" <<'PY'
import sys
last = {}
for line in open(sys.argv[1]):
    name, path = line.rstrip("\n").split("\t")
    last[name] = path
for name in sorted(l.strip() for l in open(sys.argv[2]) if l.strip()):
    print(last[name])
PY
mapfile -t winners <"$work/winners.txt"

"$crd_gen" generate kube:// >"$work/kube.rs"
"$crd_gen" generate "${winners[@]}" >"$work/files.rs"
if cmp -s "$work/kube.rs" "$work/files.rs"; then
    same="identical ($(wc -c <"$work/kube.rs") bytes)"
else
    # Lines that differ other than a whole float written as an integer: the API
    # server re-encodes `0.0` as `0` (Go's JSON), so `#[crd(minimum = 0.0)]` from the
    # file is `#[crd(minimum = 0)]` from the cluster.
    diff "$work/files.rs" "$work/kube.rs" >"$work/diff.txt" || true
    changed=$(grep -c '^<' "$work/diff.txt" || true)
    other=$(paste <(grep '^<' "$work/diff.txt" | sed -E 's/^< //; s/([0-9])\.0\b/\1/g') \
                  <(grep '^>' "$work/diff.txt" | sed 's/^> //') | awk -F'\t' '$1 != $2' | wc -l)
    same="DIFFERENT in $changed line(s), $other of them other than a float written as an integer"
fi

now() { date +%s%N; }
time_runs() { # command... → median and min of ROUNDS runs, in ms
    local times=()
    "$@" >/dev/null
    for _ in $(seq 1 "$rounds"); do
        local t0; t0=$(now)
        "$@" >/dev/null
        times+=($((($(now) - t0) / 1000000)))
    done
    printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "median %d ms, min %d ms", a[int((NR+1)/2)], a[1]}'
}
kube_time=$(time_runs "$crd_gen" generate kube://)
files_time=$(time_runs "$crd_gen" generate "${winners[@]}")
dir_time=$(time_runs "$crd_gen" generate "$corpus")

echo "corpus: $files CRD files, $in_cluster CRDs in the cluster ($applied_errors kubectl error line(s))"
echo "output: generate kube:// vs generate FILES (same CRDs, by name): $same"
echo "generate kube://            : $kube_time"
echo "generate FILES ($in_cluster files): $files_time"
echo "generate $corpus (all $files files): $dir_time"
echo "rounds: $rounds; $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
