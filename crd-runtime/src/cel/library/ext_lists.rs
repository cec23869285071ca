//! The list functions whose kube-cel 0.8 versions differ from cel-go's
//! (`ext.Lists` v3 and Kubernetes' `library.Lists` v1), with their run-time
//! cost charged as cel-go's cost trackers do (`ext/lists.go`,
//! `library.CostEstimator.CallCost`).
//!
//! - `slice`, `flatten`: cel-go's error messages.
//! - `sort`: only elements of one type (`list elements must have the same type`).
//! - `lists.range`: a negative count gives an empty list, as in cel-go.
//! - `includes` (Kubernetes 1.37): new.
//! - `@sortByAssociatedKeys`: what cel-go's `sortBy` macro expands to.

use std::cmp::Ordering;
use std::sync::Arc;

use kube_cel::cel::extractors::{Arguments, This};
use kube_cel::cel::objects::Value;
use kube_cel::cel::{Context, ExecutionError, ResolveResult};

use crate::cel::cost::budget::charge;

/// cel-go's `ListCreateBaseCost`.
const LIST_CREATE: u64 = 10;
/// cel-go's `StringTraversalCostFactor`.
const STRING_TRAVERSAL: f64 = 0.1;

pub(in crate::cel) fn register(ctx: &mut Context<'_>) {
    ctx.add_function("slice", slice);
    ctx.add_function("flatten", flatten);
    ctx.add_function("sort", sort);
    ctx.add_function("@sortByAssociatedKeys", sort_by_keys);
    ctx.add_function("lists.range", range);
    ctx.add_function("reverse", reverse);
    ctx.add_function("distinct", distinct);
    ctx.add_function("includes", includes);
}

/// `trackAllocatingListCall`: `size × factor` plus the call and the new list.
fn charge_list(factor: f64, size: u64) -> Result<(), ExecutionError> {
    charge(((size as f64) * factor) as u64 + 1 + LIST_CREATE)
}

fn list(function: &str, v: &Value) -> Result<Arc<Vec<Value>>, ExecutionError> {
    match v {
        Value::List(l) => Ok(l.clone()),
        _ => Err(ExecutionError::function_error(function, "no such overload")),
    }
}

/// `<list>.slice(start, end)`.
fn slice(This(this): This<Arc<Vec<Value>>>, start: i64, end: i64) -> ResolveResult {
    let err = |why: String| {
        Err(ExecutionError::function_error(
            "slice",
            format!("cannot slice({start}, {end}), {why}"),
        ))
    };
    if start < 0 || end < 0 {
        return err("negative indexes not supported".into());
    }
    if start > end {
        return err("start index must be less than or equal to end index".into());
    }
    if this.len() < end as usize {
        return err(format!("list is length {}", this.len()));
    }
    charge_list(1.0, (end - start) as u64)?;
    Ok(Value::List(Arc::new(
        this[start as usize..end as usize].to_vec(),
    )))
}

/// `<list>.flatten()` and `<list>.flatten(depth)`.
fn flatten(This(this): This<Arc<Vec<Value>>>, Arguments(args): Arguments) -> ResolveResult {
    let depth = match args.first() {
        None => 1,
        Some(Value::Int(d)) if *d < 0 => {
            return Err(ExecutionError::function_error(
                "flatten",
                "level must be non-negative",
            ));
        }
        Some(Value::Int(d)) => *d,
        Some(_) => {
            return Err(ExecutionError::function_error(
                "flatten",
                "no such overload",
            ));
        }
    };
    charge_list(depth as f64, this.len() as u64)?;
    let mut out = Vec::new();
    flatten_into(&this, depth, &mut out);
    Ok(Value::List(Arc::new(out)))
}

fn flatten_into(items: &[Value], depth: i64, out: &mut Vec<Value>) {
    for item in items {
        match item {
            Value::List(inner) if depth > 0 => flatten_into(inner, depth - 1, out),
            other => out.push(other.clone()),
        }
    }
}

/// The cost of sorting or de-duplicating `l`: a comparison per pair, string
/// and bytes elements traversed too (`trackListSelfCompare`).
fn charge_self_compare(l: &[Value]) -> Result<(), ExecutionError> {
    let n = l.len() as u64;
    let factor = match l.first() {
        Some(Value::String(_) | Value::Bytes(_)) => 2.0 + STRING_TRAVERSAL,
        _ => 2.0,
    };
    charge_list(factor, n.saturating_mul(n))
}

