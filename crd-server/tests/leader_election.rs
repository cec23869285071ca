//! Leader election across replicas sharing one etcd: one replica holds
//! `kube-system/kube-controller-manager` and runs the controllers, another takes over
//! when it stops, a Lease held by someone else is taken only once it expires, and a
//! leader that cannot renew stops leading.

mod support;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use crd_server::{Config, LeaderElection, RunningServer, StoreConfig};
use serde_json::Value;
use support::{Etcd, kubectl};

/// Short durations (lease 1 s, renew deadline 0.6 s, retry 0.2 s) keep failovers fast.
fn fast() -> LeaderElection {
    LeaderElection {
        lease_duration: Duration::from_secs(1),
        renew_deadline: Duration::from_millis(600),
        retry_period: Duration::from_millis(200),
        ..LeaderElection::default()
    }
}

async fn replica(etcd: &Etcd, election: LeaderElection) -> RunningServer {
    crd_server::start(Config {
        listen: SocketAddr::from(([127, 0, 0, 1], 0)),
        store: StoreConfig::Etcd(vec![etcd.url.clone()]),
        leader_election: election,
        ..Config::default()
    })
    .await
    .expect("replica")
}

/// kubectl off the runtime's threads (the replicas keep renewing meanwhile).
async fn kubectl_run(url: &str, args: &[&str]) -> std::process::Output {
    let url = url.to_string();
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        kubectl(&url, &args)
    })
    .await
    .expect("kubectl")
}

