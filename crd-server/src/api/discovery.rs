//! Discovery (`/api`, `/apis`, `/apis/{group}[/{version}]`), `/version` and the health
//! endpoints. Aggregated discovery is not served: kubectl asks for it with JSON as a
//! fallback in the same `Accept`, gets the legacy documents and uses them.

use std::cmp::Ordering;

use serde_json::{Value, json};

use super::registry::{CustomKind, Kinds};

/// Kubernetes version priority: GA > beta > alpha, higher numbers first, then others
/// alphabetically (`version.CompareKubeAwareVersionStrings`).
pub fn compare_versions(a: &str, b: &str) -> Ordering {
    fn parse(v: &str) -> Option<(u32, u32, u32)> {
        let rest = v.strip_prefix('v')?;
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let major: u32 = digits.parse().ok()?;
        let tail = &rest[digits.len()..];
        if tail.is_empty() {
            return Some((2, major, 0));
        }
        for (label, rank) in [("beta", 1), ("alpha", 0)] {
            if let Some(n) = tail.strip_prefix(label) {
                let minor = n.parse().ok()?;
                return Some((rank, major, minor));
            }
        }
        None
    }
    match (parse(a), parse(b)) {
        (Some(x), Some(y)) => y.cmp(&x),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.cmp(b),
    }
}

const CR_VERBS: [&str; 8] = [
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "create",
    "update",
    "watch",
];
const SUB_VERBS: [&str; 3] = ["get", "patch", "update"];

fn served_versions(kind: &CustomKind) -> Vec<String> {
    let mut v: Vec<String> = kind
        .versions
        .iter()
        .filter(|v| v.served)
        .map(|v| v.name.clone())
        .collect();
    v.sort_by(|a, b| compare_versions(a, b));
    v
}

fn group_object(name: &str, versions: &[String]) -> Value {
    let versions: Vec<Value> = versions
        .iter()
        .map(|v| json!({"groupVersion": format!("{name}/{v}"), "version": v}))
        .collect();
    json!({"name": name, "versions": versions, "preferredVersion": versions.first().cloned().unwrap_or(Value::Null)})
}

/// The groups: apiextensions.k8s.io and every CRD group, versions in priority order.
fn groups(kinds: &Kinds) -> Vec<(String, Vec<String>)> {
    let mut groups: Vec<(String, Vec<String>)> =
        vec![("apiextensions.k8s.io".into(), vec!["v1".into()])];
    for kind in kinds.all() {
        let versions = served_versions(&kind);
        if versions.is_empty() {
            continue;
        }
        match groups.iter_mut().find(|(g, _)| *g == kind.q.group) {
            Some((_, vs)) => {
                for v in versions {
                    if !vs.contains(&v) {
                        vs.push(v);
                    }
                }
                vs.sort_by(|a, b| compare_versions(a, b));
            }
            None => groups.push((kind.q.group.clone(), versions)),
        }
    }
    groups
}

/// `/api`.
pub fn core_versions(host: &str) -> Value {
    json!({"kind": "APIVersions", "versions": ["v1"],
           "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": host}]})
}

/// `/api/v1`.
pub fn core_resources() -> Value {
    json!({"kind": "APIResourceList", "groupVersion": "v1", "resources": [
        {"name": "namespaces", "singularName": "namespace", "namespaced": false, "kind": "Namespace",
         "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"], "shortNames": ["ns"]},
        {"name": "namespaces/status", "singularName": "", "namespaced": false, "kind": "Namespace",
         "verbs": SUB_VERBS},
    ]})
}

/// `/apis`.
pub fn group_list(kinds: &Kinds) -> Value {
    let groups: Vec<Value> = groups(kinds)
        .iter()
        .map(|(g, vs)| group_object(g, vs))
        .collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

/// `/apis/{group}`.
pub fn group(kinds: &Kinds, name: &str) -> Option<Value> {
    let (g, vs) = groups(kinds).into_iter().find(|(g, _)| g == name)?;
    let mut obj = group_object(&g, &vs);
    obj["kind"] = json!("APIGroup");
    obj["apiVersion"] = json!("v1");
    Some(obj)
}

/// `/apis/{group}/{version}`.
pub fn resource_list(kinds: &Kinds, group: &str, version: &str) -> Option<Value> {
    let gv = format!("{group}/{version}");
    if group == "apiextensions.k8s.io" && version == "v1" {
        return Some(
            json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": [
                {"name": "customresourcedefinitions", "singularName": "customresourcedefinition", "namespaced": false,
                 "kind": "CustomResourceDefinition", "verbs": CR_VERBS, "shortNames": ["crd", "crds"],
                 "categories": ["api-extensions"]},
                {"name": "customresourcedefinitions/status", "singularName": "", "namespaced": false,
                 "kind": "CustomResourceDefinition", "verbs": SUB_VERBS},
            ]}),
        );
    }
    let mut resources = Vec::new();
    for kind in kinds.all().into_iter().filter(|k| k.q.group == group) {
        let Some(v) = kind.version(version) else {
            continue;
        };
        let mut main = json!({"name": kind.q.plural, "singularName": kind.singular, "namespaced": kind.namespaced,
                              "kind": kind.q.kind, "verbs": CR_VERBS});
        if !kind.short_names.is_empty() {
            main["shortNames"] = json!(kind.short_names);
        }
        if !kind.categories.is_empty() {
            main["categories"] = json!(kind.categories);
        }
        resources.push(main);
        if v.status {
            resources.push(
                json!({"name": format!("{}/status", kind.q.plural), "singularName": "",
                "namespaced": kind.namespaced, "kind": kind.q.kind, "verbs": SUB_VERBS}),
            );
        }
        if v.scale.is_some() {
            resources.push(json!({"name": format!("{}/scale", kind.q.plural), "singularName": "",
                "namespaced": kind.namespaced, "group": "autoscaling", "version": "v1", "kind": "Scale",
                "verbs": SUB_VERBS}));
        }
    }
    if resources.is_empty() {
        return None;
    }
    Some(
        json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources}),
    )
}

/// `/version`: the Kubernetes version whose API this server follows.
pub fn version() -> Value {
    json!({"major": "1", "minor": "32", "gitVersion": "v1.32.0+crd-server", "gitCommit": "",
           "gitTreeState": "clean", "buildDate": "1970-01-01T00:00:00Z", "goVersion": "",
           "compiler": "rustc", "platform": format!("{}/{}", std::env::consts::OS, std::env::consts::ARCH)})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_sort_like_kubernetes() {
        let mut v = vec![
            "v1alpha1", "v2beta1", "foo", "v1", "v1beta2", "v2", "v10", "bar",
        ];
        v.sort_by(|a, b| compare_versions(a, b));
        assert_eq!(
            v,
            [
                "v10", "v2", "v1", "v2beta1", "v1beta2", "v1alpha1", "bar", "foo"
            ]
        );
    }
}
