//! Generates crd-server's protobuf descriptor tables (`src/api/protobuf/generated.rs`)
//! from k8s-pb's prost sources (field numbers and wire types, as upstream's
//! `generated.proto` declares them), every message reachable from the built-in kinds
//! kubectl's typed commands send, and checks that the committed file is current.
//!
//! JSON names come from crd-runtime's k8s schemas of its releases (the proto
//! names are snake_case in k8s-pb: `pod_i_ps` is `podIPs`); a field that matches no
//! property fails generation. `protobuf_tables/zero_values.txt` says which scalars
//! keep a zero value in JSON (Go pointers and fields without `omitempty`).
//!
//! `UPDATE_GOLDEN=1 cargo test -p crd-server --test protobuf_tables` rewrites the file.

#[path = "protobuf_tables/source.rs"]
mod source;

#[path = "support/k8s_pb.rs"]
mod k8s_pb;

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::Path;

use crd_runtime::k8s_schemas;
use serde_json::Value;
use source::{Kind, Label, ProtoMessage};

/// The kinds whose bodies are decoded, by OpenAPI definition.
/// The kinds whose bodies are decoded beyond the stored kinds: subresource and request
/// bodies, CRDs, the self reviews.
const MORE: &[&str] = &[
    "io.k8s.api.policy.v1.Eviction",
    "io.k8s.api.authorization.v1.SelfSubjectAccessReview",
    "io.k8s.api.authorization.v1.SelfSubjectRulesReview",
    "io.k8s.api.authentication.v1.SelfSubjectReview",
    "io.k8s.api.authentication.v1.TokenRequest",
    "io.k8s.api.authorization.v1.SubjectAccessReview",
    "io.k8s.api.authorization.v1.LocalSubjectAccessReview",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition",
    "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
];

const META: &str = "apimachinery::pkg::apis::meta::v1::";
const APIEXTENSIONS: &str = "apiextensions_apiserver::pkg::apis::apiextensions::v1::";

/// (number, ident, protobuf type or message name) of a special message's fields.
type SpecialFields = &'static [(u32, &'static str, &'static str)];

/// Messages read by hand-written code (their JSON is not an object of their fields),
/// with the fields that code assumes: (number, ident, protobuf type).
fn special(path: &str) -> Option<(&'static str, SpecialFields)> {
    const TIME: SpecialFields = &[(1, "seconds", "int64"), (2, "nanos", "int32")];
    const RAW: SpecialFields = &[(1, "raw", "bytes")];
    let name = path.rsplit("::").next().unwrap();
    let module = &path[..path.len() - name.len()];
    Some(match (module, name) {
        (META, "Time") => ("Time", TIME),
        (META, "MicroTime") => ("MicroTime", TIME),
        (META, "FieldsV1") => ("Raw", RAW),
        ("apimachinery::pkg::runtime::", "RawExtension") => ("Raw", RAW),
        (APIEXTENSIONS, "Json") => ("Raw", RAW),
        ("api::authentication::v1::" | "api::authorization::v1::", "ExtraValue") => {
            ("StringList", &[(1, "items", "string")])
        }
        ("apimachinery::pkg::api::resource::", "Quantity") => {
            ("Quantity", &[(1, "string", "string")])
        }
        ("apimachinery::pkg::util::intstr::", "IntOrString") => (
            "IntOrString",
            &[
                (1, "type", "int64"),
                (2, "int_val", "int32"),
                (3, "str_val", "string"),
            ],
        ),
        (APIEXTENSIONS, "JsonSchemaPropsOrArray") => (
            "OrArray",
            &[
                (1, "schema", "JsonSchemaProps"),
                (2, "j_son_schemas", "JsonSchemaProps"),
            ],
        ),
        (APIEXTENSIONS, "JsonSchemaPropsOrBool") => (
            "OrBool",
            &[(1, "allows", "bool"), (2, "schema", "JsonSchemaProps")],
        ),
        (APIEXTENSIONS, "JsonSchemaPropsOrStringArray") => (
            "OrStrings",
            &[(1, "schema", "JsonSchemaProps"), (2, "property", "string")],
        ),
        _ => return None,
    })
}

