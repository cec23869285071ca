//! Leader election over a coordination.k8s.io/v1 Lease, as client-go's leader elector
//! runs it for kube-controller-manager: replicas sharing a store take turns holding
//! `kube-system/kube-controller-manager`, and only the holder runs the controllers.
//!
//! A replica acquires the Lease when nobody holds it or when its record has not changed
//! for `leaseDurationSeconds` by the replica's own clock since it last saw it change
//! (clocks of different replicas are never compared); the holder renews it every retry
//! period and stops its controllers when it could not renew for the renew deadline,
//! which is shorter than the lease duration, so two replicas never lead at once. Every
//! write is a compare-and-swap on the `resourceVersion` last read.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::{Instant, sleep, timeout, timeout_at};

use super::client::{Client, Mutation};
use super::election::{JITTER_FACTOR, LeaderElection};
use super::{Running, Selection};
use crate::api::kinds::{Resource, Subresource};
use crate::api::request::WriteOptions;
use crate::api::state::Shared;
use crate::api::write::{self, Tracking};

/// The manager, event source and identity prefix kube-controller-manager uses.
const COMPONENT: &str = "kube-controller-manager";

/// The election record a Lease's spec holds (client-go's `LeaderElectionRecord`).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Record {
    holder: String,
    duration_secs: i64,
    acquire: Value,
    renew: Value,
    transitions: i64,
}

impl Record {
    fn from_spec(spec: &Value) -> Record {
        Record {
            holder: spec["holderIdentity"].as_str().unwrap_or("").to_string(),
            duration_secs: spec["leaseDurationSeconds"].as_i64().unwrap_or(0),
            acquire: spec["acquireTime"].clone(),
            renew: spec["renewTime"].clone(),
            transitions: spec["leaseTransitions"].as_i64().unwrap_or(0),
        }
    }

    fn to_spec(&self) -> Value {
        json!({
            "holderIdentity": self.holder,
            "leaseDurationSeconds": self.duration_secs,
            "acquireTime": self.acquire,
            "renewTime": self.renew,
            "leaseTransitions": self.transitions,
        })
    }
}

/// A `MicroTime` now, as client-go writes acquireTime and renewTime.
fn micro_now() -> Value {
    json!(
        chrono::Utc::now()
            .format("%Y-%m-%dT%H:%M:%S%.6fZ")
            .to_string()
    )
}

/// `HOSTNAME_UUID`, kube-controller-manager's identity.
fn identity() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok().filter(|h| !h.is_empty()))
        .unwrap_or_else(|| "localhost".into());
    format!("{host}_{}", uuid::Uuid::new_v4())
}

/// A retry period stretched by up to [`JITTER_FACTOR`] more, so that replicas started
/// together do not keep colliding.
fn jittered(period: Duration) -> Duration {
    let r = (uuid::Uuid::new_v4().as_u128() as u64) as f64 / u64::MAX as f64;
    period.mul_f64(1.0 + r * JITTER_FACTOR)
}

/// The controllers of the replica while it leads.
#[derive(Default)]
struct Leading {
    stopped: bool,
    controllers: Option<Running>,
}

fn lock(m: &Mutex<Leading>) -> std::sync::MutexGuard<'_, Leading> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A replica's part in the election; dropping it stops its controllers at once and
/// gives up the Lease in the background (client-go's `ReleaseOnCancel`).
pub(crate) struct Election {
    identity: String,
    leading: Arc<Mutex<Leading>>,
    stop: watch::Sender<bool>,
    status: watch::Receiver<bool>,
    task: Option<JoinHandle<()>>,
}

impl Election {
    /// The identity written as `holderIdentity`.
    pub(crate) fn identity(&self) -> &str {
        &self.identity
    }

    /// Whether this replica leads (runs its controllers) now.
    pub(crate) fn status(&self) -> watch::Receiver<bool> {
        self.status.clone()
    }

    fn stop_now(&self) {
        let controllers = {
            let mut l = lock(&self.leading);
            l.stopped = true;
            l.controllers.take()
        };
        drop(controllers);
        let _ = self.stop.send(true);
    }