/// `<list>.sort()`.
fn sort(This(this): This<Arc<Vec<Value>>>) -> ResolveResult {
    charge_self_compare(&this)?;
    sorted_by_keys(&this, &this)
}

/// `@sortByAssociatedKeys(list, keys)`: `list` in the order of `keys`.
fn sort_by_keys(This(this): This<Arc<Vec<Value>>>, keys: Value) -> ResolveResult {
    let keys = list("@sortByAssociatedKeys", &keys)?;
    charge_self_compare(&keys)?;
    sorted_by_keys(&this, &keys)
}

fn sorted_by_keys(items: &[Value], keys: &[Value]) -> ResolveResult {
    if items.len() != keys.len() {
        return Err(ExecutionError::function_error(
            "sort",
            format!(
                "@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got {} and {} elements respectively",
                items.len(),
                keys.len()
            ),
        ));
    }
    let Some(first) = keys.first() else {
        return Ok(Value::List(Arc::new(items.to_vec())));
    };
    let kind = std::mem::discriminant(first);
    if keys.iter().any(|k| std::mem::discriminant(k) != kind) {
        return Err(ExecutionError::function_error(
            "sort",
            "list elements must have the same type",
        ));
    }
    let mut order: Vec<usize> = (0..items.len()).collect();
    let mut incomparable = false;
    order.sort_by(|&a, &b| {
        keys[a].partial_cmp(&keys[b]).unwrap_or_else(|| {
            incomparable = true;
            Ordering::Equal
        })
    });
    if incomparable && !matches!(first, Value::Float(_)) {
        return Err(ExecutionError::function_error(
            "sort",
            "list elements must be comparable",
        ));
    }
    Ok(Value::List(Arc::new(
        order.into_iter().map(|i| items[i].clone()).collect(),
    )))
}

/// `lists.range(n)`: `[0, n)`; empty for a negative `n`.
fn range(n: i64) -> ResolveResult {
    let n = n.max(0);
    charge_list(1.0, n as u64)?;
    Ok(Value::List(Arc::new((0..n).map(Value::Int).collect())))
}

/// `<list>.reverse()` (strings have no `reverse` in Kubernetes: the checker
/// refuses it).
fn reverse(This(this): This<Value>) -> ResolveResult {
    let l = list("reverse", &this)?;
    charge_list(1.0, l.len() as u64)?;
    Ok(Value::List(Arc::new(l.iter().rev().cloned().collect())))
}

/// `<list>.distinct()`: the first of each group of equal elements.
fn distinct(This(this): This<Arc<Vec<Value>>>) -> ResolveResult {
    charge_self_compare(&this)?;
    let mut out: Vec<Value> = Vec::with_capacity(this.len());
    for v in this.iter() {
        if !out.iter().any(|o| o == v) {
            out.push(v.clone());
        }
    }
    Ok(Value::List(Arc::new(out)))
}

/// `<dyn>.includes(x)`: membership for a list, equality otherwise
/// (`library.Lists` v1).
fn includes(This(this): This<Value>, x: Value) -> ResolveResult {
    charge(traversal_cost(&this))?;
    Ok(Value::Bool(match &this {
        Value::List(l) => l.contains(&x),
        other => *other == x,
    }))
}

