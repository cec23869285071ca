//! `x-kubernetes-list-type`, `x-kubernetes-list-map-keys` and
//! `x-kubernetes-map-type` rules: the type they need, supported values, map keys
//! that name required (or defaulted), non-nullable scalar item properties, and set
//! items that are atomic.

use crate::field::{BadValue, ErrorList, FieldError, Path};
use crate::model::{JSONSchemaProps, JSONSchemaPropsOrArray};

use super::CheckOptions;

const LIST_TYPES: [&str; 3] = ["atomic", "set", "map"];
const MAP_TYPES: [&str; 2] = ["atomic", "granular"];

fn str_value(s: Option<&str>) -> BadValue {
    s.map_or(BadValue::Json(serde_json::Value::Null), |s| {
        BadValue::Str(s.into())
    })
}

/// The list- and map-type rules for one node (children are visited by the caller).
pub fn validate_list_and_map_types(
    s: &JSONSchemaProps,
    path: &Path,
    opts: &CheckOptions,
    errs: &mut ErrorList,
) {
    let ty = s.type_str();
    let list_type = s.x_kubernetes_list_type.as_deref();
    let map_type = s.x_kubernetes_map_type.as_deref();
    let items = s.items_schema();

    if map_type.is_some() && ty != "object" {
        let detail = "must be object if x-kubernetes-map-type is specified";
        errs.push(super::wrong_type(path, ty, detail));
    }
    if let Some(mt) = map_type.filter(|m| !MAP_TYPES.contains(m)) {
        errs.push(FieldError::not_supported(
            path.child("x-kubernetes-map-type"),
            BadValue::Str(mt.into()),
            &MAP_TYPES,
        ));
    }

    if list_type.is_some() && ty != "array" {
        let detail = "must be array if x-kubernetes-list-type is specified";
        errs.push(super::wrong_type(path, ty, detail));
    } else if opts.require_atomic_set_type
        && list_type == Some("set")
        && let Some(is) = items
    {
        let detail = "must be atomic as item of a list with x-kubernetes-list-type=set";
        match is.type_str() {
            // Lists default to atomic, so only an explicit non-atomic type is wrong.
            "array"
                if is
                    .x_kubernetes_list_type
                    .as_deref()
                    .is_some_and(|t| t != "atomic") =>
            {
                errs.push(FieldError::invalid(
                    path.child("items").child("x-kubernetes-list-type"),
                    str_value(is.x_kubernetes_list_type.as_deref()),
                    detail,
                ));
            }
            // Maps default to granular, so they must say atomic.
            "object" if is.x_kubernetes_map_type.as_deref() != Some("atomic") => {
                errs.push(FieldError::invalid(
                    path.child("items").child("x-kubernetes-map-type"),
                    str_value(is.x_kubernetes_map_type.as_deref()),
                    detail,
                ));
            }
            _ => {}
        }
    }

    if let Some(lt) = list_type.filter(|l| !LIST_TYPES.contains(l)) {
        errs.push(FieldError::not_supported(
            path.child("x-kubernetes-list-type"),
            BadValue::Str(lt.into()),
            &LIST_TYPES,
        ));
    }

    let keys = s.x_kubernetes_list_map_keys.as_deref().unwrap_or(&[]);
    if !keys.is_empty() {
        let detail = "must be map if x-kubernetes-list-map-keys is non-empty";
        match list_type {
            None => errs.push(FieldError::required(
                path.child("x-kubernetes-list-type"),
                detail,
            )),
            Some(lt) if lt != "map" => errs.push(FieldError::invalid(
                path.child("x-kubernetes-list-type"),
                BadValue::Str(lt.into()),
                detail,
            )),
            Some(_) => {}
        }
    }

    if list_type == Some("map") {
        map_list(s, keys, path, errs);
    }
    if opts.require_map_list_keys_map_set_validation {
        map_list_keys_map_set(s, path, errs);
    }
}

fn keys_value(keys: &[String]) -> BadValue {
    BadValue::Json(serde_json::Value::from(keys.to_vec()))
}

