//! The CEL expressions an update replaces (`findValidatingPolicyPreexistingExpressions`
//! and the webhook variants): an expression whose text the old object already had
//! (in the same role) compiles in the server's stored-expression environment, any
//! other in the new-expression one (compatibility version one release back).

use std::collections::HashSet;

use serde_json::Value;

use crate::api::kinds::builtin::admissionregistration::{list, text};

/// The old object's expressions, by role; empty on create.
#[derive(Debug, Default)]
pub(crate) struct Preexisting {
    pub(crate) match_conditions: HashSet<String>,
    pub(crate) validations: HashSet<String>,
    pub(crate) message_expressions: HashSet<String>,
    pub(crate) audit_annotations: HashSet<String>,
}

impl Preexisting {
    /// The expressions of an old policy's `spec`.
    pub(crate) fn of_policy(old_spec: Option<&Value>) -> Self {
        let mut out = Preexisting::default();
        let Some(spec) = old_spec else { return out };
        out.match_conditions = texts(list(spec, "matchConditions"), "expression");
        out.validations = texts(list(spec, "validations"), "expression");
        out.message_expressions = texts(list(spec, "validations"), "messageExpression");
        out.audit_annotations = texts(list(spec, "auditAnnotations"), "valueExpression");
        out
    }

    /// The match conditions of every webhook of an old configuration.
    pub(crate) fn of_webhooks(old: Option<&Value>) -> Self {
        let mut out = Preexisting::default();
        for hook in old.map_or(&[][..], |o| list(o, "webhooks")) {
            out.match_conditions
                .extend(texts(list(hook, "matchConditions"), "expression"));
        }
        out
    }
}

fn texts(items: &[Value], field: &str) -> HashSet<String> {
    items
        .iter()
        .map(|i| text(i, field))
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}
