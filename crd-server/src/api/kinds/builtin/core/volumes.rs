//! core/v1 PersistentVolumeClaims and PersistentVolumes: their defaults
//! (`volumeMode: Filesystem`, reclaim policy `Retain`, a new volume's and claim's
//! `Pending` phase), the checks of core validation, what an update may not change, and
//! the printers' columns.

use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use serde_json::{Value, json};

use crate::api::kinds::Subresource;
use crate::api::kinds::builtin::behaviour::*;
use crate::api::kinds::builtin::checks::strings;
use crate::api::kinds::builtin::columns::wide;
use crate::api::kinds::builtin::{default_field, immutable_field, quantity};
use crate::api::selectors::label;
use crate::api::table::Column;

pub(crate) const ACCESS_MODES: [&str; 4] = [
    "ReadOnlyMany",
    "ReadWriteMany",
    "ReadWriteOnce",
    "ReadWriteOncePod",
];
pub(crate) const VOLUME_MODES: [&str; 2] = ["Block", "Filesystem"];
pub(crate) const RECLAIM_POLICIES: [&str; 3] = ["Delete", "Recycle", "Retain"];
/// The volume sources a PersistentVolume may name (exactly one).
pub(crate) const VOLUME_SOURCES: [&str; 22] = [
    "awsElasticBlockStore",
    "azureDisk",
    "azureFile",
    "cephfs",
    "cinder",
    "csi",
    "fc",
    "flexVolume",
    "flocker",
    "gcePersistentDisk",
    "glusterfs",
    "hostPath",
    "iscsi",
    "local",
    "nfs",
    "photonPersistentDisk",
    "portworxVolume",
    "quobyte",
    "rbd",
    "scaleIO",
    "storageos",
    "vsphereVolume",
];

pub(crate) fn str_at<'a>(v: &'a Value, pointer: &str) -> &'a str {
    v.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

/// `GetAccessModesAsString`: `RWO,ROX,RWX,RWOP` in that order.
pub(crate) fn access_modes(v: &Value) -> String {
    let modes = strings(v);
    [
        ("ReadWriteOnce", "RWO"),
        ("ReadOnlyMany", "ROX"),
        ("ReadWriteMany", "RWX"),
        ("ReadWriteOncePod", "RWOP"),
    ]
    .iter()
    .filter(|(m, _)| modes.iter().any(|x| x == m))
    .map(|(_, short)| *short)
    .collect::<Vec<_>>()
    .join(",")
}

/// Access modes: at least one, each supported, `ReadWriteOncePod` alone.
pub(crate) fn check_access_modes(modes: &Value, path: Path, required: &str, errs: &mut ErrorList) {
    let list = strings(modes);
    if list.is_empty() {
        errs.push(FieldError::required(path, required));
        return;
    }
    for m in &list {
        if !ACCESS_MODES.contains(&m.as_str()) {
            errs.push(FieldError::not_supported(
                path.clone(),
                BadValue::Str(m.clone()),
                &ACCESS_MODES,
            ));
        }
    }
    if list.len() > 1 && list.iter().any(|m| m == "ReadWriteOncePod") {
        errs.push(FieldError::forbidden(
            path,
            "may not use ReadWriteOncePod with other access modes",
        ));
    }
}

pub(crate) fn check_volume_mode(spec: &Value, errs: &mut ErrorList) {
    if let Some(mode) = spec["volumeMode"].as_str()
        && !VOLUME_MODES.contains(&mode)
    {
        errs.push(FieldError::not_supported(
            Path::new("spec").child("volumeMode"),
            BadValue::Str(mode.into()),
            &VOLUME_MODES,
        ));
    }
}

/// `ValidatePositiveQuantityValue` (and non-negative for every other key).
pub(crate) fn positive_quantity(v: &Value, path: Path, errs: &mut ErrorList) {
    let text = quantity::text(v).unwrap_or_default();
    if quantity::parse(&text).is_some_and(|q| q <= 0.0) {
        errs.push(FieldError::invalid(
            path,
            BadValue::Str(text),
            "must be greater than zero",
        ));
    }
}

