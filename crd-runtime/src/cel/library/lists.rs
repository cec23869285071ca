//! Kubernetes' lists library (`isSorted`, `sum`, `min`, `max`) with the API
//! server's results and errors (apiserver `pkg/cel/library/lists.go`), where
//! kube-cel's differ: `min`/`max` of an empty list fail with `min called on
//! empty list`, durations sum, and bytes order.
//!
//! `min`/`max` on anything but a list with no argument stay the `cel` crate's
//! variadic functions, as kube-cel dispatches them.

use std::cmp::Ordering;
use std::sync::Arc;

use kube_cel::cel::extractors::{Arguments, This};
use kube_cel::cel::objects::Value;
use kube_cel::cel::{Context, ExecutionError, ResolveResult};

pub(crate) fn register(ctx: &mut Context<'_>) {
    ctx.add_function("isSorted", is_sorted);
    ctx.add_function("sum", sum);
    ctx.add_function("min", min);
    ctx.add_function("max", max);
}

fn no_overload(function: &str) -> ExecutionError {
    ExecutionError::function_error(function, "no such overload")
}

/// cel-go's `Compare` of two elements: numbers across int, uint and double,
/// otherwise only values of one comparable type.
fn compare(function: &str, a: &Value, b: &Value) -> Result<Ordering, ExecutionError> {
    let comparable = |v: &Value| {
        matches!(
            v,
            Value::Int(_)
                | Value::UInt(_)
                | Value::Float(_)
                | Value::Bool(_)
                | Value::String(_)
                | Value::Bytes(_)
                | Value::Duration(_)
                | Value::Timestamp(_)
        )
    };
    if !comparable(a) || !comparable(b) {
        return Err(no_overload(function));
    }
    a.partial_cmp(b).ok_or_else(|| no_overload(function))
}

/// `<list>.isSorted()`: whether no element is greater than the next.
fn is_sorted(This(this): This<Arc<Vec<Value>>>) -> ResolveResult {
    for pair in this.windows(2) {
        if compare("isSorted", &pair[0], &pair[1])? == Ordering::Greater {
            return Ok(Value::Bool(false));
        }
    }
    if let [only] = this.as_slice() {
        compare("isSorted", only, only)?;
    }
    Ok(Value::Bool(true))
}

/// `<list>.sum()`: ints, uints, doubles or durations, with cel-go's overflow
/// errors. An empty list sums to `0` (equal to `0u` and `0.0` at run time).
fn sum(This(this): This<Arc<Vec<Value>>>) -> ResolveResult {
    let mut items = this.iter();
    let Some(first) = items.next() else {
        return Ok(Value::Int(0));
    };
    let mut acc = match first {
        Value::Int(_) | Value::UInt(_) | Value::Float(_) | Value::Duration(_) => first.clone(),
        _ => return Err(no_overload("sum")),
    };
    for item in items {
        acc = match (&acc, item) {
            (Value::Int(a), Value::Int(b)) => Value::Int(a.checked_add(*b).ok_or_else(overflow)?),
            (Value::UInt(a), Value::UInt(b)) => {
                Value::UInt(a.checked_add(*b).ok_or_else(unsigned_overflow)?)
            }
            (Value::Float(a), Value::Float(b)) => Value::Float(a + b),
            (Value::Duration(a), Value::Duration(b)) => {
                Value::Duration(a.checked_add(b).ok_or_else(overflow)?)
            }
            _ => return Err(no_overload("sum")),
        };
    }
    Ok(acc)
}

fn overflow() -> ExecutionError {
    ExecutionError::function_error("sum", "integer overflow")
}

fn unsigned_overflow() -> ExecutionError {
    ExecutionError::function_error("sum", "unsigned integer overflow")
}

/// The element `keep` prefers over all others (the first of equals).
fn pick(function: &str, list: &[Value], keep: Ordering) -> ResolveResult {
    let mut items = list.iter();
    let Some(mut best) = items.next() else {
        return Err(ExecutionError::function_error(
            function,
            format!("{function} called on empty list"),
        ));
    };
    compare(function, best, best)?;
    for item in items {
        if compare(function, item, best)? == keep {
            best = item;
        }
    }
    Ok(best.clone())
}

/// `<list>.min()`, or the `cel` crate's variadic `min`.
fn min(This(this): This<Value>, Arguments(args): Arguments) -> ResolveResult {
    match this {
        Value::List(list) if args.is_empty() => pick("min", &list, Ordering::Less),
        other => kube_cel::cel::functions::min(Arguments(variadic(other, &args))),
    }
}

/// `<list>.max()`, or the `cel` crate's variadic `max`.
fn max(This(this): This<Value>, Arguments(args): Arguments) -> ResolveResult {
    match this {
        Value::List(list) if args.is_empty() => pick("max", &list, Ordering::Greater),
        other => kube_cel::cel::functions::max(Arguments(variadic(other, &args))),
    }
}

fn variadic(first: Value, rest: &[Value]) -> Arc<Vec<Value>> {
    Arc::new(std::iter::once(first).chain(rest.iter().cloned()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube_cel::cel::Program;

    fn eval(src: &str) -> ResolveResult {
        let mut ctx = Context::default();
        register(&mut ctx);
        Program::compile(src).unwrap().execute(&ctx)
    }

    fn err(src: &str) -> String {
        crate::cel::library::function_error(src, eval(src))
    }

    #[test]
    fn min_and_max_of_empty_lists_fail_as_the_api_server() {
        assert_eq!(err("[].min()"), "min called on empty list");
        assert_eq!(err("[].max()"), "max called on empty list");
    }

    #[test]
    fn bytes_durations_and_timestamps_order() {
        for (src, want) in [
            ("[b'a', b'b', b'b'].isSorted()", true),
            ("[b'b', b'a'].isSorted()", false),
            ("[b'b', b'a', b'c'].min() == b'a'", true),
            (
                "[duration('1s'), duration('1h')].max() == duration('1h')",
                true,
            ),
            (
                "[timestamp('2020-01-02T00:00:00Z'), timestamp('2020-01-01T00:00:00Z')].min() == timestamp('2020-01-01T00:00:00Z')",
                true,
            ),
            ("[uint(3), uint(1)].max() == uint(3)", true),
        ] {
            assert_eq!(eval(src), Ok(Value::Bool(want)), "{src}");
        }
    }

    #[test]
    fn sums_by_element_type() {
        assert_eq!(
            eval("[duration('1s'), duration('1m')].sum() == duration('61s')"),
            Ok(Value::Bool(true))
        );
        assert_eq!(eval("[1.5, 2.0].sum() == 3.5"), Ok(Value::Bool(true)));
        assert_eq!(
            eval("[uint(1), uint(2)].sum() == uint(3)"),
            Ok(Value::Bool(true))
        );
        assert_eq!(eval("[].sum() == 0"), Ok(Value::Bool(true)));
        assert_eq!(err("[9223372036854775807, 1].sum()"), "integer overflow");
        assert_eq!(err("['a', 'b'].sum()"), "no such overload");
        assert_eq!(err("[1, 'a'].max()"), "no such overload");
        assert_eq!(err("[[1]].min()"), "no such overload");
    }

    #[test]
    fn non_list_targets_stay_variadic() {
        assert_eq!(eval("max(1, 3, 2)"), Ok(Value::Int(3)));
        assert_eq!(eval("min(2, 1)"), Ok(Value::Int(1)));
    }
}
