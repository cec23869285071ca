//! The StaticSite operator (kube-runtime Controller, Recorder, finalizer, Lease) against
//! one crd-server shared by the tests of this binary, each test in its own namespace.
//! Run with `cargo test -p crd-toolkit-examples --features kube --test operator`.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use crd_runtime::CustomResourceExt;
use crd_server::TestServer;
use crd_toolkit_examples::operator::leader::{LEASE_NAME, run_elected};
use crd_toolkit_examples::operator::{Context, FINALIZER, StaticSite, StaticSiteSpec};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{ConfigMap, Node, Pod};
use k8s_openapi::api::events::v1::Event;
use kube::api::{DeleteParams, ListParams, Patch, PatchParams, PostParams};
use kube::runtime::wait::{Condition, await_condition, conditions};
use kube::{Api, Client, ResourceExt};
use serde_json::json;
use tokio::sync::oneshot;

/// Every wait of these tests is bounded by this.
// Generous: CI runs these tests side by side on two cores, each server with every
// workload controller.
const WAIT: Duration = Duration::from_secs(60);

fn server() -> &'static TestServer {
    TestServer::builder()
        .crd(StaticSite::crd())
        .workloads()
        .start_shared()
        .expect("shared test server")
}

fn site(pages: &[(&str, &str)], replicas: i32) -> StaticSiteSpec {
    StaticSiteSpec {
        image: "nginx:1.27".into(),
        replicas,
        pages: pages
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<BTreeMap<_, _>>(),
    }
}

/// The operator for one namespace, stopped when the answer is dropped.
struct Running {
    _stop: oneshot::Sender<()>,
    task: tokio::task::JoinHandle<()>,
}

impl Running {
    async fn stop(self) {
        drop(self._stop);
        tokio::time::timeout(WAIT, self.task)
            .await
            .expect("the operator stops")
            .expect("the operator did not panic");
    }
}

fn start_operator(client: Client, ns: &str, identity: &str) -> Running {
    let (stop, stopped) = oneshot::channel::<()>();
    let ctx = Arc::new(Context::new(client, identity));
    let (ns, identity) = (ns.to_string(), identity.to_string());
    let task = tokio::spawn(async move {
        run_elected(ctx, &ns, &identity, Some(ns.clone()), async {
            let _ = stopped.await;
        })
        .await
        .expect("the operator ran");
    });
    Running { _stop: stop, task }
}

async fn wait_for<K, C>(api: &Api<K>, name: &str, what: &str, cond: C) -> K
where
    K: kube::Resource + Clone + std::fmt::Debug + serde::de::DeserializeOwned + Send + 'static,
    K: serde::Serialize,
    C: Condition<K>,
{
    tokio::time::timeout(WAIT, await_condition(api.clone(), name, cond))
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
        .expect("watch")
        .unwrap_or_else(|| panic!("{name} is gone while waiting for {what}"))
}

