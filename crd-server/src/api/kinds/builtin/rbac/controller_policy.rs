//! The bootstrap roles of the controllers this server runs, as kube-apiserver's
//! bootstrappolicy seeds them (controller_policy.go, policy.go): one
//! `system:controller:NAME` ClusterRole per kube-controller-manager controller, bound to
//! the service account `kube-system/NAME`; `system:kube-controller-manager` and
//! `system:kube-scheduler` bound to those users. `kwok-controller` (the simulated
//! kubelets) is not upstream's: it is what kwok's own deployment binds its service
//! account to.

use serde_json::{Value, json};

use super::bootstrap_policy::{cluster_role, meta};

const RBAC: &str = "rbac.authorization.k8s.io";
const PREFIX: &str = "system:controller:";
/// Upstream's `Read` verbs.
const READ: &[&str] = &["get", "list", "watch"];

fn rule(verbs: &[&str], groups: &[&str], resources: &[&str]) -> Value {
    json!({"verbs": verbs, "apiGroups": groups, "resources": resources})
}

fn named(verbs: &[&str], groups: &[&str], resources: &[&str], names: &[&str]) -> Value {
    let mut r = rule(verbs, groups, resources);
    r["resourceNames"] = json!(names);
    r
}

/// `eventsRule()`.
fn events() -> Value {
    rule(
        &["create", "update", "patch"],
        &["", "events.k8s.io"],
        &["events"],
    )
}

