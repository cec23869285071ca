//! The CEL environment: the standard library of the `cel` crate, the Kubernetes
//! libraries of kube-cel, and our additions.
//!
//! Additions and replacements (each documented where it is registered):
//! - `@crd.tick(cost, cond)`: the metering hook inserted into every comprehension.
//! - `type(x)` and the type identifiers `int`, `uint`, `double`, `bool`,
//!   `string`, `bytes`, `list`, `map`, `null_type`, `type` (the `cel` crate has
//!   no type values; rules on int-or-string fields need them).
//! - `replace`: a guarded version that charges its output size before
//!   producing it (a chain of `replace` calls can otherwise grow a string
//!   exponentially without any loop). With a negative count it replaces every
//!   occurrence, as in cel-go (kube-cel 0.8 replaces none).
//! - the list functions of cel-go's `ext.Lists` and `includes`, with cel-go's
//!   errors and run-time costs (see [`crate::cel::library::ext_lists`]).
//! - `duration(x)` and `timestamp(x)`: cel-go's parsing and errors
//!   (see [`crate::cel::library::conversions`]).
//! - `@crd.eq`/`@crd.ne`: `==`/`!=` on values holding sets and map lists
//!   (see [`crate::cel::library::equality`]).
//! - the Kubernetes library functions whose values or errors kube-cel gets
//!   wrong, and the `net.IP`/`net.CIDR` type identifiers (see `crate::cel::library`).

use std::sync::Arc;

use kube_cel::KubeCelExt;
use kube_cel::cel::common::ast::{Expr, LiteralValue};
use kube_cel::cel::extractors::{Arguments, This};
use kube_cel::cel::objects::{Opaque, Value};
use kube_cel::cel::{Context, ExecutionError, FunctionContext, ResolveResult};

use crate::cel::compile::rewrite::TICK;
use crate::cel::cost::budget::charge;

thread_local! {
    /// Building the function registry takes a few hundred allocations, so each
    /// thread builds it once.
    static ROOT: Context<'static> = build();
}

/// Runs `f` with this thread's root context.
pub(crate) fn with_root<T>(f: impl FnOnce(&Context<'static>) -> T) -> T {
    ROOT.with(f)
}

fn build() -> Context<'static> {
    let mut ctx = Context::default().with_all();
    ctx.add_function(TICK, tick);
    ctx.add_function("type", type_of);
    for name in [
        "int",
        "uint",
        "double",
        "bool",
        "string",
        "bytes",
        "list",
        "map",
        "null_type",
        "type",
    ] {
        ctx.add_variable_from_value(name, type_value(name));
    }
    ctx.add_function("replace", guarded_replace);
    crate::cel::library::ext_lists::register(&mut ctx);
    ctx.add_function("duration", crate::cel::library::conversions::duration);
    ctx.add_function("timestamp", crate::cel::library::conversions::timestamp);
    ctx.add_function("dyn", crate::cel::library::conversions::dyn_);
    ctx.add_function(
        crate::cel::library::equality::EQ,
        crate::cel::library::equality::typed_eq,
    );
    ctx.add_function(
        crate::cel::library::equality::NE,
        crate::cel::library::equality::typed_ne,
    );
    crate::cel::library::authz::register(&mut ctx);
    crate::cel::library::jsonpatch::register(&mut ctx);
    // Where kube-cel's libraries differ from the API server's (see `library`).
    crate::cel::library::quantity::register(&mut ctx);
    crate::cel::library::net::register(&mut ctx, type_value);
    crate::cel::library::semver::register(&mut ctx);
    crate::cel::library::format::register(&mut ctx);
    crate::cel::library::urls::register(&mut ctx);
    crate::cel::library::lists::register(&mut ctx);
    ctx
}

/// A CEL type as a value (`type(1) == int`).
#[derive(Debug, PartialEq, Eq)]
struct CelType(String);

impl Opaque for CelType {
    fn runtime_type_name(&self) -> &str {
        "type"
    }
}

fn type_value(name: &str) -> Value {
    Value::Opaque(Arc::new(CelType(name.to_string())))
}

