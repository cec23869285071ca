#!/usr/bin/env bash
# Regenerates crd-server/src/store/etcd/{etcdserverpb,mvccpb}.rs (etcd v3 messages and
# tonic client stubs) from tools/etcd-proto/proto/*.proto. The generator is its
# own workspace (tools/etcd-proto), so protox and the code generators stay out of the
# default build; run this after editing a .proto file and commit the output.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --quiet --release --manifest-path tools/etcd-proto/Cargo.toml
rustfmt --edition 2024 crd-server/src/store/etcd/etcdserverpb.rs crd-server/src/store/etcd/mvccpb.rs
