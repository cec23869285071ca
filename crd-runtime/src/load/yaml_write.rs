//! Writing values as YAML (serde-saphyr's serializer).

use serde::Serialize;

/// Serializes to YAML (one document, no leading `---`).
pub fn to_yaml<T: Serialize>(value: &T) -> Result<String, String> {
    serde_saphyr::to_string(value).map_err(|e| e.to_string())
}

/// Serializes several values as a multi-document YAML stream.
pub fn to_yaml_documents<T: Serialize>(values: &[T]) -> Result<String, String> {
    let mut out = String::new();
    for v in values {
        out.push_str("---\n");
        out.push_str(&to_yaml(v)?);
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    Ok(out)
}
