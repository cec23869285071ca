//! A StatefulSet Pod's identity, as upstream's `stateful_set_utils.go`: its name
//! `SET-ORDINAL`, its labels (`statefulset.kubernetes.io/pod-name`,
//! `apps.kubernetes.io/pod-index`, `controller-revision-hash`), hostname and subdomain,
//! and its claims `TEMPLATE-SET-ORDINAL` made from the `volumeClaimTemplates`.

use serde_json::{Value, json};

use crate::api::object::str_at;
use crate::controllers::workload::{owners, pods};

/// The label naming a StatefulSet Pod.
pub const POD_NAME: &str = "statefulset.kubernetes.io/pod-name";
/// The label holding a StatefulSet Pod's ordinal.
pub const POD_INDEX: &str = "apps.kubernetes.io/pod-index";
/// The label holding the revision a Pod was made from.
pub const REVISION: &str = "controller-revision-hash";

/// `getParentNameAndOrdinal`: the ordinal of a Pod named `SET-N` of the set `set`.
pub fn ordinal(set_name: &str, pod: &Value) -> Option<i64> {
    let name = str_at(pod, "/metadata/name");
    let (parent, n) = name.rsplit_once('-')?;
    if parent != set_name || n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    n.parse().ok()
}

/// The first ordinal (`spec.ordinals.start`, 0 by default).
pub fn start(set: &Value) -> i64 {
    set.pointer("/spec/ordinals/start")
        .and_then(Value::as_i64)
        .unwrap_or(0)
        .max(0)
}

/// `spec.replicas` (1 by default).
pub fn replicas(set: &Value) -> i64 {
    set.pointer("/spec/replicas")
        .and_then(Value::as_i64)
        .unwrap_or(1)
        .max(0)
}

/// The revision a Pod was made from (its `controller-revision-hash` label).
pub fn revision_of(pod: &Value) -> &str {
    pod.pointer("/metadata/labels")
        .and_then(|l| l.get(REVISION))
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// The claim of `template` for the Pod of `ordinal`.
pub fn claim_name(template: &Value, set_name: &str, ordinal: i64) -> String {
    format!(
        "{}-{set_name}-{ordinal}",
        str_at(template, "/metadata/name")
    )
}

/// The claims the Pod of `ordinal` uses (`getPersistentVolumeClaims`): each template
/// with its name, the set's namespace and the selector's `matchLabels`; with
/// `whenDeleted: Delete`, owned by the set so that the garbage collector deletes them
/// with it.
pub fn claims(set: &Value, ordinal: i64) -> Vec<Value> {
    let set_name = str_at(set, "/metadata/name");
    let labels = set
        .pointer("/spec/selector/matchLabels")
        .cloned()
        .unwrap_or_else(|| json!({}));
    let owned = str_at(
        set,
        "/spec/persistentVolumeClaimRetentionPolicy/whenDeleted",
    ) == "Delete";
    set.pointer("/spec/volumeClaimTemplates")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|t| {
            let mut claim = json!({
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "metadata": {
                    "name": claim_name(t, set_name, ordinal),
                    "namespace": str_at(set, "/metadata/namespace"),
                    "labels": labels,
                },
                "spec": t.get("spec").cloned().unwrap_or_else(|| json!({})),
            });
            if let Some(a) = t.pointer("/metadata/annotations") {
                claim["metadata"]["annotations"] = a.clone();
            }
            if owned {
                let mut r = owners::new_controller_ref(set);
                r["controller"] = json!(false);
                claim["metadata"]["ownerReferences"] = json!([r]);
            }
            claim
        })
        .collect()
}

/// `newVersionedStatefulSetPod`: the Pod of `ordinal` from `set`'s template (the set
/// with the revision applied), labelled with `revision`.
pub fn new_pod(owner: &Value, set: &Value, revision: &str, ordinal: i64) -> Value {
    let set_name = str_at(set, "/metadata/name");
    let name = format!("{set_name}-{ordinal}");
    let template = set.pointer("/spec/template").cloned().unwrap_or_default();
    let mut pod = pods::from_template(&template, owners::new_controller_ref(owner), set_name);
    let meta = pod["metadata"].as_object_mut().expect("a pod has metadata");
    meta.remove("generateName");
    meta.insert("name".into(), json!(name));
    let labels = meta.entry("labels").or_insert_with(|| json!({}));
    if !labels.is_object() {
        *labels = json!({});
    }
    labels[POD_NAME] = json!(name);
    labels[POD_INDEX] = json!(ordinal.to_string());
    labels[REVISION] = json!(revision);
    pod["spec"]["hostname"] = json!(name);
    let service = str_at(set, "/spec/serviceName");
    if !service.is_empty() {
        pod["spec"]["subdomain"] = json!(service);
    }
    // `updateStorage`: each claim template becomes a volume of the same name.
    let mut volumes: Vec<Value> = pod["spec"]
        .get("volumes")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for t in set
        .pointer("/spec/volumeClaimTemplates")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let vname = str_at(t, "/metadata/name");
        volumes.retain(|v| v["name"] != vname);
        volumes.push(json!({"name": vname, "persistentVolumeClaim": {
            "claimName": claim_name(t, set_name, ordinal)}}));
    }
    if !volumes.is_empty() {
        pod["spec"]["volumes"] = Value::Array(volumes);
    }
    pod
}

/// `isRunningAndReady`.
pub fn running_and_ready(pod: &Value) -> bool {
    pods::phase(pod) == "Running" && pods::is_ready(pod)
}

/// `isCreated`: the Pod has a phase.
pub fn created(pod: &Value) -> bool {
    !pods::phase(pod).is_empty()
}

/// `isFailed` / `isSucceeded`: a Pod to replace.
pub fn finished(pod: &Value) -> bool {
    pods::is_terminal(pod)
}