/// `traversalCost` of Kubernetes' cost estimator: a tenth of a unit per byte
/// of strings, one per other scalar, summed over lists and maps.
fn traversal_cost(v: &Value) -> u64 {
    match v {
        Value::String(s) => (s.len() as f64 * STRING_TRAVERSAL) as u64,
        Value::Bytes(b) => (b.len() as f64 * STRING_TRAVERSAL) as u64,
        Value::List(l) => l.iter().map(traversal_cost).fold(0, u64::saturating_add),
        Value::Map(m) => m
            .map
            .iter()
            .map(|(k, v)| traversal_cost(&Value::from(k)).saturating_add(traversal_cost(v)))
            .fold(0, u64::saturating_add),
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cel::{Budget, Limits};
    use kube_cel::cel::Program;

    /// The standard library plus these functions.
    fn context() -> Context<'static> {
        let mut ctx = Context::default();
        register(&mut ctx);
        ctx
    }

    fn eval(src: &str) -> ResolveResult {
        let p = Program::compile(src).expect("parses");
        p.execute(&context())
    }

    fn ints(v: &[i64]) -> Value {
        Value::List(Arc::new(v.iter().copied().map(Value::Int).collect()))
    }

    fn err(src: &str) -> String {
        crate::cel::library::function_error(src, eval(src))
    }

    #[test]
    fn slice_and_flatten_fail_as_cel_go() {
        assert_eq!(eval("[1, 2, 3].slice(1, 3)"), Ok(ints(&[2, 3])));
        assert_eq!(
            err("[1, 2].slice(-1, 1)"),
            "cannot slice(-1, 1), negative indexes not supported"
        );
        assert_eq!(
            err("[1, 2].slice(2, 1)"),
            "cannot slice(2, 1), start index must be less than or equal to end index"
        );
        assert_eq!(
            err("[1, 2].slice(0, 3)"),
            "cannot slice(0, 3), list is length 2"
        );
        assert_eq!(
            eval("[[1], [2, [3]]].flatten() == [1, 2, [3]]"),
            Ok(Value::Bool(true))
        );
        assert_eq!(eval("[[1], [2, [3]]].flatten(2)"), Ok(ints(&[1, 2, 3])));
        assert_eq!(eval("[1, [2]].flatten(0)"), eval("[1, [2]]"));
        assert_eq!(err("[[1]].flatten(-1)"), "level must be non-negative");
    }

    #[test]
    fn sort_needs_one_element_type() {
        assert_eq!(eval("[3, 1, 2].sort()"), Ok(ints(&[1, 2, 3])));
        assert_eq!(
            eval("['b', 'a'].sort() == ['a', 'b']"),
            Ok(Value::Bool(true))
        );
        assert_eq!(
            err("[1, 'a'].sort()"),
            "list elements must have the same type"
        );
        assert_eq!(
            err("[1, 2.0].sort()"),
            "list elements must have the same type"
        );
        let abc: Vec<Value> = ["a", "b", "c"].into_iter().map(Value::from).collect();
        let keys = [Value::Int(3), Value::Int(1), Value::Int(2)];
        let bca: Vec<Value> = ["b", "c", "a"].into_iter().map(Value::from).collect();
        assert_eq!(sorted_by_keys(&abc, &keys), Ok(Value::List(Arc::new(bca))));
    }

    #[test]
    fn range_reverse_distinct_includes() {
        assert_eq!(eval("lists.range(3)"), Ok(ints(&[0, 1, 2])));
        assert_eq!(eval("lists.range(-2)"), Ok(ints(&[])));
        assert_eq!(eval("[1, 2, 3].reverse()"), Ok(ints(&[3, 2, 1])));
        assert_eq!(eval("[1, 2, 1, 3, 2].distinct()"), Ok(ints(&[1, 2, 3])));
        assert_eq!(
            eval("[1, 1.0, 2u].distinct()").map(|v| v == eval("[1, 2u]").unwrap()),
            Ok(true)
        );
        assert_eq!(eval("[1, 2].includes(2)"), Ok(Value::Bool(true)));
        assert_eq!(eval("[1, 2].includes(2.0)"), Ok(Value::Bool(true)));
        assert_eq!(eval("['a'].includes('b')"), Ok(Value::Bool(false)));
        assert_eq!(eval("'a'.includes('a')"), Ok(Value::Bool(true)));
        assert_eq!(eval("[[1]].includes([1])"), Ok(Value::Bool(true)));
    }

    #[test]
    fn calls_are_charged_like_cel_go_trackers() {
        let cost = |src: &str| {
            let p = Program::compile(src).expect("parses");
            let mut b = Budget::new(Limits::default());
            let ctx = context();
            let (r, e) = b.meter(0, || p.execute(&ctx));
            assert!(r.is_ok() && e.is_none(), "{src}");
            b.spent()
        };
        // trackListOutputSize: 3 + 1 + 10.
        assert_eq!(cost("lists.range(3)"), 14);
        assert_eq!(cost("[1, 2, 3].reverse()"), 14);
        // trackListSelfCompare: 10² × 2 + 11; strings add 0.1 per pair.
        assert_eq!(cost("[9, 8, 7, 6, 5, 4, 3, 2, 1, 0].sort()"), 211);
        assert_eq!(
            cost("['j', 'i', 'h', 'g', 'f', 'e', 'd', 'c', 'b', 'a'].sort()"),
            221
        );
        assert_eq!(cost("[1, 1].distinct()"), 19);
        // trackListFlatten: depth × input size + 11.
        assert_eq!(cost("[[1], [2]].flatten(3)"), 17);
        // traversalCost of the target: one per scalar, a tenth per byte.
        assert_eq!(cost("[1, 2, 3].includes(4)"), 3);
        assert_eq!(cost("['0123456789', 'abcdefghij'].includes('x')"), 2);
    }
}
