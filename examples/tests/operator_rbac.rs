//! The StaticSite operator run as its own ServiceAccount on a test server with RBAC on,
//! with the Role shipped in the repository (examples/src/operator/rbac.yaml); then
//! that Role is checked against what the operator really did (the server's record of
//! its requests, read by `crd_gen::rbac`): a request the Role does not allow fails the
//! test. Run with `cargo test -p crd-toolkit-examples --features kube --test operator_rbac`.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use crd_runtime::CustomResourceExt;
use crd_runtime::rbac::Policy;
use crd_server::TestServer;
use crd_toolkit_examples::operator::leader::run_elected;
use crd_toolkit_examples::operator::{Context, StaticSite, StaticSiteSpec};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{DeleteParams, ListParams, Patch, PatchParams, PostParams};
use kube::runtime::wait::{await_condition, conditions};
use kube::{Api, ResourceExt};
use serde_json::{Value, json};
use tokio::sync::oneshot;

/// Every wait of this test is bounded by this.
const WAIT: Duration = Duration::from_secs(30);

const RBAC: &str = include_str!("../src/operator/rbac.yaml");

/// The repository's Role and RoleBinding, in namespace `ns`.
fn manifests(ns: &str) -> Vec<Value> {
    let mut docs = crd_runtime::parse_documents("examples/src/operator/rbac.yaml", RBAC)
        .expect("the operator's RBAC manifests parse");
    for doc in &mut docs {
        doc["metadata"]["namespace"] = json!(ns);
        if let Some(subjects) = doc.get_mut("subjects").and_then(Value::as_array_mut) {
            for s in subjects {
                s["namespace"] = json!(ns);
            }
        }
    }
    docs
}

async fn wait_until<K>(api: &Api<K>, name: &str, what: &str, cond: impl Fn(Option<&K>) -> bool)
where
    K: kube::Resource + Clone + std::fmt::Debug + serde::de::DeserializeOwned + Send + 'static,
    K: serde::Serialize,
{
    let cond = move |k: Option<&K>| cond(k);
    tokio::time::timeout(WAIT, await_condition(api.clone(), name, cond))
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
        .expect("watch");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_operators_role_allows_every_request_it_makes() {
    let server = TestServer::builder()
        .crd(StaticSite::crd())
        .rbac()
        .start()
        .await
        .expect("server");
    let ns = server.namespace().await.expect("namespace");
    let docs = manifests(&ns);
    for doc in &docs {
        server
            .apply_yaml(&doc.to_string())
            .await
            .expect("the Role and RoleBinding");
    }

    // A user nobody bound is refused with kube-apiserver's Status.
    let alice = server.client_as_user("alice", &["dev"]);
    let err = Api::<ConfigMap>::namespaced(alice, &ns)
        .list(&ListParams::default())
        .await
        .expect_err("alice may not list configmaps");
    match err {
        kube::Error::Api(status) => {
            assert_eq!(status.code, 403);
            assert_eq!(
                status.message,
                format!(
                    r#"configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "{ns}""#
                )
            );
        }
        other => panic!("expected a 403 Status, got {other}"),
    }

    // The operator, as its ServiceAccount.
    let operator = server
        .client_as_service_account(&ns, "site-operator")
        .await
        .expect("the operator's client");
    let (stop, stopped) = oneshot::channel::<()>();
    let ctx = Arc::new(Context::new(operator, "replica-a"));
    let lease_ns = ns.clone();
    let task = tokio::spawn(async move {
        run_elected(ctx, &lease_ns, "replica-a", Some(lease_ns.clone()), async {
            let _ = stopped.await;
        })
        .await
    });

    // What the operator's test does, as the admin.
    let admin = server.client();
    let sites: Api<StaticSite> = Api::namespaced(admin.clone(), &ns);
    let pages: BTreeMap<String, String> = [("index.html".to_string(), "hi".to_string())].into();
    let spec = StaticSiteSpec {
        image: "nginx:1.27".into(),
        replicas: 1,
        pages,
    };
    let created = sites
        .create(&PostParams::default(), &StaticSite::new("docs", spec))
        .await
        .expect("create site");
    let deployments: Api<Deployment> = Api::namespaced(admin.clone(), &ns);
    wait_until(&deployments, "docs", "the Deployment", |d| d.is_some()).await;
    deployments
        .patch_status(
            "docs",
            &PatchParams::default(),
            &Patch::Merge(
                json!({"status": {"replicas": 1, "readyReplicas": 1, "availableReplicas": 1}}),
            ),
        )
        .await
        .expect("deployment status");
    wait_until(&sites, "docs", "Ready=True", |s: Option<&StaticSite>| {
        s.and_then(|s| s.ready())
            .is_some_and(|c| c.status == "True")
    })
    .await;
    sites
        .delete("docs", &DeleteParams::default())
        .await
        .expect("delete");
    tokio::time::timeout(
        WAIT,
        await_condition(
            sites.clone(),
            "docs",
            conditions::is_deleted(&created.uid().expect("uid")),
        ),
    )
    .await
    .expect("the finalizer let the site go")
    .expect("watch");
    drop(stop);
    tokio::time::timeout(WAIT, task)
        .await
        .expect("the operator stops")
        .expect("the operator did not panic")
        .expect("the operator ran");

    // The Role against the operator's requests.
    let user = format!("system:serviceaccount:{ns}:site-operator");
    let events = crd_gen::rbac::read_audit_log("the test server's record", &server.audit_log())
        .expect("the record reads as an audit log");
    let requests = crd_gen::rbac::requests_of(&events, &user);
    let verbs: Vec<String> = requests
        .iter()
        .map(|r| format!("{} {}", r.attributes.verb, r.attributes.combined_resource()))
        .collect();
    assert!(
        verbs.contains(&"patch configmaps".to_string())
            && verbs.contains(&"patch staticsites/status".to_string()),
        "the operator's requests were recorded as its own: {verbs:?}"
    );
    let mut policy = Policy::new();
    for doc in &docs {
        policy.add(doc).expect("the Role and RoleBinding read");
    }
    let report = crd_gen::rbac::check(&requests, &policy);
    let minimal = crd_gen::rbac::minimal_roles(
        &requests,
        &crd_gen::rbac::RoleOptions::named("site-operator"),
    );
    assert!(
        report.missing.is_empty(),
        "examples/src/operator/rbac.yaml misses rules:\n{}\nwhat the operator needed:\n{}",
        report
            .missing
            .iter()
            .map(|m| m.message.clone())
            .collect::<Vec<_>>()
            .join("\n"),
        serde_json::to_string_pretty(&minimal).unwrap_or_default()
    );

    // Rules the run did not need are reported, not failed: a shorter run (no
    // takeover of the Lease, no Event series) uses less than the operator may.
    for unused in &report.unused {
        eprintln!(
            "unused in {}: {}",
            unused.role,
            unused.rule.compact_string()
        );
    }

    // Without its Events rule, the same check fails.
    let mut reduced = Policy::new();
    for doc in &docs {
        let mut doc = doc.clone();
        if let Some(rules) = doc.get_mut("rules").and_then(Value::as_array_mut) {
            rules.retain(|r| r["apiGroups"] != json!(["events.k8s.io"]));
        }
        reduced.add(&doc).expect("reduced role");
    }
    let report = crd_gen::rbac::check(&requests, &reduced);
    assert!(
        report.missing.iter().any(|m| m
            .message
            .contains(r#"cannot create resource "events" in API group "events.k8s.io""#)),
        "{:?}",
        report
            .missing
            .iter()
            .map(|m| &m.message)
            .collect::<Vec<_>>()
    );
}
