use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::{Value, json};

use super::*;
use crate::check::{CheckOptions, validate_crd};
use crate::model::CustomResourceDefinition;

fn all_definitions() -> Vec<String> {
    crate::k8s_schemas::definitions(VERSION)
        .into_iter()
        .map(String::from)
        .collect()
}

/// A CRD whose `spec` has `schema`, to run the CRD checks on it.
fn crd_with_spec(schema: &JSONSchemaProps) -> CustomResourceDefinition {
    let mut crd = crate::model::crontab_crd(json!([{
        "name": "v1", "served": true, "storage": true,
        "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": schema}}}
    }]));
    crd.spec.names.list_kind = Some("CronTabList".into());
    crd
}

#[test]
fn every_definition_is_a_valid_structural_schema() {
    let mut failures = Vec::new();
    for name in all_definitions() {
        let schema = definition_schema(&name).unwrap();
        let errors = validate_crd(&crd_with_spec(&schema), &CheckOptions::v1_create());
        if !errors.is_empty() {
            failures.push(format!("{name}: {errors}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} definitions are not valid in a CRD:\n{}",
        failures.len(),
        all_definitions().len(),
        failures.join("\n")
    );
}

#[test]
fn condition_says_what_controller_gen_says() {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
    let schema = serde_json::to_value(Condition::crd_schema()).unwrap();
    assert_eq!(
        schema["required"],
        json!(["lastTransitionTime", "message", "reason", "status", "type"])
    );
    let p = &schema["properties"];
    assert_eq!(p["status"]["enum"], json!(["True", "False", "Unknown"]));
    assert_eq!(p["lastTransitionTime"]["format"], json!("date-time"));
    assert_eq!(p["reason"]["minLength"], json!(1));
    assert_eq!(p["type"]["maxLength"], json!(316));
    assert_eq!(Condition::FIELDS.unwrap().len(), 6);
}

#[test]
fn int_or_string_and_quantity() {
    use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
    use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
    let ios = serde_json::to_value(IntOrString::crd_schema()).unwrap();
    assert_eq!(ios["x-kubernetes-int-or-string"], json!(true));
    let quantity = serde_json::to_value(Quantity::crd_schema()).unwrap();
    assert_eq!(quantity["x-kubernetes-int-or-string"], json!(true));
    assert!(
        quantity["pattern"]
            .as_str()
            .unwrap()
            .starts_with("^(\\+|-)?")
    );
}

#[test]
fn nested_object_meta_keeps_template_fields() {
    use k8s_openapi::api::core::v1::PodTemplateSpec;
    let schema = serde_json::to_value(PodTemplateSpec::crd_schema()).unwrap();
    let meta = &schema["properties"]["metadata"];
    let fields: Vec<&String> = meta["properties"].as_object().unwrap().keys().collect();
    assert_eq!(
        fields,
        ["annotations", "finalizers", "labels", "name", "namespace"]
    );
    // The field's own description wins over ObjectMeta's.
    assert!(meta["description"].as_str().unwrap().contains("metadata"));
}

/// Every object node of every corpus CRD, by its property names.
fn corpus_nodes() -> BTreeMap<String, Vec<(String, Value)>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/crds");
    let mut nodes: BTreeMap<String, Vec<(String, Value)>> = BTreeMap::new();
    let mut files = Vec::new();
    for project in std::fs::read_dir(&root).expect("../shared/corpus/crds beside the checkout") {
        let project = project.unwrap().path();
        if project.is_dir() {
            for file in std::fs::read_dir(&project).unwrap() {
                files.push(file.unwrap().path());
            }
        }
    }
    files.sort();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let Ok(docs) = crate::load::parse_documents(&file.display().to_string(), &text) else {
            continue;
        };
        for doc in docs {
            for version in doc["spec"]["versions"].as_array().into_iter().flatten() {
                let schema = &version["schema"]["openAPIV3Schema"];
                collect(schema, &file.display().to_string(), &mut nodes);
            }
        }
    }
    nodes
}

/// Whether most fields of `copy` carry our descriptions (whitespace normalized).
fn same_descriptions(ours: &Value, copy: &Value) -> bool {
    let words = |v: &Value| -> Option<String> {
        Some(
            v.get("description")?
                .as_str()?
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
        )
    };
    let (Some(a), Some(b)) = (
        ours["properties"].as_object(),
        copy["properties"].as_object(),
    ) else {
        return false;
    };
    let (mut described, mut same) = (0, 0);
    for (name, field) in a {
        if let (Some(x), Some(y)) = (words(field), b.get(name).and_then(words)) {
            described += 1;
            same += usize::from(x == y);
        }
    }
    described > 0 && same * 2 >= described
}

fn property_key(node: &Value) -> Option<String> {
    let properties = node.get("properties")?.as_object()?;
    Some(properties.keys().cloned().collect::<Vec<_>>().join(","))
}

fn collect(node: &Value, file: &str, out: &mut BTreeMap<String, Vec<(String, Value)>>) {
    if let Some(key) = property_key(node) {
        out.entry(key)
            .or_default()
            .push((file.to_string(), node.clone()));
    }
    match node {
        Value::Object(map) => map.values().for_each(|v| collect(v, file, out)),
        Value::Array(items) => items.iter().for_each(|v| collect(v, file, out)),
        _ => {}
    }
}

fn strip_descriptions(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if map.get("description").is_some_and(Value::is_string) {
                map.remove("description");
            }
            map.values_mut().for_each(strip_descriptions);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_descriptions),
        _ => {}
    }
}

