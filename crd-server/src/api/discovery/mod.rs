//! Discovery (`/api`, `/apis`, `/apis/{group}[/{version}]`) and `/version`, built from
//! the registry's kinds.
//!
//! Both forms of discovery are read off one model ([`served`]): the groups in the order
//! kube-apiserver lists them, each group's versions by priority, each version's
//! resources by name. The legacy documents (`APIVersions`, `APIGroupList`, `APIGroup`,
//! `APIResourceList`) are built here; the aggregated `APIGroupDiscoveryList` that
//! kubectl and kube's `Discovery::run_aggregated` ask for first is built in
//! [`aggregated`]; [`roots`] chooses between them for `/api` and `/apis`.

pub mod aggregated;
pub mod roots;

use std::collections::HashSet;

use crd_runtime::KubeVersion;
use serde_json::{Value, json};

use super::kinds::{Resource, Subresource};
use super::priority::compare_versions;
use super::registry::Registry;

/// The built-in groups kube-apiserver serves, highest group priority first (the
/// `groupPriorityMinimum` of their APIServices; the core group above them all). A group
/// not listed here (every CRD's group) has a CRD's priority, 1000, below these.
/// Groups of equal priority are ordered by name.
const BUILTIN_GROUP_ORDER: &[&str] = &[
    "",
    "apiregistration.k8s.io",
    "apps",
    "events.k8s.io",
    "authentication.k8s.io",
    "authorization.k8s.io",
    "autoscaling",
    "batch",
    "certificates.k8s.io",
    "networking.k8s.io",
    "policy",
    "rbac.authorization.k8s.io",
    "storage.k8s.io",
    // admissionregistration.k8s.io and apiextensions.k8s.io share 16700.
    "admissionregistration.k8s.io",
    "apiextensions.k8s.io",
    "scheduling.k8s.io",
    "coordination.k8s.io",
    "node.k8s.io",
    "discovery.k8s.io",
    "flowcontrol.apiserver.k8s.io",
    "internal.apiserver.k8s.io",
    "resource.k8s.io",
    "storagemigration.k8s.io",
];

/// One served group: its versions by priority, the preferred one first.
pub struct Group {
    /// `""` for the core group.
    pub name: String,
    pub versions: Vec<GroupVersion>,
}

/// One served version of a group and its resources, by name.
pub struct GroupVersion {
    pub version: String,
    pub resources: Vec<Served>,
}

/// A served resource and where it comes from: kube-apiserver describes a CRD's kinds
/// (apiextensions-apiserver's discovery controller) a little differently from its
/// built-in kinds (the API installer).
pub struct Served {
    pub resource: Resource,
    /// Defined by a CustomResourceDefinition.
    pub custom: bool,
}

impl Served {
    /// The subresources in the order kube-apiserver lists them: a CRD's as its
    /// discovery controller adds them (`status`, then `scale`), a built-in kind's by
    /// path, as the API installer registers them.
    pub fn subresources(&self) -> Vec<Subresource> {
        let mut subs: Vec<Subresource> = self
            .resource
            .info()
            .subresources
            .iter()
            .copied()
            .filter(|s| s.name().is_some())
            .collect();
        if !self.custom {
            subs.sort_by_key(|s| s.name());
        }
        subs
    }

    /// The verbs of the object itself: a built-in kind's sorted, as the API installer
    /// lists them; a CRD's in the order of apiextensions-apiserver's discovery.
    pub fn verbs(&self) -> Vec<&'static str> {
        let mut verbs = self.resource.discovery_verbs().to_vec();
        if !self.custom {
            verbs.sort_unstable();
        }
        verbs
    }
}

/// The verbs of a subresource's endpoint.
pub fn subresource_verbs(sub: Subresource) -> &'static [&'static str] {
    sub.verbs()
}

/// Where a group sorts: by group priority, then by name.
fn group_rank(name: &str) -> (usize, &str) {
    let rank = BUILTIN_GROUP_ORDER
        .iter()
        .position(|g| *g == name)
        .unwrap_or(BUILTIN_GROUP_ORDER.len());
    (rank, name)
}

