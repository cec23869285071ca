//! Reads k8s-pb's generated prost structs: per message, its fields with their Rust
//! names, types and the upstream Go markers (`+patchStrategy=…`, `+patchMergeKey=…`)
//! go-to-protobuf copied into their doc comments.

use std::collections::BTreeMap;
use std::path::Path;

/// One field of a prost message.
#[derive(Debug, Clone)]
pub struct ProtoField {
    /// The Rust name (`external_i_ps`), without `r#`.
    pub name: String,
    /// The definition of the message type it holds, if any (`io.k8s.api.core.v1.VolumeSource`).
    pub message: Option<String>,
    pub patch_strategy: Option<String>,
    pub patch_merge_key: Option<String>,
}

/// Every message under `src`, by definition name (`io.k8s.api.core.v1.PodSpec`).
pub fn read_messages(src: &Path) -> BTreeMap<String, Vec<ProtoField>> {
    let mut out = BTreeMap::new();
    for top in ["api", "apimachinery"] {
        walk(&src.join(top), &mut vec![top.to_string()], &mut out);
    }
    out
}

fn walk(dir: &Path, module: &mut Vec<String>, out: &mut BTreeMap<String, Vec<ProtoField>>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            module.push(path.file_name().unwrap().to_str().unwrap().to_string());
            walk(&path, module, out);
            module.pop();
        } else if path.file_name().is_some_and(|n| n == "mod.rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            parse_module(&text, module, out);
        }
    }
}

/// The structs of one `mod.rs`: `pub struct X {` at the top level, fields indented.
fn parse_module(text: &str, module: &[String], out: &mut BTreeMap<String, Vec<ProtoField>>) {
    let mut current: Option<(String, Vec<ProtoField>)> = None;
    let mut markers: Vec<(String, String)> = Vec::new();
    let mut pending: Option<String> = None;
    for line in text.lines() {
        if let Some(name) = line
            .strip_prefix("pub struct ")
            .and_then(|r| r.strip_suffix(" {"))
        {
            current = Some((definition(module, name), Vec::new()));
            markers.clear();
            continue;
        }
        let Some((_, fields)) = current.as_mut() else {
            continue;
        };
        if line == "}" {
            let (name, fields) = current.take().unwrap();
            out.insert(name, fields);
            continue;
        }
        if let Some(decl) = pending.as_mut() {
            decl.push_str(line.trim());
            if declaration_complete(decl) {
                let decl = pending.take().unwrap();
                fields.push(field(&decl, module, &markers));
                markers.clear();
            }
            continue;
        }
        let trimmed = line.trim_start();
        if let Some(doc) = trimmed.strip_prefix("///") {
            if let Some((key, value)) = doc.trim().strip_prefix('+').and_then(|m| m.split_once('='))
            {
                markers.push((key.to_string(), value.trim().to_string()));
            }
        } else if trimmed.starts_with("pub ") {
            let decl = trimmed.to_string();
            if declaration_complete(&decl) {
                fields.push(field(&decl, module, &markers));
                markers.clear();
            } else {
                pending = Some(decl);
            }
        }
    }
}

fn declaration_complete(decl: &str) -> bool {
    let depth = decl.matches('<').count() as i64 - decl.matches('>').count() as i64;
    decl.ends_with(',') && depth == 0
}

fn definition(module: &[String], name: &str) -> String {
    format!("io.k8s.{}.{name}", module.join("."))
}

fn field(decl: &str, module: &[String], markers: &[(String, String)]) -> ProtoField {
    let (name, ty) = decl
        .strip_prefix("pub ")
        .and_then(|d| d.split_once(':'))
        .unwrap_or_else(|| panic!("unexpected field declaration {decl:?}"));
    let marker = |key: &str| {
        markers
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    };
    ProtoField {
        name: name.trim().trim_start_matches("r#").to_string(),
        message: message_type(ty.trim().trim_end_matches(','), module),
        patch_strategy: marker("patchStrategy"),
        patch_merge_key: marker("patchMergeKey"),
    }
}

/// The message a field's type holds (through `Option`/`Vec`), as a definition name;
/// `None` for scalars, strings, bytes and maps.
fn message_type(ty: &str, module: &[String]) -> Option<String> {
    let mut ty = ty.trim();
    for wrapper in ["::core::option::Option<", "::prost::alloc::vec::Vec<"] {
        if let Some(inner) = ty.strip_prefix(wrapper) {
            ty = inner.strip_suffix('>')?.trim();
        }
    }
    if ty.starts_with("::") || ty.contains('<') {
        return None;
    }
    if !ty.starts_with(|c: char| c.is_ascii_uppercase()) && !ty.starts_with("super::") {
        return None;
    }
    let mut path: Vec<String> = module.to_vec();
    let mut segments: Vec<&str> = ty.split("::").collect();
    let name = segments.pop()?;
    for s in segments {
        if s == "super" {
            path.pop();
        } else {
            path.push(s.to_string());
        }
    }
    Some(definition(&path, name))
}
