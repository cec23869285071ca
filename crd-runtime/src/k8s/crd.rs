//! `From`/`Into` between crd-runtime's CRD model and k8s-openapi's
//! `apiextensions::v1::CustomResourceDefinition`, so a derived CRD can be created with
//! `kube::Api<CustomResourceDefinition>`:
//!
//! ```
//! use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1 as k8s;
//! let ours = crd_runtime::load_crds("crd.yaml", "
//! apiVersion: apiextensions.k8s.io/v1
//! kind: CustomResourceDefinition
//! metadata: {name: crontabs.stable.example.com}
//! spec:
//!   group: stable.example.com
//!   names: {plural: crontabs, singular: crontab, kind: CronTab}
//!   scope: Namespaced
//!   versions:
//!   - name: v1
//!     served: true
//!     storage: true
//!     schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
//! ").unwrap().crds.remove(0).crd;
//! let theirs: k8s::CustomResourceDefinition = ours.clone().into();
//! assert_eq!(theirs.spec.names.kind, "CronTab");
//! let back = crd_runtime::CustomResourceDefinition::from(theirs);
//! assert_eq!(back.spec.versions[0].name, "v1");
//! ```
//!
//! Both models describe the same wire format, so the conversion goes through it: every
//! field the API server knows survives both ways (the corpus test checks all 306 CRDs).
//! Numbers in schemas are `f64` in k8s-openapi, so `maximum: 10` comes back as `10.0`,
//! the same JSON number, and a `null` metadata field (`creationTimestamp: null`) is
//! absent, as on the API server. What only our model can hold — metadata keys or condition
//! fields k8s-openapi cannot type (an unparsable timestamp) — is left out, key by key,
//! rather than failing the conversion.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1 as k8s;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::model::CustomResourceDefinition;

impl From<CustomResourceDefinition> for k8s::CustomResourceDefinition {
    fn from(crd: CustomResourceDefinition) -> Self {
        let mut value = serde_json::to_value(&crd).unwrap_or_default();
        let metadata = value
            .get_mut("metadata")
            .map(Value::take)
            .unwrap_or_default();
        let conditions = value
            .pointer_mut("/status/conditions")
            .map(Value::take)
            .unwrap_or_default();
        if let Some(status) = value.get_mut("status").and_then(Value::as_object_mut) {
            status.remove("conditions");
        }
        let mut out: k8s::CustomResourceDefinition = serde_json::from_value(value)
            .expect("crd-runtime's CRD model serializes to the fields k8s-openapi types");
        out.metadata = lenient(metadata);
        if let (Some(status), Value::Array(conditions)) = (out.status.as_mut(), conditions) {
            status.conditions = Some(conditions.into_iter().map(lenient).collect());
        }
        out
    }
}

impl From<k8s::CustomResourceDefinition> for CustomResourceDefinition {
    fn from(crd: k8s::CustomResourceDefinition) -> Self {
        let value = serde_json::to_value(&crd).unwrap_or_default();
        serde_json::from_value(value)
            .expect("crd-runtime's CRD model reads every CRD k8s-openapi writes")
    }
}

