//! OpenAPI documents published from the CRD schemas, as the API server publishes them:
//! `/openapi/v3` (an index of group-version documents) and `/openapi/v3/{api|apis/g}/{v}`,
//! and `/openapi/v2` (one Swagger document, schemas made expressible in v2: junctors
//! dropped, `nullable` fields without type). kubectl reads them for `kubectl explain`,
//! to learn that the server validates fields itself (`fieldValidation` on PATCH), and
//! for the built-in kinds the patch strategies and merge keys of their fields
//! (`x-kubernetes-patch-strategy`, `x-kubernetes-patch-merge-key`), from which `kubectl
//! apply` and `kubectl edit` compute strategic merge patches.

use std::hash::{Hash, Hasher};

use serde_json::{Map, Value, json};

use super::patch::{OBJECT_META, annotate_openapi};
use super::registry::Registry;

/// One resource's entry in a document.
struct Entry {
    group: String,
    version: String,
    plural: String,
    kind: String,
    namespaced: bool,
    status: bool,
    scale: bool,
    schema: Value,
    /// The definition whose patch metadata strategic merge patches follow, if any.
    strategic: Option<&'static str>,
}

fn schema_name(group: &str, version: &str, kind: &str) -> String {
    if group.is_empty() {
        return format!("io.k8s.api.core.{version}.{kind}");
    }
    let reversed: Vec<&str> = group.split('.').rev().collect();
    format!("{}.{version}.{kind}", reversed.join("."))
}

