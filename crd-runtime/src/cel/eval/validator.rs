//! All rules of a schema, evaluated over a whole object
//! (`apiextensions-apiserver/pkg/apiserver/schema/cel` `Validator`).
//!
//! Walks the object along the schema and evaluates every node's rules with
//! `self` bound to the node's value. `oldSelf` is the old object's value at the
//! same place when the place is *correlatable*: object properties, map
//! (`additionalProperties`) entries, and items of `x-kubernetes-list-type: map`
//! lists matched by their keys. Items of other lists have no old value, so
//! transition rules below them only run when `optionalOldSelf` is set.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value as Json;

use crate::correlation::{self, ListPairing};
use crate::field::{BadValue, ErrorType, FieldError, Path};
use crate::model::JSONSchemaProps;

use crate::cel::compile::rule::RuleEnvs;
use crate::cel::compile::rule_error::{RuleError, RuleField};
use crate::cel::cost::budget::{Budget, Limits};
use crate::cel::cost::limits::{EstimatedCost, limit_errors};
use crate::cel::environment::CelEnvironment;
use crate::cel::eval::rules::CompiledRules;
use crate::cel::schema::CelSchema;
use crate::model::PreexistingExpressions;

/// The compiled rules of a schema tree; nodes without rules below them are left out.
#[derive(Debug)]
pub struct Validator {
    schema: Arc<CelSchema>,
    rules: CompiledRules,
    all_of: Vec<CompiledRules>,
    properties: BTreeMap<String, Validator>,
    items: Option<Box<Validator>>,
    additional_properties: Option<Box<Validator>>,
    /// How often the node can occur in one object, from the `maxItems` and
    /// `maxProperties` of the lists and maps above it (`None`: unbounded).
    pub(crate) cardinality: Option<u64>,
}

/// A compile problem with its schema path (`properties[spec].x-kubernetes-validations[0].rule`,
/// relative to the schema root).
#[derive(Clone, Debug, PartialEq)]
pub struct SchemaRuleError {
    /// Path of the schema node holding the rule, relative to the schema root.
    pub node: Path,
    /// The problem.
    pub error: RuleError,
    /// For a transition rule below an uncorrelatable node: that node's path,
    /// relative to the schema root (the detail names it in full).
    pub uncorrelatable_within: Option<Path>,
}

/// `root` followed by the relative path `rel`.
fn join(root: &Path, rel: &Path) -> Path {
    if rel.is_empty() {
        return root.clone();
    }
    if root.is_empty() {
        return rel.clone();
    }
    let sep = if rel.as_str().starts_with('[') {
        ""
    } else {
        "."
    };
    Path::from(format!("{root}{sep}{rel}").as_str())
}

impl SchemaRuleError {
    /// The field error, with `root` the path of the schema root
    /// (e.g. `spec.versions[0].schema.openAPIV3Schema`).
    pub fn to_field_error(&self, root: &Path) -> FieldError {
        let mut e = self.error.to_field_error(&join(root, &self.node));
        if let Some(within) = &self.uncorrelatable_within {
            e.detail = format!(
                "oldSelf cannot be used on the uncorrelatable portion of the schema within {}",
                join(root, within)
            );
        }
        e
    }
}

impl Validator {
    /// Compiles every rule of `schema` (the root of a resource when `resource_root`).
    /// Returns `None` when the schema has no rules at all, plus every compile problem.
    pub fn new(
        schema: &JSONSchemaProps,
        resource_root: bool,
    ) -> (Option<Self>, Vec<SchemaRuleError>) {
        Self::new_in(schema, resource_root, CelEnvironment::NEWEST)
    }

    /// [`Validator::new`] with the rules compiled in the environment `env`.
    pub fn new_in(
        schema: &JSONSchemaProps,
        resource_root: bool,
        env: CelEnvironment,
    ) -> (Option<Self>, Vec<SchemaRuleError>) {
        Self::with_envs(schema, resource_root, RuleEnvs::uniform(env))
    }

