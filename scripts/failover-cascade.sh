#!/usr/bin/env bash
# A cascade that survives its leader: two crd-server replicas (release build) on one
# etcd, an owner ConfigMap with DEPENDENTS (1,000) dependent ConfigMaps, the owner
# deleted (background propagation), the replica holding the leader Lease killed with
# SIGKILL once KILL_AT dependents are gone; the other replica must take the Lease and
# collect the rest, while 100 ConfigMaps owned by a live owner and 100 without owner
# stay. Prints timings; the last line is machine-readable:
#   result: acquired_ms=... resumed_ms=... done_ms=... deleted_before_kill=...
#
#   scripts/failover-cascade.sh
#
# Environment: LEASE / RENEW / RETRY (kube-controller-manager's defaults 15s / 10s / 2s),
# DEPENDENTS (1000), KILL_AT (100), CRD_SERVER (a built binary; otherwise
# `cargo build --release -p crd-server`). Needs etcd (installed from Debian's
# etcd-server when missing), curl, jq, python3; loopback ports only.
source "$(dirname "$0")/replicas-lib.sh"

lease=${LEASE:-15s} renew=${RENEW:-10s} retry=${RETRY:-2s}
dependents=${DEPENDENTS:-1000} kill_at=${KILL_AT:-100}
now_us() { echo "${EPOCHREALTIME/./}"; }
ms_since() { echo $((($(now_us) - $1) / 1000)); }

need_tools
bin=$(crd_server_binary)
start_etcd 1
flags=(--leader-elect-lease-duration "$lease" --leader-elect-renew-deadline "$renew"
    --leader-elect-retry-period "$retry")
start_replica a "${etcd_urls[0]}" "${flags[@]}"
start_replica b "${etcd_urls[0]}" "${flags[@]}"

is_held() { h=$(holder "$a_url"); [ "$h" = "$a_id" ] || [ "$h" = "$b_id" ]; }
wait_for "a leader" 60 is_held
if [ "$(holder "$a_url")" = "$a_id" ]; then
    leader=a survivor=b
else
    leader=b survivor=a
fi
leader_pid=${leader}_pid leader_pid=${!leader_pid}
survivor_url=${survivor}_url survivor_url=${!survivor_url}
survivor_id=${survivor}_id survivor_id=${!survivor_id}
log "replica $leader leads; replica $survivor follows (lease $lease, renew $renew, retry $retry)"

ns=cascade
api=$survivor_url/api/v1/namespaces
curl -sf -X POST -H 'Content-Type: application/json' "$api" \
    -d "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$ns\"}}" >/dev/null
create_owner() {
    curl -sf -X POST -H 'Content-Type: application/json' "$api/$ns/configmaps" \
        -d "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"$1\"}}" | jq -r .metadata.uid
}
owner_uid=$(create_owner owner)
keeper_uid=$(create_owner keeper)
configmaps "$ns" dep "$dependents" "v1 ConfigMap owner $owner_uid" >"$work/dep.jsonl"
configmaps "$ns" kept 100 "v1 ConfigMap keeper $keeper_uid" >"$work/kept.jsonl"
configmaps "$ns" plain 100 >"$work/plain.jsonl"
t=$(now_us)
cat "$work/dep.jsonl" "$work/kept.jsonl" "$work/plain.jsonl" >"$work/all.jsonl"
post_all "$survivor_url" "/api/v1/namespaces/$ns/configmaps" "$work/all.jsonl" 16 >"$work/created"
created=$(grep -c '^201 ' "$work/created" || true)
[ "$created" -eq $((dependents + 200)) ] || die "created $created of $((dependents + 200)) ConfigMaps"
log "created $dependents dependents, 100 kept, 100 plain in $(ms_since "$t") ms"

# Every deletion the survivor sees, with the time it saw it.
rv=$(curl -sf "$api/$ns/configmaps?limit=1" | jq -r .metadata.resourceVersion)
curl -sN "$api/$ns/configmaps?watch=1&resourceVersion=$rv" | while IFS= read -r line; do
    case $line in
    *'"type":"DELETED"'*'"name":"dep-'* | *'"name":"dep-'*'"type":"DELETED"'*) echo "${EPOCHREALTIME/./} dep" ;;
    *'"type":"DELETED"'*) echo "${EPOCHREALTIME/./} other" ;;
    esac
done >"$work/deleted" &
pids+=($!)
sleep 0.3
deleted() { grep -c ' dep$' "$work/deleted" || true; }

t_delete=$(now_us)
curl -sf -X DELETE -H 'Content-Type: application/json' "$api/$ns/configmaps/owner" \
    -d '{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background"}' >/dev/null
log "owner deleted (background); waiting for $kill_at of its dependents to go"
enough() { [ "$(deleted)" -ge "$kill_at" ]; }
wait_for "$kill_at dependents collected by the leader (is the garbage collector built in?)" 60 enough

kill -9 "$leader_pid"
t_kill=$(now_us)
before=$(deleted)
log "killed replica $leader (SIGKILL) after $(((t_kill - t_delete) / 1000)) ms, $before of $dependents dependents gone"

# The survivor's deletions are those it sees after it took the Lease: the killed
# leader's last ones may reach its watch a little later than the kill.
t_acquired=""
deadline=$(($(date +%s) + 120))
while [ -z "$t_acquired" ]; do
    [ "$(date +%s)" -lt "$deadline" ] || die "replica $survivor did not take the lease within 120 s"
    t_acquired=$(acquired_at "$survivor" "$t_kill")
    sleep 0.05
done
acquired_ms=$(((t_acquired - t_kill) / 1000))
log "replica $survivor took the lease $acquired_ms ms after the kill"
first=""
while [ -z "$first" ]; do
    [ "$(date +%s)" -lt "$deadline" ] || die "replica $survivor deleted no dependent within 120 s"
    first=$(awk -v k="$t_acquired" '$2 == "dep" && $1 > k {print $1; exit}' "$work/deleted")
    sleep 0.05
done
resumed_ms=$(((first - t_kill) / 1000))
log "first deletion by replica $survivor $resumed_ms ms after the kill ($(((first - t_acquired) / 1000)) ms after it took the lease)"

left() { [ "$(count_cms "$survivor_url" "$ns" dep-)" -eq 0 ]; }
wait_for "the rest of the cascade" 120 left
done_ms=$(ms_since "$t_kill")
kept=$(count_cms "$survivor_url" "$ns" kept-)
plain=$(count_cms "$survivor_url" "$ns" plain-)
keeper=$(curl -s -o /dev/null -w '%{http_code}' "$api/$ns/configmaps/keeper")
[ "$kept" -eq 100 ] && [ "$plain" -eq 100 ] && [ "$keeper" = 200 ] ||
    die "unrelated ConfigMaps lost: kept $kept/100, plain $plain/100, keeper $keeper"
log "cascade done $done_ms ms after the kill ($((dependents - before)) dependents by replica $survivor); 0 dependents left, 100/100 kept, 100/100 plain, keeper there"
echo "result: acquired_ms=$acquired_ms resumed_ms=$resumed_ms done_ms=$done_ms deleted_before_kill=$before"
