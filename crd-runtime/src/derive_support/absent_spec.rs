//! A root's `spec` absent on the wire, read as `{}` with the spec schema's defaults (what
//! `#[derive(CustomResource)]`'s `Deserialize` calls): through the engine with feature
//! `engine`, through a walk of the schema without it.

/// Deserializes a root's `spec` that is absent on the wire: `{}` with the spec
/// schema's defaults applied. The API server stores an object without `spec` when
/// no spec field is required, and applies no defaults inside a spec that is not
/// there; fields relying on those defaults would make such an object unreadable
/// (found by fuzzing `typed = dynamic`).
pub fn deserialize_absent_spec<R, T, E>() -> Result<T, E>
where
    R: super::CustomResourceExt,
    T: serde::de::DeserializeOwned,
    E: serde::de::Error,
{
    let mut object = serde_json::json!({"spec": {}});
    #[cfg(feature = "engine")]
    if let Ok(engine) = R::engine() {
        engine.default(&mut object);
    }
    #[cfg(not(feature = "engine"))]
    if let Some(schema) = R::crd()
        .spec
        .versions
        .first()
        .and_then(|v| v.schema.as_ref())
    {
        if let Some(root) = &schema.open_api_v3_schema {
            default_missing(&mut object, root);
        }
    }
    T::deserialize(object["spec"].take()).map_err(E::custom)
}

/// The API server's defaulting as far as a value built from nothing needs it (without
/// feature `engine`): a missing property with a `default` gets it, then every present
/// property, map value and item is defaulted by its own schema. Structural schemas keep
/// defaults nowhere else (not under `allOf`/`anyOf`/`oneOf`/`not`).
#[cfg(any(test, not(feature = "engine")))]
fn default_missing(value: &mut serde_json::Value, schema: &crate::model::JSONSchemaProps) {
    use crate::model::{JSONSchemaPropsOrArray, JSONSchemaPropsOrBool};
    match value {
        serde_json::Value::Object(map) => {
            if let Some(properties) = &schema.properties {
                for (key, property) in properties {
                    if let (false, Some(default)) = (map.contains_key(key), &property.default) {
                        map.insert(key.clone(), default.clone());
                    }
                }
            }
            for (key, child) in map.iter_mut() {
                let own = schema.properties.as_ref().and_then(|p| p.get(key));
                let extra = match schema.additional_properties.as_deref() {
                    Some(JSONSchemaPropsOrBool::Schema(s)) => Some(s),
                    _ => None,
                };
                if let Some(child_schema) = own.map(|b| &**b).or(extra) {
                    default_missing(child, child_schema);
                }
            }
        }
        serde_json::Value::Array(items) => {
            if let Some(JSONSchemaPropsOrArray::Schema(item)) = schema.items.as_deref() {
                for child in items {
                    default_missing(child, item);
                }
            }
        }
        _ => {}
    }
}

#[cfg(all(test, feature = "engine"))]
mod tests {
    use super::*;

    /// The derive-only defaulting of an absent spec gives what the engine's does.
    #[test]
    fn absent_spec_defaults_as_the_engine_does() {
        let spec = serde_json::json!({
            "type": "object",
            "properties": {
                "replicas": {"type": "integer", "default": 1},
                "name": {"type": "string"},
                "image": {"type": "object", "default": {},
                    "properties": {
                        "pull": {"type": "string", "default": "IfNotPresent"},
                        "tag": {"type": "string"}
                    }},
                "ports": {"type": "array", "default": [{"name": "http"}],
                    "items": {"type": "object", "properties": {
                        "name": {"type": "string"},
                        "port": {"type": "integer", "default": 80}
                    }}},
                "limits": {"type": "object", "default": {"cpu": {}},
                    "additionalProperties": {"type": "object", "properties": {
                        "amount": {"type": "string", "default": "1"}
                    }}},
                "untouched": {"type": "object", "properties": {
                    "deep": {"type": "string", "default": "x"}
                }}
            }
        });
        let crd = crate::model::crontab_crd(serde_json::json!([{
            "name": "v1", "served": true, "storage": true,
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": spec}}}
        }]));
        let engine = crate::Engine::for_crd(&crd, "v1").expect("the schema compiles");
        let mut by_engine = serde_json::json!({"spec": {}});
        engine.default(&mut by_engine);
        let mut by_schema = serde_json::json!({"spec": {}});
        let root = crd.spec.versions[0]
            .schema
            .as_ref()
            .and_then(|s| s.open_api_v3_schema.as_ref());
        default_missing(&mut by_schema, root.expect("a schema"));
        assert_eq!(by_schema, by_engine);
        assert_eq!(by_schema["spec"]["limits"]["cpu"]["amount"], "1");
        assert_eq!(by_schema["spec"]["ports"][0]["port"], 80);
    }
}
