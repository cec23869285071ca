//! CEL evaluation of `x-kubernetes-validations`, as the API server does it.
//!
//! Built on [kube-cel](https://crates.io/crates/kube-cel) (the Kubernetes CEL
//! libraries for the `cel` crate). This module adds what the API server does
//! around the interpreter:
//! - `value`: JSON values typed by the schema (int-or-string, timestamps,
//!   durations, bytes, escaped property names, resource-root metadata);
//! - static checks at compile time (`check`: unknown fields, undeclared
//!   references, operator type errors; `field_path`: `fieldPath`);
//! - [`CompiledRules`] per schema node and the whole-schema [`Validator`] with
//!   `self`/`oldSelf` (correlated like the server), `optionalOldSelf`,
//!   `message`, `messageExpression`, `reason` and `fieldPath`, and the server's
//!   error strings;
//! - cost and time limits at run time ([`Limits`], [`Budget`]) and the API
//!   server's static cost estimation at CRD check time ([`Validator::cost_errors`]:
//!   per-expression and per-CRD limits, rules under lists and maps multiplied by
//!   how often they can run);
//! - [`CelPass`]: all of it as the last validation pass of an
//!   [`Engine`](crate::engine::Engine);
//! - [`compile_expression`]: standalone expressions with the variables their host
//!   declares (admission expressions).
//!
//! Supported beyond plain kube-cel: `cel.bind` (rewritten to a comprehension),
//! and the server's `==`/`!=` on `x-kubernetes-list-type: set`/`map` lists
//! (order-insensitive; rewritten to typed equality, see `equality`).
//! Not supported (the `cel` 0.13 parser has no such macros): two-variable
//! comprehensions and `sortBy`; they fail to compile with `undeclared reference`.

mod authz;
mod budget;
mod check;
mod compile;
mod conversions;
mod cost;
mod cost_limits;
mod decl;
mod env;
mod environment;
mod equality;
mod escape;
mod expression;
pub(crate) mod field_path;
mod jsonpatch;
mod library;
mod lists;
mod parse_limits;
mod pass;
mod releases;
mod rewrite;
mod rule_error;
mod rules;
mod schema;
mod sizes;
mod step_cost;
mod syntax;
mod validator;
pub(crate) mod value;

pub use budget::{Budget, Limits};
// Crate-internal pieces the admission policy engine evaluates its expressions with.
pub(crate) use authz::authorizer_value;
pub(crate) use budget::{COST_LIMIT_EXCEEDED, Exceeded};
pub use cost_limits::{
    EstimatedCost, STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT,
};
pub(crate) use env::with_root;
pub use environment::CelEnvironment;
pub use escape::{escape, is_reserved};
pub(crate) use expression::parse_program;
pub use expression::{DeclType, Declarations, compile_expression, parse_expression};
pub use pass::CelPass;
pub(crate) use rewrite::{for_each_child, for_each_child_mut, node_count};
pub use rule_error::{RuleError, RuleField, SUPPORTED_REASONS};
pub use rules::CompiledRules;
pub(crate) use rules::cel_go_error;
pub use schema::CelSchema;
pub use validator::{SchemaRuleError, Validator, blocking_error};
pub(crate) use value::from_json;

#[cfg(test)]
mod check_library_tests;
#[cfg(test)]
mod equality_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_syntax;
