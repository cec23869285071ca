//! CEL evaluation of `x-kubernetes-validations`, as the API server does it.
//!
//! Built on [kube-cel](https://crates.io/crates/kube-cel) (the Kubernetes CEL
//! libraries for the `cel` crate). This module adds what the API server does
//! around the interpreter:
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
//!   declares (admission expressions);
//! - [`CelEnvironment`]: which libraries and language features each Kubernetes
//!   release declares.
//!
//! Supported beyond plain kube-cel: `cel.bind` (rewritten to a comprehension), the
//! server's `==`/`!=` on `x-kubernetes-list-type: set`/`map` lists (order-insensitive;
//! rewritten to typed equality), and the extension macros each release declares
//! (two-variable comprehensions, `sortBy`, optional syntax).
//!
//! Inside, an expression goes through the modules in this order (each uses only the
//! ones before it):
//! - `schema`: how a schema node looks to CEL: its declared type, escaped property
//!   names, JSON values typed by it;
//! - `environment`: what an expression is compiled against: each release's libraries
//!   and macros, the parser with cel-go's limits, walks of the parsed tree;
//! - `check`: the type checker (unknown fields, undeclared references, operator and
//!   argument types) and `fieldPath`;
//! - `cost`: the static cost estimate and its limits, and the run-time budget;
//! - `library`: the functions the interpreter runs where kube-cel's differ from the
//!   API server's;
//! - `compile`: one rule or standalone expression, checked, estimated and rewritten
//!   for metering;
//! - `eval`: the interpreter context, rules evaluated over objects, the engine pass.

mod check;
mod compile;
mod cost;
mod environment;
mod eval;
mod library;
mod schema;

pub use compile::expression::{DeclType, Declarations, compile_expression, parse_expression};
pub use compile::rule_error::{RuleError, RuleField, SUPPORTED_REASONS};
pub use cost::{
    Budget, EstimatedCost, Limits, STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT,
};
pub use environment::CelEnvironment;
pub use eval::pass::CelPass;
pub use eval::rules::CompiledRules;
pub use eval::validator::{SchemaRuleError, Validator, blocking_error};
pub use schema::CelSchema;
pub use schema::escape::{escape, is_reserved};

// Crate-internal pieces the admission policy engine evaluates its expressions with.
pub(crate) use compile::expression::parse_program;
pub(crate) use cost::budget::{COST_LIMIT_EXCEEDED, Exceeded};
pub(crate) use environment::ast::{for_each_child, for_each_child_mut, node_count};
pub(crate) use environment::releases::authz_builders;
pub(crate) use eval::context::with_root;
pub(crate) use eval::rules::cel_go_error;
pub(crate) use library::authz::{RequestOf as AuthorizerRequest, authorizer_value};
pub(crate) use schema::value::from_json;

#[cfg(test)]
mod check_library_tests;
#[cfg(test)]
mod equality_tests;
#[cfg(test)]
mod syntax_tests;
#[cfg(test)]
mod tests;
