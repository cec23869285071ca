//! The `crd-server` binary: its start-up line, start-up time, and that `kill -9` after a
//! 201 loses nothing with the embedded store.

mod support;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use support::{free_port, kubectl_ok};

struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts the binary and returns it with its first stdout line and the time to it.
fn start(args: &[&str]) -> (Proc, String, Duration) {
    let t0 = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_crd-server"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("run crd-server");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx
        .recv_timeout(Duration::from_secs(10))
        .expect("a start-up line within 10 s");
    (Proc(child), line.trim_end().to_string(), t0.elapsed())
}

#[test]
fn kill_9_after_201_loses_nothing_and_start_up_is_quick() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let data_arg = data.display().to_string();
    let crd = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/fixtures/crontab/crd-full.yaml"
    );
    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let url = format!("http://{listen}");
    let (server, line, took) =
        start(&["--listen", &listen, "--data-dir", &data_arg, "--crds", crd]);
    assert_eq!(
        line,
        format!("crd-server listening on {url} (store: embedded {data_arg})")
    );
    assert!(took < Duration::from_secs(2), "start-up took {took:?}");
    // Write, then kill -9 right after the 201s.
    let mut names = Vec::new();
    for i in 0..20 {
        let name = format!("durable-{i}");
        let manifest = dir.path().join(format!("{name}.yaml"));
        std::fs::write(&manifest, format!("apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {{name: {name}}}\nspec: {{cronSpec: '* * * * */5', image: x}}\n")).expect("write");
        assert!(
            kubectl_ok(&url, &["create", "-f", &manifest.display().to_string()])
                .contains("created")
        );
        names.push(name);
    }
    let holder = |url: &str| {
        kubectl_ok(
            url,
            &[
                "get",
                "lease",
                "kube-controller-manager",
                "-n",
                "kube-system",
                "-o",
                "jsonpath={.spec.holderIdentity}",
            ],
        )
    };
    let killed_holder = holder(&url);
    assert!(!killed_holder.is_empty());
    let pid = server.0.id().to_string();
    let killed = Command::new("kill")
        .args(["-9", &pid])
        .status()
        .expect("kill");
    assert!(killed.success());
    drop(server);
    let (_again, line, _) = start(&["--listen", &listen, "--data-dir", &data_arg]);
    assert!(line.starts_with("crd-server listening on"), "{line}");
    let listed = kubectl_ok(&url, &["get", "crontabs", "-o", "name"]);
    for name in &names {
        assert!(
            listed.contains(&format!("crontab.stable.example.com/{name}")),
            "{name} survived kill -9:\n{listed}"
        );
    }
    // The Lease the killed process held is taken over at once (no other process can
    // open the store), not after its 15 s: the controllers run, a namespace goes.
    let t0 = Instant::now();
    while holder(&url) == killed_holder {
        assert!(
            t0.elapsed() < Duration::from_secs(5),
            "the stale Lease held the controllers back"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    kubectl_ok(&url, &["create", "namespace", "after-restart"]);
    kubectl_ok(
        &url,
        &["delete", "namespace", "after-restart", "--timeout=5s"],
    );
}

#[test]
fn bad_arguments_are_clear_errors() {
    let out = Command::new(env!("CARGO_BIN_EXE_crd-server"))
        .args(["--listen", "0.0.0.0:0", "--in-memory"])
        .output()
        .expect("run");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("requires --tls-cert-file, --tls-private-key-file and --token-file"),
        "{err}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_crd-server"))
        .args([
            "--listen",
            "127.0.0.1:0",
            "--in-memory",
            "--crds",
            "/nonexistent.yaml",
        ])
        .output()
        .expect("run");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent.yaml"));
    for (args, needle) in [
        (
            &["--kube-version", "1.29"][..],
            "unsupported Kubernetes version \"1.29\": use 1.30 to 1.37",
        ),
        (
            &["--feature-gates", "CRDValidationRatcheting=false"][..],
            "cannot be turned off in Kubernetes 1.37",
        ),
        (
            &["--feature-gates", "Foo=true"][..],
            "unknown feature gate \"Foo=true\"",
        ),
        (
            &["--authorization-mode", "RBAC,Node"][..],
            "authorization-mode \"Node\" is not a valid mode (valid modes: AlwaysAllow, AlwaysDeny, RBAC, Webhook)",
        ),
        (
            &["--token-auth-file", "/nonexistent.csv"][..],
            "--token-auth-file: /nonexistent.csv:",
        ),
        (
            &["--audit-policy-file", "/nonexistent-policy.yaml"][..],
            "--audit-policy-file: /nonexistent-policy.yaml:",
        ),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_crd-server"))
            .args(["--listen", "127.0.0.1:0", "--in-memory"])
            .args(args)
            .output()
            .expect("run");
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}
