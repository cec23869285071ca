//! The macros of cel-go's extension libraries, as the Kubernetes environment of
//! each release declares them (the patched `cel` crate in `vendor/cel` expands
//! them; see its README):
//! - two-variable comprehensions (`ext.TwoVarComprehensions`, environment 1.32):
//!   `all`/`exists`/`existsOne(i, v, p)`, `transformList`, `transformMap`,
//!   `transformMapEntry`;
//! - `sortBy` (`ext.Lists` version 3, environment 1.34);
//! - `optMap`/`optFlatMap` and the optional syntax (`OptionalTypes`, 1.28: every
//!   supported release).
//!
//! Before its release a macro is not expanded, so the call is checked as a
//! function and reported as cel-go does without the library
//! (`undeclared reference to 'all'`, to its variables, ...).
//!
//! Here: the parser of an environment, the checker's typing of the
//! accumulators these macros build, and the runtime cost of `sortBy`.

use kube_cel::cel::common::ast::{ComprehensionExpr, Expr, IdedExpr};
use kube_cel::cel::parser::{MAP_INSERT, Parser};

use crate::cel::environment::parse_limits;

/// The first environment with cel-go's two-variable comprehensions.
pub(crate) const TWO_VAR_COMPREHENSIONS_SINCE: u32 = 32;
/// The first environment with `sortBy` (`ext.Lists(ext.ListsVersion(3))`).
pub(crate) const SORT_BY_SINCE: u32 = 34;

/// The parser of the environment whose libraries are those of `1.libraries`.
pub(crate) fn parser(libraries: u32) -> Parser {
    Parser::new()
        .enable_optional_syntax(true)
        .enable_two_var_comprehensions(libraries >= TWO_VAR_COMPREHENSIONS_SINCE)
        .enable_sort_by(libraries >= SORT_BY_SINCE)
        .max_recursion_depth(parse_limits::MAX_RECURSION_DEPTH as u16)
}

/// What the loop step of a macro whose accumulator starts as an empty literal
/// (`[]` of `map`, `filter`, `transformList`; `{}` of `transformMap`,
/// `transformMapEntry`) adds to it: the checker types the accumulator from it, as
/// cel-go's type parameters do. `None` for other accumulators.
pub(crate) fn accumulated(c: &ComprehensionExpr) -> Option<Added<'_>> {
    let added = added_by_step(&c.loop_step, &c.accu_var)?;
    match (&c.accu_init.expr, &added) {
        (Expr::List(l), Added::ListItem(_)) if l.elements.is_empty() => Some(added),
        (Expr::Map(m), Added::MapValue(_) | Added::Entries(_)) if m.entries.is_empty() => {
            Some(added)
        }
        _ => None,
    }
}

pub(crate) enum Added<'e> {
    /// `accu + [x]`: a list of `x`'s type.
    ListItem(&'e IdedExpr),
    /// `cel.@mapInsert(accu, k, v)`: a map of `v`'s type.
    MapValue(&'e IdedExpr),
    /// `cel.@mapInsert(accu, m)`: `m`'s map type.
    Entries(&'e IdedExpr),
}

/// What the step of a macro's loop adds to the accumulator `accu`, looking
/// through the filter's conditional.
fn added_by_step<'e>(step: &'e IdedExpr, accu: &str) -> Option<Added<'e>> {
    let Expr::Call(c) = &step.expr else {
        return None;
    };
    let is_accu = |e: &IdedExpr| matches!(&e.expr, Expr::Ident(n) if n == accu);
    match (c.func_name.as_str(), c.args.as_slice()) {
        ("_?_:_", [_, then, otherwise]) if is_accu(otherwise) => added_by_step(then, accu),
        ("_+_", [a, item]) if is_accu(a) => match &item.expr {
            Expr::List(l) if l.elements.len() == 1 => Some(Added::ListItem(&l.elements[0])),
            _ => None,
        },
        (MAP_INSERT, [a, _, v]) if is_accu(a) => Some(Added::MapValue(v)),
        (MAP_INSERT, [a, m]) if is_accu(a) => Some(Added::Entries(m)),
        _ => None,
    }
}

/// The cost per comparison of cel-go's `sortBy`: 2, plus a string traversal
/// (0.1) for string or bytes keys.
pub(crate) fn sort_by_factor(string_keys: bool) -> f64 {
    if string_keys { 2.1 } else { 2.0 }
}