    /// [`Validator::new`] for a CRD update: rules and message expressions the
    /// old CRD had (`preexisting`) are compiled in `stored`, the others in `new`,
    /// as the API server does.
    pub fn new_for_update(
        schema: &JSONSchemaProps,
        resource_root: bool,
        new: CelEnvironment,
        stored: CelEnvironment,
        preexisting: &PreexistingExpressions,
    ) -> (Option<Self>, Vec<SchemaRuleError>) {
        let envs = RuleEnvs {
            new,
            stored,
            preexisting: Some(preexisting),
        };
        Self::with_envs(schema, resource_root, envs)
    }

    fn with_envs(
        schema: &JSONSchemaProps,
        resource_root: bool,
        envs: RuleEnvs<'_>,
    ) -> (Option<Self>, Vec<SchemaRuleError>) {
        // Both walks recurse once per schema level (depth::schema); callers past
        // the limit (the engine, the checker) have refused the schema already.
        let depth = crate::depth::schema::schema_depth(schema, usize::MAX);
        crate::depth::schema::with_schema_stack(depth, || {
            let mut errors = Vec::new();
            let v = Self::build(
                &CelSchema::new(schema),
                resource_root,
                &Path::root(),
                None,
                Some(1),
                envs,
                &mut errors,
            );
            (v, errors)
        })
    }

    fn build(
        schema: &Arc<CelSchema>,
        resource_root: bool,
        path: &Path,
        uncorrelatable: Option<&Path>,
        cardinality: Option<u64>,
        env: RuleEnvs<'_>,
        errors: &mut Vec<SchemaRuleError>,
    ) -> Option<Self> {
        let child_cardinality = cardinality
            .zip(crate::cel::cost::sizes::child_factor(schema))
            .map(|(a, b)| a.saturating_mul(b));
        let own = schema.x_kubernetes_validations.as_deref().unwrap_or(&[]);
        let (rules, errs) = CompiledRules::for_node_with(schema.clone(), own, resource_root, env);
        errors.extend(errs.into_iter().map(|error| SchemaRuleError {
            node: path.clone(),
            error,
            uncorrelatable_within: None,
        }));
        if let Some(within) = uncorrelatable {
            for (index, rule) in rules.transition_rules() {
                errors.push(SchemaRuleError {
                    node: path.clone(),
                    error: RuleError {
                        index,
                        field: RuleField::Rule,
                        type_: ErrorType::Invalid,
                        bad_value: BadValue::Str(rule.to_string()),
                        detail: format!(
                            "oldSelf cannot be used on the uncorrelatable portion of the schema within {within}"
                        ),
                    },
                    uncorrelatable_within: Some(within.clone()),
                });
            }
        }
        let mut all_of = Vec::new();
        for (i, branch) in schema.all_of_rules.iter().enumerate() {
            if let Some(branch_rules) = branch {
                let (r, errs) =
                    CompiledRules::for_node_with(schema.clone(), branch_rules, resource_root, env);
                let branch_path = path.child("allOf").index(i);
                errors.extend(errs.into_iter().map(|error| SchemaRuleError {
                    node: branch_path.clone(),
                    error,
                    uncorrelatable_within: None,
                }));
                all_of.push(r);
            }
        }
        // Below a map of an unknown map type, or below the items of a list that is
        // not a map list, old and new values cannot be matched up.
        let map_unc = match schema.x_kubernetes_map_type.as_deref() {
            None | Some("granular") | Some("atomic") => uncorrelatable.cloned(),
            Some(_) => uncorrelatable.cloned().or_else(|| Some(path.clone())),
        };
        let mut child = |s: &Arc<CelSchema>, path: &Path, unc: Option<&Path>| {
            Self::build(
                s,
                s.is_embedded_resource(),
                path,
                unc,
                child_cardinality,
                env,
                errors,
            )
        };
        let mut properties = BTreeMap::new();
        for (k, s) in schema.properties.iter().flatten() {
            if let Some(v) = child(s, &path.child("properties").key(k), map_unc.as_ref()) {
                properties.insert(k.clone(), v);
            }
        }
        let items = schema.items_arc().and_then(|s| {
            let path = path.child("items");
            let unc = match (uncorrelatable, schema.x_kubernetes_list_type.as_deref()) {
                (Some(u), _) => Some(u.clone()),
                (None, Some("map")) => None,
                (None, _) => Some(path.clone()),
            };
            child(s, &path, unc.as_ref()).map(Box::new)
        });
        let additional_properties = schema
            .additional_arc()
            .and_then(|s| child(s, &path.child("additionalProperties"), map_unc.as_ref()))
            .map(Box::new);
        let empty = rules.is_empty()
            && all_of.is_empty()
            && properties.is_empty()
            && items.is_none()
            && additional_properties.is_none();
        (!empty).then(|| Validator {
            schema: schema.clone(),
            rules,
            all_of,
            properties,
            items,
            additional_properties,
            cardinality,
        })
    }

