//! The aggregated discovery document (`apidiscovery.k8s.io` `APIGroupDiscoveryList`)
//! that `/api` and `/apis` answer when asked for it: every group with its versions,
//! each version with its resources and their subresources, read off [`served`].
//!
//! The types serialize their fields in the order of the Go types
//! (`k8s.io/api/apidiscovery/v2`), so the bytes hashed for the ETag are the bytes
//! kube-apiserver hashes for the same document. v2beta1 has the same shape.

use std::borrow::Cow;

use crd_runtime::KubeVersion;
use serde::Serialize;
use serde_json::Value;

use super::{Extensions, Group, Served, served, subresource_verbs};
use crate::api::registry::Registry;

/// `apidiscovery.k8s.io`.
pub const GROUP: &str = "apidiscovery.k8s.io";
/// The kind both versions serve.
pub const LIST_KIND: &str = "APIGroupDiscoveryList";

/// A version of the aggregated discovery API.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiscoveryVersion {
    V2,
    V2beta1,
}

impl DiscoveryVersion {
    pub fn name(self) -> &'static str {
        match self {
            DiscoveryVersion::V2 => "v2",
            DiscoveryVersion::V2beta1 => "v2beta1",
        }
    }

    /// The version a client may ask for from a server of release `kube`: v2beta1 is no
    /// longer served from 1.33 (`AggregatedDiscoveryRemoveBetaType` on by default).
    pub fn parse(version: &str, kube: KubeVersion) -> Option<DiscoveryVersion> {
        match version {
            "v2" => Some(DiscoveryVersion::V2),
            "v2beta1" if !kube.at_least(33) => Some(DiscoveryVersion::V2beta1),
            _ => None,
        }
    }
}

/// Which root a document answers: `/api` (the core group alone) or `/apis` (every
/// named group).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Root {
    Core,
    Groups,
}

/// `metav1.GroupVersionKind`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Gvk {
    pub group: String,
    pub version: String,
    pub kind: String,
}

/// `APISubresourceDiscovery` (no `acceptedTypes`: nothing here declares them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SubresourceDiscovery {
    pub subresource: Cow<'static, str>,
    #[serde(rename = "responseKind")]
    pub response_kind: Gvk,
    pub verbs: Vec<Cow<'static, str>>,
}

/// `APIResourceDiscovery`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ResourceDiscovery {
    pub resource: String,
    #[serde(rename = "responseKind")]
    pub response_kind: Gvk,
    pub scope: &'static str,
    #[serde(rename = "singularResource")]
    pub singular_resource: String,
    pub verbs: Vec<Cow<'static, str>>,
    #[serde(rename = "shortNames", skip_serializing_if = "Vec::is_empty")]
    pub short_names: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub categories: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub subresources: Vec<SubresourceDiscovery>,
}

/// `APIVersionDiscovery`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VersionDiscovery {
    pub version: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<ResourceDiscovery>,
    pub freshness: &'static str,
}

/// The group's `ObjectMeta`: only the name (omitted for the core group), and before
/// 1.34 the zero `creationTimestamp` Go wrote as `null` (`omitzero` came in 1.34).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GroupMeta {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(rename = "creationTimestamp", skip_serializing_if = "Option::is_none")]
    pub creation_timestamp: Option<()>,
}

/// `APIGroupDiscovery`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GroupDiscovery {
    pub metadata: GroupMeta,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub versions: Vec<VersionDiscovery>,
}

/// The empty `ListMeta`, written as `{}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ListMeta {}

/// `APIGroupDiscoveryList`. `kind` and `apiVersion` are set on the answer and left out
/// of the bytes the ETag hashes (kube-apiserver hashes the list before encoding it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DiscoveryList {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<&'static str>,
    #[serde(rename = "apiVersion", skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    pub metadata: ListMeta,
    pub items: Vec<GroupDiscovery>,
}

impl DiscoveryList {
    /// The same list as written in `version`.
    pub fn typed(mut self, version: DiscoveryVersion) -> DiscoveryList {
        self.kind = Some(LIST_KIND);
        self.api_version = Some(format!("{GROUP}/{}", version.name()));
        self
    }
}

/// The document of `/api` or `/apis` as the registry and the extension servers serve
/// it now.
pub fn document(registry: &Registry, ext: &Extensions, root: Root) -> DiscoveryList {
    let kube = registry.kube_version();
    let items = served(registry, ext)
        .iter()
        .filter(|g| g.name.is_empty() == (root == Root::Core))
        .map(|g| group(g, kube))
        .collect();
    DiscoveryList {
        kind: None,
        api_version: None,
        metadata: ListMeta {},
        items,
    }
}

