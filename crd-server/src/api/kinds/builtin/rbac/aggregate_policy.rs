//! The ClusterRoles that give `view`, `edit` and `admin` their rules over the built-in
//! kinds, as kube-apiserver's bootstrap policy seeds them (`system:aggregate-to-view`,
//! `-edit`, `-admin` in `bootstrappolicy/policy.go`): each carries the label that the
//! user-facing role's aggregation rule selects, and the clusterrole-aggregation
//! controller writes their rules into it. So a RoleBinding to `edit` lets its subject
//! manage Deployments, as on a cluster.

use serde_json::{Value, json};

use super::bootstrap_policy::cluster_role;
use crate::api::kinds::builtin::ALL_VERBS;

const READ: &[&str] = &["get", "list", "watch"];
const WRITE: &[&str] = &["create", "delete", "deletecollection", "patch", "update"];

fn rule(verbs: &[&str], group: &str, resources: &[&str]) -> Value {
    json!({"verbs": verbs, "apiGroups": [group], "resources": resources})
}

fn labelled(role: &str) -> Value {
    json!({format!("rbac.authorization.k8s.io/aggregate-to-{role}"): "true"})
}

/// `system:aggregate-to-view`: read access to a namespace's objects but its Secrets
/// and RBAC.
fn view() -> Value {
    let rules = json!([
        rule(
            READ,
            "",
            &[
                "configmaps",
                "endpoints",
                "persistentvolumeclaims",
                "persistentvolumeclaims/status",
                "pods",
                "replicationcontrollers",
                "replicationcontrollers/scale",
                "serviceaccounts",
                "services",
                "services/status"
            ]
        ),
        rule(
            READ,
            "",
            &[
                "bindings",
                "events",
                "limitranges",
                "namespaces/status",
                "pods/log",
                "pods/status",
                "replicationcontrollers/status",
                "resourcequotas",
                "resourcequotas/status"
            ]
        ),
        rule(READ, "", &["namespaces"]),
        rule(READ, "discovery.k8s.io", &["endpointslices"]),
        rule(
            READ,
            "apps",
            &[
                "controllerrevisions",
                "daemonsets",
                "daemonsets/status",
                "deployments",
                "deployments/scale",
                "deployments/status",
                "replicasets",
                "replicasets/scale",
                "replicasets/status",
                "statefulsets",
                "statefulsets/scale",
                "statefulsets/status"
            ]
        ),
        rule(
            READ,
            "autoscaling",
            &[
                "horizontalpodautoscalers",
                "horizontalpodautoscalers/status"
            ]
        ),
        rule(
            READ,
            "batch",
            &["cronjobs", "cronjobs/status", "jobs", "jobs/status"]
        ),
        rule(
            READ,
            "extensions",
            &[
                "daemonsets",
                "daemonsets/status",
                "deployments",
                "deployments/scale",
                "deployments/status",
                "ingresses",
                "ingresses/status",
                "networkpolicies",
                "replicasets",
                "replicasets/scale",
                "replicasets/status",
                "replicationcontrollers/scale"
            ]
        ),
        rule(
            READ,
            "policy",
            &["poddisruptionbudgets", "poddisruptionbudgets/status"]
        ),
        rule(
            READ,
            "networking.k8s.io",
            &["ingresses", "ingresses/status", "networkpolicies"]
        ),
    ]);
    cluster_role("system:aggregate-to-view", labelled("view"), rules)
}

/// `system:aggregate-to-edit`: writes to a namespace's workloads, Secrets and services,
/// and impersonating its service accounts.
fn edit() -> Value {
    let rules = json!([
        rule(
            READ,
            "",
            &[
                "pods/attach",
                "pods/exec",
                "pods/portforward",
                "pods/proxy",
                "secrets",
                "services/proxy"
            ]
        ),
        rule(&["impersonate"], "", &["serviceaccounts"]),
        rule(
            WRITE,
            "",
            &[
                "pods",
                "pods/attach",
                "pods/exec",
                "pods/portforward",
                "pods/proxy"
            ]
        ),
        rule(&["create"], "", &["pods/eviction"]),
        rule(
            WRITE,
            "",
            &[
                "configmaps",
                "events",
                "persistentvolumeclaims",
                "replicationcontrollers",
                "replicationcontrollers/scale",
                "secrets",
                "serviceaccounts",
                "services",
                "services/proxy"
            ]
        ),
        rule(&["create"], "", &["serviceaccounts/token"]),
        rule(
            WRITE,
            "apps",
            &[
                "daemonsets",
                "deployments",
                "deployments/rollback",
                "deployments/scale",
                "replicasets",
                "replicasets/scale",
                "statefulsets",
                "statefulsets/scale"
            ]
        ),
        rule(WRITE, "autoscaling", &["horizontalpodautoscalers"]),
        rule(WRITE, "batch", &["cronjobs", "jobs"]),
        rule(
            WRITE,
            "extensions",
            &[
                "daemonsets",
                "deployments",
                "deployments/rollback",
                "deployments/scale",
                "ingresses",
                "networkpolicies",
                "replicasets",
                "replicasets/scale",
                "replicationcontrollers/scale"
            ]
        ),
        rule(WRITE, "policy", &["poddisruptionbudgets"]),
        rule(
            WRITE,
            "networking.k8s.io",
            &["ingresses", "networkpolicies"]
        ),
        rule(ALL_VERBS, "coordination.k8s.io", &["leases"]),
    ]);
    cluster_role("system:aggregate-to-edit", labelled("edit"), rules)
}

/// `system:aggregate-to-admin`: a namespace's Roles and RoleBindings, and access reviews.
fn admin() -> Value {
    let rules = json!([
        rule(
            &["create"],
            "authorization.k8s.io",
            &["localsubjectaccessreviews"]
        ),
        rule(
            ALL_VERBS,
            "rbac.authorization.k8s.io",
            &["rolebindings", "roles"]
        ),
    ]);
    cluster_role("system:aggregate-to-admin", labelled("admin"), rules)
}

/// The three aggregated-into roles, seeded with the others.
pub fn cluster_roles() -> Vec<Value> {
    vec![admin(), edit(), view()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_role_is_labelled_for_its_aggregate() {
        for role in cluster_roles() {
            let name = role["metadata"]["name"].as_str().unwrap();
            let target = name.strip_prefix("system:aggregate-to-").unwrap();
            let label = format!("rbac.authorization.k8s.io/aggregate-to-{target}");
            assert_eq!(role["metadata"]["labels"][&label], "true", "{name}");
            assert!(!role["rules"].as_array().unwrap().is_empty());
        }
        // edit may write Deployments; view may not read Secrets.
        let text = cluster_roles()[1].to_string();
        assert!(text.contains("\"deployments\""));
        assert!(!cluster_roles()[2].to_string().contains("\"secrets\""));
    }
}
