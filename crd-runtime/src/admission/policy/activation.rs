//! The values admission expressions see (`evaluationActivation`): `object`,
//! `oldObject`, `request` (`CreateAdmissionRequest`), `params`, `namespaceObject`
//! (`CreateNamespaceObject`), `authorizer`. Absent objects are `null`.

use kube_cel::cel::Context;
use kube_cel::cel::objects::Value as Cel;
use serde_json::{Map, Value, json};

use super::Input;
use crate::admission::Attributes;
use crate::admission::matching::Invocation;
use crate::cel::{authorizer_value, from_json};

// cel's contexts convert a variable into its evaluation form when it is added, a
// deep copy: the values are added to layered scopes once (per request, per
// invocation, per parameter object) and every expression evaluates in a child.

/// Which activation values a policy's expressions name; the others are not
/// built (no expression can read a value it does not name).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Needs(u8);

impl Needs {
    pub(super) const OBJECT: Needs = Needs(1);
    pub(super) const OLD_OBJECT: Needs = Needs(2);
    pub(super) const REQUEST: Needs = Needs(4);
    pub(super) const PARAMS: Needs = Needs(8);
    pub(super) const NAMESPACE_OBJECT: Needs = Needs(16);
    pub(super) const AUTHORIZER: Needs = Needs(32);

    /// The value an identifier names, if any.
    pub(super) fn of_name(name: &str) -> Needs {
        match name {
            "object" => Self::OBJECT,
            "oldObject" => Self::OLD_OBJECT,
            "request" => Self::REQUEST,
            "params" => Self::PARAMS,
            "namespaceObject" => Self::NAMESPACE_OBJECT,
            "authorizer" => Self::AUTHORIZER,
            _ => Needs(0),
        }
    }

    pub(super) fn union(self, other: Needs) -> Needs {
        Needs(self.0 | other.0)
    }

    pub(super) fn has(self, value: Needs) -> bool {
        self.0 & value.0 == value.0
    }
}

fn or_null(v: Option<&Value>) -> Cel {
    v.filter(|v| !v.is_null()).map_or(Cel::Null, from_json)
}

/// The request's layer: `object`, `oldObject`, `namespaceObject`, `authorizer`
/// (those in `needs`).
pub(super) fn request_scope<'r>(
    parent: &'r Context<'r>,
    attrs: &Attributes,
    namespace: Option<&Value>,
    needs: Needs,
) -> Context<'r> {
    let mut ctx = parent.new_inner_scope();
    if needs.has(Needs::OBJECT) {
        ctx.add_variable_from_value("object", or_null(attrs.object.as_ref()));
    }
    if needs.has(Needs::OLD_OBJECT) {
        ctx.add_variable_from_value("oldObject", or_null(attrs.old_object.as_ref()));
    }
    if needs.has(Needs::NAMESPACE_OBJECT) {
        let namespace = namespace.map(namespace_object);
        ctx.add_variable_from_value("namespaceObject", or_null(namespace.as_ref()));
    }
    if needs.has(Needs::AUTHORIZER) {
        let request = crate::cel::AuthorizerRequest {
            user: crate::rbac::UserInfo {
                name: attrs.user.username.clone(),
                uid: attrs.user.uid.clone(),
                groups: attrs.user.groups.clone(),
                extra: attrs.user.extra.clone(),
            },
            group: &attrs.resource.group,
            resource: &attrs.resource.resource,
            subresource: &attrs.subresource,
            namespace: &attrs.namespace,
            name: &attrs.name,
        };
        ctx.add_variable_from_value("authorizer", authorizer_value(&request));
    }
    ctx
}

/// The layer of one invocation: `request`, with the kind and resource as matched.
pub(super) fn invocation_scope<'r>(
    parent: &'r Context<'r>,
    attrs: &Attributes,
    invocation: Option<&Invocation>,
) -> Context<'r> {
    let mut ctx = parent.new_inner_scope();
    let input = Input {
        attrs,
        invocation,
        namespace: None,
        params: None,
    };
    ctx.add_variable_from_value("request", from_json(&request(&input)));
    ctx
}

/// The layer of one parameter object: `params` (null without one).
pub(super) fn params_scope<'r>(parent: &'r Context<'r>, params: Option<&Value>) -> Context<'r> {
    let mut ctx = parent.new_inner_scope();
    ctx.add_variable_from_value("params", or_null(params));
    ctx
}

/// The layer match conditions see: `namespaceObject` null, as kube-apiserver
/// leaves it there.
pub(super) fn conditions_scope<'r>(parent: &'r Context<'r>) -> Context<'r> {
    let mut ctx = parent.new_inner_scope();
    ctx.add_variable_from_value("namespaceObject", Cel::Null);
    ctx
}

/// Runs `f` with the layers of `input` (the values in `needs`; not `variables`)
/// over this thread's root context.
pub(super) fn with_input<T>(input: &Input, needs: Needs, f: impl FnOnce(&Context) -> T) -> T {
    crate::cel::with_root(|root| {
        let base = request_scope(root, input.attrs, input.namespace, needs);
        let invoked;
        let mut scope = &base;
        if needs.has(Needs::REQUEST) {
            invoked = invocation_scope(scope, input.attrs, input.invocation);
            scope = &invoked;
        }
        let params;
        if needs.has(Needs::PARAMS) {
            params = params_scope(scope, input.params);
            scope = &params;
        }
        f(scope)
    })
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
