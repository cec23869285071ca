//! The built-in controllers call the API as kube-controller-manager's per-controller
//! service accounts: on a test server with RBAC on, a Deployment's ReplicaSet is
//! created by `system:serviceaccount:kube-system:deployment-controller` and its Pods by
//! `...:replicaset-controller`, each allowed through its bootstrap
//! `system:controller:*` ClusterRole (the audit record says so); with that binding
//! deleted, the ReplicaSet controller is refused as any client would be. And the
//! ClusterRole aggregation controller fills `view`, `edit` and `admin` as kubectl shows.

mod support;

use std::time::{Duration, Instant};

use crd_server::TestServer;
use k8s_openapi::api::authorization::v1::SubjectAccessReview;
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::api::rbac::v1::ClusterRoleBinding;
use kube::Api;
use kube::api::{DeleteParams, ListParams, Patch, PatchParams};
use serde_json::{Value, json};

const DEPLOYMENT_CONTROLLER: &str = "system:serviceaccount:kube-system:deployment-controller";
const REPLICASET_CONTROLLER: &str = "system:serviceaccount:kube-system:replicaset-controller";

fn deployment(ns: &str) -> String {
    format!(
        r#"
apiVersion: apps/v1
kind: Deployment
metadata: {{name: web, namespace: {ns}}}
spec:
  replicas: 1
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
      containers: [{{name: web, image: nginx}}]
"#
    )
}

