//! Generates crd-runtime's schemas of k8s-openapi's types (`src/k8s/generated/`) from
//! k8s-openapi's own sources, for every Kubernetes version it supports, and checks that
//! the committed files are current.
//!
//! The source of each schema is the type's schemars impl in k8s-openapi (fields, types,
//! formats, `required`, descriptions) plus its `DeepMerge` impl (list and map types,
//! merge keys); `k8s_schema_data/markers.rs` adds what the upstream Go types declare and
//! k8s-openapi does not carry (kubebuilder validations, `+structType=atomic`, defaults,
//! list map keys), as controller-gen emits them.
//!
//! `UPDATE_GOLDEN=1 cargo test -p crd-runtime --test k8s_schema_data` rewrites the files.

#[path = "k8s_schema_data/markers.rs"]
mod markers;
#[path = "k8s_schema_data/source.rs"]
mod source;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};
use source::{Strategy, TypeSource};

/// The Kubernetes versions of the locked k8s-openapi (its `v1_*` features).
const VERSIONS: [&str; 5] = ["1.33", "1.34", "1.35", "1.36", "1.37"];

fn k8s_openapi_src() -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = std::process::Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--locked",
            "--all-features",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: Value = serde_json::from_slice(&output.stdout).expect("cargo metadata JSON");
    let manifest = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "k8s-openapi")
        .expect("k8s-openapi is in the lock file")["manifest_path"]
        .as_str()
        .unwrap()
        .to_string();
    Path::new(&manifest).parent().unwrap().join("src")
}

fn type_files(dir: &Path, module: &str, out: &mut Vec<(String, PathBuf)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if path.is_dir() {
            type_files(&path, &format!("{module}::{name}"), out);
        } else if name.ends_with(".rs") && name != "mod.rs" {
            out.push((module.to_string(), path));
        }
    }
}

/// Every type of one version, by Rust path (`api::core::v1::Pod`).
fn read_version(src: &Path, version: &str) -> BTreeMap<String, TypeSource> {
    let dir = src.join(format!("v1_{}", &version[2..]));
    let mut files = Vec::new();
    for top in [
        "api",
        "apiextensions_apiserver",
        "apimachinery",
        "kube_aggregator",
    ] {
        type_files(&dir.join(top), top, &mut files);
    }
    let mut types = BTreeMap::new();
    for (module, path) in files {
        let text = std::fs::read_to_string(&path).unwrap();
        match source::parse_type_file(&module, &text) {
            Ok(Some(ty)) => {
                types.insert(ty.rust_path.clone(), ty);
            }
            Ok(None) => {}
            Err(e) => panic!("{}: {e}", path.display()),
        }
    }
    types
}

/// The final schema of one type: `$ref`s by definition name, merge strategies and
/// upstream markers applied.
fn definition_schema(ty: &TypeSource, types: &BTreeMap<String, TypeSource>) -> Value {
    let mut schema = ty.schema.clone();
    rewrite_refs(&mut schema, types);
    for (ident, strategy) in &ty.strategies {
        let (serde_name, rust_type) = &ty.fields[ident];
        let property = schema["properties"]
            .get_mut(serde_name)
            .unwrap_or_else(|| panic!("{}: no property {serde_name}", ty.definition));
        let node = property.as_object_mut().unwrap();
        match strategy {
            Strategy::ListAtomic => {
                node.insert("x-kubernetes-list-type".into(), json!("atomic"));
            }
            Strategy::ListSet => {
                node.insert("x-kubernetes-list-type".into(), json!("set"));
            }
            Strategy::MapAtomic => {
                node.insert("x-kubernetes-map-type".into(), json!("atomic"));
            }
            Strategy::ListMap(keys) => {
                let item = item_type(rust_type, types)
                    .unwrap_or_else(|| panic!("{}.{ident}: item type", ty.definition));
                let keys: Vec<Value> = keys.iter().map(|k| json!(item.fields[k].0)).collect();
                // k8s-openapi merges by the strategic-merge key even where upstream
                // declares no `+listType=map`; a key the item may omit cannot be a
                // list map key (the API server rejects it), so such a list stays plain.
                let required = item.schema.get("required").and_then(Value::as_array);
                let present = |k: &Value| required.is_some_and(|r| r.contains(k));
                if !keys.iter().all(present) {
                    continue;
                }
                node.insert("x-kubernetes-list-type".into(), json!("map"));
                node.insert("x-kubernetes-list-map-keys".into(), Value::Array(keys));
            }
        }
    }
    markers::apply(&ty.definition, &mut schema);
    schema
}

fn item_type<'a>(
    rust_type: &str,
    types: &'a BTreeMap<String, TypeSource>,
) -> Option<&'a TypeSource> {
    let path = rust_type.rsplit("crate::").next()?;
    let path: String = path
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
        .collect();
    types.get(&path)
}

fn rewrite_refs(value: &mut Value, types: &BTreeMap<String, TypeSource>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(target)) = map.get_mut("$ref") {
                let definition = &types
                    .get(target.as_str())
                    .unwrap_or_else(|| panic!("unknown subschema {target}"))
                    .definition;
                *target = definition.clone();
            }
            map.values_mut().for_each(|v| rewrite_refs(v, types));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| rewrite_refs(v, types)),
        _ => {}
    }
}

