//! Per-version presentation and subresource settings: printer columns, the scale
//! subresource's paths, and selectable fields.

use crate::field::{BadValue, ErrorList, FieldError, Path};
use crate::model::{
    CustomResourceColumnDefinition, CustomResourceSubresources, JSONSchemaProps, SelectableField,
};

use crate::jsonpath::{resolve_field_path, validate_simple_json_path};

/// Printer column types (sorted, as printed).
const COLUMN_TYPES: [&str; 5] = ["boolean", "date", "integer", "number", "string"];
/// Printer column formats (sorted, as printed).
const COLUMN_FORMATS: [&str; 8] = [
    "byte",
    "date",
    "date-time",
    "double",
    "float",
    "int32",
    "int64",
    "password",
];
/// Most selectable fields per version.
pub const MAX_SELECTABLE_FIELDS: i64 = 8;

/// `ValidateCustomResourceColumnDefinition`.
pub fn validate_column(col: &CustomResourceColumnDefinition, path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    if col.name.is_empty() {
        errs.push(FieldError::required(path.child("name"), ""));
    }
    let types = format!("must be one of {}", COLUMN_TYPES.join(","));
    if col.type_.is_empty() {
        errs.push(FieldError::required(path.child("type"), types));
    } else if !COLUMN_TYPES.contains(&col.type_.as_str()) {
        errs.push(FieldError::invalid(
            path.child("type"),
            BadValue::Str(col.type_.clone()),
            types,
        ));
    }
    if let Some(format) = col.format.as_deref().filter(|f| !f.is_empty())
        && !COLUMN_FORMATS.contains(&format)
    {
        errs.push(FieldError::invalid(
            path.child("format"),
            BadValue::Str(format.into()),
            format!("must be one of {}", COLUMN_FORMATS.join(",")),
        ));
    }
    // The internal type's field is `JSONPath`, and that is what the server reports.
    let jp = path.child("JSONPath");
    if col.json_path.is_empty() {
        errs.push(FieldError::required(jp, ""));
    } else {
        errs.extend(validate_simple_json_path(&col.json_path, &jp));
    }
    errs
}

/// `ValidateCustomResourceDefinitionSubresources`: the scale paths.
pub fn validate_subresources(sub: Option<&CustomResourceSubresources>, path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    let Some(scale) = sub.and_then(|s| s.scale.as_ref()) else {
        return errs;
    };
    for (name, value, prefix) in [
        (
            "scale.specReplicasPath",
            &scale.spec_replicas_path,
            ".spec.",
        ),
        (
            "scale.statusReplicasPath",
            &scale.status_replicas_path,
            ".status.",
        ),
    ] {
        let p = path.child(name);
        if value.is_empty() {
            errs.push(FieldError::required(p, ""));
            continue;
        }
        let path_errs = validate_simple_json_path(value, &p);
        if !path_errs.is_empty() {
            errs.extend(path_errs);
        } else if !value.starts_with(prefix) {
            let under = prefix.trim_end_matches('.');
            errs.push(FieldError::invalid(
                p,
                BadValue::Str(value.clone()),
                format!("should be a json path under {under}"),
            ));
        }
    }
    if let Some(selector) = scale
        .label_selector_path
        .as_deref()
        .filter(|s| !s.is_empty())
    {
        let p = path.child("scale.labelSelectorPath");
        let path_errs = validate_simple_json_path(selector, &p);
        if !path_errs.is_empty() {
            errs.extend(path_errs);
        } else if !selector.starts_with(".spec.") && !selector.starts_with(".status.") {
            errs.push(FieldError::invalid(
                p,
                BadValue::Str(selector.into()),
                "should be a json path under either .spec or .status",
            ));
        }
    }
    errs
}

/// `ValidateCustomResourceSelectableFields` against the version's schema.
pub fn validate_selectable_fields(
    fields: &[SelectableField],
    schema: &JSONSchemaProps,
    path: &Path,
) -> ErrorList {
    let mut errs = ErrorList::new();
    let mut unique = std::collections::BTreeSet::new();
    for (i, f) in fields.iter().enumerate() {
        let p = path.index(i).child("jsonPath");
        if f.json_path.is_empty() {
            errs.push(FieldError::required(p, ""));
            continue;
        }
        let value = || BadValue::Str(f.json_path.clone());
        let (normalized, found) = match resolve_field_path(&f.json_path, schema) {
            Ok(r) => r,
            Err(e) => {
                errs.push(FieldError::invalid(
                    p,
                    value(),
                    format!("is an invalid path: {e}"),
                ));
                continue;
            }
        };
        let normalized = normalized.to_string();
        if normalized.split(['.', '[']).next() == Some("metadata") {
            errs.push(FieldError::invalid(
                p.clone(),
                value(),
                "must not point to fields in metadata",
            ));
        }
        if !found.is_some_and(|f| matches!(f.type_str(), "string" | "boolean" | "integer")) {
            errs.push(FieldError::invalid(
                p.clone(),
                value(),
                "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.",
            ));
        }
        if !unique.insert(normalized) {
            errs.push(FieldError::duplicate(p, value()));
        }
    }
    let count = unique.len() as i64;
    if count > MAX_SELECTABLE_FIELDS {
        errs.push(FieldError::too_many(
            path.clone(),
            count,
            MAX_SELECTABLE_FIELDS,
        ));
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns() {
        let col = CustomResourceColumnDefinition {
            name: "Age".into(),
            type_: "date".into(),
            json_path: ".metadata.creationTimestamp".into(),
            ..Default::default()
        };
        assert!(validate_column(&col, &Path::new("c")).is_empty());
        let bad = CustomResourceColumnDefinition {
            type_: "time".into(),
            format: Some("uuid".into()),
            json_path: "spec".into(),
            ..Default::default()
        };
        let errs = validate_column(&bad, &Path::new("c")).strings();
        assert_eq!(
            errs,
            vec![
                "c.name: Required value",
                r#"c.type: Invalid value: "time": must be one of boolean,date,integer,number,string"#,
                r#"c.format: Invalid value: "uuid": must be one of byte,date,date-time,double,float,int32,int64,password"#,
                r#"c.JSONPath: Invalid value: "spec": must be a simple json path starting with ."#,
            ]
        );
    }
}