fn object_meta() -> Value {
    let s = |d: &str| json!({"type": "string", "description": d});
    let mut meta = json!({
        "description": "ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.",
        "type": "object",
        "properties": {
            "name": s("Name must be unique within a namespace. Cannot be updated."),
            "generateName": s("GenerateName is an optional prefix, used by the server, to generate a unique name ONLY IF the Name field has not been provided."),
            "namespace": s("Namespace defines the space within which each name must be unique."),
            "uid": s("UID is the unique in time and space value for this object."),
            "resourceVersion": s("An opaque value that represents the internal version of this object."),
            "generation": {"type": "integer", "format": "int64", "description": "A sequence number representing a specific generation of the desired state."},
            "creationTimestamp": {"type": "string", "format": "date-time", "description": "CreationTimestamp is a timestamp representing the server time when this object was created."},
            "deletionTimestamp": {"type": "string", "format": "date-time", "description": "DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted."},
            "deletionGracePeriodSeconds": {"type": "integer", "format": "int64", "description": "Number of seconds allowed for this object to gracefully terminate."},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Map of string keys and values that can be used to organize and categorize objects."},
            "annotations": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Annotations is an unstructured key value map stored with a resource."},
            "finalizers": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set", "description": "Must be empty before the object is deleted from the registry."},
            "ownerReferences": {"type": "array", "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}, "description": "List of objects depended by this object."},
            "managedFields": {"type": "array", "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}, "description": "ManagedFields maps workflow-id and version to the set of fields that are managed by that workflow."},
        },
    });
    annotate_openapi(&mut meta, OBJECT_META);
    meta
}

fn list_meta() -> Value {
    json!({"description": "ListMeta describes metadata that synthetic resources must have.", "type": "object",
           "properties": {"resourceVersion": {"type": "string"}, "continue": {"type": "string"},
                          "remainingItemCount": {"type": "integer", "format": "int64"}}})
}

/// Makes a schema expressible in OpenAPI v2.
fn to_v2(schema: &mut Value) {
    let Value::Object(map) = schema else { return };
    for junctor in ["allOf", "anyOf", "oneOf", "not"] {
        map.remove(junctor);
    }
    if map.remove("nullable") == Some(Value::Bool(true)) {
        for k in ["type", "items", "properties", "additionalProperties"] {
            map.remove(k);
        }
    }
    for key in ["properties", "patternProperties"] {
        if let Some(Value::Object(props)) = map.get_mut(key) {
            props.values_mut().for_each(to_v2);
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(child) = map.get_mut(key) {
            to_v2(child);
        }
    }
}

fn root_schema(entry: &Entry, refs: &str) -> Value {
    let mut schema = entry.schema.clone();
    if !schema.is_object() {
        schema = json!({"type": "object"});
    }
    if let Some(definition) = entry.strategic {
        annotate_openapi(&mut schema, definition);
    }
    let props = schema
        .as_object_mut()
        .map(|m| m.entry("properties").or_insert_with(|| json!({})))
        .and_then(Value::as_object_mut);
    if let Some(props) = props {
        props.insert("apiVersion".into(), json!({"type": "string", "description": "APIVersion defines the versioned schema of this representation of an object."}));
        props.insert("kind".into(), json!({"type": "string", "description": "Kind is a string value representing the REST resource this object represents."}));
        let meta_ref = format!("{refs}io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
        props.insert("metadata".into(), json!({"allOf": [{"$ref": meta_ref}],
            "description": "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"}));
    }
    schema["x-kubernetes-group-version-kind"] =
        json!([{"group": entry.group, "version": entry.version, "kind": entry.kind}]);
    schema
}

fn operation(
    entry: &Entry,
    action: &str,
    kind: &str,
    body_ref: Option<&str>,
    resp_ref: &str,
    v3: bool,
) -> Value {
    let mut params = vec![];
    if matches!(action, "post" | "put" | "patch") {
        for (name, desc) in [
            (
                "dryRun",
                "When present, indicates that modifications should not be persisted.",
            ),
            (
                "fieldManager",
                "fieldManager is a name associated with the actor or entity that is making these changes.",
            ),
            (
                "fieldValidation",
                "fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields. Valid values are: Ignore, Warn, Strict.",
            ),
        ] {
            params.push(json!({"name": name, "in": "query", "description": desc, "schema": {"type": "string"}, "type": "string", "uniqueItems": true}));
        }
    }
    let gv_op = format!("{action}{}", kind);
    let content = |r: &str| {
        if v3 {
            json!({"content": {"application/json": {"schema": {"$ref": r}}}})
        } else {
            json!({"schema": {"$ref": r}})
        }
    };
    let mut op = json!({
        "operationId": gv_op,
        "parameters": params,
        "responses": {"200": {"description": "OK"}},
        "x-kubernetes-action": action,
        "x-kubernetes-group-version-kind": {"group": entry.group, "version": entry.version, "kind": entry.kind},
    });
    let mut ok = content(resp_ref);
    ok["description"] = json!("OK");
    op["responses"]["200"] = ok;
    if let Some(body) = body_ref {
        if v3 {
            let mut rb = json!({"content": {}, "required": true});
            let media = if action == "patch" {
                let mut media = vec![
                    "application/json-patch+json",
                    "application/merge-patch+json",
                    "application/apply-patch+yaml",
                ];
                if entry.strategic.is_some() {
                    media.push("application/strategic-merge-patch+json");
                }
                media
            } else {
                vec!["application/json", "application/yaml"]
            };
            for m in media {
                rb["content"][m] = json!({"schema": {"$ref": body}});
            }
            op["requestBody"] = rb;
        } else if let Some(params) = op["parameters"].as_array_mut() {
            params.push(
                json!({"name": "body", "in": "body", "required": true, "schema": {"$ref": body}}),
            );
        }
    }
    op
}

fn paths(entry: &Entry, refs: &str, v3: bool, out: &mut Map<String, Value>) {
    let base = if entry.group.is_empty() {
        format!("/api/{}", entry.version)
    } else {
        format!("/apis/{}/{}", entry.group, entry.version)
    };
    let name = schema_name(&entry.group, &entry.version, &entry.kind);
    let obj_ref = format!("{refs}{name}");
    let list_ref = format!("{refs}{name}List");
    let scope = if entry.namespaced { "Namespaced" } else { "" };
    let collection = if entry.namespaced {
        format!("{base}/namespaces/{{namespace}}/{}", entry.plural)
    } else {
        format!("{base}/{}", entry.plural)
    };
    let item = format!("{collection}/{{name}}");
    let k = format!("{scope}{}", entry.kind);
    out.insert(
        collection.clone(),
        json!({
            "get": operation(entry, "list", &k, None, &list_ref, v3),
            "post": operation(entry, "post", &k, Some(&obj_ref), &obj_ref, v3),
            "delete": operation(entry, "deletecollection", &k, None, &list_ref, v3),
        }),
    );
    out.insert(
        item.clone(),
        json!({
            "get": operation(entry, "get", &k, None, &obj_ref, v3),
            "put": operation(entry, "put", &k, Some(&obj_ref), &obj_ref, v3),
            "patch": operation(entry, "patch", &k, Some(&obj_ref), &obj_ref, v3),
            "delete": operation(entry, "delete", &k, None, &obj_ref, v3),
        }),
    );
    if entry.status {
        out.insert(format!("{item}/status"), json!({
            "get": operation(entry, "get", &format!("{k}Status"), None, &obj_ref, v3),
            "put": operation(entry, "put", &format!("{k}Status"), Some(&obj_ref), &obj_ref, v3),
            "patch": operation(entry, "patch", &format!("{k}Status"), Some(&obj_ref), &obj_ref, v3),
        }));
    }
    if entry.scale {
        let scale_ref = format!("{refs}io.k8s.api.autoscaling.v1.Scale");
        out.insert(format!("{item}/scale"), json!({
            "get": operation(entry, "get", &format!("{k}Scale"), None, &scale_ref, v3),
            "put": operation(entry, "put", &format!("{k}Scale"), Some(&scale_ref), &scale_ref, v3),
            "patch": operation(entry, "patch", &format!("{k}Scale"), Some(&scale_ref), &scale_ref, v3),
        }));
    }
    if entry.namespaced {
        out.insert(format!("{base}/{}", entry.plural), json!({"get": operation(entry, "list", &format!("{}ForAllNamespaces", entry.kind), None, &list_ref, v3)}));
    }
}

fn definitions(entry: &Entry, refs: &str, v3: bool, out: &mut Map<String, Value>) {
    let name = schema_name(&entry.group, &entry.version, &entry.kind);
    let mut schema = root_schema(entry, refs);
    if !v3 {
        to_v2(&mut schema);
    }
    out.insert(name.clone(), schema);
    out.insert(format!("{name}List"), json!({
        "type": "object", "required": ["items"],
        "description": format!("{}List is a list of {}", entry.kind, entry.kind),
        "properties": {
            "apiVersion": {"type": "string"}, "kind": {"type": "string"},
            "items": {"type": "array", "items": {"$ref": format!("{refs}{name}")}},
            "metadata": {"allOf": [{"$ref": format!("{refs}io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta")}]},
        },
        "x-kubernetes-group-version-kind": [{"group": entry.group, "version": entry.version, "kind": format!("{}List", entry.kind)}],
    }));
    out.insert(
        "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta".into(),
        object_meta(),
    );
    out.insert(
        "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta".into(),
        list_meta(),
    );
    if entry.scale {
        out.insert("io.k8s.api.autoscaling.v1.Scale".into(), json!({
            "type": "object", "description": "Scale represents a scaling request for a resource.",
            "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"},
                "metadata": {"allOf": [{"$ref": format!("{refs}io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")}]},
                "spec": {"type": "object", "properties": {"replicas": {"type": "integer", "format": "int32"}}},
                "status": {"type": "object", "properties": {"replicas": {"type": "integer", "format": "int32"}, "selector": {"type": "string"}}}},
            "x-kubernetes-group-version-kind": [{"group": "autoscaling", "version": "v1", "kind": "Scale"}],
        }));
    }
}

/// The entries of the served resources `wanted` picks (schemas are built only for them).
fn entries(registry: &Registry, wanted: impl Fn(&super::kinds::KindInfo) -> bool) -> Vec<Entry> {
    registry
        .resources()
        .iter()
        .filter(|r| wanted(r.info()))
        .map(|r| {
            let info = r.info();
            Entry {
                group: info.q.group.clone(),
                version: info.version.clone(),
                plural: info.q.plural.clone(),
                kind: info.q.kind.clone(),
                namespaced: info.namespaced,
                status: info.has_status(),
                scale: info.scale.is_some(),
                schema: r.openapi_schema(),
                strategic: r.strategic_merge_definition(),
            }
        })
        .collect()
}

fn gv_key(group: &str, version: &str) -> String {
    if group.is_empty() {
        format!("api/{version}")
    } else {
        format!("apis/{group}/{version}")
    }
}

/// One OpenAPI v3 document for a group-version (`api/v1`, `apis/g/v`), if served.
pub fn v3_document(registry: &Registry, gv: &str) -> Option<Value> {
    let refs = "#/components/schemas/";
    let (mut p, mut d) = (Map::new(), Map::new());
    for e in &entries(registry, |i| gv_key(&i.q.group, &i.version) == gv) {
        paths(e, refs, true, &mut p);
        definitions(e, refs, true, &mut d);
    }
    if p.is_empty() {
        return None;
    }
    Some(
        json!({"openapi": "3.0.0", "info": {"title": "Kubernetes", "version": format!("v{}.0", registry.kube_version())},
                "paths": p, "components": {"schemas": d}}),
    )
}

/// The `/openapi/v3` index, each entry with the hash of its document; computed once
/// per set of served kinds (hashing every document is the costly part).
pub fn v3_index(registry: &Registry) -> Value {
    registry.memo_openapi_index(|| {
        let mut gvs: Vec<String> = registry
            .resources()
            .iter()
            .map(|r| gv_key(&r.info().q.group, &r.info().version))
            .collect();
        gvs.sort();
        gvs.dedup();
        let mut paths = Map::new();
        for gv in gvs {
            let doc = v3_document(registry, &gv).unwrap_or(Value::Null);
            let mut h = std::collections::hash_map::DefaultHasher::new();
            doc.to_string().hash(&mut h);
            paths.insert(
                gv.clone(),
                json!({"serverRelativeURL": format!("/openapi/v3/{gv}?hash={:016X}", h.finish())}),
            );
        }
        json!({"paths": paths})
    })
}

/// The `/openapi/v2` document.
pub fn v2_document(registry: &Registry) -> Value {
    let refs = "#/definitions/";
    let (mut p, mut d) = (Map::new(), Map::new());
    for e in entries(registry, |_| true) {
        paths(&e, refs, false, &mut p);
        definitions(&e, refs, false, &mut d);
    }
    json!({"swagger": "2.0", "info": {"title": "Kubernetes", "version": format!("v{}.0", registry.kube_version())}, "paths": p, "definitions": d})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v2_drops_what_it_cannot_express() {
        let mut s = json!({"type": "object", "properties": {
            "a": {"type": "string", "nullable": true},
            "b": {"type": "integer", "anyOf": [{"minimum": 1}], "oneOf": [{"maximum": 3}]},
        }});
        to_v2(&mut s);
        assert_eq!(
            s,
            json!({"type": "object", "properties": {"a": {}, "b": {"type": "integer"}}})
        );
    }

    #[test]
    fn schema_names_reverse_the_group() {
        assert_eq!(
            schema_name("stable.example.com", "v1", "CronTab"),
            "com.example.stable.v1.CronTab"
        );
    }
}
