# Shared by the replica scripts (failover-cascade.sh, failover-time.sh,
# etcd-member-loss.sh): etcd members and crd-server replicas on free loopback ports, in
# a temporary directory, all killed (by the process ids started here) on exit.
# Source it; it sets `set -euo pipefail`.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d -t crd-replicas.XXXXXX)
pids=()

cleanup() {
    for p in "${pids[@]}"; do
        kill -9 "$p" 2>/dev/null || true
    done
    wait 2>/dev/null || true
    if [ -n "${KEEP:-}" ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log() { printf '[%s] %s\n' "$(date +%T.%3N)" "$*"; }
die() { log "FAIL: $*" >&2; exit 1; }
now_ms() { date +%s%3N; }

# Installs Debian's etcd when it is missing.
need_tools() {
    if ! command -v etcd >/dev/null; then
        log "installing etcd-server"
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq etcd-server >/dev/null
    fi
    for t in curl jq kubectl python3; do
        command -v "$t" >/dev/null || die "$t is needed"
    done
}

# The release binary (built here unless CRD_SERVER names one).
crd_server_binary() {
    if [ -n "${CRD_SERVER:-}" ]; then
        echo "$CRD_SERVER"
        return
    fi
    local target=${CARGO_TARGET_DIR:-$root/target}
    (cd "$root" && cargo build -q --release -p crd-server) >&2
    echo "$target/release/crd-server"
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Waits (at most $2 seconds) until the command $3... succeeds.
wait_for() {
    local what=$1 limit=$2
    shift 2
    local deadline=$(($(date +%s) + limit))
    until "$@" >/dev/null 2>&1; do
        [ "$(date +%s)" -lt "$deadline" ] || die "$what not within ${limit}s"
        sleep 0.05
    done
}

etcd_up() { curl -sf -m 2 -X POST -d '{}' "$1/v3/maintenance/status" | grep -q leader; }

# Starts an etcd cluster of $1 members; sets etcd_urls (client URLs) and etcd_pids.
start_etcd() {
    local n=$1 i cluster="" peers=() clients=()
    etcd_urls=() etcd_pids=()
    for i in $(seq "$n"); do
        peers+=("http://127.0.0.1:$(free_port)")
        clients+=("http://127.0.0.1:$(free_port)")
        cluster+="${cluster:+,}m$i=${peers[-1]}"
    done
    for i in $(seq "$n"); do
        etcd --name "m$i" --data-dir "$work/etcd-m$i" \
            --listen-client-urls "${clients[i - 1]}" --advertise-client-urls "${clients[i - 1]}" \
            --listen-peer-urls "${peers[i - 1]}" --initial-advertise-peer-urls "${peers[i - 1]}" \
            --initial-cluster "$cluster" --initial-cluster-state new \
            --initial-cluster-token "crd-replicas-$$" \
            --experimental-watch-progress-notify-interval 1s \
            >"$work/etcd-m$i.log" 2>&1 &
        pids+=($!)
        etcd_pids+=($!)
        disown # killed on purpose: no job notice
    done
    etcd_urls=("${clients[@]}")
    for u in "${etcd_urls[@]}"; do
        wait_for "etcd at $u" 30 etcd_up "$u"
    done
}

# Starts a crd-server replica named $1 on the etcd URLs $2 (comma-separated), more
# flags after; sets <name>_url, <name>_pid and <name>_id (its holder identity). Its
# output goes to $work/<name>.log, each line prefixed with the time (microseconds).
start_replica() {
    local name=$1 urls=$2
    shift 2
    local port
    port=$(free_port)
    ( "$bin" --listen "127.0.0.1:$port" --etcd-servers "$urls" "$@" 2>&1 &
        echo $! >"$work/$name.pid"
        { wait; } 2>/dev/null ) | while IFS= read -r line; do
        printf '%s %s\n' "${EPOCHREALTIME/./}" "$line"
    done >"$work/$name.log" &
    disown # killed on purpose: no job notice
    wait_for "replica $name's process" 5 test -s "$work/$name.pid"
    local pid
    pid=$(cat "$work/$name.pid")
    pids+=("$pid")
    local url="http://127.0.0.1:$port"
    wait_for "replica $name" 30 curl -sf -m 2 "$url/api/v1/namespaces/default"
    wait_for "replica $name's identity" 5 grep -q " as " "$work/$name.log"
    printf -v "${name}_url" '%s' "$url"
    printf -v "${name}_pid" '%s' "$pid"
    printf -v "${name}_id" '%s' "$(sed -n 's/.* as \(.*\)$/\1/p' "$work/$name.log" | head -1)"
}

# The time (microseconds) replica $1 logged that it acquired the Lease after $2.
acquired_at() {
    awk -v after="$2" '$1 > after && /successfully acquired lease/ {print $1; exit}' "$work/$1.log"
}

lease_path=/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager

# The Lease's holderIdentity, read through $1.
holder() { curl -sf -m 2 "$1$lease_path" | jq -r '.spec.holderIdentity // ""'; }

# POSTs every JSON body of the file $3 (one a line) to $1$2, $4 at a time, in one curl
# process; prints "CODE NAME" per request.
post_all() {
    local url=$1 path=$2 bodies=$3 parallel=$4 config
    config=$(mktemp -p "$work")
    jq -c -r '"url = \"'"$url$path"'\"\nrequest = \"POST\"\nheader = \"Content-Type: application/json\"\ndata = " + (tojson | tojson) + "\nwrite-out = \"%{http_code} " + .metadata.name + " %{exitcode} %{time_total}\\n\"\noutput = \"/dev/null\"\nsilent\nnext"' "$bodies" | sed '$d' >"$config"
    curl -s --no-progress-meter --parallel --parallel-immediate --parallel-max "$parallel" -K "$config" || true
}

# ConfigMaps named $2-1..$2-$3 (one JSON a line) in namespace $1, owned by the object
# described by $4 (`apiVersion kind name uid`), when given.
configmaps() {
    local ns=$1 prefix=$2 count=$3 owner=${4:-}
    python3 - "$ns" "$prefix" "$count" "$owner" <<'EOF'
import json, sys
ns, prefix, count, owner = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
for i in range(1, count + 1):
    meta = {"name": f"{prefix}-{i}", "namespace": ns}
    if owner:
        api, kind, name, uid = owner.split()
        meta["ownerReferences"] = [{"apiVersion": api, "kind": kind, "name": name, "uid": uid}]
    print(json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {"i": str(i)}}))
EOF
}

# How many ConfigMaps of namespace $2 whose names start with $3, read through $1.
count_cms() {
    curl -sf -m 10 "$1/api/v1/namespaces/$2/configmaps" |
        jq --arg p "$3" '[.items[].metadata.name | select(startswith($p))] | length'
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