    /// The node's own rules.
    pub(crate) fn own_rules(&self) -> &CompiledRules {
        &self.rules
    }

    /// The children with rules below them, with their paths relative to this
    /// node, in the order the API server visits them.
    pub(crate) fn children(&self, path: &Path) -> Vec<(Path, &Validator)> {
        let mut out = Vec::new();
        if let Some(a) = &self.additional_properties {
            out.push((path.child("additionalProperties"), &**a));
        }
        for (k, v) in &self.properties {
            out.push((path.child("properties").key(k), v));
        }
        if let Some(i) = &self.items {
            out.push((path.child("items"), &**i));
        }
        out
    }

    /// Evaluates every rule over `obj` (and `old` for transition rules) with the
    /// default limits.
    pub fn validate(&self, obj: &Json, old: Option<&Json>) -> Vec<FieldError> {
        let mut budget = Budget::new(Limits::default());
        self.validate_with(obj, old, &Path::root(), &mut budget)
    }

    /// Evaluates every rule below `path` within `budget`.
    pub fn validate_with(
        &self,
        obj: &Json,
        old: Option<&Json>,
        path: &Path,
        budget: &mut Budget,
    ) -> Vec<FieldError> {
        self.validate_ratcheting(obj, old, false, path, budget)
    }

    /// [`Validator::validate_with`]; with `ratcheting`, failures of rules (other than
    /// transition rules) on values unchanged from `old` are dropped.
    pub fn validate_ratcheting(
        &self,
        obj: &Json,
        old: Option<&Json>,
        ratcheting: bool,
        path: &Path,
        budget: &mut Budget,
    ) -> Vec<FieldError> {
        let mut errs = Vec::new();
        let ratchet_old = if ratcheting { old } else { None };
        self.walk(obj, old, ratchet_old, path, budget, &mut errs);
        errs
    }

    /// `old`: the old value for transition rules (paired through objects and map
    /// lists); `ratchet_old`: the old value for ratcheting (also paired by position
    /// in lists without a list type), `None` when not ratcheting.
    fn walk(
        &self,
        obj: &Json,
        old: Option<&Json>,
        ratchet_old: Option<&Json>,
        path: &Path,
        budget: &mut Budget,
        errs: &mut Vec<FieldError>,
    ) {
        if obj.is_null() || budget.stopped {
            return;
        }
        let unchanged = ratchet_old.is_some_and(|o| correlation::unchanged(&*self.schema, obj, o));
        errs.extend(
            self.rules
                .evaluate_ratcheted(obj, old, unchanged, path, budget),
        );
        for r in &self.all_of {
            errs.extend(r.evaluate_ratcheted(obj, old, unchanged, path, budget));
        }
        match obj {
            Json::Array(items) => {
                let Some(iv) = &self.items else { return };
                let schema: &CelSchema = &self.schema;
                let pairing = correlation::Shape::list_pairing(&schema);
                let rule_pairing = match pairing {
                    ListPairing::MapKeys(_) => pairing,
                    _ => ListPairing::None,
                };
                for (i, item) in items.iter().enumerate() {
                    if budget.stopped {
                        return;
                    }
                    iv.walk(
                        item,
                        correlation::item(rule_pairing, item, i, old),
                        correlation::item(pairing, item, i, ratchet_old),
                        &path.index(i),
                        budget,
                        errs,
                    );
                }
            }
            Json::Object(map) => {
                // Every entry against additionalProperties first, then the declared
                // properties, each with its old values paired by key.
                let additional = self.additional_properties.iter().flat_map(|av| {
                    map.iter()
                        .map(move |(k, v)| (av.as_ref(), k, v, path.key(k)))
                });
                let declared = map.iter().filter_map(|(k, v)| {
                    let pv = self.properties.get(k.as_str())?;
                    Some((pv, k, v, path.child(k)))
                });
                for (child, k, v, p) in additional.chain(declared) {
                    if budget.stopped {
                        return;
                    }
                    child.walk(
                        v,
                        correlation::field(old, k),
                        correlation::field(ratchet_old, k),
                        &p,
                        budget,
                        errs,
                    );
                }
            }
            _ => {}
        }
    }
}

