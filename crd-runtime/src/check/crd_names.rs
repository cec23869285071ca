//! Names and version bookkeeping of a CRD: `spec.names` / `status.acceptedNames`
//! syntax, `status.storedVersions`, and deprecation warnings.

use crate::field::{BadValue, ErrorList, FieldError, Path};
use crate::model::CustomResourceDefinitionNames;

use super::internal::InternalVersion;
use crate::engine::names::dns1035_label;

pub(crate) fn deprecation_warning_problems(deprecated: bool, warning: Option<&str>) -> Vec<String> {
    let Some(w) = warning else {
        return Vec::new();
    };
    if !deprecated {
        return vec!["can only be set for deprecated versions".into()];
    }
    let mut out = Vec::new();
    if w.len() > 256 {
        out.push("must be <= 256 characters long".into());
    }
    if w.is_empty() {
        out.push("must not be an empty string".into());
    }
    if let Some((i, _)) = w.char_indices().find(|(_, c)| c.is_control()) {
        out.push(format!(
            "must only contain printable UTF-8 characters; control character found at index {i}"
        ));
    }
    out
}

/// `ValidateCustomResourceDefinitionNames`.
pub(crate) fn validate_names(n: &CustomResourceDefinitionNames, path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    let singular = n.singular.as_deref().unwrap_or("");
    let list_kind = n.list_kind.as_deref().unwrap_or("");
    for (value, name) in [(n.plural.as_str(), "plural"), (singular, "singular")] {
        let problems = dns1035_label(value);
        if !value.is_empty() && !problems.is_empty() {
            errs.push(FieldError::invalid(
                path.child(name),
                BadValue::Str(value.into()),
                problems.join(","),
            ));
        }
    }
    for (value, name) in [(n.kind.as_str(), "kind"), (list_kind, "listKind")] {
        let problems = dns1035_label(&value.to_lowercase());
        if !value.is_empty() && !problems.is_empty() {
            errs.push(FieldError::invalid(
                path.child(name),
                BadValue::Str(value.into()),
                format!(
                    "may have mixed case, but should otherwise match: {}",
                    problems.join(",")
                ),
            ));
        }
    }
    for (i, short) in n.short_names.iter().flatten().enumerate() {
        let problems = dns1035_label(short);
        if !problems.is_empty() {
            errs.push(FieldError::invalid(
                path.child("shortNames").index(i),
                BadValue::Str(short.clone()),
                problems.join(","),
            ));
        }
    }
    if !n.kind.is_empty() && n.kind == list_kind {
        errs.push(FieldError::invalid(
            path.child("listKind"),
            BadValue::Str(list_kind.into()),
            "kind and listKind may not be the same",
        ));
    }
    for (i, c) in n.categories.iter().flatten().enumerate() {
        let problems = dns1035_label(c);
        if !problems.is_empty() {
            errs.push(FieldError::invalid(
                path.child("categories").index(i),
                BadValue::Str(c.clone()),
                problems.join(","),
            ));
        }
    }
    errs
}

/// `ValidateCustomResourceDefinitionStoredVersions`.
pub(crate) fn validate_stored_versions(
    stored: &[String],
    versions: &[InternalVersion],
    path: &Path,
) -> ErrorList {
    let mut errs = ErrorList::new();
    let value = || BadValue::Json(serde_json::Value::from(stored.to_vec()));
    if stored.is_empty() {
        errs.push(FieldError::invalid(
            path.clone(),
            value(),
            "must have at least one stored version",
        ));
        return errs;
    }
    // Like upstream's map: a duplicated stored version keeps its last index.
    let mut remaining: std::collections::HashMap<&str, usize> = stored
        .iter()
        .enumerate()
        .map(|(i, s)| (s.as_str(), i))
        .collect();
    for v in versions {
        let found = remaining.remove(v.name.as_str()).is_some();
        if v.storage && !found {
            errs.push(FieldError::invalid(
                path.clone(),
                value(),
                format!("must have the storage version {}", v.name),
            ));
        }
    }
    let mut remaining: Vec<(usize, &str)> = remaining.into_iter().map(|(s, i)| (i, s)).collect();
    remaining.sort();
    for (i, v) in remaining {
        errs.push(FieldError::invalid(
            path.index(i),
            BadValue::Str(v.into()),
            format!("missing from spec.versions; {v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in {v} and removes {v} from status.storedVersions"),
        ));
    }
    errs
}
