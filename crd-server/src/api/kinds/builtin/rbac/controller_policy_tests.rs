use super::*;

#[test]
fn the_controller_roles_are_bound_to_kube_system_service_accounts() {
    let bindings = cluster_role_bindings();
    let deployment = bindings
        .iter()
        .find(|b| b["metadata"]["name"] == "system:controller:deployment-controller")
        .expect("bound");
    assert_eq!(
        deployment["subjects"],
        json!([{"kind": "ServiceAccount", "name": "deployment-controller", "namespace": "kube-system"}])
    );
    assert_eq!(
        deployment["metadata"]["labels"]["kubernetes.io/bootstrapping"],
        "rbac-defaults"
    );
}