/// PersistentVolumeClaims.
pub struct Claims;

defaults!(Claims: Serving, Deleter, AllocateStrategy);

impl Defaulter for Claims {
    fn decode(&self, obj: &mut Value) -> Result<(), String> {
        quantity::check_maps(
            obj,
            &[
                "/spec/resources/requests",
                "/spec/resources/limits",
                "/status/capacity",
            ],
        )?;
        if obj["spec"].is_object() {
            default_field(&mut obj["spec"], "volumeMode", json!("Filesystem"));
        }
        Ok(())
    }
}

impl Validator for Claims {
    fn validate(&self, obj: &Value, old: Option<&Value>, errs: &mut ErrorList) {
        let spec = &obj["spec"];
        let path = Path::new("spec");
        check_access_modes(
            &spec["accessModes"],
            path.child("accessModes"),
            "at least 1 access mode is required",
            errs,
        );
        let storage_path = path.child("resources").key("storage");
        match spec.pointer("/resources/requests/storage") {
            None => errs.push(FieldError::required(storage_path, "")),
            Some(q) => positive_quantity(q, storage_path, errs),
        }
        check_volume_mode(spec, errs);
        // `ValidationOptionsForPersistentVolumeClaim`: an update keeps invalid label
        // values its old selector already had.
        let opts = label::Options::for_update(old.and_then(|o| o.pointer("/spec/selector")));
        label::validate(&spec["selector"], opts, &path.child("selector"), errs);
        if let Some(old) = old {
            // Only the storage request (of a bound claim) and the attributes class change.
            let mut new_spec = spec.clone();
            let mut old_spec = old["spec"].clone();
            for s in [&mut new_spec, &mut old_spec] {
                if let Some(m) = s.as_object_mut() {
                    m.remove("volumeAttributesClassName");
                }
            }
            // The PV controller sets `volumeName` once, and gives a claim without a class
            // (nor the beta annotation) the default one (the retroactive assignment).
            if str_at(old, "/spec/volumeName").is_empty() {
                old_spec["volumeName"] = new_spec.get("volumeName").cloned().unwrap_or(Value::Null);
            }
            let old_annotation = old
                .pointer("/metadata/annotations/volume.beta.kubernetes.io~1storage-class")
                .is_some();
            let class_from_nil = old_spec.get("storageClassName").is_none_or(Value::is_null)
                && !str_at(obj, "/spec/storageClassName").is_empty();
            if !old_annotation && class_from_nil {
                old_spec["storageClassName"] = new_spec["storageClassName"].clone();
            }
            for s in [&mut new_spec, &mut old_spec] {
                if let Some(m) = s.as_object_mut() {
                    m.retain(|_, v| !v.is_null());
                }
            }
            if str_at(old, "/status/phase") == "Bound"
                && let Some(req) = old_spec.pointer("/resources/requests/storage").cloned()
                && let Some(slot) = new_spec.pointer_mut("/resources/requests/storage")
            {
                *slot = req;
            }
            if new_spec != old_spec {
                errs.push(FieldError::forbidden(
                    path,
                    "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims",
                ));
            }
        }
    }
}

impl Preparer for Claims {
    fn prepare(&self, obj: &mut Value, old: Option<&Value>, _sub: Subresource) {
        if old.is_none() && obj.is_object() {
            obj["status"] = json!({"phase": "Pending"});
        }
    }
}

