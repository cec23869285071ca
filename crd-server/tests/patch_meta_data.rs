//! Generates the strategic merge patch metadata of the built-in kinds
//! (`src/api/patch/generated/patch_meta.json`) and checks that the committed file is
//! current.
//!
//! Sources: the upstream Go markers (`+patchStrategy=merge,retainKeys`,
//! `+patchMergeKey=name`) that go-to-protobuf copied into k8s-pb's doc comments, one per
//! field of every message; the OpenAPI definitions of the release crd-runtime carries
//! (Kubernetes 1.37), which give each field its JSON name and its shape (struct, map,
//! list, scalar) with the definition it refers to. The snake_case proto names are
//! matched to JSON names by the definition's properties; a proto field without one
//! fails, unless it is a Go struct embedded inline (`Volume.VolumeSource`), whose
//! fields then count as the outer definition's.
//!
//! The OpenAPI definitions are read unresolved from crd-runtime's schema data
//! (`crd_runtime::k8s_schemas::definition_schema_in` inlines references and gives
//! nested `ObjectMeta` the embedded-metadata schema, so it cannot tell a field's
//! definition).
//!
//! `UPDATE_GOLDEN=1 cargo test -p crd-server --test patch_meta_data` rewrites the file.

#[path = "patch_meta_data/newer.rs"]
mod newer;
#[path = "patch_meta_data/proto.rs"]
mod proto;

#[path = "support/k8s_pb.rs"]
mod k8s_pb;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use proto::ProtoField;
use serde_json::{Map, Value, json};

/// The release whose definitions name the fields.
const VERSION: &str = "1.37";

/// The kinds whose patches the table serves (and Scale, their scale subresource);
/// everything their fields reach is generated.
/// The kinds with patch metadata beyond those both tables cover (newer than k8s-pb).
const MORE: &[&str] = &[
    "io.k8s.api.admissionregistration.v1.MutatingAdmissionPolicy",
    "io.k8s.api.admissionregistration.v1.MutatingAdmissionPolicyBinding",
    "io.k8s.api.storagemigration.v1.StorageVersionMigration",
    "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService",
];

/// The release's definitions, unresolved (`$ref`s by definition name).
fn openapi_definitions() -> BTreeMap<String, Value> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../crd-runtime/src/k8s/generated/schemas.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut data: Value = serde_json::from_str(&text).unwrap();
    let pool = data["schemas"].take();
    data["versions"][VERSION]
        .as_object()
        .unwrap_or_else(|| panic!("no definitions for {VERSION}"))
        .iter()
        .map(|(name, id)| (name.clone(), pool[id.as_u64().unwrap() as usize].clone()))
        .collect()
}

/// A field's shape as the patch sees it.
enum Shape {
    Scalar,
    Map,
    /// A struct (its definition; one without properties is opaque, as RawExtension).
    Struct(String),
    /// A list, with the definition of its items when they are structs.
    List(Option<String>),
}

fn object_definition(schema: &Value, defs: &BTreeMap<String, Value>) -> Option<String> {
    let target = schema.get("$ref")?.as_str()?;
    let def = defs
        .get(target)
        .unwrap_or_else(|| panic!("unknown definition {target}"));
    let is_struct = def.get("properties").is_some()
        || (def.get("type") == Some(&json!("object")) && def.get("additionalProperties").is_none());
    is_struct.then(|| target.to_string())
}

fn shape(schema: &Value, defs: &BTreeMap<String, Value>) -> Shape {
    if let Some(def) = object_definition(schema, defs) {
        return Shape::Struct(def);
    }
    if let Some(target) = schema.get("$ref").and_then(Value::as_str) {
        return shape(&defs[target], defs);
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("array") => Shape::List(
            schema
                .get("items")
                .and_then(|items| object_definition(items, defs)),
        ),
        Some("object") if schema.get("additionalProperties").is_some() => Shape::Map,
        _ => Shape::Scalar,
    }
}

fn normalized(name: &str) -> String {
    name.replace('_', "").to_ascii_lowercase()
}

/// The k8s-pb message of a definition; prost spells some names its own way
/// (`HPAScalingRules` as `HpaScalingRules`).
fn find_message<'a>(
    messages: &'a BTreeMap<String, Vec<ProtoField>>,
    definition: &str,
) -> Option<&'a Vec<ProtoField>> {
    messages.get(definition).or_else(|| {
        let mut same = messages
            .iter()
            .filter(|(name, _)| name.eq_ignore_ascii_case(definition));
        same.next()
            .filter(|_| same.next().is_none())
            .map(|(_, f)| f)
    })
}