/// `io.k8s.api.apps.v1.Deployment` → k8s-pb's module `api::apps::v1::` and `Deployment`.
fn pb_module(definition: &str) -> (String, &str) {
    let (package, name) = definition.rsplit_once('.').unwrap();
    let module = package
        .strip_prefix("io.k8s.")
        .unwrap_or_else(|| panic!("{definition}: not io.k8s"))
        .replace('-', "_")
        .replace('.', "::");
    (format!("{module}::"), name)
}

/// Lowercase letters and digits only: how a proto name and a JSON name compare.
fn folded(name: &str) -> String {
    name.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// `api::apps::v1::DeploymentSpec` → `APPS_V1_DEPLOYMENT_SPEC`.
fn static_name(path: &str) -> String {
    let parts: Vec<&str> = path.split("::").collect();
    let n = parts.len();
    let mut out = format!("{}_{}_", parts[n - 3], parts[n - 2]).to_uppercase();
    let name = parts[n - 1];
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

struct Generator {
    messages: BTreeMap<String, ProtoMessage>,
    /// Definition → its JSON properties.
    schemas: BTreeMap<String, BTreeSet<String>>,
    /// (k8s-pb module, folded name) → definition.
    definitions: BTreeMap<(String, String), String>,
    zero_values: BTreeMap<String, BTreeSet<String>>,
}

/// One generated message.
struct Table {
    /// Its own, or for a message inlined into another, that one's.
    definition: String,
    inlined: bool,
    /// Its Go type's name in `zero_values.txt` (the definition's, or for an inlined
    /// message without one, its Go struct's in the same package).
    go_type: String,
    fields: Vec<String>,
}

impl Generator {
    fn try_definition_of(&self, path: &str) -> Option<String> {
        let name = path.rsplit("::").next().unwrap();
        let module = &path[..path.len() - name.len()];
        self.definitions
            .get(&(module.to_string(), folded(name)))
            .cloned()
    }

    fn ty(&self, kind: &Kind, context: &str) -> (String, Option<String>) {
        match kind {
            Kind::Scalar(s) => {
                let ty = match s.as_str() {
                    "string" => "Str",
                    "bytes" => "Bytes",
                    "bool" => "Bool",
                    "int32" => "Int32",
                    "int64" => "Int64",
                    "double" => "Double",
                    other => panic!("{context}: protobuf type {other}"),
                };
                (ty.into(), None)
            }
            Kind::Message(path) => match special(path) {
                Some((ty, fields)) => {
                    self.check_special(path, fields);
                    match ty {
                        "OrArray" | "OrBool" | "OrStrings" => {
                            let props = format!("{APIEXTENSIONS}JsonSchemaProps");
                            (format!("{ty}(&{})", static_name(&props)), Some(props))
                        }
                        _ => (ty.into(), None),
                    }
                }
                None => (format!("Msg(&{})", static_name(path)), Some(path.clone())),
            },
        }
    }

    /// A special message has exactly the fields the decoder reads.
    fn check_special(&self, path: &str, expected: SpecialFields) {
        let m = &self.messages[path];
        let got: Vec<(u32, String, String)> = m
            .fields
            .iter()
            .map(|f| {
                let ty = match &f.kind {
                    Kind::Scalar(s) => s.clone(),
                    Kind::Message(p) => p.rsplit("::").next().unwrap().to_string(),
                };
                (f.number, f.ident.clone(), ty)
            })
            .collect();
        let want: Vec<(u32, String, String)> = expected
            .iter()
            .map(|(n, i, t)| (*n, i.to_string(), t.to_string()))
            .collect();
        assert_eq!(got, want, "{path}: the decoder reads other fields");
    }

    fn table(&self, path: &str, parent: Option<&str>, queue: &mut Queue) -> Table {
        // A message inlined into another is read by the names of its own definition,
        // when it has one (a `RuleWithOperations` is also a list's item elsewhere).
        let own = self.try_definition_of(path);
        let inlined = own.is_none();
        let definition = own
            .or_else(|| parent.map(String::from))
            .unwrap_or_else(|| panic!("{path}: no OpenAPI definition"));
        let properties: BTreeMap<String, String> = self.schemas[&definition]
            .iter()
            .map(|k| (folded(k), k.clone()))
            .collect();
        let go_type = match inlined {
            false => definition.clone(),
            true => {
                let package = definition.rsplit_once('.').unwrap().0;
                format!("{package}.{}", path.rsplit("::").next().unwrap())
            }
        };
        let zero = self.zero_values.get(&go_type);
        let mut fields = Vec::new();
        let mut message: Vec<_> = self.messages.get(path).map_or_else(
            || panic!("{path}: not in k8s-pb (from {parent:?})"),
            |m| m.fields.iter().collect(),
        );
        message.sort_by_key(|f| f.number);
        for f in message {
            let context = format!("{path}.{}", f.ident);
            let (ty, sub) = self.ty(&f.kind, &context);
            let json = properties.get(&folded(&f.ident));
            let card = match (json, f.label) {
                (Some(_), Label::Repeated) => "r",
                (Some(_), Label::Map) => "m",
                (Some(name), Label::Optional) => {
                    let scalar = matches!(f.kind, Kind::Scalar(_));
                    if scalar && zero.is_some_and(|z| z.contains(name)) {
                        "k"
                    } else {
                        "o"
                    }
                }
                (None, Label::Optional) if self.inlined(&f.kind, &properties) => "i",
                (None, _) => panic!(
                    "{context}: no JSON property of {definition} matches (has {:?})",
                    properties.values().collect::<Vec<_>>()
                ),
            };
            let name = if card == "i" { "" } else { json.unwrap() };
            let parent = (card == "i").then(|| definition.clone());
            queue.extend(sub.map(|s| (s, parent)));
            fields.push(format!("{card}({}, {name:?}, {ty})", f.number));
        }
        Table {
            definition,
            inlined,
            go_type,
            fields,
        }
    }

    /// A Go struct embedded with `json:",inline"`: its fields are the parent's.
    fn inlined(&self, kind: &Kind, properties: &BTreeMap<String, String>) -> bool {
        let Kind::Message(path) = kind else {
            return false;
        };
        special(path).is_none()
            && self.messages[path].fields.iter().all(|f| {
                properties.contains_key(&folded(&f.ident))
                    || (f.label == Label::Optional && self.inlined(&f.kind, properties))
            })
    }
}

fn read_zero_values() -> BTreeMap<String, BTreeSet<String>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/protobuf_tables/zero_values.txt");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut words = l.split_whitespace();
            let definition = words.next().unwrap().to_string();
            (definition, words.map(String::from).collect())
        })
        .collect()
}

