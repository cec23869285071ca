//! What admission expressions may refer to (`k8s.io/apiserver/pkg/admission/plugin/cel`
//! `OptionalVariableDeclarations`): `object`, `oldObject` (dynamic), `request`
//! (`kubernetes.AdmissionRequest`), `namespaceObject` (`kubernetes.Namespace`),
//! `params` when the policy has a `paramKind`, `authorizer` and
//! `authorizer.requestResource` with the authorizer library where the host
//! declares them, and `variables` with the policy's composited variables.

use std::sync::{Arc, OnceLock};

use serde_json::{Value, json};

use crate::cel::{CelSchema, DeclType, Declarations, authz_builders};
use crate::model::JSONSchemaProps;

fn schema(value: Value) -> Arc<CelSchema> {
    let props: JSONSchemaProps = serde_json::from_value(value).unwrap_or_default();
    CelSchema::new(&props)
}

fn object(props: Value) -> Value {
    json!({"type": "object", "properties": props})
}

fn string() -> Value {
    json!({"type": "string"})
}

/// `BuildRequestType`: the request without `uid`, `object`, `oldObject`.
fn request() -> Arc<CelSchema> {
    static SCHEMA: OnceLock<Arc<CelSchema>> = OnceLock::new();
    SCHEMA
        .get_or_init(|| {
            let gvk = object(json!({"group": string(), "version": string(), "kind": string()}));
            let gvr = object(json!({"group": string(), "version": string(), "resource": string()}));
            let strings = json!({"type": "array", "items": string()});
            let user = object(json!({
                "username": string(), "uid": string(), "groups": strings,
                "extra": {"type": "object", "additionalProperties": strings},
            }));
            schema(object(json!({
                "kind": gvk, "resource": gvr, "subResource": string(),
                "requestKind": gvk, "requestResource": gvr, "requestSubResource": string(),
                "name": string(), "namespace": string(), "operation": string(),
                "userInfo": user, "dryRun": {"type": "boolean"},
                "options": {"x-kubernetes-preserve-unknown-fields": true},
            })))
        })
        .clone()
}

/// `BuildNamespaceType`.
fn namespace() -> Arc<CelSchema> {
    static SCHEMA: OnceLock<Arc<CelSchema>> = OnceLock::new();
    SCHEMA
        .get_or_init(|| {
            let strings = json!({"type": "array", "items": string()});
            let string_map = json!({"type": "object", "additionalProperties": string()});
            let time = json!({"type": "string", "format": "date-time"});
            let int = json!({"type": "integer"});
            let condition = object(json!({
                "status": string(), "type": string(), "lastTransitionTime": time,
                "message": string(), "reason": string(),
            }));
            schema(object(json!({
                "metadata": object(json!({
                    "name": string(), "generateName": string(), "namespace": string(),
                    "labels": string_map, "annotations": string_map, "UID": string(),
                    "creationTimestamp": time, "deletionGracePeriodSeconds": int,
                    "deletionTimestamp": time, "generation": int,
                    "resourceVersion": string(), "finalizers": strings,
                })),
                "spec": object(json!({"finalizers": strings})),
                "status": object(json!({
                    "conditions": {"type": "array", "items": condition},
                    "phase": string(),
                })),
            })))
        })
        .clone()
}

/// The authorizer library (`library.Authz`, with field and label selectors).
fn authorizer(d: Declarations) -> Declarations {
    let d = d
        .variable("authorizer", DeclType::Opaque)
        .variable("authorizer.requestResource", DeclType::Opaque);
    let d = authz_builders()
        .chain(["check"])
        .fold(d, |d, f| d.function(f, DeclType::Opaque));
    d.function("allowed", DeclType::Bool)
        .function("errored", DeclType::Bool)
        .function("reason", DeclType::String)
        .function("error", DeclType::String)
}

/// The declarations of an admission expression: `params` when the policy has a
/// `paramKind`, the authorizer library with `authorizer` (not in message
/// expressions), and `variables` with the names of the policy's variables declared
/// before it (`None`: the policy has none).
pub fn admission_declarations(
    params: bool,
    with_authorizer: bool,
    variables: Option<&[String]>,
) -> Declarations {
    typed_declarations(params, with_authorizer, variables, None)
}

/// [`admission_declarations`] with `object` and `oldObject` typed by `object`'s
/// schema (type checking against a matched kind).
pub(super) fn typed_declarations(
    params: bool,
    with_authorizer: bool,
    variables: Option<&[String]>,
    object_schema: Option<&Arc<CelSchema>>,
) -> Declarations {
    let typed = || object_schema.map_or(DeclType::Dyn, |s| DeclType::Object(s.clone()));
    let mut d = Declarations::new()
        .variable("object", typed())
        .variable("oldObject", typed())
        .variable("request", DeclType::Object(request()))
        .variable("namespaceObject", DeclType::Object(namespace()));
    if params {
        d = d.variable("params", DeclType::Dyn);
    }
    if with_authorizer {
        d = authorizer(d);
    }
    if let Some(names) = variables {
        let fields: serde_json::Map<String, Value> =
            names.iter().map(|n| (n.clone(), json!({}))).collect();
        d = d.variable("variables", DeclType::Object(schema(object(fields.into()))));
    }
    d
}