/// The controllers' ClusterRoles (`system:controller:*`), the controller manager's and
/// the scheduler's.
pub fn cluster_roles() -> Vec<Value> {
    let apps = &["apps", "extensions"][..];
    let controllers = vec![
        (
            "clusterrole-aggregation-controller",
            // Full rights on ClusterRoles, to write whatever they gather.
            vec![rule(
                &["escalate", "get", "list", "watch", "update", "patch"],
                &[RBAC],
                &["clusterroles"],
            )],
        ),
        (
            "cronjob-controller",
            vec![
                rule(
                    &["get", "list", "watch", "update"],
                    &["batch"],
                    &["cronjobs"],
                ),
                rule(
                    &[
                        "get", "list", "watch", "create", "update", "delete", "patch",
                    ],
                    &["batch"],
                    &["jobs"],
                ),
                rule(&["update"], &["batch"], &["cronjobs/status"]),
                rule(&["update"], &["batch"], &["cronjobs/finalizers"]),
                rule(&["list", "delete"], &[""], &["pods"]),
                events(),
            ],
        ),
        (
            "daemon-set-controller",
            vec![
                rule(READ, &["extensions", "apps"], &["daemonsets"]),
                rule(&["update"], &["extensions", "apps"], &["daemonsets/status"]),
                rule(
                    &["update"],
                    &["extensions", "apps"],
                    &["daemonsets/finalizers"],
                ),
                rule(&["list", "watch"], &[""], &["nodes"]),
                rule(
                    &["list", "watch", "create", "delete", "patch"],
                    &[""],
                    &["pods"],
                ),
                rule(&["create"], &[""], &["pods/binding"]),
                rule(
                    &[
                        "get", "list", "watch", "create", "delete", "update", "patch",
                    ],
                    &["apps"],
                    &["controllerrevisions"],
                ),
                events(),
            ],
        ),
        (
            "deployment-controller",
            vec![
                rule(
                    &["get", "list", "watch", "update"],
                    &["extensions", "apps"],
                    &["deployments"],
                ),
                rule(
                    &["update"],
                    &["extensions", "apps"],
                    &["deployments/status"],
                ),
                rule(
                    &["update"],
                    &["extensions", "apps"],
                    &["deployments/finalizers"],
                ),
                rule(
                    &[
                        "get", "list", "watch", "create", "update", "patch", "delete",
                    ],
                    apps,
                    &["replicasets"],
                ),
                rule(&["get", "list", "watch", "update"], &[""], &["pods"]),
                events(),
            ],
        ),
        (
            "disruption-controller",
            vec![
                rule(
                    READ,
                    &["apps", "extensions"],
                    &["deployments", "replicasets", "statefulsets"],
                ),
                rule(READ, &[""], &["replicationcontrollers"]),
                rule(READ, &["policy"], &["poddisruptionbudgets"]),
                rule(&["update"], &["policy"], &["poddisruptionbudgets/status"]),
                rule(&["get"], &["*"], &["*/scale"]),
                rule(&["get"], &[""], &["pods"]),
                rule(&["patch", "update"], &[""], &["pods/status"]),
                events(),
            ],
        ),
        (
            "endpoint-controller",
            vec![
                rule(READ, &[""], &["services", "pods"]),
                rule(
                    &["get", "list", "create", "update", "delete"],
                    &[""],
                    &["endpoints"],
                ),
                rule(&["create"], &[""], &["endpoints/restricted"]),
                events(),
            ],
        ),
        (
            "endpointslice-controller",
            vec![
                rule(READ, &[""], &["services", "pods", "nodes"]),
                rule(&["update"], &[""], &["services/finalizers"]),
                rule(
                    &["create", "update", "delete", "get", "list"],
                    &["discovery.k8s.io"],
                    &["endpointslices"],
                ),
                events(),
            ],
        ),
        (
            "generic-garbage-collector",
            vec![
                rule(
                    &["get", "list", "watch", "patch", "update", "delete"],
                    &["*"],
                    &["*"],
                ),
                events(),
            ],
        ),
        (
            "job-controller",
            vec![
                rule(
                    &["get", "list", "watch", "update", "patch"],
                    &["batch"],
                    &["jobs"],
                ),
                rule(&["update"], &["batch"], &["jobs/status"]),
                rule(&["update"], &["batch"], &["jobs/finalizers"]),
                rule(
                    &["list", "watch", "create", "delete", "patch"],
                    &[""],
                    &["pods"],
                ),
                events(),
            ],
        ),
        (
            "namespace-controller",
            vec![
                rule(&["get", "list", "watch", "delete"], &[""], &["namespaces"]),
                rule(
                    &["update"],
                    &[""],
                    &["namespaces/finalize", "namespaces/status"],
                ),
                rule(
                    &["get", "list", "delete", "deletecollection"],
                    &["*"],
                    &["*"],
                ),
            ],
        ),
        (
            "node-controller",
            vec![
                rule(
                    &["get", "list", "update", "delete", "patch"],
                    &[""],
                    &["nodes"],
                ),
                rule(&["patch", "update"], &[""], &["nodes/status"]),
                rule(&["patch", "update"], &[""], &["pods/status"]),
                rule(&["list", "get", "delete"], &[""], &["pods"]),
                events(),
            ],
        ),
        (
            "persistent-volume-binder",
            vec![
                rule(
                    &["get", "list", "watch", "update", "create", "delete"],
                    &[""],
                    &["persistentvolumes"],
                ),
                rule(&["update"], &[""], &["persistentvolumes/status"]),
                rule(
                    &["get", "list", "watch", "update"],
                    &[""],
                    &["persistentvolumeclaims"],
                ),
                rule(&["update"], &[""], &["persistentvolumeclaims/status"]),
                rule(
                    &["list", "watch", "get", "create", "delete"],
                    &[""],
                    &["pods"],
                ),
                rule(READ, &["storage.k8s.io"], &["storageclasses"]),
                rule(
                    &["get", "create", "update", "delete"],
                    &[""],
                    &["endpoints"],
                ),
                rule(&["get", "create", "delete"], &[""], &["services"]),
                rule(&["get"], &[""], &["secrets"]),
                rule(&["get", "list"], &[""], &["nodes"]),
                rule(&["watch"], &[""], &["events"]),
                events(),
            ],
        ),
        (
            "pod-garbage-collector",
            vec![
                rule(&["list", "watch", "delete"], &[""], &["pods"]),
                rule(&["get", "list"], &[""], &["nodes"]),
                rule(&["patch"], &[""], &["pods/status"]),
            ],
        ),
        (
            "replicaset-controller",
            vec![
                rule(&["get", "list", "watch", "update"], apps, &["replicasets"]),
                rule(&["update"], apps, &["replicasets/status"]),
                rule(&["update"], apps, &["replicasets/finalizers"]),
                rule(
                    &["list", "watch", "patch", "create", "delete"],
                    &[""],
                    &["pods"],
                ),
                events(),
            ],
        ),
        (
            "statefulset-controller",
            vec![
                rule(&["list", "watch"], &[""], &["pods"]),
                rule(READ, &["apps"], &["statefulsets"]),
                rule(&["update"], &["apps"], &["statefulsets/status"]),
                rule(&["update"], &["apps"], &["statefulsets/finalizers"]),
                rule(
                    &["get", "create", "delete", "update", "patch"],
                    &[""],
                    &["pods"],
                ),
                rule(
                    &[
                        "get", "create", "delete", "update", "patch", "list", "watch",
                    ],
                    &["apps"],
                    &["controllerrevisions"],
                ),
                rule(&["get", "create"], &[""], &["persistentvolumeclaims"]),
                // StatefulSetAutoDeletePVC (on since 1.27).
                rule(&["update", "delete"], &[""], &["persistentvolumeclaims"]),
                events(),
            ],
        ),
        (
            "root-ca-cert-publisher",
            vec![
                rule(&["create", "update"], &[""], &["configmaps"]),
                events(),
            ],
        ),
        (
            "service-account-controller",
            vec![rule(&["create"], &[""], &["serviceaccounts"]), events()],
        ),
        (
            // From 1.37 (storagemigration.k8s.io/v1): rewrite any resource, record
            // progress, trim a migrated CRD's storedVersions.
            "storage-version-migrator-controller",
            vec![
                rule(&["list", "patch"], &["*"], &["*"]),
                rule(
                    &["update"],
                    &["storagemigration.k8s.io"],
                    &["storageversionmigrations/status"],
                ),
                rule(
                    &["update"],
                    &["apiextensions.k8s.io"],
                    &["customresourcedefinitions/status"],
                ),
            ],
        ),
        (
            // crd-server's kube-storage-version-migrator trigger (off by default).
            "storage-version-migration-trigger",
            vec![
                rule(
                    READ,
                    &["apiextensions.k8s.io"],
                    &["customresourcedefinitions"],
                ),
                rule(
                    &["create"],
                    &["storagemigration.k8s.io"],
                    &["storageversionmigrations"],
                ),
            ],
        ),
        (
            "ttl-after-finished-controller",
            vec![
                rule(&["delete", "get", "list", "watch"], &["batch"], &["jobs"]),
                events(),
            ],
        ),
        (
            "validatingadmissionpolicy-status-controller",
            vec![
                rule(
                    READ,
                    &["admissionregistration.k8s.io"],
                    &["validatingadmissionpolicies"],
                ),
                rule(
                    &["get", "patch", "update"],
                    &["admissionregistration.k8s.io"],
                    &["validatingadmissionpolicies/status"],
                ),
                events(),
            ],
        ),
    ];
    let mut roles: Vec<Value> = controllers
        .into_iter()
        .map(|(name, rules)| cluster_role(&format!("{PREFIX}{name}"), json!({}), json!(rules)))
        .collect();
    roles.push(cluster_role(
        "system:kube-controller-manager",
        json!({}),
        json!([
            events(),
            rule(&["create"], &["coordination.k8s.io"], &["leases"]),
            named(
                &["get", "update"],
                &["coordination.k8s.io"],
                &["leases"],
                &["kube-controller-manager"]
            ),
            rule(&["create"], &[""], &["secrets", "serviceaccounts"]),
            rule(&["delete"], &[""], &["secrets"]),
            rule(
                &["get"],
                &[""],
                &["namespaces", "secrets", "serviceaccounts", "configmaps"]
            ),
            rule(&["update"], &[""], &["secrets", "serviceaccounts"]),
            rule(&["create"], &["authentication.k8s.io"], &["tokenreviews"]),
            rule(
                &["create"],
                &["authorization.k8s.io"],
                &["subjectaccessreviews"]
            ),
            rule(&["list", "watch"], &["*"], &["*"]),
            rule(&["create"], &[""], &["serviceaccounts/token"]),
        ]),
    ));
    roles.push(cluster_role(
        "system:kube-scheduler",
        json!({}),
        json!([
            events(),
            rule(&["create"], &["coordination.k8s.io"], &["leases"]),
            named(
                &["get", "update"],
                &["coordination.k8s.io"],
                &["leases"],
                &["kube-scheduler"]
            ),
            rule(READ, &[""], &["nodes"]),
            rule(&["get", "list", "watch", "delete"], &[""], &["pods"]),
            rule(&["create"], &[""], &["bindings", "pods/binding"]),
            rule(&["patch", "update"], &[""], &["pods/status"]),
            rule(
                READ,
                &["", "apps"],
                &[
                    "replicationcontrollers",
                    "services",
                    "replicasets",
                    "statefulsets"
                ]
            ),
            rule(READ, &["policy"], &["poddisruptionbudgets"]),
            rule(
                &["get", "list", "watch", "update"],
                &[""],
                &["persistentvolumeclaims", "persistentvolumes"]
            ),
            rule(&["create"], &["authentication.k8s.io"], &["tokenreviews"]),
            rule(
                &["create"],
                &["authorization.k8s.io"],
                &["subjectaccessreviews"]
            ),
            rule(
                READ,
                &["storage.k8s.io"],
                &["csinodes", "csidrivers", "csistoragecapacities"]
            ),
        ]),
    ));
    roles.push(cluster_role(
        "kwok-controller",
        json!({}),
        json!([
            rule(
                &["get", "list", "watch", "update", "patch"],
                &[""],
                &["nodes"]
            ),
            rule(&["update", "patch"], &[""], &["nodes/status"]),
            rule(
                &["get", "list", "watch", "update", "patch", "delete"],
                &[""],
                &["pods"]
            ),
            rule(&["update", "patch"], &[""], &["pods/status"]),
            rule(
                &[
                    "get", "list", "watch", "create", "update", "patch", "delete"
                ],
                &["coordination.k8s.io"],
                &["leases"],
            ),
            events(),
        ]),
    ));
    roles
}

fn binding(role: &str, subject: Value) -> Value {
    json!({
        "apiVersion": format!("{RBAC}/v1"),
        "kind": "ClusterRoleBinding",
        "metadata": meta(role, json!({})),
        "roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": role},
        "subjects": [subject],
    })
}

/// Each role bound to its user or service account.
pub fn cluster_role_bindings() -> Vec<Value> {
    let mut out: Vec<Value> = cluster_roles()
        .iter()
        .filter_map(|r| r["metadata"]["name"].as_str())
        .filter_map(|name| name.strip_prefix(PREFIX))
        .map(|sa| {
            binding(
                &format!("{PREFIX}{sa}"),
                json!({"kind": "ServiceAccount", "name": sa, "namespace": "kube-system"}),
            )
        })
        .collect();
    for user in ["system:kube-controller-manager", "system:kube-scheduler"] {
        out.push(binding(
            user,
            json!({"apiGroup": RBAC, "kind": "User", "name": user}),
        ));
    }
    out.push(binding(
        "kwok-controller",
        json!({"kind": "ServiceAccount", "name": "kwok-controller", "namespace": "kube-system"}),
    ));
    out
}

#[cfg(test)]
#[path = "controller_policy_tests.rs"]
mod tests;