async fn kubectl_out(url: &str, args: &[&str]) -> String {
    let out = kubectl_run(url, args).await;
    assert!(
        out.status.success(),
        "kubectl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

async fn lease(url: &str) -> Value {
    let text = kubectl_out(
        url,
        &[
            "get",
            "lease",
            "-n",
            "kube-system",
            "kube-controller-manager",
            "-o",
            "json",
            "--show-managed-fields",
        ],
    )
    .await;
    serde_json::from_str(&text).expect("lease JSON")
}

fn leads(s: &RunningServer) -> bool {
    *s.leading().borrow()
}

/// Waits (at most `limit`) until `cond` holds; the time it took.
async fn within(limit: Duration, mut cond: impl FnMut() -> bool) -> Option<Duration> {
    let start = Instant::now();
    while start.elapsed() < limit {
        if cond() {
            return Some(start.elapsed());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    None
}

fn micro_time(v: &Value) -> bool {
    // client-go's MicroTime: 2006-01-02T15:04:05.000000Z
    v.as_str()
        .is_some_and(|s| s.len() == 27 && s.ends_with('Z') && s.as_bytes()[19] == b'.')
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_replica_leads_and_the_other_takes_over_when_it_stops() {
    let etcd = Etcd::start().await;
    let a = replica(&etcd, fast()).await;
    let b = replica(&etcd, fast()).await;
    let one = within(Duration::from_secs(5), || leads(&a) ^ leads(&b)).await;
    assert!(one.is_some(), "one replica leads within 5 s");
    // Several renewals later, still exactly one.
    for _ in 0..40 {
        assert!(leads(&a) ^ leads(&b), "exactly one replica leads");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let (leader, follower) = if leads(&a) { (a, b) } else { (b, a) };
    let leader_id = leader.leader_identity().expect("identity").to_string();
    let follower_id = follower.leader_identity().expect("identity").to_string();
    assert_ne!(leader_id, follower_id);

    // kubectl shows the holder, as on a cluster.
    let table = kubectl_out(&follower.url(), &["get", "lease", "-n", "kube-system"]).await;
    let mut lines = table.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split_whitespace().collect();
    assert_eq!(header, ["NAME", "HOLDER", "AGE"], "{table}");
    let row: Vec<&str> = lines.next().unwrap_or("").split_whitespace().collect();
    assert_eq!(row[..2], ["kube-controller-manager", &leader_id], "{table}");
    let l = lease(&follower.url()).await;
    let spec = &l["spec"];
    assert_eq!(spec["holderIdentity"], leader_id.as_str());
    assert_eq!(spec["leaseDurationSeconds"], 1);
    assert!(micro_time(&spec["acquireTime"]), "{spec}");
    assert!(micro_time(&spec["renewTime"]), "{spec}");
    let transitions = spec["leaseTransitions"].as_i64().expect("leaseTransitions");
    let (host, uuid) = leader_id.rsplit_once('_').expect("HOSTNAME_UUID");
    assert!(!host.is_empty() && uuid.len() == 36, "{leader_id}");
    let managers: Vec<&str> = l["metadata"]["managedFields"]
        .as_array()
        .map(|m| m.iter().filter_map(|f| f["manager"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(managers, ["kube-controller-manager"], "{l}");
    // The renewals move renewTime, not acquireTime.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let later = lease(&follower.url()).await;
    assert_eq!(later["spec"]["acquireTime"], spec["acquireTime"]);
    assert_ne!(later["spec"]["renewTime"], spec["renewTime"]);
    assert_eq!(later["spec"]["holderIdentity"], leader_id.as_str());

    // The leader stops (dropped): the follower leads within a lease and a retry.
    drop(leader);
    let took = within(Duration::from_millis(1200 + 1500), || leads(&follower)).await;
    assert!(
        took.is_some(),
        "the follower leads after the leader stopped"
    );
    let l = lease(&follower.url()).await;
    assert_eq!(l["spec"]["holderIdentity"], follower_id.as_str(), "{l}");
    assert_eq!(l["spec"]["leaseTransitions"], transitions + 1, "{l}");
    assert_ne!(l["spec"]["acquireTime"], spec["acquireTime"]);

    // The events client-go's lock records on the Lease.
    let events = kubectl_out(
        &follower.url(),
        &[
            "get",
            "events",
            "-n",
            "kube-system",
            "--field-selector",
            "reason=LeaderElection",
            "-o",
            "jsonpath={range .items[*]}{.message}{\"\\n\"}{end}",
        ],
    )
    .await;
    for want in [
        format!("{leader_id} became leader"),
        format!("{leader_id} stopped leading"),
        format!("{follower_id} became leader"),
    ] {
        assert!(events.lines().any(|l| l == want), "{want:?} in {events}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_lease_is_taken_only_once_it_expires_and_given_up_on_shutdown() {
    let etcd = Etcd::start().await;
    let plain = replica(&etcd, LeaderElection::disabled()).await;
    assert!(leads(&plain) && plain.leader_identity().is_none());
    // Someone else renewed the Lease just now, for 2 s.
    let now = chrono::Utc::now().format("%Y-%m-%dT%H:%M:%S%.6fZ");
    let ghost = format!(
        "apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata: {{name: kube-controller-manager, namespace: kube-system}}\nspec: {{holderIdentity: ghost_1, leaseDurationSeconds: 2, acquireTime: '{now}', renewTime: '{now}', leaseTransitions: 4}}\n"
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let path = support::write(dir.path(), "ghost.yaml", &ghost);
    kubectl_out(&plain.url(), &["create", "-f", &path]).await;

    let started = Instant::now();
    let s = replica(&etcd, fast()).await;
    let id = s.leader_identity().expect("identity").to_string();
    // Not before the 2 s have passed by this replica's clock...
    let early = within(Duration::from_millis(1700), || leads(&s)).await;
    assert!(
        early.is_none(),
        "led {early:?} after start, within the ghost's lease"
    );
    // ...but soon after (2 s, a jittered retry, slack).
    let took = within(Duration::from_secs(3), || leads(&s)).await;
    assert!(took.is_some(), "took the expired lease");
    assert!(started.elapsed() >= Duration::from_secs(2));
    let l = lease(&plain.url()).await;
    assert_eq!(l["spec"]["holderIdentity"], id.as_str());
    assert_eq!(l["spec"]["leaseTransitions"], 5);
    assert_eq!(l["spec"]["leaseDurationSeconds"], 1);

    // A graceful stop gives the Lease up: no holder, one second, as client-go writes.
    let mut leading = s.leading();
    s.shutdown().await;
    assert!(!*leading.borrow_and_update());
    let l = lease(&plain.url()).await;
    assert_eq!(l["spec"]["holderIdentity"], "", "{l}");
    assert_eq!(l["spec"]["leaseDurationSeconds"], 1);
    assert_eq!(l["spec"]["leaseTransitions"], 5);

    // A replica started now takes the released Lease at once.
    let next = replica(&etcd, fast()).await;
    let took = within(Duration::from_millis(500), || leads(&next)).await;
    assert!(took.is_some(), "a released lease is taken without waiting");
    assert_eq!(lease(&plain.url()).await["spec"]["leaseTransitions"], 6);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_leader_that_cannot_renew_stops_leading() {
    let etcd = Etcd::start().await;
    let plain = replica(&etcd, LeaderElection::disabled()).await;
    let s = replica(&etcd, fast()).await;
    assert!(within(Duration::from_secs(3), || leads(&s)).await.is_some());
    // Another writer takes the Lease over (for 3 s): the leader's compare-and-swap
    // renewals fail, and within its renew deadline it stops leading.
    let taken = Instant::now();
    let patch = r#"{"spec":{"holderIdentity":"usurper_1","leaseDurationSeconds":3}}"#;
    kubectl_out(
        &plain.url(),
        &[
            "patch",
            "lease",
            "-n",
            "kube-system",
            "kube-controller-manager",
            "--type=merge",
            "-p",
            patch,
        ],
    )
    .await;
    let lost = within(Duration::from_secs(2), || !leads(&s)).await;
    assert!(lost.is_some(), "stopped leading after failing to renew");
    assert!(
        taken.elapsed() < Duration::from_millis(1600),
        "within the renew deadline and a retry"
    );
    let l = lease(&plain.url()).await;
    assert_eq!(
        l["spec"]["holderIdentity"], "usurper_1",
        "not overwritten: {l}"
    );
    // Once the usurper's 3 s have passed unrenewed, the replica leads again.
    let back = within(Duration::from_secs(5), || leads(&s)).await;
    assert!(
        back.is_some(),
        "leads again once the usurper's lease expired"
    );
    assert!(taken.elapsed() >= Duration::from_secs(3));
}

#[tokio::test]
async fn durations_client_go_refuses_are_refused() {
    let config = Config {
        listen: SocketAddr::from(([127, 0, 0, 1], 0)),
        store: StoreConfig::InMemory,
        leader_election: LeaderElection {
            renew_deadline: Duration::from_secs(20),
            ..LeaderElection::default()
        },
        ..Config::default()
    };
    let err = crd_server::start(config).await.err().expect("refused");
    assert_eq!(
        err.to_string(),
        "leader election: leaseDuration must be greater than renewDeadline"
    );
}

/// With the garbage collector among the controllers: the replica that takes over
/// finishes a cascade the stopped leader did not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_surviving_replica_collects_the_dependents_of_a_deleted_owner() {
    let etcd = Etcd::start().await;
    let a = replica(&etcd, fast()).await;
    let b = replica(&etcd, fast()).await;
    assert!(
        within(Duration::from_secs(5), || leads(&a) ^ leads(&b))
            .await
            .is_some()
    );
    let (leader, survivor) = if leads(&a) { (a, b) } else { (b, a) };
    let url = survivor.url();
    kubectl_out(&url, &["create", "configmap", "owner"]).await;
    kubectl_out(&url, &["create", "configmap", "unrelated"]).await;
    let uid = kubectl_out(
        &url,
        &["get", "cm", "owner", "-o", "jsonpath={.metadata.uid}"],
    )
    .await;
    let dependent = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dependent\n  ownerReferences:\n  - {{apiVersion: v1, kind: ConfigMap, name: owner, uid: {uid}}}\n"
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let path = support::write(dir.path(), "dependent.yaml", &dependent);
    kubectl_out(&url, &["create", "-f", &path]).await;

    // The leader stops; the owner goes while nobody leads.
    drop(leader);
    kubectl_out(
        &url,
        &["delete", "configmap", "owner", "--cascade=background"],
    )
    .await;
    assert!(
        within(Duration::from_secs(3), || leads(&survivor))
            .await
            .is_some()
    );
    let mut gone = false;
    for _ in 0..50 {
        let out = kubectl_run(&url, &["get", "configmap", "dependent"]).await;
        if String::from_utf8_lossy(&out.stderr).contains("NotFound") {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(
        gone,
        "the surviving replica's garbage collector deleted the dependent"
    );
    kubectl_out(&url, &["get", "configmap", "unrelated"]).await;
}
