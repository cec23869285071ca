#!/usr/bin/env bash
# The official Python client (`pip install kubernetes`, the venv of
# python-resilience.sh) against crd-server's extension points: a TokenReview and a
# SubjectAccessReview webhook (scripts/python-webhooks.py) deciding for a user RBAC does
# not know, and an aggregated API — crd-server over TLS with a front proxy
# (--requestheader-*, --proxy-client-*), the metrics-apiserver example registered behind
# it: discovery, list and get through the proxy, the 503 once the extension server is
# gone. Certificates are made with openssl.
# Usage: scripts/python-extensions.sh [path/to/crd-server [path/to/metrics-apiserver]]
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
bin="${1:-}"
metrics="${2:-}"
if [ -z "$bin" ] || [ -z "$metrics" ]; then
  cargo build -q -p crd-server --bin crd-server
  cargo build -q -p crd-toolkit-examples --example metrics-apiserver
  bin="$target/debug/crd-server"
  metrics="$target/debug/examples/metrics-apiserver"
fi
venv="$target/python-resilience-venv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q kubernetes
fi
dir=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$dir"; }
trap cleanup EXIT

# The server's certificate, the front proxy's CA and its client certificate.
ec() { openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes "$@" 2>/dev/null; }
ec -x509 -days 1 -subj /CN=serving-ca -keyout "$dir/ca.key" -out "$dir/ca.crt"
ec -subj /CN=127.0.0.1 -keyout "$dir/tls.key" -out "$dir/tls.csr"
printf 'subjectAltName=IP:127.0.0.1\n' > "$dir/san.ext"
openssl x509 -req -in "$dir/tls.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" -CAcreateserial \
  -days 1 -extfile "$dir/san.ext" -out "$dir/tls.crt" 2>/dev/null
ec -x509 -days 1 -subj /CN=front-proxy-ca -keyout "$dir/fp-ca.key" -out "$dir/fp-ca.crt"
ec -subj /CN=front-proxy-client -keyout "$dir/fp.key" -out "$dir/fp.csr"
printf 'extendedKeyUsage=clientAuth\n' > "$dir/client.ext"
openssl x509 -req -in "$dir/fp.csr" -CA "$dir/fp-ca.crt" -CAkey "$dir/fp-ca.key" -CAcreateserial \
  -days 1 -extfile "$dir/client.ext" -out "$dir/fp.crt" 2>/dev/null
openssl rand -hex 16 > "$dir/token"

# The webhooks (serving with the server's certificate) and their kubeconfigs.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
webhook_port=$(free_port)
"$venv/bin/python" scripts/python-webhooks.py "$webhook_port" "$dir/tls.crt" "$dir/tls.key" \
  > "$dir/webhooks.out" 2>&1 &
pids+=($!)
for path in authenticate authorize; do
  cat > "$dir/$path.yaml" <<YAML
apiVersion: v1
kind: Config
clusters:
- name: webhook
  cluster: {server: "https://127.0.0.1:$webhook_port/$path", certificate-authority: "$dir/ca.crt"}
users:
- name: apiserver
  user: {}
contexts:
- name: webhook
  context: {cluster: webhook, user: apiserver}
current-context: webhook
YAML
done
for _ in $(seq 100); do grep -q serving "$dir/webhooks.out" && break; sleep 0.1; done

port=$(free_port)
"$bin" --in-memory --listen "127.0.0.1:$port" \
  --tls-cert-file "$dir/tls.crt" --tls-private-key-file "$dir/tls.key" --token-file "$dir/token" \
  --requestheader-client-ca-file "$dir/fp-ca.crt" --requestheader-allowed-names front-proxy-client \
  --requestheader-username-headers X-Remote-User --requestheader-group-headers X-Remote-Group \
  --requestheader-extra-headers-prefix X-Remote-Extra- \
  --proxy-client-cert-file "$dir/fp.crt" --proxy-client-key-file "$dir/fp.key" \
  --authentication-token-webhook-config-file "$dir/authenticate.yaml" \
  --authorization-mode RBAC,Webhook --authorization-webhook-config-file "$dir/authorize.yaml" \
  > /dev/null 2> "$target/python-extensions-server.log" &
pids+=($!)
url="https://127.0.0.1:$port"
export KUBECONFIG="$dir/kubeconfig"
kubectl config set-cluster crd --server "$url" --certificate-authority "$dir/ca.crt" --embed-certs > /dev/null
kubectl config set-credentials admin --token "$(cat "$dir/token")" > /dev/null
kubectl config set-context crd --cluster crd --user admin > /dev/null
kubectl config use-context crd > /dev/null
for _ in $(seq 100); do
  kubectl get --raw /readyz > /dev/null 2>&1 && break
  sleep 0.1
done

kubectl create -f - > /dev/null <<'YAML'
apiVersion: v1
kind: Node
metadata: {name: node-a}
YAML
kubectl patch node node-a --subresource=status --type=merge \
  -p '{"status":{"capacity":{"cpu":"4","memory":"8Gi","pods":"110"}}}' > /dev/null

"$metrics" --register > "$dir/metrics.out" 2> "$target/python-extensions-metrics.log" &
pids+=($!)
metrics_pid=$!
for _ in $(seq 300); do
  grep -q '^registered' "$dir/metrics.out" && break
  kill -0 "$metrics_pid" || { cat "$target/python-extensions-metrics.log"; exit 1; }
  sleep 0.1
done
grep -q '^registered' "$dir/metrics.out" || { echo "metrics-apiserver did not register"; exit 1; }
kubectl wait --for=condition=Available apiservice/v1.metrics.example.com --timeout=30s > /dev/null
# The proxy follows APIServices by a watch: it routes by the condition a moment later.
for _ in $(seq 100); do
  kubectl get --raw /apis/metrics.example.com/v1/nodemetrics > /dev/null 2>&1 && break
  sleep 0.2
done

"$venv/bin/python" scripts/python-extensions.py "$KUBECONFIG" webhooks
"$venv/bin/python" scripts/python-extensions.py "$KUBECONFIG" up

# The extension server gone: requests get 503 (the dial's error until the APIService's
# next check, then `service unavailable`).
kill "$metrics_pid"
"$venv/bin/python" scripts/python-extensions.py "$KUBECONFIG" down
