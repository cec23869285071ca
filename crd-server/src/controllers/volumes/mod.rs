//! The PersistentVolume controller, as kube-controller-manager's
//! `persistentvolume-binder` (`pkg/controller/volume/persistentvolume`): a pending
//! claim is bound to the best matching available volume ([`matching`]) — the volume's
//! `claimRef` and phase `Bound`, the claim's `volumeName`, capacity, access modes and
//! phase `Bound`, with upstream's `pv.kubernetes.io/*` annotations; a claim without a
//! class gets the default StorageClass (the retroactive assignment); a claim no volume
//! fits waits for its class's provisioner (`ExternalProvisioning`; for
//! `WaitForFirstConsumer` classes only once the scheduler picked a node). A volume
//! whose claim is gone is `Released` and reclaimed by its policy.
//!
//! It also plays the external provisioner of [`PROVISIONER`], the provisioner of the
//! default StorageClass `standard` it creates when the server has no default class
//! ([`provision`]), so a claim of that class gets a volume of its size at once.

mod matching;
mod provision;

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::cache::{Event, Informer, key_of};
use super::client::Mutation;
use super::queue::Queue;
use super::workload::resources::{CLAIMS, STORAGE_CLASSES, VOLUMES};
use super::workload::{Api, MAX_RETRY, Next, live, synced, work};
use crate::api::kinds::Subresource;
use crate::api::object::{is_deleting, str_at};
pub use matching::class_of;
pub use provision::PROVISIONER;

/// The component its events come from.
pub const COMPONENT: &str = "persistentvolume-controller";
/// Passes running at once (`--concurrent-pv-syncs`... one queue each upstream).
const WORKERS: usize = 4;

const BIND_COMPLETED: &str = "pv.kubernetes.io/bind-completed";
const BOUND_BY_CONTROLLER: &str = "pv.kubernetes.io/bound-by-controller";
const STORAGE_PROVISIONER: &str = "volume.kubernetes.io/storage-provisioner";
const BETA_STORAGE_PROVISIONER: &str = "volume.beta.kubernetes.io/storage-provisioner";
/// The node the scheduler picked for a `WaitForFirstConsumer` claim.
pub const SELECTED_NODE: &str = "volume.kubernetes.io/selected-node";
/// The annotation that makes a StorageClass the default.
pub const IS_DEFAULT_CLASS: &str = "storageclass.kubernetes.io/is-default-class";

/// What the queue holds: a claim (`ns/name`) or a volume (`name`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    Claim(String),
    Volume(String),
}

struct Controller {
    api: Api,
    claims: Arc<Informer>,
    volumes: Arc<Informer>,
    classes: Arc<Informer>,
}

