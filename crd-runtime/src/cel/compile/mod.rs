//! Compiling expressions: one `x-kubernetes-validations` rule against the schema of
//! its node (`rule`: shape checks of its fields, parsing, type checking, the static
//! cost estimate; errors in `rule_error`), standalone expressions with the variables
//! their host declares (`expression`), and the rewrites a parsed expression gets
//! before it runs (`rewrite`: metering, `cel.bind`).

pub(in crate::cel) mod expression;
pub(in crate::cel) mod rewrite;
pub(in crate::cel) mod rule;
pub(in crate::cel) mod rule_error;