    /// Stops the controllers and waits until the Lease is given up (bounded by the
    /// renew deadline).
    pub(crate) async fn shutdown(mut self) {
        self.stop_now();
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for Election {
    fn drop(&mut self) {
        self.stop_now();
    }
}

/// Joins the election: the selected controllers run while this replica leads.
///
/// `exclusive`: the store is one only this process can open (the embedded store's file
/// is locked, memory is private), so a Lease another identity holds there was left by a
/// process that is gone — a restart after `kill -9` — and is taken over at once instead
/// of after its lease duration.
pub(crate) fn start(
    shared: Arc<Shared>,
    selection: Selection,
    workloads: Arc<super::Workloads>,
    cfg: LeaderElection,
    exclusive: bool,
) -> Election {
    let identity = identity();
    let leading = Arc::new(Mutex::new(Leading::default()));
    let (stop, stop_rx) = watch::channel(false);
    let (status_tx, status) = watch::channel(false);
    let elector = Elector {
        client: Client::new(shared.clone(), COMPONENT),
        leases: shared
            .registry
            .resolve("coordination.k8s.io", "v1", "leases"),
        identity: identity.clone(),
        cfg,
        exclusive,
        lease: None,
        observed: None,
    };
    let task = tokio::spawn(elector.run(RunState {
        shared,
        selection,
        workloads,
        leading: leading.clone(),
        stop: stop_rx,
        status: status_tx,
    }));
    Election {
        identity,
        leading,
        stop,
        status,
        task: Some(task),
    }
}

struct RunState {
    shared: Arc<Shared>,
    selection: Selection,
    workloads: Arc<super::Workloads>,
    leading: Arc<Mutex<Leading>>,
    stop: watch::Receiver<bool>,
    status: watch::Sender<bool>,
}

impl RunState {
    /// Sleeps `d`; `false` when asked to stop meanwhile.
    async fn pause(&mut self, d: Duration) -> bool {
        if *self.stop.borrow() {
            return false;
        }
        let stop = &mut self.stop;
        tokio::select! {
            _ = sleep(d) => {}
            _ = stop.wait_for(|s| *s) => {}
        }
        !*self.stop.borrow()
    }

    fn stopped(&self) -> bool {
        *self.stop.borrow()
    }

    /// Starts the controllers (unless stopping): they rebuild their state from the store.
    fn begin(&self) {
        let mut l = lock(&self.leading);
        if !l.stopped {
            l.controllers = Some(super::spawn(&self.shared, &self.selection, &self.workloads));
            let _ = self.status.send(true);
        }
    }

    /// Stops the controllers (their tasks are aborted).
    fn end(&self) {
        let controllers = lock(&self.leading).controllers.take();
        drop(controllers);
        let _ = self.status.send(false);
    }
}

/// The election record as this replica last saw it change, and when (its clock).
struct Observed {
    record: Record,
    at: Instant,
}

struct Elector {
    client: Client,
    leases: Option<Resource>,
    identity: String,
    cfg: LeaderElection,
    /// No other process can write the store: any other holder is gone.
    exclusive: bool,
    /// The Lease as last read or written: the `resourceVersion` of the next update.
    lease: Option<Value>,
    observed: Option<Observed>,
}

impl Elector {
    async fn run(mut self, mut st: RunState) {
        loop {
            if !self.acquire(&mut st).await {
                break;
            }
            self.event("became leader").await;
            st.begin();
            let stopped = self.renew(&mut st).await;
            st.end();
            self.event("stopped leading").await;
            if stopped {
                break;
            }
        }
        // Whatever the last attempt left behind, a replica that stops gives the Lease up
        // so that another one need not wait for it to expire.
        let _ = timeout(self.cfg.renew_deadline, self.release()).await;
    }

    /// Tries every (jittered) retry period until the Lease is ours; `false` when asked
    /// to stop first.
    async fn acquire(&mut self, st: &mut RunState) -> bool {
        loop {
            let got = timeout(self.cfg.renew_deadline, self.try_acquire_or_renew()).await;
            if st.stopped() {
                return false;
            }
            if got == Ok(true) {
                return true;
            }
            if !st.pause(jittered(self.cfg.retry_period)).await {
                return false;
            }
        }
    }

    /// Renews every retry period; `true` when asked to stop, `false` when renewing
    /// failed for the renew deadline (leadership is lost).
    async fn renew(&mut self, st: &mut RunState) -> bool {
        loop {
            let deadline = Instant::now() + self.cfg.renew_deadline;
            loop {
                match timeout_at(deadline, self.try_acquire_or_renew()).await {
                    Ok(true) => break,
                    Err(_) => return st.stopped(),
                    Ok(false) => {}
                }
                if Instant::now() + self.cfg.retry_period >= deadline {
                    return st.stopped();
                }
                if !st.pause(self.cfg.retry_period).await {
                    return true;
                }
            }
            if !st.pause(self.cfg.retry_period).await {
                return true;
            }
        }
    }

    fn is_leader(&self) -> bool {
        self.observed
            .as_ref()
            .is_some_and(|o| o.record.holder == self.identity)
    }

    /// Whether the observed record has changed within its lease duration.
    fn lease_valid(&self, now: Instant) -> bool {
        self.observed.as_ref().is_some_and(|o| {
            let secs = u64::try_from(o.record.duration_secs).unwrap_or(0);
            o.at + Duration::from_secs(secs) > now
        })
    }

    fn observe(&mut self, record: Record) {
        self.observed = Some(Observed {
            record,
            at: Instant::now(),
        });
    }

    /// One attempt: the Lease is ours afterwards (created, taken over, renewed).
    async fn try_acquire_or_renew(&mut self) -> bool {
        let Some(leases) = self.leases.clone() else {
            return false;
        };
        let now = Instant::now();
        let at = micro_now();
        let mut record = Record {
            holder: self.identity.clone(),
            duration_secs: i64::try_from(self.cfg.lease_duration.as_secs()).unwrap_or(i64::MAX),
            acquire: at.clone(),
            renew: at,
            transitions: 0,
        };
        // The leader first updates what it wrote last, without reading it again.
        if self.is_leader()
            && self.lease_valid(now)
            && let Some(o) = &self.observed
        {
            let mut renewed = record.clone();
            renewed.acquire = o.record.acquire.clone();
            renewed.transitions = o.record.transitions;
            if self.update(&leases, &renewed).await {
                self.observe(renewed);
                return true;
            }
        }
        let ns = self.cfg.resource_namespace.clone();
        let name = self.cfg.resource_name.clone();
        let current = match self.client.get(&leases, Some(&ns), &name).await {
            Ok(Some(lease)) => lease,
            Ok(None) => return self.create(&leases, record).await,
            Err(_) => return false,
        };
        let old = Record::from_spec(&current["spec"]);
        self.lease = Some(current);
        if self.observed.as_ref().map(|o| &o.record) != Some(&old) {
            self.observe(old.clone());
        }
        if !old.holder.is_empty() && self.lease_valid(now) && !self.is_leader() && !self.exclusive {
            return false;
        }
        if self.is_leader() {
            record.acquire = old.acquire;
            record.transitions = old.transitions;
        } else {
            record.transitions = old.transitions + 1;
        }
        if !self.update(&leases, &record).await {
            return false;
        }
        self.observe(record);
        true
    }

    async fn create(&mut self, leases: &Resource, record: Record) -> bool {
        let ns = self.cfg.resource_namespace.as_str();
        let lease = json!({
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": {"name": self.cfg.resource_name, "namespace": ns},
            "spec": record.to_spec(),
        });
        let opts = WriteOptions::server(COMPONENT);
        let shared = self.client.shared().clone();
        let tracking = Tracking::Update(COMPONENT);
        match write::create(&shared, leases, Some(ns), lease, &opts, tracking).await {
            Ok(written) => {
                self.lease = Some(written.obj);
                self.observe(record);
                true
            }
            Err(_) => false,
        }
    }

    /// Writes `record` into the Lease last seen, only if nobody wrote it since.
    async fn update(&mut self, leases: &Resource, record: &Record) -> bool {
        let Some(mut lease) = self.lease.clone() else {
            return false;
        };
        lease["spec"] = record.to_spec();
        let ns = self.cfg.resource_namespace.clone();
        let name = self.cfg.resource_name.clone();
        let written = self
            .client
            .update(&leases.clone(), Some(&ns), &name, Subresource::Main, |_| {
                // Its resourceVersion makes the write a compare-and-swap.
                Mutation::Write(lease.clone())
            })
            .await;
        match written {
            Ok(Some(obj)) => {
                self.lease = Some(obj);
                true
            }
            _ => false,
        }
    }

    /// Gives the Lease up if the store says this replica holds it: no holder, a
    /// one-second lease, as client-go's release writes.
    async fn release(&mut self) {
        let Some(leases) = self.leases.clone() else {
            return;
        };
        let ns = self.cfg.resource_namespace.clone();
        let name = self.cfg.resource_name.clone();
        // A conflict means a renewal raced the release: read again.
        for _ in 0..5 {
            let Ok(Some(current)) = self.client.get(&leases, Some(&ns), &name).await else {
                return;
            };
            let old = Record::from_spec(&current["spec"]);
            if old.holder != self.identity {
                return;
            }
            self.lease = Some(current);
            let at = micro_now();
            let released = Record {
                holder: String::new(),
                duration_secs: 1,
                acquire: at.clone(),
                renew: at,
                transitions: old.transitions,
            };
            if self.update(&leases, &released).await {
                self.observe(released);
                return;
            }
        }
    }

    /// An event on the Lease, as client-go's lock records it.
    async fn event(&self, what: &str) {
        if let Some(lease) = &self.lease {
            let message = format!("{} {what}", self.identity);
            let _ = self
                .client
                .event(lease, "Normal", "LeaderElection", &message, COMPONENT)
                .await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_through_the_spec() {
        let r = Record {
            holder: "host_1".into(),
            duration_secs: 15,
            acquire: json!("2025-01-01T00:00:00.000000Z"),
            renew: json!("2025-01-01T00:00:02.000000Z"),
            transitions: 3,
        };
        assert_eq!(Record::from_spec(&r.to_spec()), r);
        let t = micro_now();
        let t = t.as_str().unwrap();
        assert_eq!(t.len(), "2025-01-01T00:00:00.000000Z".len(), "{t}");
    }

    #[test]
    fn identities_are_host_and_uuid() {
        let (a, b) = (identity(), identity());
        assert_ne!(a, b);
        let (_, id) = a.rsplit_once('_').unwrap();
        assert!(uuid::Uuid::parse_str(id).is_ok(), "{a}");
    }

    #[test]
    fn jitter_stays_within_client_gos_factor() {
        let p = Duration::from_millis(100);
        for _ in 0..100 {
            let j = jittered(p);
            assert!(j >= p && j <= p.mul_f64(1.0 + JITTER_FACTOR), "{j:?}");
        }
    }
}
