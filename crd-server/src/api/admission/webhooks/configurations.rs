//! The webhooks of the stored configurations, ready to call: each configuration's
//! webhooks in order, configurations sorted by name (kube-apiserver's order), each
//! with its HTTPS client built once. The configurations are followed in the store
//! (listed, then watched from the list's revision; listed again when a watch breaks).

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock, Weak};
use std::time::Duration;

use crd_runtime::KubeVersion;
use crd_runtime::admission::policy::MatchConditions;
use futures::StreamExt;
use serde_json::Value;

use crate::follow::RETRY;
use crate::store::{EventKind, ListOptions, Store, WatchItem};
use crate::webhook_client::{ServiceRef, WebhookClient};

/// Where MutatingWebhookConfigurations are stored (the catalog's prefix).
pub const MUTATING_PREFIX: &str = "/registry/mutatingwebhookconfigurations/";
/// Where ValidatingWebhookConfigurations are stored.
pub const VALIDATING_PREFIX: &str = "/registry/validatingwebhookconfigurations/";

/// One webhook of a configuration, as the dispatchers use it.
pub struct Hook {
    /// The webhook's `name`.
    pub name: String,
    /// The webhook as stored (rules, selectors, `matchPolicy`, …), for matching.
    pub spec: Value,
    /// Its client, or why none could be built (a call then fails with it).
    pub client: Result<WebhookClient, String>,
    pub timeout: Duration,
    /// `failurePolicy: Ignore`.
    pub ignore_failures: bool,
    /// `sideEffects` is `None` or `NoneOnDryRun`: dry-run requests may call it.
    pub dry_run_safe: bool,
    /// `reinvocationPolicy: IfNeeded` (mutating webhooks).
    pub reinvoke: bool,
    /// The `AdmissionReview` version sent: the first of `admissionReviewVersions` the
    /// server knows, `None` when it knows none.
    pub review_version: Option<&'static str>,
    /// The compiled `matchConditions`.
    pub conditions: MatchConditions,
}

impl Hook {
    fn new(spec: &Value, version: KubeVersion) -> Hook {
        let text = |f: &str| spec.get(f).and_then(Value::as_str).unwrap_or("");
        let config = spec.get("clientConfig").cloned().unwrap_or(Value::Null);
        let service = config.get("service").map(|s| ServiceRef {
            namespace: s.get("namespace").and_then(Value::as_str).unwrap_or(""),
            name: s.get("name").and_then(Value::as_str).unwrap_or(""),
            path: s.get("path").and_then(Value::as_str),
            port: s
                .get("port")
                .and_then(Value::as_u64)
                .and_then(|p| u16::try_from(p).ok()),
        });
        let client = WebhookClient::new(
            config.get("url").and_then(Value::as_str),
            service,
            config.get("caBundle").and_then(Value::as_str),
            "admission webhook",
        );
        let seconds = spec
            .get("timeoutSeconds")
            .and_then(Value::as_u64)
            .unwrap_or(10);
        let review_version = spec
            .get("admissionReviewVersions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .find_map(|v| match v.as_str() {
                Some("v1") => Some("v1"),
                Some("v1beta1") => Some("v1beta1"),
                _ => None,
            });
        Hook {
            name: text("name").to_string(),
            client,
            timeout: Duration::from_secs(seconds),
            ignore_failures: text("failurePolicy") == "Ignore",
            dry_run_safe: matches!(text("sideEffects"), "None" | "NoneOnDryRun"),
            reinvoke: text("reinvocationPolicy") == "IfNeeded",
            review_version,
            conditions: MatchConditions::compile(
                spec.get("matchConditions")
                    .and_then(Value::as_array)
                    .map_or(&[][..], Vec::as_slice),
                false,
                version,
            ),
            spec: spec.clone(),
        }
    }
}

/// The webhooks of every configuration of one kind, in calling order.
#[derive(Default)]
pub struct HookSet {
    pub hooks: Vec<Arc<Hook>>,
}

/// What the follower keeps: each configuration (by storage key) with its webhooks.
pub struct Followed {
    /// The release whose CEL the match conditions follow.
    version: KubeVersion,
    configs: BTreeMap<String, (Value, Vec<Arc<Hook>>)>,
}

impl Followed {
    pub fn new(version: KubeVersion) -> Followed {
        Followed {
            version,
            configs: BTreeMap::new(),
        }
    }

