//! The CEL expressions a CRD already has, which an update compiles in the
//! stored-expression environment (`findPreexistingExpressions`).

use std::collections::HashSet;

use super::{CustomResourceDefinition, JSONSchemaProps};

/// The rules and message expressions of a CRD, anywhere in its schemas,
/// matched by text (not by position) as the API server does.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PreexistingExpressions {
    /// `rule` texts.
    pub rules: HashSet<String>,
    /// Non-empty `messageExpression` texts.
    pub message_expressions: HashSet<String>,
}

impl PreexistingExpressions {
    /// The expressions of every version's schema of `crd`.
    pub fn of(crd: &CustomResourceDefinition) -> Self {
        let mut out = PreexistingExpressions::default();
        for v in &crd.spec.versions {
            if let Some(schema) = v
                .schema
                .as_ref()
                .and_then(|s| s.open_api_v3_schema.as_ref())
            {
                out.collect(schema);
            }
        }
        out
    }

    fn collect(&mut self, s: &JSONSchemaProps) {
        for rule in s.x_kubernetes_validations.iter().flatten() {
            self.rules.insert(rule.rule.clone());
            if let Some(me) = rule.message_expression.as_ref().filter(|m| !m.is_empty()) {
                self.message_expressions.insert(me.clone());
            }
        }
        s.for_each_child(&mut |_, c| self.collect(c));
    }
}