/// Runs the controller until aborted.
pub async fn run(api: Api) {
    let Some([claims, volumes, classes]) = api.informers([CLAIMS, VOLUMES, STORAGE_CLASSES]) else {
        return;
    };
    let queue = Arc::new(Queue::new(MAX_RETRY));
    let q = queue.clone();
    claims.subscribe(Arc::new(move |e: &Event| {
        q.add(Key::Claim(e.key.clone()));
        // A deleted claim releases its volume.
        if let (None, Some(old)) = (&e.new, &e.old) {
            let volume = str_at(old, "/spec/volumeName");
            if !volume.is_empty() {
                q.add(Key::Volume(volume.to_string()));
            }
        }
    }));
    let q = queue.clone();
    volumes.subscribe(Arc::new(move |e: &Event| {
        q.add(Key::Volume(e.key.clone()));
        // A volume that appears, or lets its claim go, may be what a claim waits for.
        for v in [e.old.as_deref(), e.new.as_deref()].into_iter().flatten() {
            if let Some(r) = v.pointer("/spec/claimRef").filter(|r| r.is_object()) {
                let (ns, name) = (str_of(r, "namespace"), str_of(r, "name"));
                q.add(Key::Claim(format!("{ns}/{name}")));
            }
        }
    }));
    // A new (default) class may be what pending claims wait for.
    let (q, pending) = (queue.clone(), claims.clone());
    classes.subscribe(Arc::new(move |_: &Event| {
        for c in pending.list(None) {
            if str_at(&c, "/spec/volumeName").is_empty() {
                q.add(Key::Claim(key_of(&c)));
            }
        }
    }));
    synced(&[&claims, &volumes, &classes]).await;
    let c = Arc::new(Controller {
        api,
        claims,
        volumes,
        classes,
    });
    // The default class, retried while the store refuses it (a transient error). A
    // cluster's bootstrap manifests create it, not the binder (whose role may not).
    let api = c.api.as_bootstrap();
    let classes = c.classes.clone();
    let default_class = async move {
        while provision::ensure_default_class(&api, &classes)
            .await
            .is_err()
        {
            tokio::time::sleep(std::time::Duration::from_secs(1)).await;
        }
    };
    let workers = work(queue, WORKERS, move |key: Key| {
        let c = c.clone();
        async move {
            match key {
                Key::Claim(k) => c.sync_claim(&k).await,
                Key::Volume(k) => c.sync_volume(&k).await,
            }
        }
    });
    tokio::join!(default_class, workers);
}

fn str_of<'a>(v: &'a Value, field: &str) -> &'a str {
    v.get(field).and_then(Value::as_str).unwrap_or("")
}

fn annotation<'a>(obj: &'a Value, key: &str) -> &'a str {
    obj.pointer("/metadata/annotations")
        .and_then(|a| a.get(key))
        .and_then(Value::as_str)
        .unwrap_or("")
}

fn set_annotation(obj: &mut Value, key: &str, value: &str) {
    let meta = crate::api::object::meta_mut(obj);
    let annotations = meta
        .entry("annotations")
        .or_insert_with(|| Value::Object(Map::new()));
    if !annotations.is_object() {
        *annotations = Value::Object(Map::new());
    }
    annotations[key] = json!(value);
}

/// The default StorageClass among `classes`: the newest marked default (then by name),
/// as `GetDefaultClass`.
pub fn default_class(classes: &[Arc<Value>]) -> Option<Arc<Value>> {
    classes
        .iter()
        .filter(|c| annotation(c, IS_DEFAULT_CLASS) == "true" && !is_deleting(c))
        .max_by(|a, b| {
            let created = |c: &Value| str_at(c, "/metadata/creationTimestamp").to_string();
            created(a)
                .cmp(&created(b))
                .then_with(|| str_at(b, "/metadata/name").cmp(str_at(a, "/metadata/name")))
        })
        .cloned()
}

impl Controller {
    async fn sync_claim(&self, key: &str) -> Result<Next, String> {
        let Some(claim) = live(&self.claims, key) else {
            return Ok(Next::Done);
        };
        match str_at(&claim, "/spec/volumeName") {
            "" => self.sync_unbound_claim(&claim).await,
            volume => self.sync_bound_claim(&claim, volume).await,
        }
    }

