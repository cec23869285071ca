use crd_runtime::rbac::{Attributes, Policy};

use super::*;
use crate::api::kinds::builtin::rbac::controller_policy::{cluster_role_bindings, cluster_roles};

fn policy() -> Policy {
    let mut p = Policy::new();
    for obj in cluster_roles().iter().chain(cluster_role_bindings().iter()) {
        assert_eq!(p.add(obj), Ok(true), "{obj}");
    }
    p
}

/// Whether the controller writing as `manager` may `verb` `group`/`resource` in `ns`.
fn may(p: &Policy, manager: &str, verb: &str, resource: &str, ns: &str) -> bool {
    let (resource, sub) = resource.split_once('/').unwrap_or((resource, ""));
    let (resource, group) = resource.split_once('.').unwrap_or((resource, ""));
    let attrs = Attributes {
        user: of_manager(manager),
        verb: verb.into(),
        namespace: ns.into(),
        api_group: group.into(),
        resource: resource.into(),
        subresource: sub.into(),
        name: "x".into(),
        resource_request: true,
        ..Attributes::default()
    };
    p.authorize(&attrs).is_ok()
}

#[test]
fn controllers_are_kube_controller_managers_service_accounts() {
    for (manager, account) in [
        ("deployment-controller", "deployment-controller"),
        ("statefulset-controller", "statefulset-controller"),
        ("cronjob-controller", "cronjob-controller"),
        ("daemonset-controller", "daemon-set-controller"),
        ("persistentvolume-controller", "persistent-volume-binder"),
        ("garbage-collector-controller", "generic-garbage-collector"),
        ("node-ipam-controller", "node-controller"),
    ] {
        let user = of_manager(manager);
        assert_eq!(
            user.name,
            format!("system:serviceaccount:kube-system:{account}")
        );
        // Each is bound to its role.
        assert!(
            cluster_role_bindings()
                .iter()
                .any(|b| b["metadata"]["name"] == format!("system:controller:{account}")),
            "{account}"
        );
    }
    assert_eq!(of_manager("default-scheduler").name, SCHEDULER);
    assert_eq!(
        of_manager("kube-controller-manager").name,
        CONTROLLER_MANAGER
    );
    assert!(
        of_manager("kube-apiserver")
            .groups
            .contains(&crate::auth::MASTERS.to_string())
    );
}

#[test]
fn each_controller_may_make_the_calls_it_makes() {
    let p = policy();
    // manager verb resource, one a line.
    let allowed = "
        replicaset-controller create pods
        replicaset-controller patch pods
        replicaset-controller delete pods
        replicaset-controller update replicasets.apps/status
        replicaset-controller create events
        deployment-controller create replicasets.apps
        deployment-controller update replicasets.apps
        deployment-controller delete replicasets.apps
        deployment-controller update deployments.apps/status
        job-controller create pods
        job-controller patch pods
        job-controller update jobs.batch/status
        default-scheduler create pods/binding
        default-scheduler update pods/status
        kwok-controller update nodes/status
        kwok-controller update pods/status
        kwok-controller update leases.coordination.k8s.io
        node-ipam-controller update nodes
        garbage-collector-controller delete widgets.example.com
        garbage-collector-controller update configmaps
        validatingadmissionpolicy-status-controller update validatingadmissionpolicies.admissionregistration.k8s.io/status
        statefulset-controller create pods
        statefulset-controller create controllerrevisions.apps
        statefulset-controller update statefulsets.apps/status
        daemonset-controller create pods
        daemonset-controller update daemonsets.apps/status
        cronjob-controller create jobs.batch
        cronjob-controller update cronjobs.batch/status
        persistentvolume-controller update persistentvolumeclaims/status
        storage-version-migrator-controller list widgets.example.com
        storage-version-migrator-controller patch widgets.example.com
        storage-version-migrator-controller update storageversionmigrations.storagemigration.k8s.io/status
        storage-version-migrator-controller update customresourcedefinitions.apiextensions.k8s.io/status
        storage-version-migration-trigger get customresourcedefinitions.apiextensions.k8s.io
        storage-version-migration-trigger create storageversionmigrations.storagemigration.k8s.io
    ";
    for line in allowed.lines().filter(|l| !l.trim().is_empty()) {
        let [manager, verb, resource]: [&str; 3] = line
            .split_whitespace()
            .collect::<Vec<_>>()
            .try_into()
            .expect("three words");
        assert!(
            may(&p, manager, verb, resource, "demo"),
            "{manager} {verb} {resource}"
        );
    }
    let namespace = |verb: &str, resource: &str| {
        let attrs = Attributes {
            user: controller("namespace-controller"),
            verb: verb.into(),
            namespace: "demo".into(),
            resource: resource.into(),
            subresource: "finalize".into(),
            name: "demo".into(),
            resource_request: true,
            ..Attributes::default()
        };
        p.authorize(&attrs).is_ok()
    };
    assert!(namespace("update", "namespaces"));
    // Nothing more than upstream gives them.
    assert!(!may(
        &p,
        "replicaset-controller",
        "delete",
        "deployments.apps",
        "demo"
    ));
    assert!(!may(&p, "replicaset-controller", "update", "pods", "demo"));
    assert!(!may(&p, "job-controller", "get", "secrets", "demo"));
    assert!(!may(&p, "default-scheduler", "delete", "nodes", ""));
    assert!(!may(
        &p,
        "storage-version-migrator-controller",
        "delete",
        "widgets.example.com",
        "demo"
    ));
    assert!(!may(
        &p,
        "storage-version-migration-trigger",
        "patch",
        "widgets.example.com",
        "demo"
    ));
}
