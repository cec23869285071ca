#!/usr/bin/env bash
# The official Python client (`pip install kubernetes`, in a venv under the target
# directory, reused between runs) against crd-server's 410s and injected faults.
# Usage: scripts/python-resilience.sh [path/to/crd-server]  (default: builds it).
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
bin="${1:-}"
if [ -z "$bin" ]; then
  cargo build -q -p crd-server --bin crd-server
  bin="$target/debug/crd-server"
fi
venv="$target/python-resilience-venv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q kubernetes
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin" --in-memory --listen "127.0.0.1:$port" \
  --fault 'verb=create,resource=configmaps,code=500,count=1' \
  --fault 'verb=list,resource=configmaps,code=429,count=1' \
  > /dev/null 2> "$target/python-resilience-server.log" &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do
  curl -sf "http://127.0.0.1:$port/readyz" > /dev/null && break
  sleep 0.1
done
"$venv/bin/python" scripts/python-resilience.py "http://127.0.0.1:$port"
grep -q 'GET /api/v1/namespaces/default/configmaps answered 429 TooManyRequests' \
  "$target/python-resilience-server.log" || { echo "the 429 was not injected"; exit 1; }
