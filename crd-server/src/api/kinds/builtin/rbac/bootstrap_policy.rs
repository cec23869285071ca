//! The RBAC objects a new kube-apiserver creates (the `rbac/bootstrap-roles` post-start
//! hook of `plugin/pkg/auth/authorizer/rbac/bootstrappolicy`): `cluster-admin` with
//! every permission, bound to the group `system:masters`; the user-facing `admin`,
//! `edit` and `view`, which aggregate the ClusterRoles labelled
//! `rbac.authorization.k8s.io/aggregate-to-<name>` (and are themselves labelled to
//! aggregate into the next: view into edit, edit into admin); and the roles every
//! authenticated user holds (`system:discovery`, `system:basic-user`,
//! `system:public-info-viewer`). The server creates those missing at start.
//!
//! The `system:aggregate-to-*` roles that give them their rules over the built-in kinds
//! are in `aggregate_policy.rs`, the controllers' in `controller_policy.rs` (the server
//! seeds all three lists);
//! the clusterrole-aggregation controller fills `admin`, `edit` and `view`. The nodes'
//! `system:` roles are not seeded.

use serde_json::{Value, json};

const RBAC: &str = "rbac.authorization.k8s.io";

pub(super) fn meta(name: &str, labels: Value) -> Value {
    let mut labels = labels;
    labels["kubernetes.io/bootstrapping"] = json!("rbac-defaults");
    json!({
        "name": name,
        "labels": labels,
        "annotations": {"rbac.authorization.kubernetes.io/autoupdate": "true"},
    })
}

pub(super) fn cluster_role(name: &str, labels: Value, rules: Value) -> Value {
    json!({
        "apiVersion": format!("{RBAC}/v1"),
        "kind": "ClusterRole",
        "metadata": meta(name, labels),
        "rules": rules,
    })
}

fn aggregated(name: &str, labels: Value) -> Value {
    let mut role = cluster_role(name, labels, json!([]));
    role["aggregationRule"] = json!({"clusterRoleSelectors": [
        {"matchLabels": {format!("{RBAC}/aggregate-to-{name}"): "true"}}
    ]});
    role.as_object_mut().map(|m| m.remove("rules"));
    role
}

/// The non-resource URLs of `system:discovery`.
const DISCOVERY: &[&str] = &[
    "/api",
    "/api/*",
    "/apis",
    "/apis/*",
    "/healthz",
    "/livez",
    "/openapi",
    "/openapi/*",
    "/readyz",
    "/version",
    "/version/",
];
/// The non-resource URLs of `system:public-info-viewer`.
const PUBLIC_INFO: &[&str] = &["/healthz", "/livez", "/readyz", "/version", "/version/"];

/// The rules of the seeded ClusterRoles the single user holds, in the order a
/// rules review lists them: (resource rules, non-resource rules).
pub fn user_rules() -> (Vec<Value>, Vec<Value>) {
    let resources = vec![
        json!({"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}),
        json!({"verbs": ["create"], "apiGroups": ["authentication.k8s.io"], "resources": ["selfsubjectreviews"]}),
        json!({"verbs": ["create"], "apiGroups": ["authorization.k8s.io"], "resources": ["selfsubjectaccessreviews", "selfsubjectrulesreviews"]}),
    ];
    let non_resources = vec![
        json!({"verbs": ["*"], "nonResourceURLs": ["*"]}),
        json!({"verbs": ["get"], "nonResourceURLs": DISCOVERY}),
        json!({"verbs": ["get"], "nonResourceURLs": PUBLIC_INFO}),
    ];
    (resources, non_resources)
}

/// The seeded ClusterRoles.
pub fn cluster_roles() -> Vec<Value> {
    let (resources, non_resources) = user_rules();
    let none = json!({});
    vec![
        cluster_role(
            "cluster-admin",
            none.clone(),
            json!([resources[0], non_resources[0]]),
        ),
        aggregated("admin", none.clone()),
        aggregated(
            "edit",
            json!({format!("{RBAC}/aggregate-to-admin"): "true"}),
        ),
        aggregated("view", json!({format!("{RBAC}/aggregate-to-edit"): "true"})),
        cluster_role("system:discovery", none.clone(), json!([non_resources[1]])),
        cluster_role(
            "system:basic-user",
            none.clone(),
            json!([resources[1], resources[2]]),
        ),
        cluster_role(
            "system:public-info-viewer",
            none.clone(),
            json!([non_resources[2]]),
        ),
        cluster_role(
            "system:service-account-issuer-discovery",
            none,
            json!([{"verbs": ["get"], "nonResourceURLs": [
                "/.well-known/openid-configuration",
                "/.well-known/openid-configuration/",
                "/openid/v1/jwks",
                "/openid/v1/jwks/",
            ]}]),
        ),
    ]
}

fn binding(name: &str, groups: &[&str]) -> Value {
    let subjects: Vec<Value> = groups
        .iter()
        .map(|g| json!({"apiGroup": RBAC, "kind": "Group", "name": g}))
        .collect();
    json!({
        "apiVersion": format!("{RBAC}/v1"),
        "kind": "ClusterRoleBinding",
        "metadata": meta(name, json!({})),
        "roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": name},
        "subjects": subjects,
    })
}

/// The seeded ClusterRoleBindings.
pub fn cluster_role_bindings() -> Vec<Value> {
    vec![
        binding("cluster-admin", &["system:masters"]),
        binding("system:discovery", &["system:authenticated"]),
        binding("system:basic-user", &["system:authenticated"]),
        binding(
            "system:public-info-viewer",
            &["system:authenticated", "system:unauthenticated"],
        ),
        binding(
            "system:service-account-issuer-discovery",
            &["system:serviceaccounts"],
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cluster_admin_holds_everything_and_the_user_roles_aggregate() {
        let roles = cluster_roles();
        assert_eq!(
            roles[0]["rules"],
            json!([
                {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]},
                {"verbs": ["*"], "nonResourceURLs": ["*"]}
            ])
        );
        assert_eq!(
            roles[2]["aggregationRule"]["clusterRoleSelectors"][0]["matchLabels"],
            json!({"rbac.authorization.k8s.io/aggregate-to-edit": "true"})
        );
        assert_eq!(
            roles[3]["metadata"]["labels"]["rbac.authorization.k8s.io/aggregate-to-edit"],
            "true"
        );
        assert!(roles[1].get("rules").is_none());
        let bindings = cluster_role_bindings();
        assert_eq!(bindings[0]["subjects"][0]["name"], "system:masters");
    }
}
