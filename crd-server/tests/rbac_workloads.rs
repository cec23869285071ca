//! Every workload controller works under RBAC through its bootstrap role alone: on a
//! test server with `.rbac().workloads()`, a StatefulSet with a claim template (its
//! claims provisioned and bound), a DaemonSet, a CronJob run on the moved clock, a
//! claim of the default class, a Deployment with its Service (Endpoints, EndpointSlice)
//! and budget, a Job with a TTL and the namespace's defaults all get where they go, and
//! no call of a
//! controller, the scheduler or the simulated kubelet is refused (the audit record of
//! every `system:` caller is free of 403s).

use std::time::{Duration, Instant};

use crd_server::TestServer;
use k8s_openapi::api::apps::v1::{DaemonSet, Deployment, StatefulSet};
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::{ConfigMap, Endpoints, PersistentVolumeClaim, ServiceAccount};
use k8s_openapi::api::discovery::v1::EndpointSlice;
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use kube::Api;
use kube::api::ListParams;

const WORKLOADS: &str = r#"
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: NS}
spec:
  serviceName: db
  replicas: 2
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: db, image: postgres}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: NS}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: agent, image: busybox}]
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: tick, namespace: NS}
spec:
  schedule: "*/5 * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: tick, image: busybox}]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: scratch, namespace: NS}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 2Gi}}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: NS}
spec:
  selector: {app: web}
  ports: [{port: 80}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: NS}
spec:
  minAvailable: 1
  selector: {matchLabels: {app: web}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: once, namespace: NS}
spec:
  ttlSecondsAfterFinished: 30
  template:
    spec:
      restartPolicy: Never
      containers: [{name: once, image: busybox}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: NS}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx}]
"#;

/// The calls of `system:` users (controllers, scheduler, kubelet) that were refused.
fn refused(server: &TestServer) -> Vec<String> {
    server
        .audit_events()
        .into_iter()
        .filter(|e| e["stage"] == "ResponseComplete" && e["responseStatus"]["code"] == 403)
        .filter(|e| {
            e["user"]["username"]
                .as_str()
                .is_some_and(|u| u.starts_with("system:"))
        })
        .map(|e| {
            format!(
                "{} {} {}: {}",
                e["user"]["username"], e["verb"], e["requestURI"], e["responseStatus"]["message"]
            )
        })
        .collect()
}

/// Polls `check` every 50 ms for up to 30 s (a timeout names the refused calls).
async fn eventually<F: std::future::Future<Output = bool>>(
    server: &TestServer,
    what: &str,
    check: impl Fn() -> F,
) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !check().await {
        assert!(
            Instant::now() < deadline,
            "timed out waiting for {what}; refused calls:\n{}",
            refused(server).join("\n")
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn workload_controllers_need_only_their_bootstrap_roles() {
    let server = TestServer::builder()
        .rbac()
        .workloads()
        .nodes(2)
        .start()
        .await
        .expect("server");
    let ns = server.namespace().await.expect("namespace");
    server
        .apply_yaml(&WORKLOADS.replace("NS", &ns))
        .await
        .expect("workloads");
    let uri: http::Uri = server.url().parse().expect("url");
    let mut config = kube::Config::new(uri);
    config.auth_info.token = Some(server.admin_token().to_string().into());
    let client = kube::Client::try_from(config).expect("client");

    let sets: Api<StatefulSet> = Api::namespaced(client.clone(), &ns);
    eventually(&server, "the StatefulSet ready", || async {
        let s = sets.get("db").await.expect("db");
        s.status.and_then(|s| s.ready_replicas) == Some(2)
    })
    .await;
    let claims: Api<PersistentVolumeClaim> = Api::namespaced(client.clone(), &ns);
    eventually(&server, "every claim bound", || async {
        let all = claims.list(&ListParams::default()).await.expect("claims");
        all.items.len() == 3
            && all
                .items
                .iter()
                .all(|c| c.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Bound"))
    })
    .await;
    let daemons: Api<DaemonSet> = Api::namespaced(client.clone(), &ns);
    eventually(&server, "the DaemonSet on both nodes", || async {
        let d = daemons.get("agent").await.expect("agent");
        d.status.is_some_and(|s| s.number_ready == 2)
    })
    .await;
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), &ns);
    eventually(&server, "the Deployment available", || async {
        let d = deployments.get("web").await.expect("web");
        d.status.and_then(|s| s.available_replicas) == Some(2)
    })
    .await;
    let endpoints: Api<Endpoints> = Api::namespaced(client.clone(), &ns);
    eventually(&server, "the Service's endpoints", || async {
        let e = endpoints.get_opt("web").await.expect("endpoints");
        e.and_then(|e| e.subsets).is_some_and(|s| {
            s.iter()
                .map(|s| s.addresses.as_ref().map_or(0, Vec::len))
                .sum::<usize>()
                == 2
        })
    })
    .await;
    let slices: Api<EndpointSlice> = Api::namespaced(client.clone(), &ns);
    eventually(&server, "the Service's EndpointSlice", || async {
        let all = slices
            .list(&ListParams::default().labels("kubernetes.io/service-name=web"))
            .await
            .expect("slices");
        all.items
            .iter()
            .map(|s| s.endpoints.as_ref().map_or(0, Vec::len))
            .sum::<usize>()
            == 2
    })
    .await;
    let budgets: Api<PodDisruptionBudget> = Api::namespaced(client.clone(), &ns);
    eventually(&server, "the budget's status", || async {
        let b = budgets.get("web").await.expect("pdb");
        b.status.is_some_and(|s| s.disruptions_allowed == Some(1))
    })
    .await;
    let accounts: Api<ServiceAccount> = Api::namespaced(client.clone(), &ns);
    let config_maps: Api<ConfigMap> = Api::namespaced(client.clone(), &ns);
    eventually(&server, "the namespace's defaults", || async {
        accounts.get_opt("default").await.expect("sa").is_some()
            && config_maps
                .get_opt("kube-root-ca.crt")
                .await
                .expect("cm")
                .is_some()
    })
    .await;
    server.clock().advance(Duration::from_secs(600));
    let jobs: Api<Job> = Api::namespaced(client.clone(), &ns);
    eventually(&server, "the CronJob's Job complete", || async {
        let all = jobs.list(&ListParams::default()).await.expect("jobs");
        all.items
            .iter()
            .any(|j| j.status.as_ref().and_then(|s| s.succeeded) == Some(1))
    })
    .await;

    eventually(
        &server,
        "the finished Job deleted after its TTL",
        || async { jobs.get_opt("once").await.expect("job").is_none() },
    )
    .await;

    // No controller call was refused: each had what its role grants.
    let refused = refused(&server);
    assert!(
        refused.is_empty(),
        "refused controller calls:\n{}",
        refused.join("\n")
    );
}
