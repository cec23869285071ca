//! kube-apiserver's `kube-apiserver-autoregistration` post-start hook: a local
//! APIService (no `service`) for every group/version this server serves itself, as
//! kube-aggregator lists them — the built-in ones (`v1.`, `v1.apps`, ...) labelled
//! `kube-aggregator.kubernetes.io/automanaged: onstart` with kube-apiserver's
//! priorities, and each served version of a CRD (`v1.stable.example.com`) labelled
//! `"true"` with a CRD's priorities (1000, 100), deleted when no CRD serves it any more.
//! An APIService of the same name without the label is someone else's and is left
//! alone (a remote APIService taking over a CRD's version). Synced when the CRDs change
//! and every 30 s (an automanaged APIService deleted by hand comes back).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::client::{Client, Mutation};
use crate::api::discovery::{
    CRD_GROUP_PRIORITY, CRD_VERSION_PRIORITY, builtin_group_priority, builtin_version_priority,
};
use crate::api::kinds::{Resource, Subresource};
use crate::api::object::{name_of, str_at};
use crate::api::registry::Registry;
use crate::api::state::Shared;
use crate::api::status::ApiError;

/// The label kube-aggregator's autoregister controller marks its APIServices with.
pub const AUTOMANAGED: &str = "kube-aggregator.kubernetes.io/automanaged";
const RESYNC: Duration = Duration::from_secs(30);
const RETRY: Duration = Duration::from_secs(1);

/// One APIService as it should be.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Desired {
    group: String,
    version: String,
    group_priority: i64,
    version_priority: i64,
    /// `onstart` (built-in) or `true` (a CRD's).
    label: &'static str,
}

impl Desired {
    fn spec(&self) -> Value {
        json!({"group": self.group, "version": self.version,
               "groupPriorityMinimum": self.group_priority, "versionPriority": self.version_priority})
    }
}

/// Runs until the task is aborted.
pub async fn run(shared: Arc<Shared>) {
    let Some(apiservices) = shared
        .registry
        .resolve("apiregistration.k8s.io", "v1", "apiservices")
    else {
        return;
    };
    let client = Client::new(shared.clone(), "kube-apiserver");
    let mut changes = shared.registry.changes();
    loop {
        let wait = match sync(&client, &apiservices, &desired(&shared.registry)).await {
            Ok(()) => RESYNC,
            Err(_) => RETRY,
        };
        tokio::select! {
            changed = changes.changed() => if changed.is_err() { return },
            _ = tokio::time::sleep(wait) => {}
        }
    }
}

/// The APIServices of what `registry` serves, by name.
fn desired(registry: &Registry) -> BTreeMap<String, Desired> {
    let custom = registry.custom();
    let mut out = BTreeMap::new();
    for r in registry.resources() {
        let info = r.info();
        let (group, version) = (info.q.group.as_str(), info.version.as_str());
        let is_custom = custom
            .all()
            .iter()
            .any(|k| k.q.group == group && k.q.plural == info.q.plural);
        let d = if is_custom {
            Desired {
                group: group.into(),
                version: version.into(),
                group_priority: CRD_GROUP_PRIORITY,
                version_priority: CRD_VERSION_PRIORITY,
                label: "true",
            }
        } else {
            let Some(group_priority) = builtin_group_priority(group) else {
                continue;
            };
            Desired {
                group: group.into(),
                version: version.into(),
                group_priority,
                version_priority: builtin_version_priority(group, version),
                label: "onstart",
            }
        };
        out.insert(format!("{version}.{group}"), d);
    }
    out
}

/// Brings the stored APIServices to `desired`.
async fn sync(
    client: &Client,
    apiservices: &Resource,
    desired: &BTreeMap<String, Desired>,
) -> Result<(), ApiError> {
    let existing = client.list(apiservices, None).await?;
    let by_name: HashMap<&str, &Value> = existing.iter().map(|a| (name_of(a), a)).collect();
    for (name, d) in desired {
        match by_name.get(name.as_str()) {
            None => {
                let obj = json!({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
                    "metadata": {"name": name, "labels": {AUTOMANAGED: d.label}}, "spec": d.spec()});
                match client.create(apiservices, None, obj).await {
                    Ok(_) => {}
                    Err(e) if e.code == 409 => {}
                    Err(e) => return Err(e),
                }
            }
            Some(current) => {
                let managed = current.pointer(&label_pointer()).is_some();
                if managed && current.get("spec") != Some(&d.spec()) {
                    let spec = d.spec();
                    client
                        .update(apiservices, None, name, Subresource::Main, |obj| {
                            let mut next = obj.clone();
                            next["spec"] = spec.clone();
                            Mutation::Write(next)
                        })
                        .await?;
                }
            }
        }
    }
    for current in &existing {
        let name = name_of(current);
        let crd_managed = str_at(current, &label_pointer()) == "true";
        if crd_managed && !desired.contains_key(name) {
            client.delete(apiservices, None, name, None, None).await?;
        }
    }
    Ok(())
}

fn label_pointer() -> String {
    format!("/metadata/labels/{}", AUTOMANAGED.replace('/', "~1"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_desired_apiservice_has_no_service() {
        let d = Desired {
            group: "apps".into(),
            version: "v1".into(),
            group_priority: 17800,
            version_priority: 15,
            label: "onstart",
        };
        assert_eq!(
            d.spec(),
            json!({"group": "apps", "version": "v1", "groupPriorityMinimum": 17800, "versionPriority": 15})
        );
        assert_eq!(
            label_pointer(),
            "/metadata/labels/kube-aggregator.kubernetes.io~1automanaged"
        );
    }
}