/// The proto fields of `message` with their JSON names in `properties`, embedded
/// structs' fields included.
fn json_fields(
    message: &str,
    properties: &Map<String, Value>,
    messages: &BTreeMap<String, Vec<ProtoField>>,
) -> Result<Vec<(String, ProtoField)>, String> {
    let by_normal: BTreeMap<String, &String> =
        properties.keys().map(|k| (normalized(k), k)).collect();
    assert_eq!(
        by_normal.len(),
        properties.len(),
        "{message}: ambiguous names"
    );
    let fields =
        find_message(messages, message).ok_or_else(|| format!("no proto message {message}"))?;
    let mut out = Vec::new();
    for f in fields {
        if let Some(json) = by_normal.get(&normalized(&f.name)) {
            out.push(((*json).clone(), f.clone()));
            continue;
        }
        let inline = f
            .message
            .as_ref()
            .and_then(|m| json_fields(m, properties, messages).ok());
        match inline {
            Some(embedded) => out.extend(embedded),
            None if newer::DROPPED.contains(&(message, f.name.as_str())) => {}
            None => return Err(format!("{message}.{}: no JSON property", f.name)),
        }
    }
    Ok(out)
}

/// One definition's entries: JSON name → `[shape, child, strategy, merge key]`, trailing
/// empty parts dropped.
fn definition_entry(
    name: &str,
    defs: &BTreeMap<String, Value>,
    messages: &BTreeMap<String, Vec<ProtoField>>,
    queue: &mut Vec<String>,
) -> Map<String, Value> {
    let empty = Map::new();
    let properties = defs[name]
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    // JSON name → (patchStrategy, patchMergeKey).
    let mut markers: BTreeMap<String, (Option<String>, Option<String>)> = BTreeMap::new();
    let newer_type = newer::DEFINITIONS.contains(&name);
    if !properties.is_empty() && !newer_type {
        let fields = json_fields(name, properties, messages).unwrap_or_else(|e| panic!("{e}"));
        for (json_name, f) in fields {
            markers.insert(json_name, (f.patch_strategy, f.patch_merge_key));
        }
    }
    assert_eq!(
        newer_type,
        find_message(messages, name).is_none() && !properties.is_empty(),
        "{name}: listed in newer::DEFINITIONS exactly when k8s-pb lacks it"
    );
    for (def, field, strategy, key) in newer::MARKERS.iter().filter(|m| m.0 == name) {
        assert!(
            properties.contains_key(*field),
            "{def}.{field}: no such field"
        );
        let previous = markers.insert(
            field.to_string(),
            (Some(strategy.to_string()), Some(key.to_string())),
        );
        assert!(previous.is_none(), "{def}.{field}: k8s-pb has it now");
    }
    let mut entry = Map::new();
    for (field, schema) in properties {
        let (kind, child) = match shape(schema, defs) {
            Shape::Scalar => ("scalar", None),
            Shape::Map => ("map", None),
            Shape::Struct(def) => ("struct", Some(def)),
            Shape::List(def) => ("list", def),
        };
        if let Some(def) = &child {
            queue.push(def.clone());
        }
        let (strategy, key) = markers.get(field).cloned().unwrap_or_default();
        if key.is_some() && kind != "list" {
            panic!("{name}.{field}: a merge key on a {kind}");
        }
        let mut parts = vec![kind.to_string(), child.unwrap_or_default()];
        parts.push(strategy.unwrap_or_default());
        parts.push(key.unwrap_or_default());
        while parts.len() > 1 && parts.last().is_some_and(String::is_empty) {
            parts.pop();
        }
        entry.insert(field.clone(), json!(parts));
    }
    entry
}

fn generate() -> String {
    let messages = proto::read_messages(&k8s_pb::source_dir());
    let defs = openapi_definitions();
    let mut queue: Vec<String> = k8s_pb::SERVED_KINDS
        .iter()
        .chain(MORE)
        .map(|r| r.to_string())
        .collect();
    let mut seen = BTreeSet::new();
    let mut table = BTreeMap::new();
    while let Some(name) = queue.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        assert!(
            defs.contains_key(&name),
            "no definition {name} in {VERSION}"
        );
        let entry = definition_entry(&name, &defs, &messages, &mut queue);
        table.insert(name, entry);
    }
    // One definition a line, for readable diffs.
    let mut out = String::from("{\n");
    let lines: Vec<String> = table
        .iter()
        .map(|(name, entry)| format!("{}: {}", json!(name), Value::Object(entry.clone())))
        .collect();
    out += &lines.join(",\n");
    out += "\n}\n";
    out
}

#[test]
fn patch_meta_table_is_current() {
    let generated = generate();
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("src/api/patch/generated/patch_meta.json");
    if std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{} is out of date (rerun with UPDATE_GOLDEN=1 and review the diff)",
        path.display()
    );
}
