//! `--stages PATH`: Stage objects from YAML files (several documents a file) or from
//! every `.yaml`/`.yml`/`.json` file of a directory, in name order.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{GROUP, Stage};

/// Every Stage in `text` (documents of another kind are refused), or an error naming
/// `source`, the Stage and the field.
pub fn stages_of(source: &str, text: &str) -> Result<Vec<Stage>, String> {
    let docs = crd_runtime::parse_documents(source, text).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for (i, doc) in docs.iter().enumerate() {
        if doc.is_null() {
            continue;
        }
        let kind = doc["kind"].as_str().unwrap_or_default();
        let api_version = doc["apiVersion"].as_str().unwrap_or_default();
        if kind != "Stage" || !api_version.starts_with(&format!("{GROUP}/")) {
            return Err(format!(
                "{source}: document {}: want kind Stage of {GROUP}/v1alpha1, got {:?} of {:?}",
                i + 1,
                kind,
                api_version
            ));
        }
        let name = doc
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if name.is_empty() {
            return Err(format!(
                "{source}: document {}: metadata.name: Required value",
                i + 1
            ));
        }
        let stage = Stage::parse(doc)
            .map_err(|errs| format!("{source}: Stage {name:?}: {}", errs.strings().join(", ")))?;
        out.push(stage);
    }
    Ok(out)
}

/// The Stages of every path (a file, or a directory's files in name order).
pub fn load_paths(paths: &[PathBuf]) -> Result<Vec<Stage>, String> {
    let mut out = Vec::new();
    for path in paths {
        for file in files_of(path)? {
            let text =
                std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
            out.extend(stages_of(&file.display().to_string(), &text)?);
        }
    }
    Ok(out)
}

fn files_of(path: &Path) -> Result<Vec<PathBuf>, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if !meta.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension()
                .and_then(|x| x.to_str())
                .is_some_and(|x| matches!(x, "yaml" | "yml" | "json"))
        })
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!("{}: no .yaml, .yml or .json file", path.display()));
    }
    Ok(files)
}