impl Printer for Claims {
    fn columns(&self) -> Vec<Column> {
        vec![
            phase_column("phase represents the current phase of PersistentVolumeClaim."),
            Column::computed(
                "Volume",
                "string",
                "volumeName is the binding reference to the PersistentVolume backing this claim.",
                |o| json!(str_at(o, "/spec/volumeName")),
            ),
            Column::computed(
                "Capacity",
                "string",
                "capacity represents the actual resources of the underlying volume.",
                |o| {
                    let bound = !str_at(o, "/spec/volumeName").is_empty();
                    json!(if bound {
                        o.pointer("/status/capacity/storage")
                            .and_then(quantity::text)
                            .unwrap_or_else(|| "0".into())
                    } else {
                        String::new()
                    })
                },
            ),
            Column::computed(
                "Access Modes",
                "string",
                "accessModes contains the actual access modes the volume backing the PVC has. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1",
                |o| {
                    json!(if str_at(o, "/spec/volumeName").is_empty() {
                        String::new()
                    } else {
                        access_modes(&o["status"]["accessModes"])
                    })
                },
            ),
            Column::computed(
                "StorageClass",
                "string",
                "storageClassName is the name of the StorageClass required by the claim. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#class-1",
                |o| json!(storage_class(o)),
            ),
            attributes_class_column(
                "volumeAttributesClassName may be used to set the VolumeAttributesClass used by this claim.",
            ),
            Column::builtin_age(),
            wide(volume_mode_column(
                "volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied when not included in claim spec.",
            )),
        ]
    }
}

// The columns claims and volumes share, each with its own kind's description.

/// `VolumeMode` (wide output): `<unset>` when the spec names none.
fn volume_mode_column(description: &str) -> Column {
    Column::computed("VolumeMode", "string", description, |o| {
        json!(o["spec"]["volumeMode"].as_str().unwrap_or("<unset>"))
    })
}

/// `Status`: the phase, or `Terminating` once deletion has begun.
fn phase_column(description: &str) -> Column {
    Column::computed("Status", "string", description, |o| {
        json!(if o.pointer("/metadata/deletionTimestamp").is_some() {
            "Terminating"
        } else {
            str_at(o, "/status/phase")
        })
    })
}

/// `VolumeAttributesClass`: `<unset>` when empty or absent.
fn attributes_class_column(description: &str) -> Column {
    Column::computed("VolumeAttributesClass", "string", description, |o| {
        json!(
            o["spec"]["volumeAttributesClassName"]
                .as_str()
                .filter(|s| !s.is_empty())
                .unwrap_or("<unset>")
        )
    })
}

/// `GetPersistentVolume(Claim)Class`: the beta annotation, else `storageClassName`.
pub(crate) fn storage_class(o: &Value) -> String {
    o.pointer("/metadata/annotations/volume.beta.kubernetes.io~1storage-class")
        .and_then(Value::as_str)
        .unwrap_or_else(|| str_at(o, "/spec/storageClassName"))
        .to_string()
}

/// PersistentVolumes.
pub struct Volumes;

defaults!(Volumes: Serving, Deleter, AllocateStrategy);

impl Defaulter for Volumes {
    fn decode(&self, obj: &mut Value) -> Result<(), String> {
        quantity::check_maps(obj, &["/spec/capacity"])?;
        if obj["spec"].is_object() {
            default_field(
                &mut obj["spec"],
                "persistentVolumeReclaimPolicy",
                json!("Retain"),
            );
            default_field(&mut obj["spec"], "volumeMode", json!("Filesystem"));
        }
        Ok(())
    }
}

