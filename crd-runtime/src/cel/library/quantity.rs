//! `quantity()`, `isQuantity()`, `isInteger()` and `asInteger()` as the API
//! server has them: strings are first checked by `resource.ParseQuantity`'s rules
//! (and rejected in its words), and a quantity is an integer only if it fits an
//! int64 (`Quantity.AsInt64`). Values are kube-cel's quantities.

use std::sync::Arc;

use kube_cel::cel::extractors::This;
use kube_cel::cel::objects::Value;
use kube_cel::cel::{Context, ExecutionError, ResolveResult};

use super::delegate::call;
use crate::cel::cost::budget::charge_traversal;

/// `ErrFormatWrong` of k8s.io/apimachinery `resource`.
const FORMAT_WRONG: &str =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
/// `ErrSuffix`.
const SUFFIX: &str = "unable to parse quantity's suffix";
/// The `asInteger()` error of the quantity library.
const NOT_INTEGER: &str = "cannot convert value to integer";

pub(crate) fn register(ctx: &mut Context<'_>) {
    ctx.add_function("quantity", quantity);
    ctx.add_function("isQuantity", is_quantity);
    ctx.add_function("isInteger", is_integer);
    ctx.add_function("asInteger", as_integer);
}

/// The syntax checks of `resource.ParseQuantity`, in its order: the number, the
/// suffix characters, an optional signed exponent, then whether the suffix is known.
pub(crate) fn check_syntax(s: &str) -> Result<(), &'static str> {
    let b = s.as_bytes();
    if b.is_empty() {
        return Err(FORMAT_WRONG);
    }
    let mut pos = usize::from(matches!(b[0], b'+' | b'-'));
    while pos < b.len() && b[pos].is_ascii_digit() {
        pos += 1;
    }
    if pos < b.len() && b[pos] == b'.' {
        pos += 1;
        while pos < b.len() && b[pos].is_ascii_digit() {
            pos += 1;
        }
    }
    let suffix_start = pos;
    while pos < b.len() && b"eEinumkKMGTP".contains(&b[pos]) {
        pos += 1;
    }
    if pos < b.len() && matches!(b[pos], b'+' | b'-') {
        pos += 1;
    }
    while pos < b.len() && b[pos].is_ascii_digit() {
        pos += 1;
    }
    if pos < b.len() {
        return Err(FORMAT_WRONG);
    }
    if known_suffix(&s[suffix_start..]) {
        Ok(())
    } else {
        Err(SUFFIX)
    }
}

/// The suffixes `quantitySuffixer.interpret` accepts: binary and decimal SI, or a
/// decimal exponent `e<int>`/`E<int>`.
fn known_suffix(suffix: &str) -> bool {
    const SI: [&str; 16] = [
        "", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "n", "u", "m", "k", "M", "G", "T", "P", "E",
    ];
    if SI.contains(&suffix) {
        return true;
    }
    let rest = suffix
        .strip_prefix('e')
        .or_else(|| suffix.strip_prefix('E'));
    match rest {
        Some(exp) if !exp.is_empty() => exp.parse::<i64>().is_ok(),
        _ => false,
    }
}

fn quantity(s: Arc<String>) -> ResolveResult {
    charge_traversal(&s, 1.0)?;
    check_syntax(&s).map_err(|e| ExecutionError::function_error("quantity", e))?;
    call("quantity(a)", &[Value::String(s)])
}

fn is_quantity(s: Arc<String>) -> ResolveResult {
    charge_traversal(&s, 1.0)?;
    let ok = check_syntax(&s).is_ok() && call("quantity(a)", &[Value::String(s)]).is_ok();
    Ok(Value::Bool(ok))
}

/// `Quantity.AsInt64`: integral and within int64.
fn as_int64(q: &Value) -> Option<i64> {
    match call("a.isInteger()", std::slice::from_ref(q)) {
        Ok(Value::Bool(true)) => match call("a.asInteger()", std::slice::from_ref(q)) {
            Ok(Value::Int(n)) => Some(n),
            _ => None,
        },
        _ => None,
    }
}

fn is_integer(This(this): This<Value>) -> ResolveResult {
    if !is_quantity_value(&this) {
        return call("a.isInteger()", &[this]);
    }
    Ok(Value::Bool(as_int64(&this).is_some()))
}

fn as_integer(This(this): This<Value>) -> ResolveResult {
    if !is_quantity_value(&this) {
        return call("a.asInteger()", &[this]);
    }
    as_int64(&this)
        .map(Value::Int)
        .ok_or_else(|| ExecutionError::function_error("asInteger", NOT_INTEGER))
}

fn is_quantity_value(v: &Value) -> bool {
    matches!(v, Value::Opaque(o) if o.runtime_type_name() == "kubernetes.Quantity")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_errors_are_apimachinerys() {
        assert_eq!(check_syntax("10Mo"), Err(FORMAT_WRONG));
        assert_eq!(check_syntax("10Mm"), Err(SUFFIX));
        assert_eq!(check_syntax(""), Err(FORMAT_WRONG));
        assert_eq!(check_syntax("1e"), Err(SUFFIX));
        for ok in [
            "0", "12Mi", "+1.5", "-2k", "1e3", "1E-3", ".5", "5.", "100m",
        ] {
            assert_eq!(check_syntax(ok), Ok(()), "{ok}");
        }
    }

    #[test]
    fn integers_fit_an_int64() {
        let q = |s: &str| quantity(Arc::new(s.to_string())).unwrap();
        let big = q("9999999999999999999999999999999999999G");
        assert_eq!(is_integer(This(big.clone())), Ok(Value::Bool(false)));
        let err = as_integer(This(big)).unwrap_err();
        assert!(err.to_string().contains(NOT_INTEGER), "{err}");
        assert_eq!(as_integer(This(q("50k"))), Ok(Value::Int(50_000)));
        assert_eq!(is_integer(This(q("1.5"))), Ok(Value::Bool(false)));
    }
}
