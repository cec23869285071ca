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
pub use crate::api::aggregator::{ExtensionVersion, Extensions};

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
    /// Served by an extension API server instead (its resources are its own).
    pub extension: Option<ExtensionVersion>,
}

/// The group priority (`groupPriorityMinimum`) of the built-in groups, as
/// kube-apiserver registers their APIServices; a CRD's group has 1000.
pub fn builtin_group_priority(name: &str) -> Option<i64> {
    Some(match name {
        "" | "apiregistration.k8s.io" => 18000,
        "apps" => 17800,
        "events.k8s.io" => 17750,
        "authentication.k8s.io" => 17700,
        "authorization.k8s.io" => 17600,
        "autoscaling" => 17500,
        "batch" => 17400,
        "certificates.k8s.io" => 17300,
        "networking.k8s.io" => 17200,
        "policy" => 17100,
        "rbac.authorization.k8s.io" => 17000,
        "storage.k8s.io" => 16800,
        "admissionregistration.k8s.io" | "apiextensions.k8s.io" => 16700,
        "scheduling.k8s.io" => 16600,
        "coordination.k8s.io" => 16500,
        "node.k8s.io" => 16300,
        "discovery.k8s.io" => 16200,
        "flowcontrol.apiserver.k8s.io" => 16100,
        "internal.apiserver.k8s.io" => 16000,
        "resource.k8s.io" => 15900,
        "storagemigration.k8s.io" => 15800,
        _ => return None,
    })
}

/// A CRD's APIServices' priorities (kube-apiserver's CRD registration controller).
pub const CRD_GROUP_PRIORITY: i64 = 1000;
pub const CRD_VERSION_PRIORITY: i64 = 100;

/// The version priority (`versionPriority`) of a built-in version, as kube-apiserver's
/// table gives it: 15 for a v1, more for the later GA versions that table raised
/// (`autoscaling/v2` 30, `flowcontrol.apiserver.k8s.io/v1` 21), 9 for a beta and 1 for
/// an alpha — the same order as the Kubernetes version order within each group.
pub fn builtin_version_priority(group: &str, version: &str) -> i64 {
    match (group, version) {
        ("", "v1") => 1,
        ("autoscaling", "v2") => 30,
        ("flowcontrol.apiserver.k8s.io", "v1") => 21,
        (_, v) if v.contains("alpha") => 1,
        (_, v) if v.contains("beta") => 9,
        _ => 15,
    }
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

/// Every served group (the core group too), in kube-apiserver's order: by group
/// priority (the highest `groupPriorityMinimum` of its APIServices), then by name; each
/// group's versions by version priority, then in Kubernetes version order. A
/// group/version an extension server serves replaces the registry's.
pub fn served(registry: &Registry, ext: &Extensions) -> Vec<Group> {
    let custom: HashSet<(String, String)> = registry
        .custom()
        .all()
        .iter()
        .map(|k| (k.q.group.clone(), k.q.plural.clone()))
        .collect();
    let mut groups: Vec<Group> = Vec::new();
    let group_at = |groups: &mut Vec<Group>, name: &str| -> usize {
        match groups.iter().position(|g| g.name == name) {
            Some(i) => i,
            None => {
                groups.push(Group {
                    name: name.to_string(),
                    versions: Vec::new(),
                });
                groups.len() - 1
            }
        }
    };
    for resource in registry.resources() {
        let info = resource.info();
        if ext
            .versions
            .iter()
            .any(|e| e.group == info.q.group && e.version == info.version)
        {
            continue;
        }
        let served = Served {
            custom: custom.contains(&(info.q.group.clone(), info.q.plural.clone())),
            resource: resource.clone(),
        };
        let i = group_at(&mut groups, &info.q.group);
        let group = &mut groups[i];
        match group
            .versions
            .iter_mut()
            .find(|v| v.version == info.version)
        {
            Some(v) => v.resources.push(served),
            None => group.versions.push(GroupVersion {
                version: info.version.clone(),
                resources: vec![served],
                extension: None,
            }),
        }
    }
    for e in &ext.versions {
        let i = group_at(&mut groups, &e.group);
        groups[i].versions.push(GroupVersion {
            version: e.version.clone(),
            resources: Vec::new(),
            extension: Some(e.clone()),
        });
    }
    let mut ranked: Vec<(i64, Group)> = groups
        .into_iter()
        .map(|mut group| {
            for v in &mut group.versions {
                v.resources
                    .sort_by(|a, b| a.resource.info().q.plural.cmp(&b.resource.info().q.plural));
            }
            let builtin = builtin_group_priority(&group.name);
            let version_priority = |v: &GroupVersion| match &v.extension {
                Some(e) => e.version_priority,
                None if v.resources.iter().any(|s| s.custom) => CRD_VERSION_PRIORITY,
                None => builtin_version_priority(&group.name, &v.version),
            };
            group.versions.sort_by(|a, b| {
                version_priority(b)
                    .cmp(&version_priority(a))
                    .then_with(|| compare_versions(&a.version, &b.version))
            });
            let priority = group
                .versions
                .iter()
                .map(|v| match &v.extension {
                    Some(e) => e.group_priority,
                    None => builtin.unwrap_or(CRD_GROUP_PRIORITY),
                })
                .max()
                .unwrap_or(CRD_GROUP_PRIORITY);
            (priority, group)
        })
        .collect();
    ranked.sort_by(|(pa, a), (pb, b)| pb.cmp(pa).then_with(|| a.name.cmp(&b.name)));
    ranked.into_iter().map(|(_, g)| g).collect()
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
pub fn group_list(registry: &Registry, ext: &Extensions) -> Value {
    let groups: Vec<Value> = served(registry, ext)
        .iter()
        .filter(|g| !g.name.is_empty())
        .map(|g| group_object(&g.name, &g.versions))
        .collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

/// `/apis/{group}`.
pub fn group(registry: &Registry, ext: &Extensions, name: &str) -> Option<Value> {
    if name.is_empty() {
        return None;
    }
    let g = served(registry, ext).into_iter().find(|g| g.name == name)?;
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
    let resources: Vec<Value> = served(registry, &Extensions::default())
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
        let rank = |n: &str| -builtin_group_priority(n).unwrap_or(CRD_GROUP_PRIORITY);
        names.sort_by(|a, b| rank(a).cmp(&rank(b)).then_with(|| a.cmp(b)));
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