fn ready_is(status: &'static str) -> impl Condition<StaticSite> {
    move |s: Option<&StaticSite>| {
        s.and_then(|s| s.ready())
            .is_some_and(|c| c.status == status)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn operator_reconciles_children_status_events_and_finalizer() {
    let server = server();
    let ns = server.namespace().await.expect("namespace");
    let client = server.client();
    let sites: Api<StaticSite> = Api::namespaced(client.clone(), &ns);
    let pages: Api<ConfigMap> = Api::namespaced(client.clone(), &ns);
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), &ns);
    let operator = start_operator(client.clone(), &ns, "replica-a");

    let created = sites
        .create(
            &PostParams::default(),
            &StaticSite::new("docs", site(&[("index.html", "<h1>hi</h1>")], 2)),
        )
        .await
        .expect("create site");

    // The children appear, controlled by the site.
    let cm = wait_for(
        &pages,
        "docs-pages",
        "the pages ConfigMap",
        |c: Option<&ConfigMap>| c.is_some(),
    )
    .await;
    let cm_uid = cm.metadata.uid.clone().expect("uid");
    assert_eq!(cm.data.unwrap()["index.html"], "<h1>hi</h1>");
    let owner = &cm.metadata.owner_references.unwrap()[0];
    assert_eq!(
        (owner.kind.as_str(), owner.name.as_str()),
        ("StaticSite", "docs")
    );
    assert_eq!(Some(&owner.uid), created.metadata.uid.as_ref());
    assert_eq!(owner.controller, Some(true));
    let deploy = wait_for(
        &deployments,
        "docs",
        "the Deployment",
        |d: Option<&Deployment>| d.is_some(),
    )
    .await;
    let deploy_uid = deploy.metadata.uid.clone().expect("uid");
    assert_eq!(deploy.spec.replicas, Some(2));

    // crd-server's deployment controller, scheduler and simulated kubelet roll the
    // Deployment out for real: the site becomes Ready once both copies are available.
    let site = wait_for(&sites, "docs", "Ready=True", ready_is("True")).await;
    assert_eq!(site.status.as_ref().unwrap().available_replicas, Some(2));
    assert!(site.finalizers().contains(&FINALIZER.to_string()));
    let rolled = deployments.get("docs").await.expect("deployment");
    assert_eq!(rolled.status.as_ref().unwrap().ready_replicas, Some(2));
    assert_eq!(site.status.as_ref().unwrap().observed_generation, Some(1));

    // A change of the site reaches its children.
    sites
        .patch(
            "docs",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicas": 3, "pages": {"about.html": "about"}}})),
        )
        .await
        .expect("change site");
    wait_for(
        &deployments,
        "docs",
        "replicas 3",
        |d: Option<&Deployment>| d.and_then(|d| d.spec.replicas) == Some(3),
    )
    .await;
    let site = wait_for(
        &sites,
        "docs",
        "3 copies available",
        |s: Option<&StaticSite>| {
            s.and_then(|s| s.status.as_ref())
                .is_some_and(|st| st.available_replicas == Some(3))
        },
    )
    .await;
    assert_eq!(site.ready().unwrap().status, "True");
    wait_for(
        &pages,
        "docs-pages",
        "the new page",
        |c: Option<&ConfigMap>| {
            c.and_then(|c| c.data.as_ref())
                .is_some_and(|d| d.get("about.html").map(String::as_str) == Some("about"))
        },
    )
    .await;

    // A hand edit of a field the operator owns is taken back.
    pages
        .patch(
            "docs-pages",
            &PatchParams::default(),
            &Patch::Merge(json!({"data": {"index.html": "defaced"}})),
        )
        .await
        .expect("hand edit");
    wait_for(
        &pages,
        "docs-pages",
        "the edit reverted",
        |c: Option<&ConfigMap>| {
            c.and_then(|c| c.data.as_ref())
                .is_some_and(|d| d.get("index.html").map(String::as_str) == Some("<h1>hi</h1>"))
        },
    )
    .await;

    // The Events the Recorder wrote (events.k8s.io/v1), about the site.
    let events: Api<Event> = Api::namespaced(client.clone(), &ns);
    let listed = events
        .list(&ListParams::default().fields("regarding.name=docs"))
        .await
        .expect("events");
    // The deployment controller's events about the Deployment `docs` share the name.
    let about_site: Vec<&Event> = listed
        .items
        .iter()
        .filter(|e| e.regarding.as_ref().and_then(|r| r.kind.as_deref()) == Some("StaticSite"))
        .collect();
    let reasons: Vec<String> = about_site.iter().filter_map(|e| e.reason.clone()).collect();
    assert!(reasons.contains(&"Progressing".to_string()), "{reasons:?}");
    assert!(reasons.contains(&"Ready".to_string()), "{reasons:?}");
    let first = about_site[0];
    assert_eq!(first.reporting_controller.as_deref(), Some("site-operator"));
    assert_eq!(
        first.regarding.as_ref().unwrap().kind.as_deref(),
        Some("StaticSite")
    );

    // Deleting the site runs the finalizer: an Event, then the site is gone.
    sites
        .delete("docs", &DeleteParams::default())
        .await
        .expect("delete");
    tokio::time::timeout(
        WAIT,
        await_condition(
            sites.clone(),
            "docs",
            conditions::is_deleted(&created.uid().unwrap()),
        ),
    )
    .await
    .expect("the finalizer let the site go")
    .expect("watch");
    // Then crd-server's garbage collector takes the children the site owned, as
    // kube-controller-manager's does on a cluster.
    tokio::time::timeout(
        WAIT,
        await_condition(pages.clone(), "docs-pages", conditions::is_deleted(&cm_uid)),
    )
    .await
    .expect("the garbage collector took the pages ConfigMap")
    .expect("watch");
    tokio::time::timeout(
        WAIT,
        await_condition(
            deployments.clone(),
            "docs",
            conditions::is_deleted(&deploy_uid),
        ),
    )
    .await
    .expect("the garbage collector took the Deployment")
    .expect("watch");
    let listed = events
        .list(&ListParams::default().fields("reason=Deleting"))
        .await
        .expect("events");
    assert_eq!(listed.items.len(), 1, "{:?}", listed.items);
    operator.stop().await;
}