fn group(g: &Group, kube: KubeVersion) -> GroupDiscovery {
    GroupDiscovery {
        metadata: GroupMeta {
            name: g.name.clone(),
            creation_timestamp: (!kube.at_least(34)).then_some(()),
        },
        versions: g
            .versions
            .iter()
            .map(|v| match &v.extension {
                None => VersionDiscovery {
                    version: v.version.clone(),
                    resources: v.resources.iter().map(resource).collect(),
                    freshness: "Current",
                },
                Some(e) => VersionDiscovery {
                    version: v.version.clone(),
                    resources: e.resources.as_deref().map(converted).unwrap_or_default(),
                    freshness: if e.fresh { "Current" } else { "Stale" },
                },
            })
            .collect(),
    }
}

/// One resource. A built-in kind's response kinds carry the kind alone (the API
/// installer's `APIResource` names a group and version only where they differ, as for
/// `scale`); a CRD's carry its group and version (apiextensions-apiserver's discovery
/// controller).
fn resource(s: &Served) -> ResourceDiscovery {
    let info = s.resource.info();
    let own = |kind: &str| Gvk {
        group: if s.custom {
            info.q.group.clone()
        } else {
            String::new()
        },
        version: if s.custom {
            info.version.clone()
        } else {
            String::new()
        },
        kind: kind.to_string(),
    };
    let subresources = s
        .subresources()
        .into_iter()
        .filter_map(|sub| {
            let name = sub.name()?;
            let response_kind = match sub.kind() {
                Some((group, version, kind)) => Gvk {
                    group: group.into(),
                    version: version.into(),
                    kind: kind.into(),
                },
                None => own(&info.q.kind),
            };
            Some(SubresourceDiscovery {
                subresource: Cow::Borrowed(name),
                response_kind,
                verbs: subresource_verbs(sub)
                    .iter()
                    .map(|v| Cow::Borrowed(*v))
                    .collect(),
            })
        })
        .collect();
    ResourceDiscovery {
        resource: info.q.plural.clone(),
        response_kind: own(&info.q.kind),
        scope: if info.namespaced {
            "Namespaced"
        } else {
            "Cluster"
        },
        singular_resource: info.singular.clone(),
        verbs: s.verbs().into_iter().map(Cow::Borrowed).collect(),
        short_names: info.short_names.clone(),
        categories: info.categories.clone(),
        subresources,
    }
}

