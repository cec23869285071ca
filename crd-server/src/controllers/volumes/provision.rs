//! The simulated external provisioner: for a claim of a StorageClass whose provisioner
//! is [`PROVISIONER`], a volume `pvc-<claim uid>` of the requested size, access modes and
//! volume mode, pre-bound to the claim, with the class's reclaim policy and mount
//! options (as external-provisioner's `ProvisionExt` leaves it for the binder to bind);
//! reclaimed by deletion. And the default StorageClass `standard` that uses it.

use std::sync::Arc;

use serde_json::{Value, json};

use super::{COMPONENT, IS_DEFAULT_CLASS, claim_ref, default_class};
use crate::api::object::str_at;
use crate::api::request::DeleteOptions;
use crate::controllers::cache::Informer;
use crate::controllers::workload::Api;

/// The provisioner crd-server simulates.
pub const PROVISIONER: &str = "simulated.crd-server.io";
/// The default StorageClass created when the server has none (kind's name for it).
pub const DEFAULT_CLASS: &str = "standard";
/// Who provisioned a volume.
pub const PROVISIONED_BY: &str = "pv.kubernetes.io/provisioned-by";

/// Creates the default StorageClass unless one is marked default already.
pub async fn ensure_default_class(api: &Api, classes: &Arc<Informer>) -> Result<(), String> {
    if default_class(&classes.list(None)).is_some() || classes.get("", DEFAULT_CLASS).is_some() {
        return Ok(());
    }
    let class = json!({
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": DEFAULT_CLASS, "annotations": {IS_DEFAULT_CLASS: "true"}},
        "provisioner": PROVISIONER,
        "reclaimPolicy": "Delete",
        "volumeBindingMode": "Immediate",
    });
    match api.create(classes, "", class).await {
        Ok(_) => Ok(()),
        Err(e) if e.code == http::StatusCode::CONFLICT => Ok(()),
        Err(e) => Err(e.message),
    }
}

/// The volume for `claim` of `class`, created once (a second pass finds it).
pub async fn provision(
    api: &Api,
    volumes: &Arc<Informer>,
    claim: &Value,
    class: &Value,
) -> Result<(), String> {
    let name = format!("pvc-{}", str_at(claim, "/metadata/uid"));
    if volumes.get("", &name).is_some() {
        return Ok(());
    }
    let size = claim
        .pointer("/spec/resources/requests/storage")
        .cloned()
        .unwrap_or(Value::Null);
    let mut spec = json!({
        "capacity": {"storage": size},
        "accessModes": claim.pointer("/spec/accessModes").cloned().unwrap_or(json!([])),
        "persistentVolumeReclaimPolicy": class.get("reclaimPolicy").cloned().unwrap_or(json!("Delete")),
        "storageClassName": str_at(class, "/metadata/name"),
        "volumeMode": claim.pointer("/spec/volumeMode").cloned().unwrap_or(json!("Filesystem")),
        "claimRef": claim_ref(claim),
        // Where a local-path provisioner would put it; nothing is written there.
        "hostPath": {"path": format!("/var/lib/crd-server/volumes/{name}"), "type": "DirectoryOrCreate"},
    });
    if let Some(options) = class.get("mountOptions").filter(|o| o.is_array()) {
        spec["mountOptions"] = options.clone();
    }
    let volume = json!({
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": name, "annotations": {PROVISIONED_BY: PROVISIONER}},
        "spec": spec,
    });
    match api.create(volumes, "", volume).await {
        Ok(_) => {
            let msg = format!("Successfully provisioned volume {name}");
            api.event(claim, "Normal", "ProvisioningSucceeded", &msg, PROVISIONER)
                .await;
            Ok(())
        }
        Err(e) if e.code == http::StatusCode::CONFLICT => Ok(()),
        Err(e) => {
            let msg = format!(
                "failed to provision volume with StorageClass \"{}\": {}",
                str_at(class, "/metadata/name"),
                e.message
            );
            api.event(claim, "Warning", "ProvisioningFailed", &msg, PROVISIONER)
                .await;
            Err(e.message)
        }
    }
}

/// Deletes a released volume this provisioner made (its `Delete` reclaim policy).
pub async fn delete(api: &Api, volumes: &Arc<Informer>, volume: &Value) -> Result<(), String> {
    match api.delete(volumes, volume, DeleteOptions::default()).await {
        Ok(()) => Ok(()),
        Err(e) => {
            let msg = format!("Error deleting volume: {}", e.message);
            api.event(volume, "Warning", "VolumeFailedDelete", &msg, COMPONENT)
                .await;
            Err(e.message)
        }
    }
}
