//! The authorizer library of admission expressions (`library.Authz`): `authorizer`
//! and `authorizer.requestResource` build checks as kube-apiserver's do
//! (`path`, `group`, `serviceAccount` on the authorizer; `resource` on a group check;
//! `subresource`, `namespace`, `name`, `fieldSelector`, `labelSelector` on a resource
//! check), and `check(verb)` asks the host's authorizer
//! ([`crate::rbac::with_authorizer`]) for the request's user — or the service
//! account `serviceAccount(ns, name)` named — giving a decision with `allowed()`,
//! `reason()`, `errored()` and `error()`. Without an authorizer (offline) every check
//! is allowed with an empty reason.

use std::sync::Arc;

use kube_cel::cel::extractors::{Arguments, This};
use kube_cel::cel::objects::{Key, Map, Opaque, Value};
use kube_cel::cel::{Context, ExecutionError, ResolveResult};

use crate::cel::environment::releases::authz_builders;
use crate::rbac::{Attributes, UserInfo};
use crate::rbac::{Authorize, AuthzDecision};

/// The key of the `authorizer` map holding the authorizer itself (the map's only
/// other key is `requestResource`; no expression can name this one by selection).
const SELF_KEY: &str = "\u{0}authorizer";

/// Which value a check is (`kubernetes.authorization.*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    Authorizer,
    Path,
    Group,
    Resource,
}

impl Stage {
    fn type_name(self) -> &'static str {
        match self {
            Stage::Authorizer => "kubernetes.authorization.Authorizer",
            Stage::Path => "kubernetes.authorization.PathCheck",
            Stage::Group => "kubernetes.authorization.GroupCheck",
            Stage::Resource => "kubernetes.authorization.ResourceCheck",
        }
    }
}

/// A check being built, with the user it is made for and who answers it.
#[derive(Clone)]
struct Check {
    stage: Stage,
    user: UserInfo,
    authz: Option<Arc<dyn Authorize>>,
    path: String,
    group: String,
    resource: String,
    subresource: String,
    namespace: String,
    name: String,
}

impl std::fmt::Debug for Check {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.stage.type_name())
    }
}

impl PartialEq for Check {
    fn eq(&self, other: &Self) -> bool {
        let same_authz = match (&self.authz, &other.authz) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        same_authz
            && self.stage == other.stage
            && self.user == other.user
            && (&self.path, &self.group, &self.resource)
                == (&other.path, &other.group, &other.resource)
            && (&self.subresource, &self.namespace, &self.name)
                == (&other.subresource, &other.namespace, &other.name)
    }
}

impl Eq for Check {}

impl Opaque for Check {
    fn runtime_type_name(&self) -> &str {
        self.stage.type_name()
    }
}

/// The outcome of `check(verb)`.
#[derive(Debug, PartialEq, Eq)]
struct Decision(AuthzDecision);

impl Opaque for Decision {
    fn runtime_type_name(&self) -> &str {
        "kubernetes.authorization.Decision"
    }
}

/// The request a policy evaluates, as the `authorizer` variable needs it.
pub(crate) struct RequestOf<'a> {
    pub user: UserInfo,
    pub group: &'a str,
    pub resource: &'a str,
    pub subresource: &'a str,
    pub namespace: &'a str,
    pub name: &'a str,
}

/// The value of the `authorizer` variable for a request, answered by the host's
/// authorizer on this thread (if any): selecting `requestResource` gives the check of
/// the request's own resource.
pub(crate) fn authorizer_value(request: &RequestOf<'_>) -> Value {
    let root = Check {
        stage: Stage::Authorizer,
        user: request.user.clone(),
        authz: crate::rbac::authorize::current(),
        path: String::new(),
        group: String::new(),
        resource: String::new(),
        subresource: String::new(),
        namespace: String::new(),
        name: String::new(),
    };
    let own = Check {
        stage: Stage::Resource,
        group: request.group.into(),
        resource: request.resource.into(),
        subresource: request.subresource.into(),
        namespace: request.namespace.into(),
        name: request.name.into(),
        ..root.clone()
    };
    let mut m = std::collections::HashMap::new();
    m.insert(
        Key::String(Arc::new("requestResource".into())),
        Value::Opaque(Arc::new(own)),
    );
    m.insert(
        Key::String(Arc::new(SELF_KEY.into())),
        Value::Opaque(Arc::new(root)),
    );
    Value::Map(Map { map: Arc::new(m) })
}

/// Registers the library's functions in the root context.
pub(in crate::cel) fn register(ctx: &mut Context<'static>) {
    for name in authz_builders() {
        ctx.add_function(
            name,
            move |This(this): This<Value>, Arguments(args): Arguments| build(name, this, &args),
        );
    }
    ctx.add_function("check", check);
    ctx.add_function("allowed", |This(d): This<Value>| {
        decision(d, |d| Value::Bool(d.allowed))
    });
    ctx.add_function("errored", |This(d): This<Value>| {
        decision(d, |d| Value::Bool(!d.error.is_empty()))
    });
    ctx.add_function("reason", |This(d): This<Value>| {
        decision(d, |d| Value::from(d.reason.as_str()))
    });
    ctx.add_function("error", |This(d): This<Value>| {
        decision(d, |d| Value::from(d.error.as_str()))
    });
}