fn map_list(s: &JSONSchemaProps, keys: &[String], path: &Path, errs: &mut ErrorList) {
    if keys.is_empty() {
        errs.push(FieldError::required(
            path.child("x-kubernetes-list-map-keys"),
            "must not be empty if x-kubernetes-list-type is map",
        ));
    }
    match s.items.as_deref() {
        None => errs.push(FieldError::required(
            path.child("items"),
            "must have a schema if x-kubernetes-list-type is map",
        )),
        Some(JSONSchemaPropsOrArray::Schemas(list)) => errs.push(FieldError::invalid(
            path.child("items"),
            BadValue::Json(serde_json::to_value(list).unwrap_or_default()),
            "must only have a single schema if x-kubernetes-list-type is map",
        )),
        Some(JSONSchemaPropsOrArray::Schema(items)) if items.type_str() != "object" => {
            errs.push(FieldError::invalid(
                path.child("items").child("type"),
                BadValue::Str(items.type_str().into()),
                "must be object if parent array's x-kubernetes-list-type is map",
            ));
        }
        Some(JSONSchemaPropsOrArray::Schema(items)) => {
            let mut seen = std::collections::HashSet::new();
            for k in keys {
                match items.properties.as_ref().and_then(|p| p.get(k)) {
                    Some(ks) if matches!(ks.type_str(), "array" | "object") => {
                        errs.push(FieldError::invalid(
                            path.child("items").child("properties").key(k).child("type"),
                            BadValue::Str(ks.type_str().into()),
                            "must be a scalar type if parent array's x-kubernetes-list-type is map",
                        ));
                    }
                    Some(_) => {}
                    None => errs.push(FieldError::invalid(
                        path.child("x-kubernetes-list-map-keys"),
                        keys_value(keys),
                        "entries must all be names of item properties",
                    )),
                }
                if !seen.insert(k.as_str()) {
                    errs.push(FieldError::invalid(
                        path.child("x-kubernetes-list-map-keys"),
                        keys_value(keys),
                        "must not contain duplicate entries",
                    ));
                }
            }
        }
    }
}

/// `validateMapListKeysMapSet`: set/map items are not nullable; map keys are
/// required or defaulted, and not nullable.
fn map_list_keys_map_set(s: &JSONSchemaProps, path: &Path, errs: &mut ErrorList) {
    let (Some(items), Some(lt)) = (s.items_schema(), s.x_kubernetes_list_type.as_deref()) else {
        return;
    };
    if lt != "set" && lt != "map" {
        return;
    }
    if items.is_nullable() {
        errs.push(FieldError::forbidden(
            path.child("items").child("nullable"),
            format!("cannot be nullable when x-kubernetes-list-type is {lt}"),
        ));
    }
    if lt != "map" {
        return;
    }
    let required = items.required.as_deref().unwrap_or(&[]);
    for k in s.x_kubernetes_list_map_keys.iter().flatten() {
        // Unknown keys are reported by `map_list`.
        let Some(ks) = items.properties.as_ref().and_then(|p| p.get(k)) else {
            continue;
        };
        let p = path.child("items").child("properties").key(k);
        if !required.contains(k) && ks.default.is_none() {
            errs.push(FieldError::required(
                p.child("default"),
                "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
            ));
        }
        if ks.is_nullable() {
            errs.push(FieldError::forbidden(
                p.child("nullable"),
                "this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(schema: serde_json::Value) -> Vec<String> {
        let s: JSONSchemaProps = serde_json::from_value(schema).unwrap();
        let mut errs = ErrorList::new();
        validate_list_and_map_types(&s, &Path::new("s"), &CheckOptions::v1_create(), &mut errs);
        errs.strings()
    }

    #[test]
    fn map_lists() {
        let got = errors(
            serde_json::json!({"type": "array", "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["name", "port", "missing"],
            "items": {"type": "object", "required": ["name"], "properties": {
                "name": {"type": "string"}, "port": {"type": "object", "nullable": true}}}}),
        );
        assert_eq!(
            got,
            [
                "s.items.properties[port].type: Invalid value: \"object\": must be a scalar type if parent array's x-kubernetes-list-type is map",
                "s.x-kubernetes-list-map-keys: Invalid value: [\"name\",\"port\",\"missing\"]: entries must all be names of item properties",
                "s.items.properties[port].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
                "s.items.properties[port].nullable: Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
            ]
        );
    }

    #[test]
    fn sets_need_atomic_items() {
        assert!(errors(serde_json::json!({"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}})).is_empty());
        assert_eq!(
            errors(
                serde_json::json!({"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "object"}})
            ),
            [
                "s.items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set"
            ]
        );
        assert_eq!(
            errors(serde_json::json!({"type": "object", "x-kubernetes-list-type": "bag"})),
            [
                "s.type: Invalid value: \"object\": must be array if x-kubernetes-list-type is specified",
                "s.x-kubernetes-list-type: Unsupported value: \"bag\": supported values: \"atomic\", \"set\", \"map\"",
            ]
        );
    }
}
