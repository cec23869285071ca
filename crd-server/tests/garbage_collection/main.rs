//! The garbage collector against the real kubectl and kube::Api: background, foreground
//! (with a blocking dependent holding its own finalizer) and orphan cascades, across
//! built-in and custom kinds; dangling and wrong-uid references; several owners; owners
//! in another scope (`OwnerRefInvalidNamespace`); a Job's default orphaning; and the
//! garbage collector switched off.

mod objects;
#[path = "../support/mod.rs"]
mod support;

use std::time::Duration;

use kube::api::DeleteParams;
use objects::{
    Obj, api, client, config_map, create, crontab, kubectl, owned_by, owner_uids, server, settle,
    wait_for, wait_gone,
};
use serde_json::{Value, json};
use support::Etcd;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn background_cascade_across_kinds_with_kubectl() {
    let server = server("*").await;
    let c = client(&server);
    let ns = server.namespace().await.unwrap();
    let owner = crontab(&c, &ns, "owner", json!({})).await;
    let cm = config_map(&c, &ns, "cm", owned_by(&[&owner])).await;
    let secret = create(
        &c,
        Some(&ns),
        json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "secret",
               "ownerReferences": [owner.owner_ref(false)]}, "stringData": {"a": "b"}}),
    )
    .await;
    let child = crontab(&c, &ns, "child", owned_by(&[&owner])).await;
    // A grandchild goes with its parent.
    let grandchild = config_map(&c, &ns, "grandchild", owned_by(&[&child])).await;
    let bystander = config_map(&c, &ns, "bystander", json!({})).await;
    let out = kubectl(
        &server.url(),
        &[
            "delete",
            "crontab",
            "owner",
            "-n",
            &ns,
            "--cascade=background",
        ],
    )
    .await;
    assert!(
        out.contains("crontab.stable.example.com \"owner\" deleted"),
        "{out}"
    );
    for dep in [&cm, &secret, &child, &grandchild] {
        wait_gone(&c, dep).await;
    }
    assert!(bystander.get(&c).await.is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deployment_owns_across_kinds_with_kube_api() {
    let server = server("*").await;
    let c = client(&server);
    let ns = server.namespace().await.unwrap();
    let deployment = create(
        &c,
        Some(&ns),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
               "spec": {"selector": {"matchLabels": {"app": "web"}},
                        "template": {"metadata": {"labels": {"app": "web"}},
                                     "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}}),
    )
    .await;
    let cm = config_map(&c, &ns, "web-config", owned_by(&[&deployment])).await;
    let tab = crontab(&c, &ns, "web-tab", owned_by(&[&deployment])).await;
    deployment.delete(&c, &DeleteParams::background()).await;
    wait_gone(&c, &cm).await;
    wait_gone(&c, &tab).await;
    wait_gone(&c, &deployment).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn foreground_waits_for_a_blocking_dependent() {
    let server = server("*").await;
    let c = client(&server);
    let url = server.url();
    let ns = server.namespace().await.unwrap();
    let owner = config_map(&c, &ns, "owner", json!({})).await;
    let held = config_map(
        &c,
        &ns,
        "held",
        json!({"ownerReferences": [owner.owner_ref(true)], "finalizers": ["example.com/hold"]}),
    )
    .await;
    let free = crontab(&c, &ns, "free", owned_by(&[&owner])).await;
    kubectl(
        &url,
        &[
            "delete",
            "configmap",
            "owner",
            "-n",
            &ns,
            "--cascade=foreground",
            "--wait=false",
        ],
    )
    .await;
    wait_gone(&c, &free).await;
    wait_for("the blocking dependent to be deleted", || async {
        held.get(&c)
            .await
            .is_some_and(|o| o.pointer("/metadata/deletionTimestamp").is_some())
    })
    .await;
    // The owner waits, visibly, for the dependent that holds its own finalizer.
    let waiting = owner.get(&c).await.expect("the owner waits");
    assert!(waiting.pointer("/metadata/deletionTimestamp").is_some());
    assert_eq!(
        waiting["metadata"]["finalizers"],
        json!(["foregroundDeletion"])
    );
    let shown = kubectl(
        &url,
        &["get", "configmap", "owner", "-n", &ns, "-o", "json"],
    )
    .await;
    let shown: Value = serde_json::from_str(&shown).unwrap();
    assert_eq!(
        shown["metadata"]["finalizers"],
        json!(["foregroundDeletion"])
    );
    kubectl(
        &url,
        &[
            "patch",
            "configmap",
            "held",
            "-n",
            &ns,
            "--type=merge",
            "-p",
            r#"{"metadata":{"finalizers":null}}"#,
        ],
    )
    .await;
    wait_gone(&c, &held).await;
    wait_gone(&c, &owner).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn foreground_with_kube_api_deletes_dependents_first() {
    let server = server("*").await;
    let c = client(&server);
    let ns = server.namespace().await.unwrap();
    let owner = crontab(&c, &ns, "owner", json!({})).await;
    let deps = [
        config_map(
            &c,
            &ns,
            "a",
            json!({"ownerReferences": [owner.owner_ref(true)]}),
        )
        .await,
        crontab(
            &c,
            &ns,
            "b",
            json!({"ownerReferences": [owner.owner_ref(true)]}),
        )
        .await,
    ];
    // Answered while it waits for them.
    let waiting = owner
        .delete(&c, &DeleteParams::foreground())
        .await
        .expect("the owner, waiting");
    assert!(waiting.metadata.deletion_timestamp.is_some());
    assert_eq!(
        waiting.metadata.finalizers,
        Some(vec!["foregroundDeletion".to_string()])
    );
    for dep in &deps {
        wait_gone(&c, dep).await;
    }
    wait_gone(&c, &owner).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn orphan_removes_the_references_and_keeps_the_dependents() {
    let server = server("*").await;
    let c = client(&server);
    let ns = server.namespace().await.unwrap();
    let owner = config_map(&c, &ns, "owner", json!({})).await;
    let other = config_map(&c, &ns, "other", json!({})).await;
    let cm = config_map(&c, &ns, "cm", owned_by(&[&owner, &other])).await;
    let tab = crontab(&c, &ns, "tab", owned_by(&[&owner])).await;
    kubectl(
        &server.url(),
        &[
            "delete",
            "configmap",
            "owner",
            "-n",
            &ns,
            "--cascade=orphan",
        ],
    )
    .await;
    wait_gone(&c, &owner).await;
    let cm_now = cm.get(&c).await.expect("orphaned, not deleted");
    assert_eq!(owner_uids(&cm_now), std::slice::from_ref(&other.uid));
    let tab_now = tab.get(&c).await.expect("orphaned, not deleted");
    assert!(
        tab_now.pointer("/metadata/ownerReferences").is_none(),
        "{tab_now}"
    );

    // The same through kube::Api.
    let owner2 = crontab(&c, &ns, "owner2", json!({})).await;
    let dep = config_map(&c, &ns, "dep2", owned_by(&[&owner2])).await;
    owner2.delete(&c, &DeleteParams::orphan()).await;
    wait_gone(&c, &owner2).await;
    settle(&c, &ns).await;
    let kept = dep.get(&c).await.expect("orphaned, not deleted");
    assert!(owner_uids(&kept).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dangling_and_wrong_uid_references() {
    let server = server("*").await;
    let c = client(&server);
    let ns = server.namespace().await.unwrap();
    // An owner uid that never existed.
    let ghost = Obj {
        api_version: "v1".into(),
        kind: "ConfigMap".into(),
        ns: Some(ns.clone()),
        name: "ghost".into(),
        uid: "0b5e7a3c-0000-4000-8000-000000000001".into(),
    };
    let orphan = config_map(&c, &ns, "dangling", owned_by(&[&ghost])).await;
    wait_gone(&c, &orphan).await;

    // An owner of a kind not served (a CRD not established yet): not taken for absent.
    let unknown = Obj {
        api_version: "later.example.com/v1".into(),
        kind: "Later".into(),
        name: "later".into(),
        ..ghost
    };
    let waits = config_map(&c, &ns, "waits-for-its-kind", owned_by(&[&unknown])).await;

    // The owner's name, but another uid: not the owner. The object of that name stays.
    let named = config_map(&c, &ns, "owner", json!({})).await;
    let impostor = Obj {
        api_version: "v1".into(),
        kind: "ConfigMap".into(),
        ns: Some(ns.clone()),
        uid: "0b5e7a3c-0000-4000-8000-000000000002".into(),
        name: "owner".into(),
    };
    let dep = config_map(&c, &ns, "wrong-uid", owned_by(&[&impostor])).await;
    wait_gone(&c, &dep).await;
    assert_eq!(named.get(&c).await.unwrap()["metadata"]["uid"], named.uid);

    // An owner deleted and created again under its name: the old one's dependents
    // still go, the new one stays.
    let first = crontab(&c, &ns, "again", json!({})).await;
    let gc_dep = config_map(&c, &ns, "of-first", owned_by(&[&first])).await;
    first.delete(&c, &DeleteParams::background()).await;
    wait_gone(&c, &first).await;
    let second = crontab(&c, &ns, "again", json!({})).await;
    wait_gone(&c, &gc_dep).await;
    settle(&c, &ns).await;
    assert_eq!(
        second.get(&c).await.expect("the new owner stays")["metadata"]["uid"],
        second.uid
    );
    assert!(
        waits.get(&c).await.is_some(),
        "an unknown kind is no absent owner"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dependent_goes_with_its_last_owner() {
    let server = server("*").await;
    let c = client(&server);
    let ns = server.namespace().await.unwrap();
    let tab = crontab(&c, &ns, "tab", json!({})).await;
    let cm = config_map(&c, &ns, "cm", json!({})).await;
    let dep = config_map(&c, &ns, "dep", owned_by(&[&tab, &cm])).await;
    tab.delete(&c, &DeleteParams::background()).await;
    // The solid owner keeps it; the dangling reference is removed.
    wait_for("the dangling reference to go", || async {
        dep.get(&c)
            .await
            .is_some_and(|o| owner_uids(&o) == [cm.uid.clone()])
    })
    .await;
    cm.delete(&c, &DeleteParams::background()).await;
    wait_gone(&c, &dep).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn owners_in_another_scope_are_warned_about() {
    let server = server("*").await;
    let c = client(&server);
    let ns = server.namespace().await.unwrap();
    let other_ns = server.namespace().await.unwrap();
    let owner = config_map(&c, &ns, "owner", json!({})).await;
    // Cluster-scoped dependent, namespaced owner: invalid, never deleted for it.
    let role = create(
        &c,
        None,
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
               "metadata": {"name": format!("gc-{ns}"), "ownerReferences": [owner.owner_ref(false)]},
               "rules": []}),
    )
    .await;
    // A namespaced dependent naming an owner of another namespace: dangling there.
    let stray = config_map(&c, &other_ns, "stray", owned_by(&[&owner])).await;
    let events = api(&c, Some("default"), "v1", "Event");
    let expected = format!(
        "ownerRef [v1/ConfigMap, namespace: , name: owner, uid: {}] does not exist in namespace \"\"",
        owner.uid
    );
    wait_for("the cluster-scoped dependent's warning", || async {
        let list = events.list(&Default::default()).await.unwrap();
        list.items.iter().any(|e| {
            let e = serde_json::to_value(e).unwrap();
            e["reason"] == "OwnerRefInvalidNamespace"
                && e["type"] == "Warning"
                && e["message"] == expected.as_str()
                && e["involvedObject"]["name"] == role.name.as_str()
                && e["source"]["component"] == "garbage-collector-controller"
        })
    })
    .await;
    let stray_events = api(&c, Some(&other_ns), "v1", "Event");
    let expected = format!(
        "ownerRef [v1/ConfigMap, namespace: {other_ns}, name: owner, uid: {}] does not exist in namespace \"{other_ns}\"",
        owner.uid
    );
    wait_for("the other namespace's warning", || async {
        let list = stray_events.list(&Default::default()).await.unwrap();
        list.items.iter().any(|e| {
            let e = serde_json::to_value(e).unwrap();
            e["reason"] == "OwnerRefInvalidNamespace" && e["message"] == expected.as_str()
        })
    })
    .await;
    wait_gone(&c, &stray).await;
    owner.delete(&c, &DeleteParams::background()).await;
    wait_gone(&c, &owner).await;
    settle(&c, &ns).await;
    assert!(
        role.get(&c).await.is_some(),
        "never deleted for a namespaced owner"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_deleted_without_policy_orphans_its_pods() {
    let server = server("*").await;
    let c = client(&server);
    let ns = server.namespace().await.unwrap();
    let job = create(
        &c,
        Some(&ns),
        json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pi"},
               "spec": {"template": {"spec": {"restartPolicy": "Never",
                        "containers": [{"name": "pi", "image": "perl"}]}}}}),
    )
    .await;
    let mut job_ref = job.owner_ref(true);
    job_ref["controller"] = json!(true);
    let pod = create(
        &c,
        Some(&ns),
        json!({"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": "pi-1", "ownerReferences": [job_ref]},
               "spec": {"containers": [{"name": "pi", "image": "perl"}]}}),
    )
    .await;
    job.delete(&c, &DeleteParams::default()).await;
    wait_gone(&c, &job).await;
    let kept = pod.get(&c).await.expect("the pod is orphaned, not deleted");
    assert!(owner_uids(&kept).is_empty(), "{kept}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_garbage_collector_dependents_stay() {
    let server = server("*,-garbagecollector").await;
    let c = client(&server);
    let ns = server.namespace().await.unwrap();
    let owner = config_map(&c, &ns, "owner", json!({})).await;
    let dep = config_map(&c, &ns, "dep", owned_by(&[&owner])).await;
    kubectl(
        &server.url(),
        &[
            "delete",
            "configmap",
            "owner",
            "-n",
            &ns,
            "--cascade=background",
        ],
    )
    .await;
    assert!(owner.get(&c).await.is_none());
    // Foreground: nobody finishes the owner's deletion either.
    let waiting = crontab(&c, &ns, "waiting", json!({})).await;
    let held = config_map(
        &c,
        &ns,
        "held",
        json!({"ownerReferences": [waiting.owner_ref(true)]}),
    )
    .await;
    waiting.delete(&c, &DeleteParams::foreground()).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        dep.get(&c).await.is_some(),
        "no garbage collector, no collection"
    );
    assert!(held.get(&c).await.is_some());
    let stuck = waiting
        .get(&c)
        .await
        .expect("waits for a garbage collector");
    assert_eq!(
        stuck["metadata"]["finalizers"],
        json!(["foregroundDeletion"])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deletes_check_preconditions_and_mark_a_new_generation() {
    let server = server("*").await;
    let c = client(&server);
    let ns = server.namespace().await.unwrap();
    let tab = crontab(&c, &ns, "held", json!({"finalizers": ["example.com/hold"]})).await;
    let stale = DeleteParams {
        preconditions: Some(kube::api::Preconditions {
            uid: Some("not-the-uid".into()),
            resource_version: None,
        }),
        ..DeleteParams::background()
    };
    let err = tab.api(&c).delete("held", &stale).await.unwrap_err();
    let kube::Error::Api(status) = err else {
        panic!("an API error: {err}");
    };
    assert_eq!(status.code, 409);
    assert_eq!(
        status.message,
        format!(
            "Operation cannot be fulfilled on CronTab.stable.example.com \"held\": the UID in the precondition (not-the-uid) does not match the UID in record ({}). The object might have been deleted and then recreated",
            tab.uid
        )
    );
    let marked = tab
        .delete(&c, &DeleteParams::background())
        .await
        .expect("waits on its finalizer");
    assert!(marked.metadata.deletion_timestamp.is_some());
    assert_eq!(marked.metadata.generation, Some(2));
    assert_eq!(
        marked.metadata.finalizers,
        Some(vec!["example.com/hold".to_string()])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_started_later_finishes_the_cascades() {
    let etcd = Etcd::start().await;
    let replica = |controllers: &str| crd_server::Config {
        listen: std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
        store: crd_server::StoreConfig::Etcd(vec![etcd.url.clone()]),
        controllers: controllers.parse().unwrap(),
        // Both replicas run their own controllers: no Lease decides between them.
        leader_election: crd_server::LeaderElection::disabled(),
        ..crd_server::Config::default()
    };
    // Replica a runs no garbage collector: the cascades start and wait.
    let a = crd_server::start(replica("*,-garbagecollector"))
        .await
        .expect("replica a");
    let uri: http::Uri = a.url().parse().unwrap();
    let c = kube::Client::try_from(kube::Config::new(uri)).unwrap();
    let ns = "default";
    let fg = config_map(&c, ns, "fg-owner", json!({})).await;
    let fg_deps = [
        config_map(
            &c,
            ns,
            "fg-1",
            json!({"ownerReferences": [fg.owner_ref(true)]}),
        )
        .await,
        config_map(
            &c,
            ns,
            "fg-2",
            json!({"ownerReferences": [fg.owner_ref(true)]}),
        )
        .await,
    ];
    let bg = config_map(&c, ns, "bg-owner", json!({})).await;
    let bg_dep = config_map(&c, ns, "bg-1", owned_by(&[&bg])).await;
    let orphaning = config_map(&c, ns, "orphaning", json!({})).await;
    let kept = config_map(&c, ns, "kept", owned_by(&[&orphaning])).await;
    fg.delete(&c, &DeleteParams::foreground()).await;
    bg.delete(&c, &DeleteParams::background()).await;
    orphaning.delete(&c, &DeleteParams::orphan()).await;
    assert!(fg.get(&c).await.is_some() && orphaning.get(&c).await.is_some());
    assert!(bg_dep.get(&c).await.is_some());

    // Replica b, with one, takes them over from what the store holds.
    let _b = crd_server::start(replica("*")).await.expect("replica b");
    for gone in fg_deps.iter().chain([&fg, &bg_dep, &orphaning]) {
        wait_gone(&c, gone).await;
    }
    let kept = kept.get(&c).await.expect("orphaned, not deleted");
    assert!(owner_uids(&kept).is_empty());
}
