//! The kubectl side of the admission webhook tests: a server, kubectl run off the
//! runtime's threads, manifests, webhook configurations that are waited for, and
//! helpers for the webhooks' answers.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::admission_webhook::{PROBE_MESSAGE, PROBE_PATH, Reply, TestWebhook};
use crate::support;

/// A server, kubectl's URL for it, and a directory for manifests.
pub struct Env {
    pub server: crd_server::TestServer,
    pub url: String,
    dir: tempfile::TempDir,
}

impl Env {
    pub async fn start() -> Env {
        let server = crd_server::TestServer::builder()
            .start()
            .await
            .expect("server");
        Env {
            url: server.url(),
            server,
            dir: tempfile::tempdir().expect("dir"),
        }
    }

    /// Runs kubectl off the runtime's threads: (success, stdout, stderr).
    pub async fn kubectl(&self, args: &[&str]) -> (bool, String, String) {
        let url = self.url.clone();
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let out = tokio::task::spawn_blocking(move || {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            support::kubectl(&url, &args)
        })
        .await
        .expect("kubectl");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    pub async fn ok(&self, args: &[&str]) -> String {
        let (ok, out, err) = self.kubectl(args).await;
        assert!(ok, "kubectl {args:?} failed: {out}{err}");
        out
    }

    pub async fn err(&self, args: &[&str]) -> String {
        let (ok, out, err) = self.kubectl(args).await;
        assert!(!ok, "kubectl {args:?} should fail: {out}");
        err
    }

    /// Writes `object` as a manifest; its path.
    pub fn file(&self, object: &Value) -> String {
        let name = format!("{}.json", uuid::Uuid::new_v4());
        support::write(self.dir.path(), &name, &object.to_string())
    }

    /// `kubectl create -f` of `object` with more `args`: (success, stdout, stderr).
    pub async fn create(&self, object: &Value, args: &[&str]) -> (bool, String, String) {
        let file = self.file(object);
        let mut all = vec!["create", "-f", file.as_str()];
        all.extend(args);
        self.kubectl(&all).await
    }

    /// Creates a webhook configuration of `kind` (`Validating` or `Mutating`) named
    /// `name` with `hooks` plus a probe hook, and waits until the server calls it.
    pub async fn configure(
        &self,
        kind: &str,
        name: &str,
        webhook: &TestWebhook,
        hooks: Vec<Value>,
    ) {
        let mut hooks = hooks;
        let mut probe = webhook.hook(
            &format!("probe.{name}.example.com"),
            PROBE_PATH,
            json!([{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"]}]),
        );
        probe["objectSelector"] = json!({"matchLabels": {"probe": name}});
        hooks.push(probe);
        let config = json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": format!("{kind}WebhookConfiguration"),
            "metadata": {"name": name},
            "webhooks": hooks,
        });
        let (ok, out, err) = self.create(&config, &[]).await;
        assert!(ok, "creating {name}: {out}{err}");
        let probe = configmap("probe", json!({"probe": name}));
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let (ok, _, err) = self.create(&probe, &["--dry-run=server"]).await;
            if !ok && err.contains(PROBE_MESSAGE) {
                return;
            }
            assert!(Instant::now() < deadline, "{name} never took effect: {err}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// A stored object's JSON.
    pub async fn get(&self, args: &[&str]) -> Value {
        let mut all = vec!["get"];
        all.extend(args);
        all.extend(["-o", "json"]);
        serde_json::from_str(&self.ok(&all).await).expect("json")
    }
}

pub fn configmap(name: &str, labels: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap",
           "metadata": {"name": name, "namespace": "default", "labels": labels},
           "data": {"k": "v"}})
}

pub fn rules(resources: &[&str], operations: &[&str]) -> Value {
    json!([{"operations": operations, "apiGroups": [""], "apiVersions": ["v1"], "resources": resources}])
}

/// The patch adding label `key=value` to the request's object.
pub fn add_label(request: &Value, key: &str, value: &str) -> Reply {
    let has_labels = request
        .pointer("/object/metadata/labels")
        .is_some_and(Value::is_object);
    let op = if has_labels {
        json!({"op": "add", "path": format!("/metadata/labels/{key}"), "value": value})
    } else {
        json!({"op": "add", "path": "/metadata/labels", "value": {key: value}})
    };
    Reply::patch(json!([op]))
}

pub fn name_of(request: &Value) -> String {
    request
        .pointer("/object/metadata/name")
        .or_else(|| request.pointer("/oldObject/metadata/name"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}