/// Differences between our node of a type and a corpus copy, as `path: ours != theirs`.
/// Only the type's own keywords and its scalar fields are compared: a field holding
/// another struct is compared as that type's own definition, so drift in a nested type
/// (a field added upstream since the copy was generated) is attributed to it.
fn differences(path: &str, ours: &Value, theirs: &Value, out: &mut Vec<String>) {
    let (Value::Object(a), Value::Object(b)) = (ours, theirs) else {
        if ours != theirs {
            out.push(format!("{path}: {ours} != {theirs}"));
        }
        return;
    };
    let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    for key in keys {
        let (x, y) = (a.get(key), b.get(key));
        match (key.as_str(), x, y) {
            ("required", Some(x), Some(y)) => {
                let set = |v: &Value| -> BTreeSet<String> {
                    v.as_array()
                        .into_iter()
                        .flatten()
                        .map(|s| s.to_string())
                        .collect()
                };
                if set(x) != set(y) {
                    out.push(format!("{path}.required: {x} != {y}"));
                }
            }
            ("properties", Some(Value::Object(x)), Some(Value::Object(y))) => {
                for (name, field) in x {
                    if let Some(copy) = y.get(name) {
                        field_differences(&format!("{path}.{name}"), field, copy, out);
                    }
                }
            }
            (_, Some(x), Some(y)) => differences(&format!("{path}.{key}"), x, y, out),
            (_, Some(x), None) => out.push(format!("{path}.{key}: {x} != (absent)")),
            (_, None, Some(y)) => out.push(format!("{path}.{key}: (absent) != {y}")),
            (_, None, None) => {}
        }
    }
}

/// A field: its own keywords; a struct-valued field (or list/map of structs) only
/// down to where the nested type starts.
fn field_differences(path: &str, ours: &Value, theirs: &Value, out: &mut Vec<String>) {
    let nested = |v: &Value| v.get("properties").is_some();
    if nested(ours) || nested(theirs) {
        return;
    }
    let mut ours = ours.clone();
    let mut theirs = theirs.clone();
    for key in ["items", "additionalProperties"] {
        let (x, y) = (ours.get(key).cloned(), theirs.get(key).cloned());
        if let (Some(x), Some(y)) = (x, y)
            && (nested(&x) || nested(&y))
        {
            ours.as_object_mut().unwrap().remove(key);
            theirs.as_object_mut().unwrap().remove(key);
        }
    }
    differences(path, &ours, &theirs, out);
}

/// Types whose every corpus copy differs, and why that is right.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[
    // k8s-openapi makes `type`/`status` of the apps/v1 conditions `Option`s: the schema
    // must accept what the Rust type serializes, so they are not required here.
    (
        "io.k8s.api.apps.v1.DaemonSetCondition",
        "type/status optional in k8s-openapi",
    ),
    (
        "io.k8s.api.apps.v1.ReplicaSetCondition",
        "type/status optional in k8s-openapi",
    ),
    (
        "io.k8s.api.apps.v1.StatefulSetCondition",
        "type/status optional in k8s-openapi",
    ),
    // The only copies are istio's protobuf rendering (observedGeneration as int-or-string).
    (
        "io.k8s.api.core.v1.PodCondition",
        "istio's protobuf copy is not controller-gen's",
    ),
    // The copies predate upstream's `+listType=atomic` on `verbs`.
    (
        "io.k8s.apimachinery.pkg.apis.meta.v1.APIResource",
        "copies older than the marker",
    ),
];

/// The acceptance test: each k8s type's schema against controller-gen's copies
/// of it in the corpus. A type matches when one copy agrees in everything but
/// descriptions and drifted subtrees; the test lists every type no copy agrees with.
#[test]
fn schemas_match_controller_gen_copies_in_the_corpus() {
    let corpus = corpus_nodes();
    let (mut compared, mut matched) = (0, 0);
    let mut report = Vec::new();
    for name in all_definitions() {
        let described = serde_json::to_value(definition_schema(&name).unwrap()).unwrap();
        let mut ours = described.clone();
        strip_descriptions(&mut ours);
        let Some(key) = property_key(&ours) else {
            continue;
        };
        // Kinds (apiVersion, kind, metadata, ...) look like every CRD's root.
        if key.split(',').count() < 3 || key.contains("apiVersion,kind,metadata") {
            continue;
        }
        // Copies, not look-alikes: controller-gen copies the Go field comments, so a
        // copy's field descriptions are (whitespace aside) k8s-openapi's.
        let copies: Vec<&(String, Value)> = corpus
            .get(&key)
            .into_iter()
            .flatten()
            .filter(|(_, copy)| same_descriptions(&described, copy))
            .collect();
        if copies.is_empty() {
            continue;
        }
        compared += 1;
        let mut best: Option<(Vec<String>, &str)> = None;
        for (file, copy) in &copies {
            let mut copy = copy.clone();
            strip_descriptions(&mut copy);
            let mut diffs = Vec::new();
            differences("", &ours, &copy, &mut diffs);
            if best.as_ref().is_none_or(|(b, _)| diffs.len() < b.len()) {
                best = Some((diffs, file));
            }
        }
        let (diffs, file) = best.unwrap();
        if diffs.is_empty() {
            matched += 1;
        } else {
            report.push(format!(
                "{name} ({} copies; closest {file}):\n  {}",
                copies.len(),
                diffs.join("\n  ")
            ));
        }
    }
    eprintln!("k8s types compared with corpus copies: {compared}, matching: {matched}");
    eprintln!("{}", report.join("\n"));
    assert!(compared >= 80, "only {compared} types found in the corpus");
    let unexplained: Vec<&String> = report
        .iter()
        .filter(|r| {
            !KNOWN_DIFFERENCES
                .iter()
                .any(|(name, _)| r.starts_with(&format!("{name} (")))
        })
        .collect();
    assert!(
        unexplained.is_empty(),
        "{} types differ from every corpus copy:\n{}",
        unexplained.len(),
        unexplained
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}
