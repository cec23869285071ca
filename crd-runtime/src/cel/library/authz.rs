//! The authorizer library of admission expressions (`library.Authz`) without an
//! authorizer: `authorizer` and `authorizer.requestResource` build checks as
//! kube-apiserver's do (`group`, `resource`, `subresource`, `namespace`, `name`,
//! `path`, `serviceAccount`, `fieldSelector`, `labelSelector`), and every
//! `check(verb)` is allowed: `allowed()` is true, `errored()` false, `reason()`
//! and `error()` empty. Offline and in a single-user test server there is nobody
//! to deny.

use std::sync::Arc;

use kube_cel::cel::extractors::{Arguments, This};
use kube_cel::cel::objects::{Key, Map, Opaque, Value};
use kube_cel::cel::{Context, ExecutionError, ResolveResult};

use crate::cel::environment::releases::authz_builders;

/// A check being built (`kubernetes.authorization.Authorizer`, `PathCheck`,
/// `GroupCheck`, `ResourceCheck`).
#[derive(Debug, PartialEq, Eq)]
struct Check;

impl Opaque for Check {
    fn runtime_type_name(&self) -> &str {
        "kubernetes.authorization.ResourceCheck"
    }
}

/// The outcome of `check(verb)`: always allowed.
#[derive(Debug, PartialEq, Eq)]
struct Decision;

impl Opaque for Decision {
    fn runtime_type_name(&self) -> &str {
        "kubernetes.authorization.Decision"
    }
}

/// The value of the `authorizer` variable: selecting `requestResource` gives the
/// check of the request's own resource.
pub(crate) fn authorizer_value() -> Value {
    let mut m = std::collections::HashMap::new();
    m.insert(
        Key::String(Arc::new("requestResource".into())),
        Value::Opaque(Arc::new(Check)),
    );
    Value::Map(Map { map: Arc::new(m) })
}

/// Registers the library's functions in the root context.
pub(in crate::cel) fn register(ctx: &mut Context<'static>) {
    for name in authz_builders() {
        ctx.add_function(name, builder);
    }
    ctx.add_function("check", check);
    ctx.add_function("allowed", |This(d): This<Value>| {
        decision(d, Value::Bool(true))
    });
    ctx.add_function("errored", |This(d): This<Value>| {
        decision(d, Value::Bool(false))
    });
    ctx.add_function("reason", |This(d): This<Value>| {
        decision(d, Value::from(""))
    });
    ctx.add_function("error", |This(d): This<Value>| decision(d, Value::from("")));
}

fn is_check(v: &Value) -> bool {
    match v {
        Value::Opaque(o) => o.runtime_type_name() == Check.runtime_type_name(),
        Value::Map(m) => m
            .map
            .contains_key(&Key::String(Arc::new("requestResource".into()))),
        _ => false,
    }
}

/// `<authorizer>.group(g)` and the other builders: a narrower check.
fn builder(This(this): This<Value>, Arguments(args): Arguments) -> ResolveResult {
    if !is_check(&this) || args.len() > 2 || !args.iter().all(|a| matches!(a, Value::String(_))) {
        return Err(ExecutionError::NoSuchOverload);
    }
    Ok(Value::Opaque(Arc::new(Check)))
}

/// `<check>.check(verb)`: the decision.
fn check(This(this): This<Value>, Arguments(args): Arguments) -> ResolveResult {
    if !is_check(&this) || !matches!(args.as_slice(), [Value::String(_)]) {
        return Err(ExecutionError::NoSuchOverload);
    }
    Ok(Value::Opaque(Arc::new(Decision)))
}

fn decision(this: Value, out: Value) -> ResolveResult {
    match this {
        Value::Opaque(o) if o.runtime_type_name() == Decision.runtime_type_name() => Ok(out),
        _ => Err(ExecutionError::NoSuchOverload),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube_cel::cel::Program;

    fn eval(src: &str) -> ResolveResult {
        let p = Program::compile(src).expect("parses");
        let mut ctx = Context::default();
        register(&mut ctx);
        ctx.add_variable_from_value("authorizer", authorizer_value());
        p.execute(&ctx)
    }

    #[test]
    fn every_check_is_allowed() {
        let ok = |s: &str| assert_eq!(eval(s), Ok(Value::Bool(true)), "{s}");
        ok(
            "authorizer.group('apps').resource('deployments').namespace('a').name('b').check('create').allowed()",
        );
        ok("authorizer.requestResource.check('update').allowed()");
        ok("authorizer.path('/healthz').check('get').allowed()");
        ok("!authorizer.requestResource.subresource('status').check('get').errored()");
        ok(
            "authorizer.serviceAccount('ns', 'sa').group('').resource('pods').check('list').reason() == ''",
        );
        ok("authorizer.requestResource.check('get').error() == ''");
        assert!(eval("'x'.check('get')").is_err());
        assert!(eval("authorizer.allowed()").is_err());
    }
}