impl Validator for Volumes {
    fn validate(&self, obj: &Value, old: Option<&Value>, errs: &mut ErrorList) {
        let spec = &obj["spec"];
        let path = Path::new("spec");
        check_access_modes(&spec["accessModes"], path.child("accessModes"), "", errs);
        let capacity = spec["capacity"].as_object();
        if capacity.is_none_or(|c| c.is_empty()) {
            errs.push(FieldError::required(path.child("capacity"), ""));
        }
        let only_storage = capacity.is_some_and(|c| c.len() == 1 && c.contains_key("storage"));
        if !only_storage {
            // Go prints the whole ResourceList here; it is left out.
            errs.push(FieldError::not_supported(
                path.child("capacity"),
                BadValue::Omit,
                &["storage"],
            ));
        }
        for (k, v) in capacity.into_iter().flatten() {
            positive_quantity(v, path.child("capacity").key(k), errs);
        }
        let policy = spec["persistentVolumeReclaimPolicy"].as_str().unwrap_or("");
        if !policy.is_empty() && !RECLAIM_POLICIES.contains(&policy) {
            errs.push(FieldError::not_supported(
                path.child("persistentVolumeReclaimPolicy"),
                BadValue::Str(policy.into()),
                &RECLAIM_POLICIES,
            ));
        }
        let sources: Vec<&str> = VOLUME_SOURCES
            .iter()
            .copied()
            .filter(|s| spec.get(*s).is_some_and(|v| !v.is_null()))
            .collect();
        match sources.as_slice() {
            [] => errs.push(FieldError::required(
                path.clone(),
                "must specify a volume type",
            )),
            [_] => {}
            [_, rest @ ..] => {
                for s in rest {
                    errs.push(FieldError::forbidden(
                        path.child(s),
                        "may not specify more than 1 volume type",
                    ));
                }
            }
        }
        check_volume_mode(spec, errs);
        if let Some(old) = old
            && old["spec"]["volumeMode"].is_string()
        {
            immutable_field(obj, old, "/spec/volumeMode", path.child("volumeMode"), errs);
        }
    }
}

impl Preparer for Volumes {
    fn prepare(&self, obj: &mut Value, old: Option<&Value>, sub: Subresource) {
        let now = json!(crate::api::object::now());
        match old {
            None if obj.is_object() => {
                obj["status"] = json!({"phase": "Pending", "lastPhaseTransitionTime": now});
            }
            // A phase change through status stamps its time (`PrepareForUpdate`).
            Some(old)
                if sub == Subresource::Status
                    && obj["status"]["phase"] != old["status"]["phase"]
                    && obj["status"].is_object() =>
            {
                obj["status"]["lastPhaseTransitionTime"] = now;
            }
            _ => {}
        }
    }
}

impl Printer for Volumes {
    fn columns(&self) -> Vec<Column> {
        vec![
            Column::computed(
                "Capacity",
                "string",
                "capacity is the description of the persistent volume's resources and capacity. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity",
                |o| {
                    json!(
                        o.pointer("/spec/capacity/storage")
                            .and_then(quantity::text)
                            .unwrap_or_else(|| "0".into())
                    )
                },
            ),
            Column::computed(
                "Access Modes",
                "string",
                "accessModes contains all ways the volume can be mounted. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes",
                |o| json!(access_modes(&o["spec"]["accessModes"])),
            ),
            Column::computed(
                "Reclaim Policy",
                "string",
                "persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim. Valid options are Retain (default for manually created PersistentVolumes), Delete (default for dynamically provisioned PersistentVolumes), and Recycle (deprecated). Recycle must be supported by the volume plugin underlying this PersistentVolume. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#reclaiming",
                |o| json!(str_at(o, "/spec/persistentVolumeReclaimPolicy")),
            ),
            phase_column(
                "phase indicates if a volume is available, bound to a claim, or released by a claim. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#phase",
            ),
            Column::computed(
                "Claim",
                "string",
                "claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim. Expected to be non-nil when bound. claim.VolumeName is the authoritative bind between PV and PVC. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#binding",
                |o| {
                    json!(if o["spec"]["claimRef"].is_object() {
                        format!(
                            "{}/{}",
                            str_at(o, "/spec/claimRef/namespace"),
                            str_at(o, "/spec/claimRef/name")
                        )
                    } else {
                        String::new()
                    })
                },
            ),
            Column::computed(
                "StorageClass",
                "string",
                "storageClassName is the name of StorageClass to which this persistent volume belongs. Empty value means that this volume does not belong to any StorageClass.",
                |o| json!(storage_class(o)),
            ),
            attributes_class_column(
                "Name of VolumeAttributesClass to which this persistent volume belongs. Empty value is not allowed. When this field is not set, it indicates that this volume does not belong to any VolumeAttributesClass.",
            ),
            Column::computed(
                "Reason",
                "string",
                "reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.",
                |o| json!(str_at(o, "/status/reason")),
            ),
            Column::builtin_age(),
            wide(volume_mode_column(
                "volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state. Value of Filesystem is implied when not included in spec.",
            )),
        ]
    }
}

