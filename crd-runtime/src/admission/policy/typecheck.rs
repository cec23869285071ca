//! `status.typeChecking` of ValidatingAdmissionPolicies (`TypeChecker.Check`):
//! each validation's expression and messageExpression compiled again with
//! `object`/`oldObject` typed by the schema of each kind the policy names
//! explicitly (no wildcards, no subresources), reported per kind as
//! `group/version, Kind=Kind: <issues>`.

use std::sync::Arc;

use serde_json::{Value, json};

use super::expression::{Returns, Scope, check};
use super::plan::Header;
use super::validator::Validator;
use crate::cel::{CelEnvironment, CelSchema};
use crate::model::JSONSchemaProps;

/// At most this many kinds are checked per policy (`maxTypesToCheck`).
const MAX_TYPES: usize = 10;

/// A callback giving the kind and structural schema of `group/version/resource`.
pub type SchemaOf<'a> = &'a dyn Fn(&str, &str, &str) -> Option<(String, JSONSchemaProps)>;

fn strings<'a>(v: &'a Value, f: &str) -> Vec<&'a str> {
    v.get(f)
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// The kinds to check: (`group/version, Kind=Kind`, schema), sorted.
fn kinds(header: &Header, schema_of: SchemaOf) -> Vec<(String, Arc<CelSchema>)> {
    let rules = header
        .match_constraints
        .as_ref()
        .and_then(|m| m.get("resourceRules"))
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let mut out: Vec<(String, Arc<CelSchema>)> = Vec::new();
    for rule in rules {
        let mut groups = strings(rule, "apiGroups");
        let mut versions = strings(rule, "apiVersions");
        if groups.iter().chain(&versions).any(|s| s.contains('*')) {
            continue;
        }
        let mut resources: Vec<&str> = strings(rule, "resources")
            .into_iter()
            .filter(|r| !r.contains(['*', '/']))
            .collect();
        groups.sort();
        versions.sort();
        resources.sort();
        for g in &groups {
            for v in &versions {
                for r in &resources {
                    if let Some((kind, schema)) = schema_of(g, v, r) {
                        let name = format!("{g}/{v}, Kind={kind}");
                        if !out.iter().any(|(n, _)| *n == name) {
                            out.push((name, CelSchema::new(&schema)));
                        }
                        if out.len() == MAX_TYPES {
                            out.sort_by(|a, b| a.0.cmp(&b.0));
                            return out;
                        }
                    }
                }
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The `expressionWarnings` of one policy.
pub(super) fn warnings(
    header: &Header,
    validator: &Validator,
    env: CelEnvironment,
    schema_of: SchemaOf,
) -> Vec<Value> {
    let kinds = kinds(header, schema_of);
    if kinds.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (field_ref, e) in validator.checked_expressions() {
        let mut issues = Vec::new();
        for (gvk, schema) in &kinds {
            let scope = Scope {
                authorizer: e.returns != Returns::String,
                object: Some(schema),
                ..Scope::policy(header.param_kind.is_some(), &validator.variable_names, env)
            };
            if let Err(problem) = check(&e.src, e.returns, scope) {
                issues.push(format!("{gvk}: {problem}\n"));
            }
        }
        if !issues.is_empty() {
            out.push(json!({"fieldRef": field_ref, "warning": issues.join("\n")}));
        }
    }
    out
}