/// The first audit event of `user` that `matches`, waiting up to 60 s for it (a
/// controller whose pass failed retries after a growing back-off).
async fn wait_for_event(
    server: &TestServer,
    user: &str,
    matches: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let made = server.requests_of(user);
        let found = made
            .iter()
            .find(|e| e["stage"] == "ResponseComplete" && matches(e));
        if let Some(e) = found {
            return e.clone();
        }
        let seen: Vec<String> = made
            .iter()
            .filter(|e| e["stage"] == "ResponseComplete")
            .map(|e| {
                format!(
                    "{} {} {}",
                    e["verb"], e["requestURI"], e["responseStatus"]["code"]
                )
            })
            .collect();
        assert!(
            Instant::now() < deadline,
            "no such request of {user}; it made:\n{}",
            seen.join("\n")
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Polls a SubjectAccessReview for the ReplicaSet controller creating Pods in `ns`
/// until the authorizer refuses it (at most 30 s).
async fn wait_until_denied(client: &kube::Client, ns: &str) {
    let reviews: Api<SubjectAccessReview> = Api::all(client.clone());
    let review: SubjectAccessReview = serde_json::from_value(json!({
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SubjectAccessReview",
        "spec": {
            "user": REPLICASET_CONTROLLER,
            "groups": ["system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"],
            "resourceAttributes": {"namespace": ns, "verb": "create", "resource": "pods"}
        }
    }))
    .expect("review");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let answer = reviews
            .create(&Default::default(), &review)
            .await
            .expect("review");
        let allowed = answer.status.as_ref().is_some_and(|s| s.allowed);
        if !allowed {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the authorizer still allows: {:?}",
            answer.status
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn creates(resource: &'static str) -> impl Fn(&Value) -> bool {
    move |e| e["verb"] == "create" && e["objectRef"]["resource"] == resource
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn controllers_act_as_their_own_service_accounts() {
    let server = TestServer::builder()
        .rbac()
        .controllers("garbagecollector,namespace,deployment,replicaset")
        .start()
        .await
        .expect("server");
    let ns = server.namespace().await.expect("namespace");
    server
        .apply_yaml(&deployment(&ns))
        .await
        .expect("deployment");

    let rs = wait_for_event(&server, DEPLOYMENT_CONTROLLER, creates("replicasets")).await;
    assert_eq!(rs["objectRef"]["namespace"], json!(ns));
    assert_eq!(rs["objectRef"]["apiGroup"], "apps");
    assert_eq!(rs["responseStatus"]["code"], 201);
    assert_eq!(rs["annotations"]["authorization.k8s.io/decision"], "allow");
    assert_eq!(
        rs["annotations"]["authorization.k8s.io/reason"],
        "RBAC: allowed by ClusterRoleBinding \"system:controller:deployment-controller\" of ClusterRole \"system:controller:deployment-controller\" to ServiceAccount \"deployment-controller/kube-system\""
    );
    assert_eq!(
        rs["user"]["groups"],
        json!([
            "system:serviceaccounts",
            "system:serviceaccounts:kube-system",
            "system:authenticated"
        ])
    );
    let pod = wait_for_event(&server, REPLICASET_CONTROLLER, creates("pods")).await;
    assert_eq!(pod["annotations"]["authorization.k8s.io/decision"], "allow");
    let uri: http::Uri = server.url().parse().expect("url");
    let mut config = kube::Config::new(uri);
    config.auth_info.token = Some(server.admin_token().to_string().into());
    let client = kube::Client::try_from(config).expect("client");
    let pods: Api<Pod> = Api::namespaced(client.clone(), &ns);
    let listed = pods.list(&ListParams::default()).await.expect("pods");
    assert_eq!(listed.items.len(), 1);

    // Without its binding the ReplicaSet controller holds nothing: scaling up is
    // refused with kube-apiserver's 403, and no Pod is made.
    let bindings: Api<ClusterRoleBinding> = Api::all(client.clone());
    bindings
        .delete(
            "system:controller:replicaset-controller",
            &DeleteParams::default(),
        )
        .await
        .expect("delete the binding");
    // The authorizer reads bindings from its informer, as kube-apiserver's does: wait
    // until it answers "no" before scaling, or the scale-up may still be allowed.
    wait_until_denied(&client, &ns).await;
    let deployments: Api<k8s_openapi::api::apps::v1::Deployment> =
        Api::namespaced(client.clone(), &ns);
    deployments
        .patch(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicas": 2}})),
        )
        .await
        .expect("scale");
    let refused = wait_for_event(&server, REPLICASET_CONTROLLER, |e| {
        creates("pods")(e) && e["responseStatus"]["code"] == 403
    })
    .await;
    assert_eq!(
        refused["annotations"]["authorization.k8s.io/decision"],
        "forbid"
    );
    assert_eq!(
        refused["responseStatus"]["message"],
        json!(format!(
            "pods is forbidden: User \"{REPLICASET_CONTROLLER}\" cannot create resource \"pods\" in API group \"\" in the namespace \"{ns}\""
        ))
    );
    let listed = pods.list(&ListParams::default()).await.expect("pods");
    assert_eq!(listed.items.len(), 1);
}

const WIDGETS_VIEWER: &str = r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: widgets-viewer
  labels: {rbac.authorization.k8s.io/aggregate-to-view: "true"}
rules:
- apiGroups: ["example.com"]
  resources: ["widgets"]
  verbs: ["get", "list", "watch"]
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aggregated_cluster_roles_are_filled_by_their_controller() {
    let server = TestServer::builder().start().await.expect("server");
    let url = server.url();
    let dir = tempfile::tempdir().expect("tempdir");
    tokio::task::spawn_blocking(move || {
        let file = support::write(dir.path(), "widgets.yaml", WIDGETS_VIEWER);
        support::kubectl_ok(&url, &["apply", "-f", &file]);
        let want = json!([{"apiGroups": ["example.com"], "resources": ["widgets"], "verbs": ["get", "list", "watch"]}]);
        // view selects the new role; edit selects view, admin edit.
        for role in ["view", "edit", "admin"] {
            let deadline = Instant::now() + Duration::from_secs(10);
            loop {
                let got = support::json_of(
                    &url,
                    &["get", "clusterrole", role, "--show-managed-fields"],
                );
                let holds = |rules: &Value| rules.as_array().is_some_and(|r| r.contains(&want[0]));
                if holds(&got["rules"]) {
                    let managers = got["metadata"]["managedFields"].as_array().expect("fields");
                    assert!(
                        managers
                            .iter()
                            .any(|m| m["manager"] == "clusterrole-aggregation-controller"),
                        "{got}"
                    );
                    break;
                }
                assert!(Instant::now() < deadline, "{role} never aggregated: {got}");
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        // Its label gone, the rule leaves them.
        support::kubectl_ok(
            &url,
            &["label", "clusterrole", "widgets-viewer", "rbac.authorization.k8s.io/aggregate-to-view-"],
        );
        let deadline = Instant::now() + Duration::from_secs(10);
        let widget_rule = want[0].clone();
        while support::json_of(&url, &["get", "clusterrole", "admin"])["rules"]
            .as_array()
            .is_some_and(|r| r.contains(&widget_rule))
        {
            assert!(Instant::now() < deadline, "admin kept the rule");
            std::thread::sleep(Duration::from_millis(50));
        }
    })
    .await
    .expect("kubectl walk");
}

fn client_with_token(server: &TestServer, token: String) -> kube::Client {
    let uri: http::Uri = server.url().parse().expect("url");
    let mut config = kube::Config::new(uri);
    config.auth_info.token = Some(token.into());
    kube::Client::try_from(config).expect("client")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edit_and_view_hold_the_built_in_kinds_as_on_a_cluster() {
    use k8s_openapi::api::apps::v1::Deployment;
    use k8s_openapi::api::core::v1::Secret;
    use k8s_openapi::api::rbac::v1::Role;
    use kube::api::PostParams;

    let server = TestServer::builder().rbac().start().await.expect("server");
    let ns = server.namespace().await.expect("namespace");
    let bindings = format!(
        r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {{name: dev-edit, namespace: {ns}}}
roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit}}
subjects: [{{apiGroup: rbac.authorization.k8s.io, kind: User, name: dev}}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {{name: auditor-view, namespace: {ns}}}
roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}}
subjects: [{{apiGroup: rbac.authorization.k8s.io, kind: User, name: auditor}}]
"#
    );
    server.apply_yaml(&bindings).await.expect("bindings");
    let dev = client_with_token(&server, server.token_for_user("dev", &[]));
    let auditor = client_with_token(&server, server.token_for_user("auditor", &[]));
    let deployment: Deployment = serde_json::from_value(json!({
        "metadata": {"name": "web"},
        "spec": {"selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}
    }))
    .expect("deployment");
    // `edit` (through system:aggregate-to-edit and -view): Deployments and Secrets.
    let deployments: Api<Deployment> = Api::namespaced(dev.clone(), &ns);
    deployments
        .create(&PostParams::default(), &deployment)
        .await
        .expect("edit creates a Deployment");
    let secrets: Api<Secret> = Api::namespaced(dev.clone(), &ns);
    secrets
        .list(&ListParams::default())
        .await
        .expect("edit lists Secrets");
    // …but not Roles: that is admin's.
    let role: Role =
        serde_json::from_value(json!({"metadata": {"name": "r"}, "rules": []})).expect("role");
    let refused = Api::<Role>::namespaced(dev, &ns)
        .create(&PostParams::default(), &role)
        .await
        .expect_err("edit may not create Roles");
    assert!(
        matches!(&refused, kube::Error::Api(s) if s.code == 403),
        "{refused:?}"
    );
    // `view`: Deployments read, Secrets not.
    let seen = Api::<Deployment>::namespaced(auditor.clone(), &ns)
        .list(&ListParams::default())
        .await
        .expect("view lists Deployments");
    assert_eq!(seen.items.len(), 1);
    let refused = Api::<Secret>::namespaced(auditor, &ns)
        .list(&ListParams::default())
        .await
        .expect_err("view may not list Secrets");
    assert!(
        matches!(&refused, kube::Error::Api(s) if s.code == 403),
        "{refused:?}"
    );
}
