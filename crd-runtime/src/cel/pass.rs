//! CEL as the engine's last validation pass.

use serde_json::Value;

use crate::engine::{PassContext, ValidationPass};
use crate::field::{ErrorList, Path};
use crate::model::JSONSchemaProps;

use super::budget::{Budget, Limits};
use super::validator::{SchemaRuleError, Validator, blocking_error};

/// Evaluates every `x-kubernetes-validations` rule of a schema after the
/// engine's built-in checks, as the API server does: not at all when an earlier
/// error is blocking (wrong type, missing required field, unsupported enum value,
/// too long, too many), and within a fresh [`Budget`] per object.
///
/// ```
/// use std::sync::Arc;
/// use crd_runtime::cel::CelPass;
/// use crd_runtime::engine::{Engine, SchemaOptions};
/// use serde_json::json;
///
/// let schema = serde_json::from_value(json!({"type": "object", "properties": {
///     "min": {"type": "integer"}, "max": {"type": "integer"}},
///     "x-kubernetes-validations": [{"rule": "self.min <= self.max", "message": "min above max"}]}))
///     .unwrap();
/// let (pass, problems) = CelPass::new(&schema, false);
/// assert!(problems.is_empty());
/// let engine = Engine::for_schema(&schema, SchemaOptions::default())
///     .unwrap()
///     .with_pass(Arc::new(pass));
/// let errs = engine.validate(&json!({"min": 3, "max": 1}));
/// assert_eq!(errs.strings(), vec![r#"<nil>: Invalid value: "object": min above max"#]);
/// ```
#[derive(Debug)]
pub struct CelPass {
    validator: Option<Validator>,
    limits: Limits,
}

impl CelPass {
    /// Compiles the rules of `schema` (a resource root when `resource_root`).
    /// Compile problems are returned too; rules that do not compile report
    /// `rule compile error` when evaluated, like the server.
    pub fn new(schema: &JSONSchemaProps, resource_root: bool) -> (CelPass, Vec<SchemaRuleError>) {
        let (validator, problems) = Validator::new(schema, resource_root);
        (
            CelPass {
                validator,
                limits: Limits::default(),
            },
            problems,
        )
    }

    /// Uses `limits` instead of the API server's.
    pub fn with_limits(mut self, limits: Limits) -> CelPass {
        self.limits = limits;
        self
    }

    /// Whether the schema has any rule.
    pub fn has_rules(&self) -> bool {
        self.validator.is_some()
    }

    /// Evaluates the rules over `value` (with `old` for transition rules), appending
    /// to `errors`, which holds the errors found so far.
    pub fn check(&self, value: &Value, old: Option<&Value>, errors: &mut ErrorList) {
        let Some(v) = &self.validator else { return };
        if let Some(e) = blocking_error(&errors.0) {
            errors.push(e);
            return;
        }
        let mut budget = Budget::new(self.limits);
        errors.extend(v.validate_with(value, old, &Path::root(), &mut budget));
    }
}

impl ValidationPass for CelPass {
    fn validate(&self, cx: &PassContext<'_>, errors: &mut ErrorList) {
        self.check(cx.value, cx.old, errors);
    }
}
