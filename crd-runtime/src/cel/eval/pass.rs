//! CEL as the engine's last validation step.

use serde_json::Value;

use crate::KubeVersion;
use crate::field::{ErrorList, Path};
use crate::model::JSONSchemaProps;

use crate::cel::cost::budget::{Budget, Limits};
use crate::cel::environment::CelEnvironment;
use crate::cel::eval::validator::{SchemaRuleError, Validator, blocking_error};

/// Evaluates every `x-kubernetes-validations` rule of a schema after the
/// engine's built-in checks, as the API server does: not at all when an earlier
/// error is blocking (wrong type, missing required field, unsupported enum value,
/// too long, too many), and within a fresh [`Budget`] per object.
///
/// Every [`Engine`](crate::Engine) builds one for its schema, so this is only
/// needed to run rules on their own:
///
/// ```
/// use crd_runtime::cel::CelPass;
/// use crd_runtime::ErrorList;
/// use serde_json::json;
///
/// let schema = serde_json::from_value(json!({"type": "object", "properties": {
///     "min": {"type": "integer"}, "max": {"type": "integer"}},
///     "x-kubernetes-validations": [{"rule": "self.min <= self.max", "message": "min above max"}]}))
///     .unwrap();
/// let (pass, problems) = CelPass::new(&schema, false);
/// assert!(problems.is_empty());
/// let mut errs = ErrorList::new();
/// pass.check(&json!({"min": 3, "max": 1}), None, &mut errs);
/// assert_eq!(errs.strings(), vec!["<nil>: Invalid value: min above max"]);
/// ```
#[derive(Debug)]
pub struct CelPass {
    validator: Option<Validator>,
    limits: Limits,
    ratcheting: bool,
}

impl CelPass {
    /// Compiles the rules of `schema` (a resource root when `resource_root`) for the
    /// newest Kubernetes release. Compile problems are returned too; rules that do
    /// not compile report `rule compile error` when evaluated, like the server.
    pub fn new(schema: &JSONSchemaProps, resource_root: bool) -> (CelPass, Vec<SchemaRuleError>) {
        Self::for_version(schema, resource_root, KubeVersion::NEWEST)
    }

    /// [`CelPass::new`] with the environment and messages of Kubernetes `version`,
    /// and ratcheting as that release has it by default. The rules are those of
    /// an installed CRD, so they are compiled in the release's stored-expression
    /// environment (`StoredExpressionsEnvLoader`), as the server evaluates them.
    pub fn for_version(
        schema: &JSONSchemaProps,
        resource_root: bool,
        version: KubeVersion,
    ) -> (CelPass, Vec<SchemaRuleError>) {
        let (validator, problems) = Validator::new_in(
            schema,
            resource_root,
            CelEnvironment::stored_for_kube(version),
        );
        (
            CelPass {
                validator,
                limits: Limits::default(),
                ratcheting: version.ratcheting_by_default(),
            },
            problems,
        )
    }

    /// Uses `limits` instead of the API server's.
    pub fn with_limits(mut self, limits: Limits) -> CelPass {
        self.limits = limits;
        self
    }

    /// Turns validation ratcheting on updates on or off.
    pub fn with_ratcheting(mut self, on: bool) -> CelPass {
        self.ratcheting = on;
        self
    }

    /// Whether the schema has any rule.
    pub fn has_rules(&self) -> bool {
        self.validator.is_some()
    }

    /// Evaluates the rules over `value` (with `old` for transition rules and
    /// ratcheting), appending to `errors`, which holds the errors found so far.
    pub fn check(&self, value: &Value, old: Option<&Value>, errors: &mut ErrorList) {
        let Some(v) = &self.validator else { return };
        if let Some(e) = blocking_error(&errors.0) {
            errors.push(e);
            return;
        }
        let mut budget = Budget::new(self.limits);
        errors.extend(v.validate_ratcheting(
            value,
            old,
            self.ratcheting,
            &Path::root(),
            &mut budget,
        ));
    }
}