/// A rollout that cannot progress (its node cordoned, the new Pod unschedulable) times
/// out on the server's clock, moved past `progressDeadlineSeconds`: the Deployment says
/// `ProgressDeadlineExceeded` and the operator reports it on the site.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rollout_that_cannot_progress_is_reported() {
    let server = TestServer::builder()
        .crd(StaticSite::crd())
        .workloads()
        .start()
        .await
        .expect("server");
    let ns = server.namespace().await.expect("namespace");
    let client = server.client();
    let sites: Api<StaticSite> = Api::namespaced(client.clone(), &ns);
    let nodes: Api<Node> = Api::all(client.clone());
    let operator = start_operator(client.clone(), &ns, "replica-a");
    sites
        .create(
            &PostParams::default(),
            &StaticSite::new("blog", site(&[("index.html", "blog")], 1)),
        )
        .await
        .expect("create site");
    wait_for(&sites, "blog", "Ready=True", ready_is("True")).await;

    // No room for a new Pod: the node is cordoned, then the site's image changes.
    nodes
        .patch(
            "kwok-node-0",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"unschedulable": true}})),
        )
        .await
        .expect("cordon");
    sites
        .patch(
            "blog",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"image": "nginx:1.28"}})),
        )
        .await
        .expect("new image");
    stall_is_reported(server.clock(), &client, &ns).await;
    operator.stop().await;
}

/// The new image's rollout is under way and cannot finish: past the default progress
/// deadline (600 s, on the moved server clock) the Deployment says
/// `ProgressDeadlineExceeded` and the operator reports it on the site and in an Event.
async fn stall_is_reported(clock: &crd_server::Clock, client: &Client, ns: &str) {
    let sites: Api<StaticSite> = Api::namespaced(client.clone(), ns);
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), ns);
    wait_for(
        &deployments,
        "blog",
        "the rollout under way",
        |d: Option<&Deployment>| {
            let Some(d) = d else { return false };
            // The operator has put the new image in, and the controller has seen it.
            let template = d.spec.template.spec.as_ref();
            let image = template.and_then(|p| p.containers.first()?.image.as_deref());
            let status = d.status.as_ref();
            let seen = status.and_then(|s| s.observed_generation) == d.metadata.generation;
            // Under way: `ReplicaSetUpdated` once the controller saw the new Pod counted,
            // or still `NewReplicaSetCreated` if it first looked after the count.
            let progressing = status.and_then(|s| s.conditions.as_ref()).is_some_and(|c| {
                c.iter().any(|c| {
                    c.type_.as_deref() == Some("Progressing")
                        && matches!(
                            c.reason.as_deref(),
                            Some("NewReplicaSetCreated" | "ReplicaSetUpdated")
                        )
                })
            });
            // The new Pod made (it cannot be scheduled): nothing more can progress, so
            // the deadline runs from the condition's last update.
            let updated = status.and_then(|s| s.updated_replicas) == Some(1);
            image == Some("nginx:1.28") && seen && updated && progressing
        },
    )
    .await;
    // Past the default progress deadline (600 s).
    clock.advance(Duration::from_secs(601));
    let stalled = wait_for(
        &deployments,
        "blog",
        "ProgressDeadlineExceeded",
        |d: Option<&Deployment>| {
            d.and_then(|d| d.status.as_ref())
                .and_then(|s| s.conditions.as_ref())
                .is_some_and(|c| {
                    c.iter().any(|c| {
                        c.type_.as_deref() == Some("Progressing")
                            && c.status.as_deref() == Some("False")
                            && c.reason.as_deref() == Some("ProgressDeadlineExceeded")
                    })
                })
        },
    )
    .await;
    let message = stalled
        .status
        .unwrap()
        .conditions
        .unwrap()
        .into_iter()
        .find(|c| c.type_.as_deref() == Some("Progressing"))
        .and_then(|c| c.message)
        .unwrap();
    assert!(
        message.starts_with("ReplicaSet \"blog-")
            && message.ends_with("\" has timed out progressing."),
        "{message}"
    );
    let site = wait_for(
        &sites,
        "blog",
        "the stall reported",
        |s: Option<&StaticSite>| {
            s.and_then(|s| s.ready())
                .is_some_and(|c| c.reason == "ProgressDeadlineExceeded")
        },
    )
    .await;
    let ready = site.ready().unwrap();
    assert_eq!(ready.status, "False");
    assert_eq!(ready.message, format!("1/1 copies available: {message}"));
    // The operator publishes its Event right after the status: bounded polling.
    let events: Api<Event> = Api::namespaced(client.clone(), ns);
    let mut listed = Vec::new();
    for _ in 0..100 {
        listed = events
            .list(&ListParams::default().fields("reason=ProgressDeadlineExceeded"))
            .await
            .expect("events")
            .items;
        if !listed.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0].type_.as_deref(), Some("Warning"));
}