    async fn sync_unbound_claim(&self, claim: &Value) -> Result<Next, String> {
        let has_class = claim
            .pointer("/spec/storageClassName")
            .is_some_and(|c| !c.is_null())
            || !annotation(claim, "volume.beta.kubernetes.io/storage-class").is_empty();
        if !has_class {
            // The retroactive default class assignment: its update brings the claim back.
            if let Some(class) = default_class(&self.classes.list(None)) {
                let class_name = str_at(&class, "/metadata/name").to_string();
                self.update_claim(claim, Subresource::Main, |next| {
                    if next
                        .pointer("/spec/storageClassName")
                        .is_none_or(Value::is_null)
                    {
                        next["spec"]["storageClassName"] = json!(class_name);
                        true
                    } else {
                        false
                    }
                })
                .await?;
                return Ok(Next::Done);
            }
        }
        let volumes = self.volumes.list(None);
        if let Some(volume) = matching::best_match(claim, &volumes) {
            return self.bind(volume, claim).await;
        }
        let class_name = class_of(claim);
        if class_name.is_empty() {
            self.event(
                claim,
                "Normal",
                "FailedBinding",
                "no persistent volumes available for this claim and no storage class is set",
            )
            .await;
            return Ok(Next::Done);
        }
        let Some(class) = self.classes.get("", class_name) else {
            let msg = format!("storageclass.storage.k8s.io \"{class_name}\" not found");
            self.event(claim, "Warning", "ProvisioningFailed", &msg)
                .await;
            return Ok(Next::Done);
        };
        if str_at(&class, "/volumeBindingMode") == "WaitForFirstConsumer"
            && annotation(claim, SELECTED_NODE).is_empty()
        {
            self.event(
                claim,
                "Normal",
                "WaitForFirstConsumer",
                "waiting for first consumer to be created before binding",
            )
            .await;
            return Ok(Next::Done);
        }
        let provisioner = str_at(&class, "/provisioner").to_string();
        if annotation(claim, STORAGE_PROVISIONER) != provisioner {
            let p = provisioner.clone();
            self.update_claim(claim, Subresource::Main, move |next| {
                set_annotation(next, STORAGE_PROVISIONER, &p);
                set_annotation(next, BETA_STORAGE_PROVISIONER, &p);
                true
            })
            .await?;
            let msg = format!(
                "Waiting for a volume to be created either by the external provisioner '{provisioner}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered."
            );
            self.event(claim, "Normal", "ExternalProvisioning", &msg)
                .await;
        }
        if provisioner == PROVISIONER {
            provision::provision(&self.api, &self.volumes, claim, &class).await?;
        }
        Ok(Next::Done)
    }

    async fn sync_bound_claim(&self, claim: &Value, volume_name: &str) -> Result<Next, String> {
        let Some(volume) = self.volumes.get("", volume_name) else {
            if str_at(claim, "/status/phase") != "Lost" {
                self.update_claim(claim, Subresource::Status, |next| {
                    next["status"]["phase"] = json!("Lost");
                    true
                })
                .await?;
                self.event(
                    claim,
                    "Warning",
                    "ClaimLost",
                    "Bound claim has lost its PersistentVolume. Data on the volume is lost!",
                )
                .await;
            }
            return Ok(Next::Done);
        };
        let unclaimed = volume.pointer("/spec/claimRef").is_none_or(Value::is_null);
        if unclaimed || matching::refers_to(&volume, claim) {
            // Pre-bound by its author, or a bind half done: finish it.
            if unclaimed || str_at(claim, "/status/phase") != "Bound" || !bound(&volume) {
                return self.bind(&volume, claim).await;
            }
            return Ok(Next::Done);
        }
        if str_at(claim, "/status/phase") != "Lost" {
            self.event(
                claim,
                "Warning",
                "ClaimMisbound",
                "Two claims are bound to the same volume, this one is bound incorrectly",
            )
            .await;
        }
        Ok(Next::Done)
    }

