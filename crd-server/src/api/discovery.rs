//! Discovery (`/api`, `/apis`, `/apis/{group}[/{version}]`) and `/version`, built from
//! the registry's kinds. Aggregated discovery is not served: kubectl asks for it with
//! JSON as a fallback in the same `Accept`, gets the legacy documents and uses them.

use crd_runtime::KubeVersion;
use serde_json::{Value, json};

use super::kinds::Resource;
use super::priority::compare_versions;
use super::registry::Registry;

fn group_object(name: &str, versions: &[String]) -> Value {
    let versions: Vec<Value> = versions
        .iter()
        .map(|v| json!({"groupVersion": format!("{name}/{v}"), "version": v}))
        .collect();
    json!({"name": name, "versions": versions, "preferredVersion": versions.first().cloned().unwrap_or(Value::Null)})
}

/// The named groups with their versions in priority order, built-in groups first.
fn groups(resources: &[Resource]) -> Vec<(String, Vec<String>)> {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for r in resources {
        let info = r.info();
        if info.q.group.is_empty() {
            continue;
        }
        match groups.iter_mut().find(|(g, _)| *g == info.q.group) {
            Some((_, vs)) => {
                if !vs.contains(&info.version) {
                    vs.push(info.version.clone());
                    vs.sort_by(|a, b| compare_versions(a, b));
                }
            }
            None => groups.push((info.q.group.clone(), vec![info.version.clone()])),
        }
    }
    groups
}

/// `/api`.
pub fn core_versions(host: &str) -> Value {
    json!({"kind": "APIVersions", "versions": ["v1"],
           "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": host}]})
}

/// `/apis`.
pub fn group_list(registry: &Registry) -> Value {
    let groups: Vec<Value> = groups(&registry.resources())
        .iter()
        .map(|(g, vs)| group_object(g, vs))
        .collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

/// `/apis/{group}`.
pub fn group(registry: &Registry, name: &str) -> Option<Value> {
    let (g, vs) = groups(&registry.resources())
        .into_iter()
        .find(|(g, _)| g == name)?;
    let mut obj = group_object(&g, &vs);
    obj["kind"] = json!("APIGroup");
    obj["apiVersion"] = json!("v1");
    Some(obj)
}

/// The `APIResource` entries of one kind: the kind, then its subresources.
fn entries(res: &Resource) -> Vec<Value> {
    let info = res.info();
    let mut main = json!({"name": info.q.plural, "singularName": info.singular, "namespaced": info.namespaced,
                          "kind": info.q.kind, "verbs": info.verbs});
    if !info.short_names.is_empty() {
        main["shortNames"] = json!(info.short_names);
    }
    if !info.categories.is_empty() {
        main["categories"] = json!(info.categories);
    }
    let mut out = vec![main];
    for sub in &info.subresources {
        let Some(name) = sub.name() else { continue };
        let mut entry = json!({"name": format!("{}/{name}", info.q.plural), "singularName": "",
                               "namespaced": info.namespaced, "kind": info.q.kind,
                               "verbs": sub.verbs()});
        if let Some((group, version, kind)) = sub.kind() {
            if !group.is_empty() {
                entry["group"] = json!(group);
                entry["version"] = json!(version);
            }
            entry["kind"] = json!(kind);
        }
        out.push(entry);
    }
    out
}

/// `/api/v1` (group `""`) or `/apis/{group}/{version}`.
pub fn resource_list(registry: &Registry, group: &str, version: &str) -> Option<Value> {
    let resources: Vec<Value> = registry
        .resources()
        .iter()
        .filter(|r| r.info().q.group == group && r.info().version == version)
        .flat_map(entries)
        .collect();
    if resources.is_empty() {
        return None;
    }
    let mut list =
        json!({"kind": "APIResourceList", "groupVersion": version, "resources": resources});
    if !group.is_empty() {
        list["apiVersion"] = json!("v1");
        list["groupVersion"] = json!(format!("{group}/{version}"));
    }
    Some(list)
}

/// `/version`: the Kubernetes version whose API this server follows (`--kube-version`).
pub fn version(kube: KubeVersion) -> Value {
    json!({"major": "1", "minor": kube.minor().to_string(), "gitVersion": format!("v{kube}.0+crd-server"), "gitCommit": "",
           "gitTreeState": "clean", "buildDate": "1970-01-01T00:00:00Z", "goVersion": "",
           "compiler": "rustc", "platform": format!("{}/{}", std::env::consts::OS, std::env::consts::ARCH)})
}