/// A rollout whose new Pods start but never get Ready — a kwok Stage crash-loops the
/// new image's containers — times out and is reported as above.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rollout_whose_pods_never_get_ready_is_reported() {
    let server = TestServer::builder()
        .crd(StaticSite::crd())
        .workloads()
        .start()
        .await
        .expect("server");
    let ns = server.namespace().await.expect("namespace");
    let client = server.client();
    let sites: Api<StaticSite> = Api::namespaced(client.clone(), &ns);
    let operator = start_operator(client.clone(), &ns, "replica-a");
    sites
        .create(
            &PostParams::default(),
            &StaticSite::new("blog", site(&[("index.html", "blog")], 1)),
        )
        .await
        .expect("create site");
    wait_for(&sites, "blog", "Ready=True", ready_is("True")).await;

    // The new image crash-loops: far heavier than the default pod-ready stage, so
    // kwok's weighted choice takes it (and once applied, pod-ready no longer matches).
    let gvk = kube::api::GroupVersionKind::gvk("kwok.x-k8s.io", "v1alpha1", "Stage");
    let resource = kube::api::ApiResource::from_gvk_with_plural(&gvk, "stages");
    let stages: Api<kube::api::DynamicObject> = Api::all_with(client.clone(), &resource);
    let stage: kube::api::DynamicObject = serde_json::from_value(json!({
        "apiVersion": "kwok.x-k8s.io/v1alpha1",
        "kind": "Stage",
        "metadata": {"name": "bad-image-crash-loops"},
        "spec": {
            "resourceRef": {"apiGroup": "v1", "kind": "Pod"},
            "selector": {"matchExpressions": [
                {"key": ".metadata.deletionTimestamp", "operator": "DoesNotExist"},
                {"key": ".spec.containers.[].image", "operator": "In", "values": ["nginx:1.28"]},
                {"key": ".status.containerStatuses.[].state.waiting.reason",
                 "operator": "DoesNotExist"},
            ]},
            "weight": 1_000_000,
            "next": {"statusTemplate": CRASH_LOOP},
        },
    }))
    .expect("a Stage");
    let mut created = false;
    for _ in 0..100 {
        // The kwok controller installs the Stage kind as it starts: bounded retries.
        if stages.create(&PostParams::default(), &stage).await.is_ok() {
            created = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(created, "the Stage was never created");
    sites
        .patch(
            "blog",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"image": "nginx:1.28"}})),
        )
        .await
        .expect("new image");
    stall_is_reported(server.clock(), &client, &ns).await;
    let pods: Api<Pod> = Api::namespaced(client.clone(), &ns);
    let crashing = pods
        .list(&ListParams::default())
        .await
        .expect("pods")
        .items
        .into_iter()
        .filter(|p| {
            p.status
                .as_ref()
                .and_then(|s| s.container_statuses.as_ref())
                .and_then(|c| c.first())
                .and_then(|c| c.state.as_ref())
                .and_then(|s| s.waiting.as_ref())
                .and_then(|w| w.reason.as_deref())
                == Some("CrashLoopBackOff")
        })
        .count();
    assert_eq!(crashing, 1);
    operator.stop().await;
}

/// The crash loop's status (kwok's template).
const CRASH_LOOP: &str = r#"
{{- $now := Now }}
phase: Running
conditions:
- type: Ready
  status: "False"
  reason: ContainersNotReady
  lastProbeTime: null
  lastTransitionTime: {{ $now | Quote }}
- type: ContainersReady
  status: "False"
  reason: ContainersNotReady
  lastProbeTime: null
  lastTransitionTime: {{ $now | Quote }}