    /// Binds `volume` and `claim` to each other: the volume first (its `claimRef`,
    /// phase `Bound`), then the claim (`volumeName`, phase, capacity, access modes).
    async fn bind(&self, volume: &Value, claim: &Value) -> Result<Next, String> {
        let volume_name = str_at(volume, "/metadata/name").to_string();
        let reference = claim_ref(claim);
        let written = self
            .api
            .update(
                &self.volumes,
                "",
                &volume_name,
                Subresource::Main,
                |current| {
                    let r = current.pointer("/spec/claimRef").filter(|r| r.is_object());
                    // Already bound (to this claim, or to another meanwhile: checked below).
                    if r.is_some_and(|r| !r["uid"].as_str().unwrap_or("").is_empty()) {
                        return Mutation::Keep;
                    }
                    let mut next = current.clone();
                    next["spec"]["claimRef"] = reference.clone();
                    if r.is_none() {
                        set_annotation(&mut next, BOUND_BY_CONTROLLER, "yes");
                    }
                    Mutation::Write(next)
                },
            )
            .await
            .map_err(|e| e.message)?;
        let Some(volume) = written else {
            return Err(format!("persistentvolume {volume_name:?} is gone"));
        };
        if !matching::refers_to(&volume, claim) {
            return Err(format!(
                "persistentvolume {volume_name:?} was bound to another claim"
            ));
        }
        self.set_volume_phase(&volume, "Bound").await?;
        let by_controller = str_at(claim, "/spec/volumeName").is_empty();
        let name = volume_name.clone();
        self.update_claim(claim, Subresource::Main, move |next| {
            let done = str_at(next, "/spec/volumeName") == name
                && annotation(next, BIND_COMPLETED) == "yes";
            if done {
                return false;
            }
            next["spec"]["volumeName"] = json!(name);
            set_annotation(next, BIND_COMPLETED, "yes");
            if by_controller {
                set_annotation(next, BOUND_BY_CONTROLLER, "yes");
            }
            true
        })
        .await?;
        let capacity = volume
            .pointer("/spec/capacity")
            .cloned()
            .unwrap_or_default();
        let modes = volume
            .pointer("/spec/accessModes")
            .cloned()
            .unwrap_or_default();
        self.update_claim(claim, Subresource::Status, move |next| {
            let status = &next["status"];
            if status["phase"] == "Bound" && status["capacity"] == capacity {
                return false;
            }
            next["status"]["phase"] = json!("Bound");
            next["status"]["capacity"] = capacity.clone();
            next["status"]["accessModes"] = modes.clone();
            true
        })
        .await?;
        Ok(Next::Done)
    }

    async fn sync_volume(&self, name: &str) -> Result<Next, String> {
        let Some(volume) = self.volumes.get("", name) else {
            return Ok(Next::Done);
        };
        if is_deleting(&volume) {
            return Ok(Next::Done);
        }
        let Some(r) = volume.pointer("/spec/claimRef").filter(|r| r.is_object()) else {
            self.set_volume_phase(&volume, "Available").await?;
            return Ok(Next::Done);
        };
        let (ns, claim_name, uid) = (str_of(r, "namespace"), str_of(r, "name"), str_of(r, "uid"));
        let claim = self.claims.get(ns, claim_name);
        if uid.is_empty() {
            // Pre-bound by its author: the claim (when it comes) binds it.
            self.set_volume_phase(&volume, "Available").await?;
            return Ok(Next::Done);
        }
        match claim.filter(|c| str_at(c, "/metadata/uid") == uid) {
            Some(c) if str_at(&c, "/spec/volumeName") == name => {
                self.set_volume_phase(&volume, "Bound").await?;
            }
            // Binding in progress: the claim's pass finishes it.
            Some(c) if str_at(&c, "/spec/volumeName").is_empty() => {}
            Some(_) if annotation(&volume, BOUND_BY_CONTROLLER) == "yes" => {
                // The claim went to another volume: this one is free again.
                self.unbind(&volume).await?;
            }
            _ => self.reclaim(&volume).await?,
        }
        Ok(Next::Done)
    }

    /// Frees a volume this controller bound: no `claimRef`, `Available`.
    async fn unbind(&self, volume: &Value) -> Result<(), String> {
        let name = str_at(volume, "/metadata/name");
        let written = self
            .api
            .update(&self.volumes, "", name, Subresource::Main, |current| {
                let mut next = current.clone();
                if let Some(spec) = next.get_mut("spec").and_then(Value::as_object_mut) {
                    spec.remove("claimRef");
                }
                if let Some(a) = next
                    .pointer_mut("/metadata/annotations")
                    .and_then(Value::as_object_mut)
                {
                    a.remove(BOUND_BY_CONTROLLER);
                }
                Mutation::Write(next)
            })
            .await
            .map_err(|e| e.message)?;
        if let Some(v) = written {
            self.set_volume_phase(&v, "Available").await?;
        }
        Ok(())
    }