/// Whether earlier validation errors stop CEL evaluation, as in the API server:
/// after an unsupported enum value, a missing required field, a too long
/// string, too many items, or a type error, rules would see data they were not
/// written for. Returns the error the API server adds instead of evaluating.
pub fn blocking_error(errs: &[FieldError]) -> Option<FieldError> {
    let blocking = errs.iter().any(|e| {
        matches!(
            e.type_,
            ErrorType::NotSupported
                | ErrorType::Required
                | ErrorType::TooLong
                | ErrorType::TooMany
                | ErrorType::TypeInvalid
        )
    });
    blocking.then(|| {
        FieldError::invalid(
            Path::root(),
            BadValue::Json(Json::Null),
            "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
        )
    })
}

impl Validator {
    /// The estimated cost of every rule and `messageExpression` below this
    /// validator, the root of a schema at `root`, in the order the API server
    /// visits them.
    pub fn estimated_costs(&self, root: &Path) -> Vec<EstimatedCost> {
        let mut out = Vec::new();
        self.collect_costs(root, &mut out);
        out
    }

    fn collect_costs(&self, path: &Path, out: &mut Vec<EstimatedCost>) {
        let rules = self.own_rules();
        let cardinality = self.cardinality.unwrap_or_else(|| rules.max_cardinality());
        for (i, cost, message_cost) in rules.estimated_costs() {
            let at = path.child("x-kubernetes-validations").index(i);
            out.push(EstimatedCost {
                path: at.child("rule"),
                message_expression: false,
                cost: if cost == 0 {
                    0
                } else {
                    cost.saturating_mul(cardinality)
                },
            });
            if let Some(cost) = message_cost {
                out.push(EstimatedCost {
                    path: at.child("messageExpression"),
                    message_expression: true,
                    cost,
                });
            }
        }
        for (child_path, child) in self.children(path) {
            child.collect_costs(&child_path, out);
        }
    }

    /// The cost errors of every rule below this validator, the root of a schema
    /// at `root` (e.g. `spec.versions[0].schema.openAPIV3Schema`): the API server's
    /// limits on estimated costs ([`crate::cel::STATIC_ESTIMATED_COST_LIMIT`] per
    /// expression, [`crate::cel::STATIC_ESTIMATED_CRD_COST_LIMIT`] for the schema).
    pub fn cost_errors(&self, root: &Path) -> Vec<FieldError> {
        limit_errors(self.estimated_costs(root), root)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_converted_string_in_a_message_expression_exceeds_the_budget_100x() {
        // kubernetes/kubernetes#124234: `string(int)` has no size bound.
        let schema = serde_json::json!({
            "type": "object",
            "properties": {"attempts": {"type": "integer"}},
            "x-kubernetes-validations": [{
                "rule": "self.attempts > 0",
                "messageExpression": "'invalid attempts: ' + string(self.attempts)"
            }]
        });
        let schema = serde_json::from_value(schema).unwrap();
        let (v, problems) = Validator::new(&schema, false);
        assert!(problems.is_empty());
        let errs = v.unwrap().cost_errors(&Path::root());
        let want = "estimated messageExpression cost exceeds budget by factor of more than 100x";
        assert!(
            errs.iter().any(|e| e.to_string().contains(want)),
            "{errs:?}"
        );
    }
}