/// An extension server's legacy `APIResource` list in the aggregated form, as
/// kube-aggregator converts the discovery of a server that serves no aggregated
/// document: `parent/sub` entries become the parent's subresources.
fn converted(list: &[Value]) -> Vec<ResourceDiscovery> {
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let strings = |v: &Value, k: &str| -> Vec<String> {
        v.get(k)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|s| s.as_str().map(str::to_string))
            .collect()
    };
    let gvk = |v: &Value| Gvk {
        group: text(v, "group"),
        version: text(v, "version"),
        kind: text(v, "kind"),
    };
    let mut out: Vec<ResourceDiscovery> = Vec::new();
    for r in list {
        let name = text(r, "name");
        if name.contains('/') {
            continue;
        }
        out.push(ResourceDiscovery {
            resource: name,
            response_kind: gvk(r),
            scope: if r.get("namespaced") == Some(&Value::Bool(true)) {
                "Namespaced"
            } else {
                "Cluster"
            },
            singular_resource: text(r, "singularName"),
            verbs: strings(r, "verbs").into_iter().map(Cow::Owned).collect(),
            short_names: strings(r, "shortNames"),
            categories: strings(r, "categories"),
            subresources: Vec::new(),
        });
    }
    for r in list {
        let name = text(r, "name");
        let Some((parent, sub)) = name.split_once('/') else {
            continue;
        };
        if let Some(p) = out.iter_mut().find(|p| p.resource == parent) {
            p.subresources.push(SubresourceDiscovery {
                subresource: Cow::Owned(sub.to_string()),
                response_kind: gvk(r),
                verbs: strings(r, "verbs").into_iter().map(Cow::Owned).collect(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crd_runtime::engine::EngineOptions;
    use serde_json::{Value, json};

    use super::*;
    use crate::api::kinds::builtin::ALL_VERBS;
    use crate::api::kinds::crd::CRD_PREFIX;
    use crate::store::{MemoryStore, Store};

    /// The string at `pointer` in each item of `list`, in order.
    fn texts<'a>(list: &'a Value, pointer: &str) -> Vec<&'a str> {
        let items = list.as_array().unwrap().iter();
        items
            .map(|item| item.pointer(pointer).unwrap().as_str().unwrap())
            .collect()
    }

    /// A cluster-scoped CRD served at v1beta1 and v1 (v2alpha1 not served), v1 with
    /// status and scale.
    fn widgets() -> Value {
        let schema = json!({"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}});
        json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.acme.example.com"},
            "spec": {
                "group": "acme.example.com", "scope": "Cluster",
                "names": {"plural": "widgets", "singular": "widget", "kind": "Widget",
                          "listKind": "WidgetList", "shortNames": ["wd"], "categories": ["all"]},
                "versions": [
                    {"name": "v1beta1", "served": true, "storage": false, "schema": schema},
                    {"name": "v2alpha1", "served": false, "storage": false, "schema": schema},
                    {"name": "v1", "served": true, "storage": true, "schema": schema,
                     "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas",
                                                              "statusReplicasPath": ".status.replicas"}}}
                ]
            },
            "status": {"conditions": [{"type": "Established", "status": "True"}],
                       "acceptedNames": {"plural": "widgets", "kind": "Widget"}}
        })
    }

    async fn registry(minor: u32) -> Arc<Registry> {
        let store = Arc::new(MemoryStore::new());
        let key = format!("{CRD_PREFIX}widgets.acme.example.com");
        store
            .create(&key, serde_json::to_vec(&widgets()).unwrap().into())
            .await
            .unwrap();
        let kube = KubeVersion::new(minor).unwrap();
        Registry::start(store, EngineOptions::for_version(kube), Default::default())
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn extension_versions_join_the_registrys_by_priority() {
        let registry = registry(37).await;
        let ext = |group: &str, version: &str, gp: i64, vp: i64, fresh: bool| {
            super::super::ExtensionVersion {
            group: group.into(),
            version: version.into(),
            group_priority: gp,
            version_priority: vp,
            resources: fresh.then(|| {
                vec![
                    json!({"name": "nodemetrics", "singularName": "nodemetrics", "namespaced": false,
                       "kind": "NodeMetrics", "verbs": ["get", "list"], "shortNames": ["nm"]}),
                    json!({"name": "nodemetrics/status", "singularName": "", "namespaced": false,
                       "kind": "NodeMetrics", "verbs": ["get"]}),
                ]
            }),
            fresh,
        }
        };
        let extensions = Extensions {
            versions: vec![
                // Above every built-in group but the core one; its resources converted.
                ext("metrics.example.com", "v1", 17900, 10, true),
                // A CRD's group: v2 by its version priority, before the CRD's v1 (100);
                // v1 taken over from the CRD, never read yet: stale and empty.
                ext("acme.example.com", "v2", 10, 200, false),
                ext("acme.example.com", "v1", 10, 1, false),
            ],
        };
        let doc = serde_json::to_value(document(&registry, &extensions, Root::Groups)).unwrap();
        registry.stop();
        let names = texts(&doc["items"], "/metadata/name");
        assert_eq!(
            names[..2],
            ["apiregistration.k8s.io", "metrics.example.com"]
        );
        let metrics = &doc["items"][1]["versions"][0];
        assert_eq!(metrics["freshness"], "Current");
        assert_eq!(
            metrics["resources"][0],
            json!({"resource": "nodemetrics", "responseKind": {"group": "", "version": "", "kind": "NodeMetrics"},
                   "scope": "Cluster", "singularResource": "nodemetrics", "verbs": ["get", "list"],
                   "shortNames": ["nm"], "subresources": [{"subresource": "status",
                   "responseKind": {"group": "", "version": "", "kind": "NodeMetrics"}, "verbs": ["get"]}]})
        );
        let acme = doc["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["metadata"]["name"] == "acme.example.com")
            .unwrap();
        assert_eq!(
            texts(&acme["versions"], "/version"),
            ["v2", "v1beta1", "v1"]
        );
        assert_eq!(
            acme["versions"][2],
            json!({"version": "v1", "freshness": "Stale"})
        );
    }

    #[tokio::test]
    async fn groups_document_lists_named_groups_by_priority() {
        let registry = registry(37).await;
        let doc = serde_json::to_value(document(&registry, &Extensions::default(), Root::Groups))
            .unwrap();
        registry.stop();
        let names = texts(&doc["items"], "/metadata/name");
        // Built-in groups by kube-apiserver's group priority, then custom groups by name.
        let at = |g: &str| names.iter().position(|n| *n == g).unwrap();
        assert_eq!(names[0], "apiregistration.k8s.io");
        assert!(at("apiregistration.k8s.io") < at("apps"));
        assert!(at("apps") < at("events.k8s.io"));
        assert!(at("events.k8s.io") < at("batch"));
        assert!(at("apiextensions.k8s.io") < at("coordination.k8s.io"));
        assert!(at("coordination.k8s.io") < at("discovery.k8s.io"));
        assert_eq!(names.last(), Some(&"acme.example.com"));
        let acme = &doc["items"][names.len() - 1];
        assert_eq!(acme["metadata"], json!({"name": "acme.example.com"}));
        let versions = texts(&acme["versions"], "/version");
        assert_eq!(versions, ["v1", "v1beta1"]);
        assert_eq!(
            acme["versions"][0],
            json!({"version": "v1", "freshness": "Current", "resources": [{
                "resource": "widgets",
                "responseKind": {"group": "acme.example.com", "version": "v1", "kind": "Widget"},
                "scope": "Cluster", "singularResource": "widget",
                "verbs": ["delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"],
                "shortNames": ["wd"], "categories": ["all"],
                "subresources": [
                    {"subresource": "status", "verbs": ["get", "patch", "update"],
                     "responseKind": {"group": "acme.example.com", "version": "v1", "kind": "Widget"}},
                    {"subresource": "scale", "verbs": ["get", "patch", "update"],
                     "responseKind": {"group": "autoscaling", "version": "v1", "kind": "Scale"}}
                ]
            }]})
        );
        // v1beta1 has no subresources; its response kind names its own version.
        let beta = &acme["versions"][1]["resources"][0];
        assert_eq!(beta["responseKind"]["version"], "v1beta1");
        assert!(beta.get("subresources").is_none());
        // Built-in kinds: the kind alone, verbs sorted.
        let crds = &doc["items"][at("apiextensions.k8s.io")]["versions"][0]["resources"][0];
        assert_eq!(
            crds["responseKind"],
            json!({"group": "", "version": "", "kind": "CustomResourceDefinition"})
        );
        // Every verb, in ALL_VERBS's (sorted) order.
        assert_eq!(crds["verbs"], json!(ALL_VERBS));
        assert_eq!(crds["categories"], json!(["api-extensions"]));
    }

    #[tokio::test]
    async fn core_document_is_the_core_group_alone() {
        let registry = registry(37).await;
        let doc =
            serde_json::to_value(document(&registry, &Extensions::default(), Root::Core)).unwrap();
        registry.stop();
        let items = doc["items"].as_array().unwrap();
        assert_eq!(items.len(), 1);
        assert_eq!(items[0]["metadata"], json!({}));
        let v1 = &items[0]["versions"][0];
        assert_eq!(v1["version"], "v1");
        let resources = texts(&v1["resources"], "/resource");
        let mut sorted = resources.clone();
        sorted.sort_unstable();
        assert_eq!(resources, sorted);
        assert!(resources.contains(&"configmaps") && resources.contains(&"namespaces"));
        let at = resources.iter().position(|r| *r == "namespaces").unwrap();
        let ns = &v1["resources"][at];
        assert_eq!(ns["scope"], "Cluster");
        assert_eq!(
            ns["subresources"],
            json!([
                {"subresource": "finalize", "verbs": ["update"],
                 "responseKind": {"group": "", "version": "", "kind": "Namespace"}},
                {"subresource": "status", "verbs": ["get", "patch", "update"],
                 "responseKind": {"group": "", "version": "", "kind": "Namespace"}}
            ])
        );
    }

    #[tokio::test]
    async fn before_1_34_group_metadata_has_a_null_creation_timestamp() {
        let registry = registry(33).await;
        let groups =
            serde_json::to_value(document(&registry, &Extensions::default(), Root::Groups))
                .unwrap();
        let core =
            serde_json::to_value(document(&registry, &Extensions::default(), Root::Core)).unwrap();
        registry.stop();
        assert_eq!(
            groups["items"][0]["metadata"],
            json!({"name": "apiregistration.k8s.io", "creationTimestamp": null})
        );
        assert_eq!(
            core["items"][0]["metadata"],
            json!({"creationTimestamp": null})
        );
    }

    #[test]
    fn versions_parse_by_release() {
        let v = |minor| KubeVersion::new(minor).unwrap();
        assert_eq!(
            DiscoveryVersion::parse("v2", v(37)),
            Some(DiscoveryVersion::V2)
        );
        assert_eq!(
            DiscoveryVersion::parse("v2beta1", v(32)),
            Some(DiscoveryVersion::V2beta1)
        );
        assert_eq!(DiscoveryVersion::parse("v2beta1", v(33)), None);
        assert_eq!(DiscoveryVersion::parse("v1", v(30)), None);
    }
}