/// Each definition's properties in crd-runtime's stored schemas, over every release
/// (a field k8s-pb has may be gone from the newest one; the release's schema drops
/// it when decoding), as written: the API's own `ObjectMeta`, not the embedded-object
/// one its accessors give.
fn read_properties() -> BTreeMap<String, BTreeSet<String>> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../crd-runtime/src/k8s/generated/schemas.json");
    let data: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for version in k8s_schemas::VERSIONS {
        for (d, i) in data["versions"][version].as_object().unwrap() {
            let schema = &data["schemas"][i.as_u64().unwrap() as usize];
            let names = schema.get("properties").and_then(Value::as_object);
            out.entry(d.clone())
                .or_default()
                .extend(names.into_iter().flat_map(|p| p.keys().cloned()));
        }
    }
    out
}

const JSON_SCHEMA_PROPS: &str =
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps";

/// The keywords of a CRD's schema (stored as an opaque object: it is recursive), as
/// crd-runtime's model of it names them: the list serde gives for an unknown key.
fn schema_model_keywords() -> BTreeSet<String> {
    let err = serde_json::from_str::<crd_runtime::model::JSONSchemaProps>(r#"{"?": 0}"#)
        .expect_err("the model denies unknown keys")
        .to_string();
    let list = err
        .split_once("expected one of ")
        .unwrap_or_else(|| panic!("serde's error lists the keys: {err}"))
        .1;
    list.split(", ")
        .map(|k| k.split('`').nth(1).unwrap().to_string())
        .collect()
}

/// Messages to generate: path, and the definition a message is inlined into.
type Queue = VecDeque<(String, Option<String>)>;

fn generate() -> String {
    let mut schemas = read_properties();
    schemas.insert(JSON_SCHEMA_PROPS.into(), schema_model_keywords());
    let mut definitions = BTreeMap::new();
    for d in schemas.keys() {
        let (module, name) = pb_module(d);
        definitions.insert((module, folded(name)), d.to_string());
    }
    let g = Generator {
        messages: source::read_crate(&k8s_pb::source_dir()),
        schemas,
        definitions,
        zero_values: read_zero_values(),
    };
    let mut queue: Queue = k8s_pb::SERVED_KINDS
        .iter()
        .chain(MORE)
        .map(|d| {
            let (module, name) = pb_module(d);
            let path = g
                .messages
                .keys()
                .find(|p| {
                    p.strip_prefix(&module)
                        .is_some_and(|n| n.eq_ignore_ascii_case(name))
                })
                .unwrap_or_else(|| panic!("{d}: not in k8s-pb"));
            (path.clone(), None)
        })
        .collect();
    let mut tables: BTreeMap<String, Table> = BTreeMap::new();
    while let Some((path, parent)) = queue.pop_front() {
        if tables.contains_key(&path) {
            continue;
        }
        let table = g.table(&path, parent.as_deref(), &mut queue);
        tables.insert(path, table);
    }
    // Every listed zero-value field is a field of a generated message.
    for (definition, names) in &g.zero_values {
        let t = tables
            .values()
            .find(|t| &t.go_type == definition)
            .unwrap_or_else(|| panic!("zero_values.txt: {definition} is not generated"));
        for name in names {
            assert!(
                t.fields.iter().any(|f| f.contains(&format!("{name:?}"))),
                "zero_values.txt: {definition}.{name} is no field"
            );
        }
    }
    render(&tables)
}

fn render(tables: &BTreeMap<String, Table>) -> String {
    let mut out = String::from(
        "// @generated by `UPDATE_GOLDEN=1 cargo test -p crd-server --test protobuf_tables`\n\
         // from k8s-pb's sources and crd-runtime's k8s schemas; do not edit.\n\
         //! The protobuf messages of the built-in kinds: field numbers, JSON names, types.\n\n\
         use super::messages::Ty::*;\n\
         use super::messages::{Message, i, k, m, o, r};\n",
    );
    for (path, t) in tables {
        let doc = if t.inlined {
            format!("`{path}`, inlined into `{}`", t.definition)
        } else {
            format!("`{}`", t.definition)
        };
        out += &format!(
            "\n/// {doc}.\npub static {}: Message = Message {{ fields: &[\n",
            static_name(path)
        );
        // Fields packed into lines of at most 100 characters.
        let mut line = String::new();
        for f in &t.fields {
            if !line.is_empty() && 4 + line.len() + 1 + f.len() + 1 > 100 {
                out += &format!("    {line}\n");
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line += &format!("{f},");
        }
        if !line.is_empty() {
            out += &format!("    {line}\n");
        }
        out += "] };\n";
    }
    let mut by_definition: Vec<(&str, String)> = tables
        .iter()
        .filter(|(_, t)| !t.inlined)
        .map(|(p, t)| (t.definition.as_str(), static_name(p)))
        .collect();
    by_definition.sort();
    out += "\n/// Every message by its OpenAPI definition, sorted.\n\
            pub static BY_DEFINITION: &[(&str, &Message)] = &[\n";
    for (d, s) in by_definition {
        out += &format!("    ({d:?}, &{s}),\n");
    }
    out += "];\n";
    out
}

#[test]
fn generated_protobuf_tables_are_current() {
    let generated = generate();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/api/protobuf/generated.rs");
    if std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1") {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{} is out of date (rerun with UPDATE_GOLDEN=1 and review the diff)",
        path.display()
    );
}
