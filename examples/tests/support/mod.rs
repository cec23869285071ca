//! What the example-binary tests share: building an example once per test binary,
//! starting it, POSTing to it over TLS, and kubectl with a throwaway home.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use serde_json::Value;
use tokio_rustls::rustls;

/// `target/<profile>/examples/NAME`, brought up to date by cargo (a no-op after
/// `cargo test --workspace`, which builds the examples).
pub fn example_binary(name: &str) -> PathBuf {
    static BUILT: std::sync::Mutex<bool> = std::sync::Mutex::new(false);
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap().join("examples");
    let bin = dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if !*built {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut build = Command::new(cargo);
        // The package variables `cargo test` sets for this test are not the ones of a
        // plain build: build scripts watching them (ring's) would rerun, and rebuild
        // crd-server here and again at the next `cargo test`.
        for (var, _) in std::env::vars_os() {
            let var = var.to_string_lossy();
            if [
                "CARGO_PKG_",
                "CARGO_MANIFEST_",
                "CARGO_CRATE_",
                "CARGO_BIN_",
                "CARGO_PRIMARY_",
            ]
            .iter()
            .any(|p| var.starts_with(p))
                || var == "CARGO_TARGET_TMPDIR"
            {
                build.env_remove(var.as_ref());
            }
        }
        // The whole workspace's examples, as `cargo test --workspace` builds them: the
        // same features everywhere, so after that run there is nothing to build (one
        // package's build would resolve other features and rebuild the server).
        let status = build
            .args(["build", "-q", "--workspace", "--examples"])
            .status()
            .unwrap();
        assert!(status.success(), "building the examples failed");
        *built = true;
    }
    assert!(
        bin.is_file(),
        "{} is missing after the build",
        bin.display()
    );
    bin
}

/// Starts the example `name` with `args`, and the `https://...` URL it prints first
/// (`listening on URL`).
pub fn spawn_listening(name: &str, args: &[&std::ffi::OsStr]) -> (Child, String) {
    let mut child = Command::new(example_binary(name))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_string();
    (child, url)
}

/// POSTs `body` to `url` over TLS, trusting only `ca`.
pub async fn post(url: &str, ca: &Path, body: Vec<u8>) -> (u16, Value) {
    let pem = std::fs::read(ca).unwrap();
    let mut roots = rustls::RootCertStore::empty();
    for cert in rustls_pemfile::certs(&mut pem.as_slice()) {
        roots.add(cert.unwrap()).unwrap();
    }
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    let uri: hyper::Uri = url.parse().unwrap();
    let authority = uri.authority().unwrap().clone();
    let tcp = tokio::net::TcpStream::connect(authority.as_str())
        .await
        .unwrap();
    let server_name = rustls::pki_types::ServerName::try_from("127.0.0.1").unwrap();
    let tls = tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(server_name, tcp)
        .await
        .expect("TLS handshake trusting the written CA");
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(tls))
            .await
            .unwrap();
    tokio::spawn(conn);
    let request = hyper::Request::post(uri.path())
        .header("host", authority.as_str())
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(body)))
        .unwrap();
    let response = tokio::time::timeout(Duration::from_secs(10), sender.send_request(request))
        .await
        .expect("answer within 10 s")
        .unwrap();
    let status = response.status().as_u16();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

/// kubectl against `url`, with a fresh home and kubeconfig.
pub fn kubectl(url: &str, args: &[&str]) -> std::process::Output {
    let home = tempfile::tempdir().unwrap();
    Command::new("kubectl")
        .arg("-s")
        .arg(url)
        .args(args)
        .env("KUBECONFIG", home.path().join("config"))
        .env("HOME", home.path())
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run kubectl ({e}); it must be installed and on PATH"))
}

/// kubectl that must succeed: its stdout.
pub fn kubectl_ok(url: &str, args: &[&str]) -> String {
    let out = kubectl(url, args);
    assert!(
        out.status.success(),
        "kubectl {args:?} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// kubectl that must fail: its stderr.
pub fn kubectl_err(url: &str, args: &[&str]) -> String {
    let out = kubectl(url, args);
    assert!(!out.status.success(), "kubectl {args:?} should fail");
    String::from_utf8_lossy(&out.stderr).into_owned()
}