#[cfg(test)]
mod tests {

    /// A PersistentVolumeClaim's selector is checked with its values
    /// (`ValidatePersistentVolumeClaimSpec`).
    #[test]
    fn claim_selectors_are_validated_with_their_values() {
        let claim = |exprs: Value| {
            json!({"spec": {
                "accessModes": ["ReadWriteOnce"],
                "resources": {"requests": {"storage": "1Gi"}},
                "volumeMode": "Filesystem",
                "selector": {"matchExpressions": exprs}
            }})
        };
        let mut errs = ErrorList::new();
        let bad = claim(json!([
            {"key": "a", "operator": "Exists", "values": ["x"]},
            {"key": "b", "operator": "NotIn"},
            {"key": "c", "operator": "NotIn", "values": ["ok", "not ok"]}
        ]));
        Claims.validate(&bad, None, &mut errs);
        assert_eq!(
            errs.strings(),
            [
                "spec.selector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                "spec.selector.matchExpressions[1].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
                "spec.selector.matchExpressions[2].values[1]: Invalid value: \"not ok\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
            ]
        );
    }
    use super::*;

    #[test]
    fn claims_need_modes_and_storage_and_keep_their_spec() {
        let mut pvc = json!({"spec": {}});
        Claims.decode(&mut pvc).unwrap();
        assert_eq!(pvc["spec"]["volumeMode"], "Filesystem");
        assert_eq!(
            errors_of(&Claims, &pvc, None),
            [
                "spec.accessModes: Required value: at least 1 access mode is required",
                "spec.resources[storage]: Required value"
            ]
        );
        let old = json!({"spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}});
        let mut new = old.clone();
        new["spec"]["accessModes"] = json!(["ReadWriteMany"]);
        assert_eq!(
            errors_of(&Claims, &new, Some(&old)),
            [
                "spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims"
            ]
        );
        // The binder's two changes: `volumeName` once, a class where there was none.
        let mut bound = old.clone();
        bound["spec"]["volumeName"] = json!("pv-1");
        bound["spec"]["storageClassName"] = json!("standard");
        let errs = errors_of(&Claims, &bound, Some(&old));
        assert!(errs.is_empty(), "{errs:?}");
        let mut moved = bound.clone();
        moved["spec"]["volumeName"] = json!("pv-2");
        let errs = errors_of(&Claims, &moved, Some(&bound));
        assert_eq!(errs.len(), 1, "{errs:?}");
        let mut reclassed = bound.clone();
        reclassed["spec"]["storageClassName"] = json!("fast");
        let errs = errors_of(&Claims, &reclassed, Some(&bound));
        assert_eq!(errs.len(), 1, "{errs:?}");
        let mut bad = json!({"spec": {"resources": {"requests": {"storage": "1Gb"}}}});
        assert_eq!(Claims.decode(&mut bad).unwrap_err(), quantity::PARSE_ERROR);
    }

    #[test]
    fn volumes_follow_their_rules() {
        let mut pv = json!({"spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/x"}}});
        Volumes.decode(&mut pv).unwrap();
        assert_eq!(pv["spec"]["persistentVolumeReclaimPolicy"], "Retain");
        let errs = errors_of(&Volumes, &pv, None);
        assert!(errs.is_empty(), "{errs:?}");
        Volumes.prepare(&mut pv, None, Subresource::Main);
        assert_eq!(pv["status"]["phase"], "Pending");
        assert_eq!(Volumes.columns()[1].name, "Access Modes");
        assert_eq!(
            access_modes(&json!(["ReadWriteMany", "ReadWriteOnce"])),
            "RWO,RWX"
        );
    }
}
