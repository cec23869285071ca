//! Matching checker output against the conformance tables' expectations.

use crd_runtime::check::CheckOptions;
use crd_runtime::{ErrorList, ErrorType};
use serde_json::Value;

/// One expected violation: type, full path and an optional substring of the detail.
#[derive(Debug, Clone)]
pub struct Expected {
    /// The error type.
    pub type_: ErrorType,
    /// The rendered path.
    pub field: String,
    /// A substring the rendered error must contain.
    pub contains: Option<String>,
}

/// Parses `[{type, field, contains?}]`.
pub fn expected_list(v: &Value) -> Vec<Expected> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter(|e| e.get("field").is_some())
        .map(|e| Expected {
            type_: ErrorType::from_reason(e["type"].as_str().unwrap_or(""))
                .unwrap_or_else(|| panic!("unknown error type in {e}")),
            field: e["field"].as_str().unwrap_or("").to_string(),
            contains: e.get("contains").and_then(Value::as_str).map(String::from),
        })
        .collect()
}

fn matches(e: &Expected, got: &crd_runtime::FieldError) -> bool {
    // Upstream's TypeInvalid renders as "Invalid value"; the tables keep the Go constant.
    let same_type = e.type_ == got.type_
        || (e.type_ == ErrorType::TypeInvalid && got.type_ == ErrorType::Invalid);
    same_type
        && e.field == got.field.as_str()
        && e.contains
            .as_ref()
            .is_none_or(|c| got.to_string().contains(c.as_str()))
}

/// Pairs expected and actual errors one to one. Returns (unmatched expected, unexpected actual).
pub fn pair_up<'a>(
    expected: &'a [Expected],
    got: &'a ErrorList,
) -> (Vec<&'a Expected>, Vec<String>) {
    let mut used = vec![false; got.len()];
    let mut missing = Vec::new();
    for e in expected {
        match got
            .iter()
            .enumerate()
            .position(|(i, g)| !used[i] && matches(e, g))
        {
            Some(i) => used[i] = true,
            None => missing.push(e),
        }
    }
    let extra = got
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|(g, _)| g.to_string())
        .collect();
    (missing, extra)
}

/// Builds options from an upstream `validationOptions` object (missing keys are false).
pub fn options_from(v: &Value) -> CheckOptions {
    let flag = |k: &str| v.get(k).and_then(Value::as_bool).unwrap_or(false);
    for key in v.as_object().into_iter().flatten().map(|(k, _)| k) {
        assert!(
            KNOWN_OPTIONS.contains(&key.as_str()),
            "conformance row uses an option the checker does not model: {key}"
        );
    }
    CheckOptions {
        allow_defaults: flag("allowDefaults"),
        require_recognized_conversion_review_version: flag(
            "requireRecognizedConversionReviewVersion",
        ),
        require_open_api_schema: flag("requireOpenAPISchema"),
        require_valid_property_type: flag("requireValidPropertyType"),
        require_structural_schema: flag("requireStructuralSchema"),
        require_pruned_defaults: flag("requirePrunedDefaults"),
        require_atomic_set_type: flag("requireAtomicSetType"),
        require_map_list_keys_map_set_validation: flag("requireMapListKeysMapSetValidation"),
        allow_nested_additional_properties: flag("allowNestedAdditionalProperties"),
        allow_validation_properties_with_additional_properties: flag(
            "allowValidationPropertiesWithAdditionalProperties",
        ),
        cel_environment_version: v
            .pointer("/celEnvironmentSet/celEnvironmentCompatibilityVersion")
            .and_then(Value::as_str)
            .map(|s| {
                let (major, minor) = s.split_once('.').expect("MAJOR.MINOR");
                (major.parse().unwrap(), minor.parse().unwrap())
            }),
        ..CheckOptions::default()
    }
}

/// Option keys the tables use. `celEnvironmentSet` (its compatibility version)
/// only matters to CEL rows.
const KNOWN_OPTIONS: [&str; 11] = [
    "allowDefaults",
    "requireRecognizedConversionReviewVersion",
    "requireOpenAPISchema",
    "requireValidPropertyType",
    "requireStructuralSchema",
    "requirePrunedDefaults",
    "requireAtomicSetType",
    "requireMapListKeysMapSetValidation",
    "allowNestedAdditionalProperties",
    "allowValidationPropertiesWithAdditionalProperties",
    "celEnvironmentSet",
];

/// Whether an expected error can only come from compiling or evaluating CEL:
/// rule/messageExpression compile and cost errors, `optionalOldSelf` misuse, the
/// whole-schema cost limit, and defaults that fail a CEL rule.
pub fn is_cel_derived(e: &Expected) -> bool {
    let f = e.field.as_str();
    let compiled = f.ends_with(".rule") || f.ends_with(".messageExpression");
    // An empty rule or messageExpression is a plain `Required value`, not CEL's.
    (compiled && e.type_ != ErrorType::Required)
        || f.ends_with(".optionalOldSelf")
        || (e.type_ == ErrorType::Forbidden && f.ends_with("openAPIV3Schema"))
        || f.contains(".default")
}