/// `type(x)`: the type of a value, comparable with the type identifiers.
fn type_of(v: Value) -> ResolveResult {
    Ok(type_value(match &v {
        Value::Int(_) => "int",
        Value::UInt(_) => "uint",
        Value::Float(_) => "double",
        Value::String(_) => "string",
        Value::Bytes(_) => "bytes",
        Value::Bool(_) => "bool",
        Value::List(_) => "list",
        Value::Map(_) => "map",
        Value::Null => "null_type",
        Value::Timestamp(_) => "google.protobuf.Timestamp",
        Value::Duration(_) => "google.protobuf.Duration",
        Value::Function(..) => "function",
        Value::Opaque(o) => o.runtime_type_name(),
    }))
}

/// `@crd.tick(cost, x[, step_cost])`: charges `cost`, then evaluates and returns
/// `x`; as a loop condition also charges `step_cost` when `x` lets the step run.
/// Charging before evaluating matches cel-go, which charges a step even when
/// it yields an error.
fn tick(ftx: &FunctionContext) -> ResolveResult {
    let units = |i: usize| match ftx.args.get(i).map(|a| &a.expr) {
        Some(Expr::Literal(LiteralValue::Int(n))) => (**n).max(0) as u64,
        _ => 0,
    };
    charge(units(0))?;
    let out = match ftx.args.get(1) {
        Some(x) => Value::resolve(x, ftx.ptx)?,
        None => Value::Bool(true),
    };
    if ftx.args.len() > 2 && matches!(out, Value::Bool(true)) {
        charge(units(2))?;
    }
    Ok(out)
}

/// `<string>.replace(old, new[, n])` with its output size charged first.
fn guarded_replace(This(this): This<Arc<String>>, Arguments(args): Arguments) -> ResolveResult {
    let (from, to) = match (args.first(), args.get(1)) {
        (Some(Value::String(a)), Some(Value::String(b))) => (a.clone(), b.clone()),
        _ => {
            return Err(ExecutionError::function_error(
                "replace",
                "expected string arguments",
            ));
        }
    };
    let limit = match args.get(2) {
        None => None,
        Some(Value::Int(n)) if *n < 0 => None,
        Some(Value::Int(n)) => Some(*n as usize),
        Some(_) => {
            return Err(ExecutionError::function_error(
                "replace",
                "expected an int count",
            ));
        }
    };
    let occurrences = if from.is_empty() {
        this.chars().count() + 1
    } else {
        this.matches(from.as_str()).count()
    };
    let n = limit.map_or(occurrences, |l| l.min(occurrences));
    let size = this.len() as u64 + (n as u64).saturating_mul(to.len() as u64);
    charge(size / 10 + 1)?;
    let out = match limit {
        None => this.replace(from.as_str(), to.as_str()),
        Some(l) => this.replacen(from.as_str(), to.as_str(), l),
    };
    Ok(Value::String(Arc::new(out)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube_cel::cel::Program;

    fn eval(src: &str) -> ResolveResult {
        let p = Program::compile(src).expect("parses");
        with_root(|ctx| p.execute(ctx))
    }

    #[test]
    fn kubernetes_libraries_are_registered() {
        assert_eq!(eval("'a-b'.split('-').size()"), Ok(Value::Int(2)));
        for (src, want) in [
            ("quantity('1Gi').isGreaterThan(quantity('500Mi'))", true),
            ("isURL('https://x.io/p')", true),
            ("type(1) == int && type('a') == string", true),
            ("type(1) == string", false),
            ("type([1]) == list && type(type(1)) == type", true),
        ] {
            assert_eq!(eval(src), Ok(Value::Bool(want)), "{src}");
        }
    }

    #[test]
    fn replace_follows_cel_go() {
        assert_eq!(eval("'aaa'.replace('a', 'b')"), Ok(Value::from("bbb")));
        assert_eq!(eval("'aaa'.replace('a', 'b', 2)"), Ok(Value::from("bba")));
        assert_eq!(eval("'aaa'.replace('a', 'b', -1)"), Ok(Value::from("bbb")));
        assert_eq!(eval("'ab'.replace('', '-')"), Ok(Value::from("-a-b-")));
    }
}