    fn put(&mut self, key: &str, config: Value) {
        if self.configs.get(key).is_some_and(|(c, _)| *c == config) {
            return;
        }
        let hooks = config
            .get("webhooks")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|h| Arc::new(Hook::new(h, self.version)))
            .collect();
        self.configs.insert(key.to_string(), (config, hooks));
    }

    /// The set to call: keys sort as the configurations' names do (one prefix).
    fn set(&self) -> HookSet {
        HookSet {
            hooks: self
                .configs
                .values()
                .flat_map(|(_, hooks)| hooks.iter().cloned())
                .collect(),
        }
    }
}

/// The current webhooks of one kind, shared with the follower.
pub type Current = RwLock<Arc<HookSet>>;

/// Reads the configurations under `prefix` once, for the server's start.
pub async fn load(
    store: &dyn Store,
    prefix: &str,
    version: KubeVersion,
) -> (Followed, Option<crate::store::Revision>) {
    let mut followed = Followed::new(version);
    let Ok(listed) = store.list(prefix, ListOptions::default()).await else {
        return (followed, None);
    };
    for kv in &listed.items {
        if let Ok(v) = serde_json::from_slice(&kv.value) {
            followed.put(&kv.key, v);
        }
    }
    (followed, Some(listed.revision))
}

/// Publishes `followed` to `current`.
pub fn publish(current: &Current, followed: &Followed) {
    *current.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(followed.set());
}

/// Follows the configurations under `prefix` from `revision` (`None`: list first)
/// into `current`, until `current` is dropped.
pub async fn follow(
    store: Arc<dyn Store>,
    prefix: &'static str,
    current: Weak<Current>,
    mut followed: Followed,
    mut revision: Option<crate::store::Revision>,
) {
    loop {
        let from = match revision {
            Some(r) => r,
            None => {
                let Ok(listed) = store.list(prefix, ListOptions::default()).await else {
                    tokio::time::sleep(RETRY).await;
                    continue;
                };
                followed = Followed::new(followed.version);
                for kv in &listed.items {
                    if let Ok(v) = serde_json::from_slice(&kv.value) {
                        followed.put(&kv.key, v);
                    }
                }
                let Some(current) = current.upgrade() else {
                    return;
                };
                publish(&current, &followed);
                listed.revision
            }
        };
        revision = None;
        let Ok(mut events) = store.watch(prefix, from).await else {
            tokio::time::sleep(RETRY).await;
            continue;
        };
        while let Some(Ok(item)) = events.next().await {
            let WatchItem::Event(e) = item else { continue };
            match e.kind {
                EventKind::Put => match serde_json::from_slice(&e.kv.value) {
                    Ok(v) => followed.put(&e.kv.key, v),
                    Err(_) => continue,
                },
                EventKind::Delete => {
                    followed.configs.remove(&e.kv.key);
                }
            }
            let Some(current) = current.upgrade() else {
                return;
            };
            publish(&current, &followed);
        }
        if current.strong_count() == 0 {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn config(hooks: &[&str]) -> Value {
        let hooks: Vec<Value> = hooks
            .iter()
            .map(|n| {
                json!({"name": n, "clientConfig": {"url": "https://127.0.0.1:1/x"},
                            "admissionReviewVersions": ["v2", "v1beta1", "v1"],
                            "sideEffects": "NoneOnDryRun", "failurePolicy": "Ignore"})
            })
            .collect();
        json!({"webhooks": hooks})
    }

    #[test]
    fn webhooks_are_ordered_by_configuration_name_then_position() {
        let mut f = Followed::new(KubeVersion::default());
        f.put(&format!("{VALIDATING_PREFIX}b"), config(&["b.z", "b.a"]));
        f.put(&format!("{VALIDATING_PREFIX}a"), config(&["a.y"]));
        let names: Vec<String> = f.set().hooks.iter().map(|h| h.name.clone()).collect();
        assert_eq!(names, ["a.y", "b.z", "b.a"]);
        let h = &f.set().hooks[0];
        assert_eq!(h.review_version, Some("v1beta1"));
        assert!(h.ignore_failures && h.dry_run_safe && !h.reinvoke);
        assert_eq!(h.timeout, Duration::from_secs(10));
        // No caBundle: the call will fail with the reason.
        assert_eq!(
            h.client.as_ref().err().map(String::as_str),
            Some("caBundle holds no certificate")
        );
    }
}