/// `T` from `value`, leaving out the keys `T` cannot hold (an object is rebuilt key by
/// key when the whole does not fit).
fn lenient<T: DeserializeOwned + Default>(value: Value) -> T {
    if let Ok(whole) = serde_json::from_value(value.clone()) {
        return whole;
    }
    let Value::Object(map) = value else {
        return T::default();
    };
    let mut kept = Map::new();
    for (key, field) in map {
        kept.insert(key.clone(), field);
        if serde_json::from_value::<T>(Value::Object(kept.clone())).is_err() {
            kept.remove(&key);
        }
    }
    serde_json::from_value(Value::Object(kept)).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// JSON with every number as `f64`: k8s-openapi's schema numbers are floats.
    fn numbers_as_floats(value: &mut Value) {
        match value {
            Value::Number(n) => {
                if let Some(f) = n.as_f64().and_then(serde_json::Number::from_f64) {
                    *n = f;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(numbers_as_floats),
            Value::Object(map) => map.values_mut().for_each(numbers_as_floats),
            _ => {}
        }
    }

    fn first_difference(path: &str, a: &Value, b: &Value) -> Option<String> {
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
                keys.into_iter().find_map(|k| match (x.get(k), y.get(k)) {
                    (Some(p), Some(q)) => first_difference(&format!("{path}/{k}"), p, q),
                    (p, q) => Some(format!("{path}/{k}: {p:?} != {q:?}")),
                })
            }
            (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
                .iter()
                .zip(y)
                .enumerate()
                .find_map(|(i, (p, q))| first_difference(&format!("{path}/{i}"), p, q)),
            _ => (a != b).then(|| format!("{path}: {a} != {b}")),
        }
    }

    #[test]
    fn the_whole_corpus_round_trips_through_k8s_openapi() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/crds");
        let mut count = 0;
        for project in std::fs::read_dir(&root).expect("../shared/corpus/crds") {
            let project = project.unwrap().path();
            if !project.is_dir() {
                continue;
            }
            for file in std::fs::read_dir(&project).unwrap() {
                let file = file.unwrap().path();
                let text = std::fs::read_to_string(&file).unwrap();
                let name = file.display().to_string();
                for document in crate::load_crds(&name, &text).unwrap().crds {
                    let crd = document.crd;
                    let theirs = k8s::CustomResourceDefinition::from(crd.clone());
                    let back = CustomResourceDefinition::from(theirs);
                    let mut expected = serde_json::to_value(&crd).unwrap();
                    let mut actual = serde_json::to_value(&back).unwrap();
                    // `creationTimestamp: null` (old controller-gen output) is absent to
                    // k8s-openapi, as to the API server.
                    if let Some(meta) = expected["metadata"].as_object_mut() {
                        meta.retain(|_, v| !v.is_null());
                    }
                    numbers_as_floats(&mut expected);
                    numbers_as_floats(&mut actual);
                    if let Some(at) = first_difference("", &expected, &actual) {
                        panic!("{name}: changed by the round trip at {at}");
                    }
                    count += 1;
                }
            }
        }
        assert!(count >= 306, "only {count} CRDs in the corpus");
    }

    #[test]
    fn status_and_metadata_survive() {
        let crd: CustomResourceDefinition = serde_json::from_value(serde_json::json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "crontabs.stable.example.com", "uid": "1234",
                         "creationTimestamp": "2026-01-02T03:04:05Z", "labels": {"a": "b"}},
            "spec": {"group": "stable.example.com", "scope": "Namespaced",
                     "names": {"plural": "crontabs", "kind": "CronTab"},
                     "versions": [{"name": "v1", "served": true, "storage": true}]},
            "status": {"storedVersions": ["v1"],
                       "acceptedNames": {"plural": "crontabs", "kind": "CronTab"},
                       "conditions": [{"type": "Established", "status": "True",
                                       "lastTransitionTime": "2026-01-02T03:04:05Z",
                                       "reason": "InitialNamesAccepted", "message": "ok"},
                                      {"type": "Bad", "status": "False",
                                       "lastTransitionTime": "yesterday"}]}
        }))
        .unwrap();
        let theirs = k8s::CustomResourceDefinition::from(crd);
        assert_eq!(theirs.metadata.uid.as_deref(), Some("1234"));
        assert!(theirs.metadata.creation_timestamp.is_some());
        let status = theirs.status.as_ref().unwrap();
        let conditions = status.conditions.as_ref().unwrap();
        assert_eq!(
            conditions[0].reason.as_deref(),
            Some("InitialNamesAccepted")
        );
        // The unparsable timestamp is left out, the rest of the condition kept.
        assert_eq!(conditions[1].type_, "Bad");
        assert!(conditions[1].last_transition_time.is_none());
        let back = CustomResourceDefinition::from(theirs);
        assert_eq!(back.status.unwrap().stored_versions.unwrap(), ["v1"]);
    }
}
