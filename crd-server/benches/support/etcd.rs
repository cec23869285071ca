//! A real etcd for the server benchmarks: one member on free loopback ports with its data
//! in a temporary directory, stopped (and its directory removed) when dropped.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

pub struct Etcd {
    child: Child,
    _dir: tempfile::TempDir,
    /// The client URL.
    pub url: String,
}

impl Drop for Etcd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port()
}

/// Starts etcd and waits until crd-server's store can reach it.
pub async fn start() -> Etcd {
    let dir = tempfile::tempdir().expect("tempdir");
    let (c, p) = (free_port(), free_port());
    let url = format!("http://127.0.0.1:{c}");
    let peer = format!("http://127.0.0.1:{p}");
    let child = Command::new("etcd")
        .args(["--data-dir", &dir.path().display().to_string()])
        .args([
            "--listen-client-urls",
            &url,
            "--advertise-client-urls",
            &url,
        ])
        .args([
            "--listen-peer-urls",
            &peer,
            "--initial-advertise-peer-urls",
            &peer,
        ])
        .args(["--initial-cluster", &format!("default={peer}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("etcd (apt-get install -y etcd-server)");
    // The guard owns the process from here: every path below stops it.
    let etcd = Etcd {
        child,
        _dir: dir,
        url,
    };
    for _ in 0..100 {
        if crd_server::store::EtcdStore::connect(std::slice::from_ref(&etcd.url))
            .await
            .is_ok()
        {
            return etcd;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("etcd did not start");
}
