#!/usr/bin/env bash
# Losing an etcd member under load: a 3-member etcd cluster on loopback ports, two
# crd-server replicas (release build) with --etcd-servers listing all three, CREATES
# (20,000) ConfigMap creates spread over both replicas (16 at a time each), and one
# member killed with SIGKILL once KILL_AFTER (5,000) creates are answered — the raft
# leader unless VICTIM=first (the member both replicas list first). Afterwards every
# create answered 201 must be readable through both replicas, and both must still serve
# creates and reads. Prints counts and timings.
#
#   scripts/etcd-member-loss.sh
#
# Environment: CREATES, KILL_AFTER, VICTIM (leader | first), CRD_SERVER (a built
# binary; otherwise `cargo build --release -p crd-server`). Needs etcd (installed from
# Debian's etcd-server when missing), curl, jq, python3; loopback ports only.
source "$(dirname "$0")/replicas-lib.sh"

creates=${CREATES:-20000} kill_after=${KILL_AFTER:-5000} victim=${VICTIM:-leader}

need_tools
bin=$(crd_server_binary)
start_etcd 3
servers=$(IFS=,; echo "${etcd_urls[*]}")
start_replica a "$servers"
start_replica b "$servers"
log "etcd members ${etcd_urls[*]}; replicas $a_url, $b_url"

ns=load
curl -sf -X POST -H 'Content-Type: application/json' "$a_url/api/v1/namespaces" \
    -d "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$ns\"}}" >/dev/null
configmaps "$ns" cm "$creates" >"$work/all.jsonl"
awk 'NR % 2 == 1' "$work/all.jsonl" >"$work/a.jsonl"
awk 'NR % 2 == 0' "$work/all.jsonl" >"$work/b.jsonl"

t0=$(date +%s%3N)
post_all "$a_url" "/api/v1/namespaces/$ns/configmaps" "$work/a.jsonl" 16 >"$work/a.out" &
load_a=$!
pids+=($load_a)
post_all "$b_url" "/api/v1/namespaces/$ns/configmaps" "$work/b.jsonl" 16 >"$work/b.out" &
load_b=$!
pids+=($load_b)

answered() { cat "$work/a.out" "$work/b.out" | wc -l; }
enough() { [ "$(answered)" -ge "$kill_after" ]; }
wait_for "$kill_after answered creates" 300 enough

# The member to kill: the raft leader (as member 1 sees it), or the first listed.
pick=0
if [ "$victim" = leader ]; then
    for i in "${!etcd_urls[@]}"; do
        s=$(curl -sf -m 2 -X POST -d '{}' "${etcd_urls[i]}/v3/maintenance/status" || true)
        [ -n "$s" ] || continue
        if [ "$(jq -r .leader <<<"$s")" = "$(jq -r .header.member_id <<<"$s")" ]; then
            pick=$i
        fi
    done
fi
kill -9 "${etcd_pids[pick]}"
t_kill=$(date +%s%3N)
log "killed etcd member m$((pick + 1)) (${etcd_urls[pick]}, $victim) after $(answered) answers, $((t_kill - t0)) ms into the load"

for p in $load_a $load_b; do
    timeout 600 tail --pid="$p" -f /dev/null || die "the load did not finish within 600 s"
done
t_end=$(date +%s%3N)
cat "$work/a.out" "$work/b.out" >"$work/answers"
total=$(wc -l <"$work/answers")
acked=$(grep -c '^201 ' "$work/answers" || true)
log "$total answers in $((t_end - t0)) ms ($((total * 1000 / (t_end - t0 + 1))) creates/s): $acked created (201)"
awk '$1 != 201 {print $1, "(curl exit " $3 ")"}' "$work/answers" | sort | uniq -c | sed 's/^/    refused or failed: /'
grep '^201 ' "$work/answers" | awk '{print $2}' | sort >"$work/acked"

# Every acknowledged create is readable through each replica.
for r in a b; do
    url=${r}_url url=${!url}
    curl -sf -m 60 "$url/api/v1/namespaces/$ns/configmaps" | jq -r '.items[].metadata.name' | sort >"$work/listed-$r"
    missing=$(comm -23 "$work/acked" "$work/listed-$r" | wc -l)
    extra=$(comm -13 "$work/acked" "$work/listed-$r" | wc -l)
    log "replica $r lists $(wc -l <"$work/listed-$r") ConfigMaps: $missing acknowledged ones missing, $extra stored without a 201 (answers lost with the member)"
    [ "$missing" -eq 0 ] || die "replica $r lost $missing acknowledged creates: $(comm -23 "$work/acked" "$work/listed-$r" | head -5 | tr '\n' ' ')"
    sample=$(shuf -n 200 "$work/acked")
    for name in $sample; do
        code=$(curl -s -o /dev/null -w '%{http_code}' "$url/api/v1/namespaces/$ns/configmaps/$name")
        [ "$code" = 200 ] || die "replica $r: GET $name answered $code"
    done
done

# Both replicas still serve writes and reads, and one of them leads.
for r in a b; do
    url=${r}_url url=${!url}
    code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
        "$url/api/v1/namespaces/$ns/configmaps" \
        -d "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"after-$r\"}}")
    [ "$code" = 201 ] || die "replica $r answered $code to a create after the member loss"
    code=$(curl -s -o /dev/null -w '%{http_code}' "$url/api/v1/namespaces/$ns/configmaps/after-$r")
    [ "$code" = 200 ] || die "replica $r answered $code to a read after the member loss"
done
h=$(holder "$a_url")
[ "$h" = "$a_id" ] || [ "$h" = "$b_id" ] || die "no replica holds the lease (holder: '$h')"
log "both replicas serve after the loss; the lease is held by replica $([ "$h" = "$a_id" ] && echo a || echo b)"
echo "result: creates=$creates answered=$total acked=$acked missing=0 ms=$((t_end - t0))"
