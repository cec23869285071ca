//! What cel-go's runtime cost tracker (`interpreter/runtimecost.go`, as the API
//! server configures it) charges for evaluating one node, not counting its
//! children: identifiers, field selections and index qualifiers 1, constants 0,
//! presence tests (`has()`) 0 (`PresenceTestHasCost` is false in Kubernetes),
//! list/map/object literals 10/30/40, `&&`, `||` and `?:` nothing of their own,
//! any other call 1. Calls whose cost depends on their arguments' sizes charge
//! the difference themselves when they run (see [`crate::cel::cost::budget::charge`]).

use kube_cel::cel::common::ast::{CallExpr, Expr, IdedExpr};

/// cel-go's `common.ListCreateBaseCost`.
const LIST_CREATE: u64 = 10;
/// cel-go's `common.MapCreateBaseCost`.
const MAP_CREATE: u64 = 30;
/// cel-go's `common.StructCreateBaseCost`.
const STRUCT_CREATE: u64 = 40;

/// Whether the call evaluates its arguments after the first only on demand.
pub(crate) fn is_short_circuit(c: &CallExpr) -> bool {
    matches!(c.func_name.as_str(), "_&&_" | "_||_" | "_?_:_")
}

/// Functions that charge their whole call cost themselves when they run (it
/// depends on their arguments): the API server's parsing functions
/// (`library/`), whose cost is a traversal of the parsed string.
const SELF_CHARGING: &[&str] = &[
    "ip",
    "isIP",
    "cidr",
    "isCIDR",
    "containsIP",
    "containsCIDR",
    "quantity",
    "isQuantity",
    "semver",
    "isSemver",
    "url",
];

/// Namespaces of functions (`sets.contains`, `ip.isCanonical`, …): the checker
/// resolves `ns.f(x)` to the function `ns.f`, so `ns` is not an evaluated
/// identifier and costs nothing.
const NAMESPACES: &[&str] = &[
    "base64", "format", "ip", "lists", "math", "optional", "sets", "strings",
];

/// Whether the call's target is a function namespace rather than a receiver.
pub(crate) fn is_namespaced(c: &CallExpr) -> bool {
    matches!(c.target.as_deref(), Some(IdedExpr { expr: Expr::Ident(ns), .. })
        if NAMESPACES.contains(&ns.as_str()))
}

/// The fixed part of what cel-go charges for the call itself.
pub(crate) fn call_cost(c: &CallExpr) -> u64 {
    let name = c.func_name.as_str();
    let self_charging = if is_namespaced(c) {
        name == "isCanonical"
    } else {
        SELF_CHARGING.contains(&name)
    };
    if is_short_circuit(c) || self_charging {
        0
    } else {
        1
    }
}

/// The cost of a node that is not a call or a comprehension.
pub(crate) fn node_cost(e: &IdedExpr) -> u64 {
    match &e.expr {
        Expr::Ident(_) => 1,
        Expr::Select(s) if s.test => 0,
        Expr::Select(_) => 1,
        Expr::List(_) => LIST_CREATE,
        Expr::Map(_) => MAP_CREATE,
        Expr::Struct(_) => STRUCT_CREATE,
        Expr::Literal(_) | Expr::Unspecified | Expr::Call(_) | Expr::Comprehension(_) => 0,
    }
}
