//! The values admission expressions see (`evaluationActivation`): `object`,
//! `oldObject`, `request` (`CreateAdmissionRequest`), `params`, `namespaceObject`
//! (`CreateNamespaceObject`), `authorizer`. Absent objects are `null`.

use kube_cel::cel::objects::Value as Cel;
use serde_json::{Map, Value, json};

use super::Input;
use crate::cel::{authorizer_value, from_json};

/// The base variables of one evaluation (everything but `variables`).
pub(super) struct Activation {
    pub(super) values: Vec<(&'static str, Cel)>,
}

impl Activation {
    /// The activation for `input`; `with_namespace: false` leaves `namespaceObject`
    /// null, as match conditions see it.
    pub(super) fn new(input: &Input, with_namespace: bool) -> Activation {
        let attrs = input.attrs;
        let or_null = |v: Option<&Value>| v.filter(|v| !v.is_null()).map_or(Cel::Null, from_json);
        let namespace = if with_namespace {
            input.namespace.map(namespace_object)
        } else {
            None
        };
        Activation {
            values: vec![
                ("object", or_null(attrs.object.as_ref())),
                ("oldObject", or_null(attrs.old_object.as_ref())),
                ("request", from_json(&request(input))),
                ("params", or_null(input.params)),
                ("namespaceObject", or_null(namespace.as_ref())),
                ("authorizer", authorizer_value()),
            ],
        }
    }
}

fn put(m: &mut Map<String, Value>, k: &str, v: &str) {
    // `omitempty` strings of the Go types are absent when empty.
    if !v.is_empty() {
        m.insert(k.into(), Value::String(v.into()));
    }
}

/// `CreateAdmissionRequest` as JSON: `kind`/`resource` as matched, `request*` the
/// request's own; empty strings omitted as Go omits them.
pub(super) fn request(input: &Input) -> Value {
    let a = input.attrs;
    let (kind, resource) = match input.invocation {
        Some(i) => (&i.kind, &i.resource),
        None => (&a.kind, &a.resource),
    };
    let gvk = |k: &crate::admission::GroupVersionKind| json!({"group": k.group, "version": k.version, "kind": k.kind});
    let gvr = |r: &crate::admission::GroupVersionResource| json!({"group": r.group, "version": r.version, "resource": r.resource});
    let mut m = Map::new();
    m.insert("uid".into(), json!(""));
    m.insert("kind".into(), gvk(kind));
    m.insert("resource".into(), gvr(resource));
    put(&mut m, "subResource", &a.subresource);
    m.insert("requestKind".into(), gvk(&a.kind));
    m.insert("requestResource".into(), gvr(&a.resource));
    put(&mut m, "requestSubResource", &a.subresource);
    put(&mut m, "name", &a.name);
    put(&mut m, "namespace", &a.namespace);
    m.insert("operation".into(), json!(a.op().as_str()));
    let mut user = Map::new();
    put(&mut user, "username", &a.user.username);
    put(&mut user, "uid", &a.user.uid);
    if !a.user.groups.is_empty() {
        user.insert("groups".into(), json!(a.user.groups));
    }
    if !a.user.extra.is_empty() {
        user.insert("extra".into(), json!(a.user.extra));
    }
    m.insert("userInfo".into(), Value::Object(user));
    m.insert("dryRun".into(), json!(a.dry_run));
    if let Some(o) = &a.options {
        m.insert("options".into(), o.clone());
    }
    Value::Object(m)
}

/// `CreateNamespaceObject`: the namespace's spec, status and the metadata fields
/// kube-apiserver copies (no managedFields, owner references, …).
pub(super) fn namespace_object(ns: &Value) -> Value {
    let mut out = Map::new();
    for f in ["spec", "status"] {
        if let Some(v) = ns.get(f) {
            out.insert(f.into(), v.clone());
        }
    }
    let mut meta = Map::new();
    if let Some(Value::Object(m)) = ns.get("metadata") {
        for f in [
            "name",
            "generateName",
            "namespace",
            "uid",
            "resourceVersion",
            "generation",
            "creationTimestamp",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
            "labels",
            "annotations",
            "finalizers",
        ] {
            if let Some(v) = m.get(f) {
                meta.insert(f.into(), v.clone());
            }
        }
    }
    out.insert("metadata".into(), Value::Object(meta));
    Value::Object(out)
}
