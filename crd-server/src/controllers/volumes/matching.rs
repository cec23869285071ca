//! Which PersistentVolume a claim gets, as the PV controller's `findBestMatchForClaim`
//! (`pkg/controller/volume/persistentvolume/index.go`): a volume already pre-bound to
//! the claim wins; otherwise the smallest available volume of the claim's class whose
//! access modes, volume mode, size and labels (the claim's selector) all fit.

use serde_json::Value;

use crate::api::kinds::builtin::quantity::Quantity;
use crate::api::object::str_at;
use crate::api::selectors::label;

/// `GetPersistentVolume(Claim)Class`: the beta annotation, else `storageClassName`.
pub fn class_of(obj: &Value) -> &str {
    obj.pointer("/metadata/annotations/volume.beta.kubernetes.io~1storage-class")
        .and_then(Value::as_str)
        .unwrap_or_else(|| str_at(obj, "/spec/storageClassName"))
}

/// The claim's storage request.
pub fn requested(claim: &Value) -> Option<Quantity> {
    Quantity::from_json(claim.pointer("/spec/resources/requests/storage")?)
}

/// The volume's storage capacity.
pub fn capacity(volume: &Value) -> Option<Quantity> {
    Quantity::from_json(volume.pointer("/spec/capacity/storage")?)
}

fn modes(obj: &Value) -> Vec<&str> {
    obj.pointer("/spec/accessModes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

fn volume_mode(obj: &Value) -> &str {
    match str_at(obj, "/spec/volumeMode") {
        "" => "Filesystem",
        mode => mode,
    }
}

/// Whether `volume`'s claim reference names `claim` (by uid when the reference has one).
pub fn refers_to(volume: &Value, claim: &Value) -> bool {
    let Some(r) = volume.pointer("/spec/claimRef").filter(|r| r.is_object()) else {
        return false;
    };
    let same_name =
        r["name"] == claim["metadata"]["name"] && r["namespace"] == claim["metadata"]["namespace"];
    let uid = r["uid"].as_str().unwrap_or("");
    same_name && (uid.is_empty() || uid == str_at(claim, "/metadata/uid"))
}

/// Whether `volume` can hold `claim` at all (its reference aside).
fn fits(volume: &Value, claim: &Value) -> bool {
    let have = modes(volume);
    let (Some(want), Some(size)) = (requested(claim), capacity(volume)) else {
        return false;
    };
    let labels = volume
        .pointer("/metadata/labels")
        .and_then(Value::as_object);
    let selector = claim.pointer("/spec/selector").filter(|s| !s.is_null());
    class_of(volume) == class_of(claim)
        && modes(claim).iter().all(|m| have.contains(m))
        && volume_mode(volume) == volume_mode(claim)
        && size >= want
        && selector.is_none_or(|s| label::matches(s, labels))
}

/// The volume `claim` should bind to among `volumes`, if any.
pub fn best_match<'a>(claim: &Value, volumes: &'a [std::sync::Arc<Value>]) -> Option<&'a Value> {
    let deleting = |v: &Value| v.pointer("/metadata/deletionTimestamp").is_some();
    let mut best: Option<(&Value, Quantity)> = None;
    for v in volumes.iter().map(|v| &**v).filter(|v| !deleting(v)) {
        let bound_elsewhere =
            v.pointer("/spec/claimRef").is_some_and(|r| r.is_object()) && !refers_to(v, claim);
        if bound_elsewhere || !fits(v, claim) {
            continue;
        }
        if refers_to(v, claim) {
            return Some(v);
        }
        let size = capacity(v)?;
        if best.as_ref().is_none_or(|(_, s)| size < *s) {
            best = Some((v, size));
        }
    }
    best.map(|(v, _)| v)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;

    use super::*;

    fn pv(name: &str, size: &str, class: &str) -> Arc<Value> {
        Arc::new(json!({"metadata": {"name": name, "labels": {"tier": name}},
            "spec": {"capacity": {"storage": size}, "accessModes": ["ReadWriteOnce"],
                     "storageClassName": class}}))
    }

    fn pvc(size: &str, class: &str) -> Value {
        json!({"metadata": {"name": "data", "namespace": "ns", "uid": "u1"},
            "spec": {"resources": {"requests": {"storage": size}},
                     "accessModes": ["ReadWriteOnce"], "storageClassName": class}})
    }

    #[test]
    fn the_smallest_volume_that_fits_wins() {
        let volumes = [
            pv("big", "10Gi", ""),
            pv("small", "2Gi", ""),
            pv("tiny", "500Mi", ""),
        ];
        let got = best_match(&pvc("1Gi", ""), &volumes).expect("a match");
        assert_eq!(got["metadata"]["name"], "small");
    }

    #[test]
    fn class_modes_selector_and_references_decide() {
        let volumes = [pv("fast", "5Gi", "fast"), pv("plain", "5Gi", "")];
        assert_eq!(
            best_match(&pvc("1Gi", "fast"), &volumes).unwrap()["metadata"]["name"],
            "fast"
        );
        let mut many = pvc("1Gi", "");
        many["spec"]["accessModes"] = json!(["ReadWriteMany"]);
        assert!(best_match(&many, &volumes).is_none());
        let mut picky = pvc("1Gi", "");
        picky["spec"]["selector"] = json!({"matchLabels": {"tier": "nope"}});
        assert!(best_match(&picky, &volumes).is_none());
        // Claimed by another claim: not available; pre-bound to this one: chosen.
        let mut taken = (*pv("plain", "5Gi", "")).clone();
        taken["spec"]["claimRef"] = json!({"namespace": "ns", "name": "other", "uid": "u2"});
        assert!(best_match(&pvc("1Gi", ""), &[Arc::new(taken.clone())]).is_none());
        taken["spec"]["claimRef"] = json!({"namespace": "ns", "name": "data"});
        let bigger = pv("smaller", "1Gi", "");
        let volumes = [bigger, Arc::new(taken)];
        assert_eq!(
            best_match(&pvc("1Gi", ""), &volumes).unwrap()["metadata"]["name"],
            "plain"
        );
    }
}
