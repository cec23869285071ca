//! What the integration tests share: a real etcd on free loopback ports, kubectl, and
//! the workspace's test CRD.
#![allow(dead_code)]

#[path = "../../../tests/src/test_crd.rs"]
pub mod test_crd;

use std::net::TcpListener;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs openssl in `dir`, asserting success (certificates made as an operator makes
/// them).
pub fn openssl(dir: &std::path::Path, args: &[&str]) {
    let out = Command::new("openssl")
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run openssl ({e}); it must be installed"));
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A free port on 127.0.0.1.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .expect("bind 127.0.0.1:0")
        .local_addr()
        .expect("addr")
        .port()
}

/// A real etcd (Debian's `etcd`), killed on drop.
pub struct Etcd {
    child: Child,
    pub url: String,
    _dir: tempfile::TempDir,
}

impl Etcd {
    /// Starts etcd; fails the test (with the way to install it) when it is missing.
    pub async fn start() -> Etcd {
        let dir = tempfile::tempdir().expect("tempdir");
        let (client, peer) = (free_port(), free_port());
        let url = format!("http://127.0.0.1:{client}");
        let peer_url = format!("http://127.0.0.1:{peer}");
        let child = Command::new("etcd")
            .args(["--data-dir", &dir.path().join("etcd").display().to_string()])
            .args([
                "--listen-client-urls",
                &url,
                "--advertise-client-urls",
                &url,
            ])
            .args([
                "--listen-peer-urls",
                &peer_url,
                "--initial-advertise-peer-urls",
                &peer_url,
            ])
            .args(["--initial-cluster", &format!("default={peer_url}")])
            .args(["--experimental-watch-progress-notify-interval", "1s"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot run etcd ({e}): install it with `apt-get install -y etcd-server`")
            });
        let etcd = Etcd {
            child,
            url,
            _dir: dir,
        };
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            if crd_server::store::EtcdStore::connect(std::slice::from_ref(&etcd.url))
                .await
                .is_ok()
            {
                return etcd;
            }
            assert!(
                Instant::now() < deadline,
                "etcd did not answer on {} within 15 s",
                etcd.url
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

impl Drop for Etcd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Writes `text` to `dir/name` (a manifest for kubectl) and returns its path.
pub fn write(dir: &std::path::Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// Runs `kubectl -s URL ARGS...` with a throw-away kubeconfig and cache.
pub fn kubectl(url: &str, args: &[&str]) -> Output {
    let home = tempfile::tempdir().expect("kubectl home");
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

/// kubectl's stdout, asserting success.
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

/// kubectl's stderr, asserting failure.
pub fn kubectl_err(url: &str, args: &[&str]) -> String {
    let out = kubectl(url, args);
    assert!(
        !out.status.success(),
        "kubectl {args:?} should fail: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `kubectl ARGS -o json`, parsed.
pub fn json_of(url: &str, args: &[&str]) -> serde_json::Value {
    let mut all = args.to_vec();
    all.extend(["-o", "json"]);
    serde_json::from_str(&kubectl_ok(url, &all)).expect("kubectl -o json")
}

/// The header line of `kubectl get` (columns split on runs of spaces).
pub fn header(out: &str) -> Vec<String> {
    out.lines()
        .next()
        .unwrap_or("")
        .split("  ")
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// The row of `name` in `kubectl get` output, split on runs of spaces.
pub fn row(out: &str, name: &str) -> Vec<String> {
    let line = out
        .lines()
        .find(|l| l.split_whitespace().next() == Some(name))
        .unwrap_or_else(|| panic!("no row {name} in\n{out}"));
    line.split("  ")
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// A self-signed serving certificate for 127.0.0.1 written to `dir` (kubectl sends
/// tokens over TLS only).
pub fn self_signed_tls(dir: &std::path::Path) -> crd_server::TlsFiles {
    let cert = rcgen::generate_simple_self_signed(vec!["127.0.0.1".into()]).expect("certificate");
    let (cert_file, key_file) = (dir.join("tls.crt"), dir.join("tls.key"));
    std::fs::write(&cert_file, cert.cert.pem()).expect("write cert");
    std::fs::write(&key_file, cert.signing_key.serialize_pem()).expect("write key");
    crd_server::TlsFiles {
        cert: cert_file,
        key: key_file,
    }
}