/// Every served group (the core group too), in kube-apiserver's order.
pub fn served(registry: &Registry) -> Vec<Group> {
    let custom: HashSet<(String, String)> = registry
        .custom()
        .all()
        .iter()
        .map(|k| (k.q.group.clone(), k.q.plural.clone()))
        .collect();
    let mut groups: Vec<Group> = Vec::new();
    for resource in registry.resources() {
        let info = resource.info();
        let served = Served {
            custom: custom.contains(&(info.q.group.clone(), info.q.plural.clone())),
            resource: resource.clone(),
        };
        let group = match groups.iter_mut().position(|g| g.name == info.q.group) {
            Some(i) => &mut groups[i],
            None => {
                groups.push(Group {
                    name: info.q.group.clone(),
                    versions: Vec::new(),
                });
                groups.last_mut().expect("just pushed")
            }
        };
        match group
            .versions
            .iter_mut()
            .find(|v| v.version == info.version)
        {
            Some(v) => v.resources.push(served),
            None => group.versions.push(GroupVersion {
                version: info.version.clone(),
                resources: vec![served],
            }),
        }
    }
    for group in &mut groups {
        group
            .versions
            .sort_by(|a, b| compare_versions(&a.version, &b.version));
        for v in &mut group.versions {
            v.resources
                .sort_by(|a, b| a.resource.info().q.plural.cmp(&b.resource.info().q.plural));
        }
    }
    groups.sort_by(|a, b| group_rank(&a.name).cmp(&group_rank(&b.name)));
    groups
}

fn group_object(name: &str, versions: &[GroupVersion]) -> Value {
    let versions: Vec<Value> = versions
        .iter()
        .map(|v| json!({"groupVersion": format!("{name}/{}", v.version), "version": v.version}))
        .collect();
    json!({"name": name, "versions": versions, "preferredVersion": versions.first().cloned().unwrap_or(Value::Null)})
}

/// `/api`.
pub fn core_versions(host: &str) -> Value {
    json!({"kind": "APIVersions", "versions": ["v1"],
           "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": host}]})
}

/// `/apis`.
pub fn group_list(registry: &Registry) -> Value {
    let groups: Vec<Value> = served(registry)
        .iter()
        .filter(|g| !g.name.is_empty())
        .map(|g| group_object(&g.name, &g.versions))
        .collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

/// `/apis/{group}`.
pub fn group(registry: &Registry, name: &str) -> Option<Value> {
    if name.is_empty() {
        return None;
    }
    let g = served(registry).into_iter().find(|g| g.name == name)?;
    let mut obj = group_object(&g.name, &g.versions);
    obj["kind"] = json!("APIGroup");
    obj["apiVersion"] = json!("v1");
    Some(obj)
}

/// The `APIResource` entries of one kind: the kind, then its subresources.
fn entries(served: &Served) -> Vec<Value> {
    let info = served.resource.info();
    let mut main = json!({"name": info.q.plural, "singularName": info.singular, "namespaced": info.namespaced,
                          "kind": info.q.kind, "verbs": served.verbs()});
    if !info.short_names.is_empty() {
        main["shortNames"] = json!(info.short_names);
    }
    if !info.categories.is_empty() {
        main["categories"] = json!(info.categories);
    }
    let mut out = vec![main];
    for sub in served.subresources() {
        let Some(name) = sub.name() else { continue };
        let mut entry = json!({"name": format!("{}/{name}", info.q.plural), "singularName": "",
                               "namespaced": info.namespaced, "kind": info.q.kind,
                               "verbs": subresource_verbs(sub)});
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
    let resources: Vec<Value> = served(registry)
        .into_iter()
        .filter(|g| g.name == group)
        .flat_map(|g| g.versions)
        .filter(|v| v.version == version)
        .flat_map(|v| v.resources)
        .flat_map(|s| entries(&s))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_sort_like_kube_apiserver() {
        let mut names = vec![
            "stable.example.com",
            "coordination.k8s.io",
            "acme.example.com",
            "apiextensions.k8s.io",
            "",
            "apps",
            "admissionregistration.k8s.io",
        ];
        names.sort_by(|a, b| group_rank(a).cmp(&group_rank(b)));
        assert_eq!(
            names,
            [
                "",
                "apps",
                "admissionregistration.k8s.io",
                "apiextensions.k8s.io",
                "coordination.k8s.io",
                "acme.example.com",
                "stable.example.com",
            ]
        );
    }

    #[test]
    fn subresource_verbs_are_kube_apiservers() {
        assert_eq!(
            subresource_verbs(Subresource::Status),
            ["get", "patch", "update"]
        );
        assert_eq!(
            subresource_verbs(Subresource::Scale),
            ["get", "patch", "update"]
        );
        assert_eq!(subresource_verbs(Subresource::Finalize), ["update"]);
    }
}
