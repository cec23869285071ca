//! CEL rules from the fuzzer, compiled against a schema with every kind of node and
//! run on an object: compile errors are clean, evaluation stays inside the cost
//! budget (so inside time), nothing panics.
//!
//! Input: the rule, a NUL byte, then the object as JSON (seeded with the rules of
//! the corpus and the conformance tables).
#![no_main]

use crd_runtime::engine::SchemaOptions;
use crd_runtime::{Engine, JSONSchemaProps};
use crd_toolkit_fuzz::MessageCheck;
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};

fn schema(rule: &str) -> Option<JSONSchemaProps> {
    serde_json::from_value(json!({
        "type": "object",
        "x-kubernetes-validations": [{"rule": rule}, {"rule": "true", "messageExpression": rule}],
        "properties": {
            "s": {"type": "string", "maxLength": 64},
            "free": {"type": "string"},
            "i": {"type": "integer"},
            "n": {"type": "number"},
            "b": {"type": "boolean"},
            "t": {"type": "string", "format": "date-time"},
            "d": {"type": "string", "format": "duration"},
            "q": {"x-kubernetes-int-or-string": true},
            "l": {"type": "array", "maxItems": 16, "items": {"type": "string", "maxLength": 16}},
            "big": {"type": "array", "items": {"type": "integer"}},
            "set": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "integer"}},
            "m": {"type": "object", "additionalProperties": {"type": "string"}},
            "objs": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                     "items": {"type": "object", "required": ["name"], "properties": {
                         "name": {"type": "string"}, "v": {"type": "integer"}}}},
            "any": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
            "nested": {"type": "object", "properties": {"a": {"type": "object", "properties": {
                "b": {"type": "string"}}}}}
        }
    }))
    .ok()
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (rule, object) = text.split_once('\0').unwrap_or((text, ""));
    let Some(schema) = schema(rule) else { return };
    let check = MessageCheck::new(data);
    let engine = match Engine::for_schema(&schema, SchemaOptions::default()) {
        Ok(e) => e,
        Err(e) => return check.assert_clean(&e.to_string()),
    };
    for problem in engine.rule_problems() {
        check.assert_clean(
            &problem
                .to_field_error(&crd_runtime::Path::root())
                .to_string(),
        );
    }
    let mut value = serde_json::from_str::<Value>(object)
        .unwrap_or_else(|_| json!({"s": "abc", "i": 3, "l": ["a", "b"], "m": {"k": "v"}, "objs": [{"name": "x", "v": 1}]}));
    if let Err(errors) = engine.admit(&mut value) {
        for e in errors.0 {
            check.assert_clean(&e.to_string());
        }
    }
});
