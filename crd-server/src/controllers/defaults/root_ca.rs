//! The root CA publisher, as kube-controller-manager's `root-ca-cert-publisher`: a
//! ConfigMap `kube-root-ca.crt` in every namespace whose `ca.crt` is the CA bundle
//! Pods verify the API server with, described by the `kubernetes.io/description`
//! annotation; created again when deleted, put back when its data is changed.
//!
//! The bundle is the certificates of `--root-ca-file` (kube-controller-manager's flag);
//! without it, of `--tls-cert-file` (the serving chain, what a client verifying the
//! server needs); over plain HTTP, empty.

use std::path::Path;
use std::sync::Arc;

use serde_json::{Value, json};

use super::{namespace_gone, per_namespace};
use crate::api::kinds::Subresource;
use crate::controllers::cache::Informer;
use crate::controllers::client::Mutation;
use crate::controllers::workload::{Api, Next, Reconciler, each_key};

/// The component its writes come from.
pub const COMPONENT: &str = "root-ca-cert-publisher";
/// The ConfigMap in every namespace.
pub const NAME: &str = "kube-root-ca.crt";
/// The annotation describing it.
pub const DESCRIPTION_ANNOTATION: &str = "kubernetes.io/description";
/// Its text (upstream's, so tools that compare it match).
pub const DESCRIPTION: &str = "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.";

const BEGIN: &str = "-----BEGIN CERTIFICATE-----";
const END: &str = "-----END CERTIFICATE-----";

/// The PEM certificates of `text`, each from its BEGIN line to its END line.
pub fn certificates(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(BEGIN) {
        let Some(len) = rest[start..].find(END) else {
            break;
        };
        out.push(&rest[start..start + len + END.len()]);
        rest = &rest[start + len + END.len()..];
    }
    out
}

/// The bundle to publish: the file's certificates; an error naming the file when it
/// cannot be read or holds no certificate.
pub fn read(path: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let certs = certificates(&text);
    if certs.is_empty() {
        return Err(format!(
            "{}: no PEM certificate in the file",
            path.display()
        ));
    }
    Ok(certs.join("\n") + "\n")
}

/// Runs the controller until aborted, publishing `bundle`.
pub async fn run(api: Api, bundle: String) {
    let Ok(maps) = api.informer("", "configmaps") else {
        return;
    };
    let publisher = Publisher {
        api: api.clone(),
        maps: maps.clone(),
        bundle: bundle.into(),
    };
    per_namespace(&api, &maps, NAME, true, each_key(Arc::new(publisher))).await;
}

/// Whether the ConfigMap holds exactly the bundle and is described.
fn in_place(cm: &Value, data: &Value) -> bool {
    cm.get("data") == Some(data)
        && cm
            .pointer("/metadata/annotations")
            .and_then(|a| a[DESCRIPTION_ANNOTATION].as_str())
            .is_some_and(|d| !d.is_empty())
}

struct Publisher {
    api: Api,
    maps: Arc<Informer>,
    bundle: Arc<str>,
}

impl Reconciler for Publisher {
    /// A pass over the namespace `ns`.
    async fn sync(&self, ns: &str) -> Result<Next, String> {
        let data = json!({"ca.crt": &*self.bundle});
        let Some(current) = self.maps.get(ns, NAME) else {
            let cm = json!({
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {
                    "name": NAME,
                    "namespace": ns,
                    "annotations": {DESCRIPTION_ANNOTATION: DESCRIPTION},
                },
                "data": data,
            });
            return match self.api.create(&self.maps, ns, cm).await {
                Ok(_) => Ok(Next::Done),
                Err(e) if namespace_gone(&e) => Ok(Next::Done),
                Err(e) => Err(e.message),
            };
        };
        if in_place(&current, &data) {
            return Ok(Next::Done);
        }
        let mutate = |cm: &Value| {
            if in_place(cm, &data) {
                return Mutation::Keep;
            }
            let mut next = cm.clone();
            next["data"] = data.clone();
            let meta = crate::api::object::meta_mut(&mut next);
            let annotations = meta.entry("annotations").or_insert_with(|| json!({}));
            annotations[DESCRIPTION_ANNOTATION] = json!(DESCRIPTION);
            Mutation::Write(next)
        };
        self.api
            .update(&self.maps, ns, NAME, Subresource::Main, mutate)
            .await
            .map(|_| Next::Done)
            .map_err(|e| e.message)
    }
}
