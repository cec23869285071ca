//! What admission needs to know about an object's kind without a server: its
//! resource (plural), its scope and, for Kubernetes' built-in kinds, its schema in a
//! release (`crd_runtime::k8s_schemas`).

use crd_runtime::KubeVersion;
use crd_runtime::admission::{GroupVersionKind, GroupVersionResource};
use crd_runtime::model::JSONSchemaProps;

/// Built-in kinds that are cluster-scoped; every other built-in kind is namespaced.
const CLUSTER_SCOPED: &[&str] = &[
    "APIService",
    "CertificateSigningRequest",
    "ClusterRole",
    "ClusterRoleBinding",
    "ClusterTrustBundle",
    "ComponentStatus",
    "CSIDriver",
    "CSINode",
    "CustomResourceDefinition",
    "DeviceClass",
    "DeviceTaintRule",
    "FlowSchema",
    "IngressClass",
    "IPAddress",
    "MutatingAdmissionPolicy",
    "MutatingAdmissionPolicyBinding",
    "MutatingWebhookConfiguration",
    "Namespace",
    "Node",
    "PersistentVolume",
    "PriorityClass",
    "PriorityLevelConfiguration",
    "ResourceSlice",
    "RuntimeClass",
    "SelfSubjectAccessReview",
    "SelfSubjectReview",
    "SelfSubjectRulesReview",
    "ServiceCIDR",
    "StorageClass",
    "StorageVersion",
    "StorageVersionMigration",
    "SubjectAccessReview",
    "TokenReview",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
    "ValidatingWebhookConfiguration",
    "VolumeAttachment",
    "VolumeAttributesClass",
];

/// Splits `apiVersion` into group and version (`v1` is the core group).
pub fn group_version(api_version: &str) -> (&str, &str) {
    api_version.rsplit_once('/').unwrap_or(("", api_version))
}

/// The kind of a `apiVersion`/`kind` pair.
pub fn gvk(api_version: &str, kind: &str) -> GroupVersionKind {
    let (group, version) = group_version(api_version);
    GroupVersionKind {
        group: group.to_string(),
        version: version.to_string(),
        kind: kind.to_string(),
    }
}

/// The resource of a kind whose plural no CRD names: the built-in kinds' plurals, and
/// kube's `UnsafeGuessKindToResource` for the rest (lowercase, `y` → `ies`, `s` → `ses`).
pub fn guess_resource(kind: &GroupVersionKind) -> GroupVersionResource {
    let lower = kind.kind.to_ascii_lowercase();
    let resource = if lower == "endpoints" {
        lower
    } else if lower.ends_with('s') {
        format!("{lower}es")
    } else if let Some(stem) = lower.strip_suffix('y') {
        format!("{stem}ies")
    } else if lower.is_empty() {
        lower
    } else {
        format!("{lower}s")
    };
    GroupVersionResource {
        group: kind.group.clone(),
        version: kind.version.clone(),
        resource,
    }
}

/// Whether a built-in kind is namespaced.
pub fn builtin_namespaced(kind: &str) -> bool {
    !CLUSTER_SCOPED.contains(&kind)
}

/// The OpenAPI definition name of a built-in kind (`io.k8s.api.apps.v1.Deployment`),
/// or `None` for a group that is not Kubernetes' own.
fn definition(kind: &GroupVersionKind) -> Option<String> {
    let package = match kind.group.as_str() {
        "" => "core",
        "internal.apiserver.k8s.io" => "apiserverinternal",
        g if !g.contains('.') => g,
        g if g.ends_with(".k8s.io") => g.split('.').next().unwrap_or(g),
        _ => return None,
    };
    Some(format!(
        "io.k8s.api.{package}.{}.{}",
        kind.version, kind.kind
    ))
}

/// The schema of a built-in kind in the release closest to `version` that has
/// schemas, or `None` when the kind is not one of Kubernetes' own.
pub fn builtin_schema(kind: &GroupVersionKind, version: KubeVersion) -> Option<JSONSchemaProps> {
    use crd_runtime::k8s_schemas::{VERSIONS, definition_schema_in};
    let definition = definition(kind)?;
    let wanted = version.to_string();
    let release = VERSIONS
        .iter()
        .find(|v| **v == wanted)
        .or_else(|| {
            // Older releases than the data has: the oldest; newer: the newest.
            VERSIONS
                .first()
                .filter(|oldest| version.minor() < oldest[2..].parse().unwrap_or(0))
        })
        .or(VERSIONS.last())?;
    let schema = definition_schema_in(release, &definition)?;
    // Only top-level kinds: `DeploymentSpec` has no `kind` or `metadata`.
    let props = schema.properties.as_ref()?;
    (props.contains_key("kind") && props.contains_key("metadata")).then_some(schema)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plurals_follow_kube() {
        let plural = |k: &str| guess_resource(&gvk("v1", k)).resource;
        assert_eq!(plural("Deployment"), "deployments");
        assert_eq!(plural("NetworkPolicy"), "networkpolicies");
        assert_eq!(plural("Ingress"), "ingresses");
        assert_eq!(plural("Endpoints"), "endpoints");
        assert_eq!(plural("CronTab"), "crontabs");
    }

    #[test]
    fn builtin_kinds_have_schemas() {
        let v = KubeVersion::NEWEST;
        assert!(builtin_schema(&gvk("apps/v1", "Deployment"), v).is_some());
        assert!(builtin_schema(&gvk("v1", "ConfigMap"), v).is_some());
        assert!(builtin_schema(&gvk("rbac.authorization.k8s.io/v1", "Role"), v).is_some());
        assert!(builtin_schema(&gvk("apps/v1", "DeploymentSpec"), v).is_none());
        assert!(builtin_schema(&gvk("stable.example.com/v1", "CronTab"), v).is_none());
        assert!(!builtin_namespaced("Namespace"));
        assert!(builtin_namespaced("ConfigMap"));
    }
}
