//! Regenerates crd-server's etcd v3 client messages and stubs from the trimmed .proto
//! files in this tool's `proto/` (kept out of crd-server's package: a user builds the
//! generated code, not its sources): `cargo run --manifest-path tools/etcd-proto/Cargo.toml` (or
//! scripts/generate-etcd-proto.sh). protox parses the files in Rust, so no protoc is
//! needed; the output is checked in and the server's build runs no generator.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = root.join("crd-server/src/store/etcd");
    let protos = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("proto");
    let fds = match protox::compile([protos.join("rpc.proto")], [&protos]) {
        Ok(fds) => fds,
        Err(e) => {
            eprintln!("error: {}: {e}", protos.display());
            return ExitCode::FAILURE;
        }
    };
    let built = tonic_prost_build::configure()
        .build_server(false)
        .build_client(true)
        // Channels are made by crd-server (its own endpoints and failover).
        .build_transport(false)
        .emit_rerun_if_changed(false)
        // Keys and values as `bytes::Bytes`: a value goes out without a copy and comes
        // back as a slice of the received frame.
        .bytes(".")
        .out_dir(&dir)
        .compile_fds(fds);
    match built {
        Ok(()) => {
            println!("wrote {}/{{etcdserverpb,mvccpb}}.rs", dir.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: generating into {}: {e}", dir.display());
            ExitCode::FAILURE
        }
    }
}
