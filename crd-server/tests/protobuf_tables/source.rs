//! Reads k8s-pb's prost-generated sources: every message with its fields' numbers,
//! wire types and message types (`#[prost(int32, optional, tag = "3")]`).

use std::collections::BTreeMap;
use std::path::Path;

/// What a field holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// A scalar of a protobuf type (`string`, `bool`, `int32`, `int64`, `double`, `bytes`).
    Scalar(String),
    /// A message, by its path in k8s-pb (`api::core::v1::PodSpec`).
    Message(String),
}

/// How often a field occurs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Label {
    Optional,
    Repeated,
    /// `map<string, …>`: the kind is the value's.
    Map,
}

#[derive(Debug)]
pub struct ProtoField {
    pub number: u32,
    /// The Rust field name (`pod_i_ps`, `r#type`).
    pub ident: String,
    pub kind: Kind,
    pub label: Label,
}

#[derive(Debug)]
pub struct ProtoMessage {
    pub fields: Vec<ProtoField>,
}

/// Every message of the crate under `src`, by path (`api::apps::v1::Deployment`).
pub fn read_crate(src: &Path) -> BTreeMap<String, ProtoMessage> {
    let mut out = BTreeMap::new();
    walk(src, "", &mut out);
    out
}

fn walk(dir: &Path, module: &str, out: &mut BTreeMap<String, ProtoMessage>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if path.is_dir() {
            let sub = if module.is_empty() {
                name
            } else {
                format!("{module}::{name}")
            };
            walk(&path, &sub, out);
        } else if name == "mod.rs" && !module.is_empty() {
            let text = std::fs::read_to_string(&path).unwrap();
            parse_module(module, &text, out);
        }
    }
}

fn parse_module(module: &str, text: &str, out: &mut BTreeMap<String, ProtoMessage>) {
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if let Some(name) = line
            .strip_prefix("pub struct ")
            .and_then(|l| l.strip_suffix(" {}"))
        {
            let fields = Vec::new();
            out.insert(format!("{module}::{name}"), ProtoMessage { fields });
            continue;
        }
        let Some(name) = line
            .strip_prefix("pub struct ")
            .and_then(|l| l.strip_suffix(" {"))
        else {
            continue;
        };
        let mut fields = Vec::new();
        let mut attr: Option<String> = None;
        while let Some(line) = lines.next() {
            let trimmed = line.trim();
            if line == "}" {
                break;
            }
            if let Some(a) = trimmed.strip_prefix("#[prost(") {
                attr = Some(a.trim_end_matches(")]").to_string());
            } else if let Some(decl) = trimmed.strip_prefix("pub ") {
                let mut decl = decl.to_string();
                let open = |d: &str| d.matches('<').count() > d.matches('>').count();
                while !decl.ends_with(',') || open(&decl) {
                    decl += lines.next().expect("a field's type ends").trim();
                }
                let attr = attr
                    .take()
                    .unwrap_or_else(|| panic!("{module}::{name}: {decl}"));
                fields.push(field(module, &attr, &decl));
            }
        }
        out.insert(format!("{module}::{name}"), ProtoMessage { fields });
    }
}

fn field(module: &str, attr: &str, decl: &str) -> ProtoField {
    let (ident, ty) = decl.split_once(':').unwrap();
    let parts: Vec<&str> = attr.split(", ").collect();
    let number = parts
        .iter()
        .find_map(|p| p.strip_prefix("tag = \""))
        .and_then(|t| t.trim_end_matches('"').parse().ok())
        .unwrap_or_else(|| panic!("no tag in {attr}"));
    let first = parts[0];
    let (label, kind) = if let Some(map) = attr.strip_prefix("btree_map = \"") {
        let (types, _) = map.split_once('"').unwrap();
        let value = types.split(", ").nth(1).unwrap();
        assert!(types.starts_with("string,"), "map keys are strings: {attr}");
        let kind = match value {
            "message" => Kind::Message(type_path(module, ty)),
            scalar => Kind::Scalar(scalar.to_string()),
        };
        (Label::Map, kind)
    } else {
        let label = if parts.contains(&"repeated") {
            Label::Repeated
        } else {
            assert!(parts.contains(&"optional"), "proto2 fields: {attr}");
            Label::Optional
        };
        let kind = match first {
            "message" => Kind::Message(type_path(module, ty)),
            "bytes = \"vec\"" => Kind::Scalar("bytes".into()),
            scalar => Kind::Scalar(scalar.to_string()),
        };
        (label, kind)
    };
    ProtoField {
        number,
        ident: ident.trim().trim_start_matches("r#").to_string(),
        kind,
        label,
    }
}

/// The message type named in a field's Rust type (the last path that is not a
/// container), resolved against `super::`.
fn type_path(module: &str, ty: &str) -> String {
    const CONTAINERS: [&str; 5] = ["Option", "Vec", "Box", "String", "BTreeMap"];
    let name = ty
        .split(|c: char| c == '<' || c == '>' || c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty() && !t.starts_with("::"))
        .rfind(|t| {
            let last = t.rsplit("::").next().unwrap();
            last.starts_with(|c: char| c.is_ascii_uppercase()) && !CONTAINERS.contains(&last)
        })
        .unwrap_or_else(|| panic!("{module}: no message type in {ty}"));
    let mut base: Vec<&str> = module.split("::").collect();
    let mut rest = name;
    while let Some(r) = rest.strip_prefix("super::") {
        base.pop();
        rest = r;
    }
    base.push(rest);
    base.join("::")
}