hostIP: {{ NodeIP | Quote }}
podIP: {{ PodIP | Quote }}
startTime: {{ StartTime | Quote }}
containerStatuses:
{{- range .spec.containers }}
- name: {{ .name | Quote }}
  image: {{ .image | Quote }}
  imageID: ""
  ready: false
  started: false
  restartCount: 3
  state:
    waiting:
      reason: CrashLoopBackOff
{{- end }}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_lease_holder_reconciles_and_the_other_takes_over() {
    let server = server();
    let ns = server.namespace().await.expect("namespace");
    let client = server.client();
    let leases: Api<Lease> = Api::namespaced(client.clone(), &ns);
    let first = start_operator(client.clone(), &ns, "replica-a");
    let held = |who: &'static str| {
        move |l: Option<&Lease>| {
            l.and_then(|l| l.spec.as_ref()?.holder_identity.as_deref()) == Some(who)
        }
    };
    wait_for(&leases, LEASE_NAME, "replica-a to lead", held("replica-a")).await;
    let second = start_operator(client.clone(), &ns, "replica-b");

    // The leader reconciles.
    let sites: Api<StaticSite> = Api::namespaced(client.clone(), &ns);
    sites
        .create(
            &PostParams::default(),
            &StaticSite::new("blog", site(&[("index.html", "x")], 1)),
        )
        .await
        .expect("create");
    let pages: Api<ConfigMap> = Api::namespaced(client.clone(), &ns);
    wait_for(
        &pages,
        "blog-pages",
        "the leader's ConfigMap",
        |c: Option<&ConfigMap>| c.is_some(),
    )
    .await;
    let lease = leases.get(LEASE_NAME).await.expect("lease");
    assert_eq!(
        lease.spec.unwrap().holder_identity.as_deref(),
        Some("replica-a")
    );

    // The leader stops and releases the Lease; the other replica takes it and works.
    first.stop().await;
    wait_for(&leases, LEASE_NAME, "replica-b to lead", held("replica-b")).await;
    sites
        .patch(
            "blog",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"pages": {"index.html": "y"}}})),
        )
        .await
        .expect("change");
    wait_for(
        &pages,
        "blog-pages",
        "the new leader's update",
        |c: Option<&ConfigMap>| {
            c.and_then(|c| c.data.as_ref())
                .is_some_and(|d| d.get("index.html").map(String::as_str) == Some("y"))
        },
    )
    .await;
    second.stop().await;
}

/// What a real cluster does now and then, on demand: the operator's writes fail with
/// 500s, its status update meets a 409, its watches expire (410, a relist); it
/// converges all the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn operator_survives_500s_a_409_and_an_expired_watch() {
    // Its own server: the compaction ends every watch of the server.
    let server = TestServer::builder()
        .crd(StaticSite::crd())
        .start()
        .await
        .expect("server");
    let ns = server.namespace().await.expect("namespace");
    let client = server.client();
    let burst = server
        .add_fault(&format!(
            "verb=patch,resource=deployments.apps,namespace={ns},code=500,count=3"
        ))
        .expect("rule");
    let conflict = server
        .add_fault(&format!(
            "verb=patch,resource=staticsites.sites.example.com/status,namespace={ns},code=409,count=1"
        ))
        .expect("rule");
    let operator = start_operator(client.clone(), &ns, "replica-a");
    let sites: Api<StaticSite> = Api::namespaced(client.clone(), &ns);
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), &ns);
    sites
        .create(
            &PostParams::default(),
            &StaticSite::new("shop", site(&[("index.html", "x")], 1)),
        )
        .await
        .expect("create");
    // Each failed reconcile is retried after 5 s: four failures take about 20 s.
    let slow = |what: &'static str| {
        let sites = sites.clone();
        async move {
            tokio::time::timeout(WAIT * 3, await_condition(sites, "shop", ready_is("False")))
                .await
                .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
                .expect("watch")
        }
    };
    slow("the status despite the faults").await;
    assert!(deployments.get_opt("shop").await.expect("get").is_some());
    assert_eq!(server.faults().injected(burst), Some(3));
    assert_eq!(server.faults().injected(conflict), Some(1));

    // Every watch expires: a change elsewhere moves the revision past what the
    // operator's watchers saw, the compaction ends their watches, they resume, get 410
    // and relist, and a change still reaches the children.
    let elsewhere: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    elsewhere
        .create(
            &PostParams::default(),
            &serde_json::from_value(json!({"metadata": {"name": format!("bump-{ns}")}}))
                .expect("configmap"),
        )
        .await
        .expect("a change elsewhere");
    server.compact().await.expect("compact");
    sites
        .patch(
            "shop",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicas": 4}})),
        )
        .await
        .expect("change");
    tokio::time::timeout(
        WAIT * 3,
        await_condition(deployments.clone(), "shop", |d: Option<&Deployment>| {
            d.and_then(|d| d.spec.replicas) == Some(4)
        }),
    )
    .await
    .expect("the change reached the Deployment after the relist")
    .expect("watch");
    operator.stop().await;
}