    /// A volume whose claim is gone: `Released`, then its reclaim policy.
    async fn reclaim(&self, volume: &Value) -> Result<(), String> {
        let phase = str_at(volume, "/status/phase");
        if phase == "Failed" {
            return Ok(());
        }
        if phase != "Released" {
            self.set_volume_phase(volume, "Released").await?;
        }
        match str_at(volume, "/spec/persistentVolumeReclaimPolicy") {
            "Delete" if annotation(volume, provision::PROVISIONED_BY) == PROVISIONER => {
                provision::delete(&self.api, &self.volumes, volume).await
            }
            "Delete" => {
                let name = str_at(volume, "/metadata/name");
                let msg = format!(
                    "error getting deleter volume plugin for volume \"{name}\": no deletable volume plugin matched"
                );
                self.reclaim_failed(volume, "VolumeFailedDelete", &msg)
                    .await
            }
            "Recycle" => {
                let name = str_at(volume, "/metadata/name");
                let msg = format!("No recycler plugin found for the volume \"{name}\"");
                self.reclaim_failed(volume, "VolumeFailedRecycle", &msg)
                    .await
            }
            // Retain: an administrator's job.
            _ => Ok(()),
        }
    }

    /// A reclaim policy no plugin carries out: a warning, and the volume `Failed`.
    async fn reclaim_failed(&self, volume: &Value, reason: &str, msg: &str) -> Result<(), String> {
        self.event(volume, "Warning", reason, msg).await;
        self.set_volume_phase(volume, "Failed").await
    }

    async fn set_volume_phase(&self, volume: &Value, phase: &str) -> Result<(), String> {
        if str_at(volume, "/status/phase") == phase {
            return Ok(());
        }
        self.api
            .update_same(&self.volumes, volume, Subresource::Status, |current| {
                if str_at(current, "/status/phase") == phase {
                    return Mutation::Keep;
                }
                let mut next = current.clone();
                next["status"]["phase"] = json!(phase);
                Mutation::Write(next)
            })
            .await
            .map_err(|e| e.message)?;
        Ok(())
    }

    /// Updates `claim` (the same uid) with `change`, which says whether it changed it.
    async fn update_claim(
        &self,
        claim: &Value,
        sub: Subresource,
        change: impl Fn(&mut Value) -> bool,
    ) -> Result<(), String> {
        self.api
            .update_same(&self.claims, claim, sub, |current| {
                let mut next = current.clone();
                if !next.get("status").is_some_and(Value::is_object) {
                    next["status"] = json!({});
                }
                if change(&mut next) {
                    Mutation::Write(next)
                } else {
                    Mutation::Keep
                }
            })
            .await
            .map_err(|e| e.message)?;
        Ok(())
    }

    async fn event(&self, obj: &Value, kind: &str, reason: &str, message: &str) {
        self.api.event(obj, kind, reason, message, COMPONENT).await;
    }
}

/// A volume's `claimRef` to `claim`.
pub(super) fn claim_ref(claim: &Value) -> Value {
    json!({
        "kind": "PersistentVolumeClaim",
        "namespace": str_at(claim, "/metadata/namespace"),
        "name": str_at(claim, "/metadata/name"),
        "uid": str_at(claim, "/metadata/uid"),
        "apiVersion": "v1",
        "resourceVersion": str_at(claim, "/metadata/resourceVersion"),
    })
}

/// Whether the volume's phase is `Bound`.
fn bound(volume: &Value) -> bool {
    str_at(volume, "/status/phase") == "Bound"
}