/// `FIELDS` of a struct: serde names with whether each is always present (required or
/// defaulted).
fn fields_of(schema: &Value) -> Option<Vec<(String, bool)>> {
    let properties = schema.get("properties")?.as_object()?;
    let required: BTreeSet<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    Some(
        properties
            .iter()
            .map(|(name, p)| {
                let present = required.contains(name.as_str()) || p.get("default").is_some();
                (name.clone(), present)
            })
            .collect(),
    )
}

/// Literal kinds a `default` of this type may be written as.
fn literal_kinds(schema: &Value) -> Vec<&'static str> {
    if schema.get("x-kubernetes-int-or-string") == Some(&json!(true)) {
        return vec!["Integer", "Str"];
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("object") => vec!["Object"],
        Some("string") => vec!["Str"],
        Some("array") => vec!["Array"],
        Some("integer") => vec!["Integer"],
        Some("boolean") => vec!["Bool"],
        _ if schema.get("x-kubernetes-preserve-unknown-fields").is_some() => {
            vec!["Object", "Array", "Str", "Integer", "Float", "Bool"]
        }
        _ => vec![],
    }
}

/// What one Rust type needs for its impls: definition, versions (indexes into
/// `VERSIONS`), `FIELDS`, literal kinds.
struct TypeImpl {
    definition: String,
    versions: Vec<usize>,
    fields: Option<Vec<(String, bool)>>,
    kinds: Vec<&'static str>,
}

struct Generated {
    data: String,
    impls: String,
}

fn generate() -> Generated {
    let src = k8s_openapi_src();
    let mut pool: Vec<Value> = Vec::new();
    let mut pool_index: BTreeMap<String, usize> = BTreeMap::new();
    let mut per_version = Map::new();
    let mut impls: BTreeMap<String, TypeImpl> = BTreeMap::new();
    // Definition → Rust path (without `k8s_openapi::`), for code generators.
    let mut paths = Map::new();
    for (v, version) in VERSIONS.iter().enumerate() {
        let types = read_version(&src, version);
        let mut index = Map::new();
        for ty in types.values() {
            let schema = definition_schema(ty, &types);
            let text = serde_json::to_string(&schema).unwrap();
            let id = *pool_index.entry(text).or_insert_with(|| {
                pool.push(schema.clone());
                pool.len() - 1
            });
            index.insert(ty.definition.clone(), json!(id));
            let previous = paths.insert(ty.definition.clone(), json!(ty.rust_path));
            assert!(
                previous.is_none_or(|p| p == json!(ty.rust_path)),
                "{}: two Rust paths",
                ty.definition
            );
            let entry = impls
                .entry(ty.rust_path.clone())
                .or_insert_with(|| TypeImpl {
                    definition: ty.definition.clone(),
                    versions: Vec::new(),
                    fields: None,
                    kinds: Vec::new(),
                });
            entry.versions.push(v);
            // The newest version's fields and kinds win (they are compile-time hints).
            entry.fields = fields_of(&schema);
            entry.kinds = literal_kinds(&schema);
        }
        per_version.insert(version.to_string(), Value::Object(index));
    }
    let data = serde_json::to_string(&json!({
        "k8s-openapi": "0.29",
        "paths": paths,
        "schemas": pool,
        "versions": per_version,
    }))
    .unwrap();

    // Group the impls by the versions they exist in, each group under k8s-openapi's
    // version macros.
    let mut groups: BTreeMap<(usize, usize), Vec<String>> = BTreeMap::new();
    for (
        path,
        TypeImpl {
            definition,
            versions,
            fields,
            kinds,
        },
    ) in &impls
    {
        let (first, last) = (versions[0], *versions.last().unwrap());
        assert_eq!(
            versions.len(),
            last - first + 1,
            "{path}: versions not contiguous"
        );
        let fields = match fields {
            Some(fields) => {
                let list: Vec<String> = fields
                    .iter()
                    .map(|(name, present)| format!("({name:?}, {present})"))
                    .collect();
                format!("Some(&[{}])", list.join(", "))
            }
            None => "None".into(),
        };
        groups.entry((first, last)).or_default().push(format!(
            "    k8s_openapi::{path} => {definition:?}, {fields}, [{}];",
            kinds.join(", ")
        ));
    }
    let mut impls_rs = String::from(
        "// @generated by `UPDATE_GOLDEN=1 cargo test -p crd-runtime --test k8s_schema_data`\n\
         // from k8s-openapi's sources; do not edit.\n",
    );
    for ((first, last), lines) in groups {
        let mut open = String::new();
        let mut close = String::new();
        if first > 0 {
            open += &format!("k8s_openapi::k8s_if_ge_1_{}! {{\n", &VERSIONS[first][2..]);
            close += "}\n";
        }
        if last < VERSIONS.len() - 1 {
            open += &format!("k8s_openapi::k8s_if_le_1_{}! {{\n", &VERSIONS[last][2..]);
            close += "}\n";
        }
        impls_rs += &format!(
            "\n{open}k8s_schema_impls! {{\n{}\n}}\n{close}",
            lines.join("\n")
        );
    }
    Generated {
        data,
        impls: impls_rs,
    }
}

#[test]
fn generated_k8s_schemas_are_current() {
    let generated = generate();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/k8s/generated");
    let files = [
        ("schemas.json", generated.data),
        ("impls.rs", generated.impls),
    ];
    let update = std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1");
    let mut stale = Vec::new();
    for (name, content) in files {
        let path = dir.join(name);
        if update {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &content).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(content.as_str()) {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "generated k8s schemas out of date (rerun with UPDATE_GOLDEN=1 and review the diff): {stale:?}"
    );
}