/// The check a value is: the authorizer map gives the authorizer itself.
fn check_of(v: &Value) -> Option<Check> {
    match v {
        Value::Opaque(o) => o.downcast_ref::<Check>().cloned(),
        Value::Map(m) => match m.map.get(&Key::String(Arc::new(SELF_KEY.into()))) {
            Some(Value::Opaque(o)) => o.downcast_ref::<Check>().cloned(),
            _ => None,
        },
        _ => None,
    }
}

fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.to_string()),
        _ => None,
    }
}

/// `<authorizer>.path(p)`, `.group(g)`, `.serviceAccount(ns, n)`;
/// `<group check>.resource(r)`; `<resource check>.subresource(s)`, … : the narrower
/// check, on the receivers kube-apiserver's library declares them.
fn build(function: &str, this: Value, args: &[Value]) -> ResolveResult {
    let Some(mut c) = check_of(&this) else {
        return Err(ExecutionError::NoSuchOverload);
    };
    let strings: Option<Vec<String>> = args.iter().map(text).collect();
    let Some(strings) = strings else {
        return Err(ExecutionError::NoSuchOverload);
    };
    match (c.stage, function, strings.as_slice()) {
        (Stage::Authorizer, "path", [p]) => {
            c.stage = Stage::Path;
            c.path = p.clone();
        }
        (Stage::Authorizer, "group", [g]) => {
            c.stage = Stage::Group;
            c.group = g.clone();
        }
        (Stage::Authorizer, "serviceAccount", [ns, name]) => {
            if !crate::names::dns_subdomain_name(name, false).is_empty() {
                return Err(ExecutionError::function_error(
                    function,
                    "Invalid service account name",
                ));
            }
            if !crate::names::dns_label_name(ns, false).is_empty() {
                return Err(ExecutionError::function_error(
                    function,
                    "Invalid service account namespace",
                ));
            }
            // `ServiceAccountInfo.UserInfo()`: the name and the two groups.
            c.user = UserInfo {
                name: crate::rbac::service_account_username(ns, name),
                groups: vec![
                    "system:serviceaccounts".into(),
                    format!("system:serviceaccounts:{ns}"),
                ],
                ..UserInfo::default()
            };
        }
        (Stage::Group, "resource", [r]) => {
            if r.trim().is_empty() {
                return Err(ExecutionError::function_error(
                    function,
                    "resource must not be empty",
                ));
            }
            c.stage = Stage::Resource;
            c.resource = r.clone();
        }
        (Stage::Resource, "subresource", [s]) => c.subresource = s.clone(),
        (Stage::Resource, "namespace", [n]) => c.namespace = n.clone(),
        (Stage::Resource, "name", [n]) => c.name = n.clone(),
        // Selectors narrow what the authorizer may consider; RBAC ignores them.
        (Stage::Resource, "fieldSelector" | "labelSelector", [_]) => {}
        _ => return Err(ExecutionError::NoSuchOverload),
    }
    Ok(Value::Opaque(Arc::new(c)))
}

/// `<path or resource check>.check(verb)`: the host authorizer's decision.
fn check(This(this): This<Value>, Arguments(args): Arguments) -> ResolveResult {
    let (Some(c), [Value::String(verb)]) = (check_of(&this), args.as_slice()) else {
        return Err(ExecutionError::NoSuchOverload);
    };
    let attrs = match c.stage {
        Stage::Path => Attributes {
            user: c.user.clone(),
            verb: verb.to_string(),
            path: c.path.clone(),
            ..Attributes::default()
        },
        Stage::Resource => Attributes {
            user: c.user.clone(),
            verb: verb.to_string(),
            namespace: c.namespace.clone(),
            api_group: c.group.clone(),
            api_version: "*".into(),
            resource: c.resource.clone(),
            subresource: c.subresource.clone(),
            name: c.name.clone(),
            resource_request: true,
            ..Attributes::default()
        },
        _ => return Err(ExecutionError::NoSuchOverload),
    };
    let answer = match &c.authz {
        Some(authz) => authz.authorize(&attrs),
        None => AuthzDecision {
            allowed: true,
            ..AuthzDecision::default()
        },
    };
    Ok(Value::Opaque(Arc::new(Decision(answer))))
}

fn decision(this: Value, out: impl Fn(&AuthzDecision) -> Value) -> ResolveResult {
    match this {
        Value::Opaque(o) => match o.downcast_ref::<Decision>() {
            Some(d) => Ok(out(&d.0)),
            None => Err(ExecutionError::NoSuchOverload),
        },
        _ => Err(ExecutionError::NoSuchOverload),
    }
}

#[cfg(test)]
#[path = "authz_tests.rs"]
mod tests;
