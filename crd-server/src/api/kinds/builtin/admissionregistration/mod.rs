//! admissionregistration.k8s.io/v1: webhook configurations ([`webhooks`]), validating
//! admission policies and their bindings ([`policies`]), mutating admission policies
//! and their bindings ([`mutating`], served from 1.36), with kube-apiserver's
//! defaults (`SetDefaults_*`) and validation (`pkg/apis/admissionregistration/
//! validation`); CEL expressions compiled with the admission variables ([`cel`]).
//! This module holds what they share: rules, match resources, match conditions.

mod bindings;
mod catalog;
pub mod cel;
pub mod mutating_policies;
mod preexisting;
pub mod validating_policies;
pub mod webhook_configurations;

pub(super) use catalog::KINDS;

use crd_runtime::KubeVersion;
use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use crd_runtime::names::{dns1035_label, dns1123_subdomain, path_segment_name};
use serde_json::{Value, json};

use crate::api::kinds::builtin::admissionregistration::cel::{Expr, compile};
use crate::api::selectors::label::{self, label_name};

pub(crate) const FAILURE_POLICIES: &[&str] = &["Fail", "Ignore"];
const MATCH_POLICIES: &[&str] = &["Equivalent", "Exact"];
const OPERATIONS: &[&str] = &["*", "CONNECT", "CREATE", "DELETE", "UPDATE"];
const SCOPES: &[&str] = &["*", "Cluster", "Namespaced"];

/// The string at `field` (empty when absent).
pub(crate) fn text<'a>(obj: &'a Value, field: &str) -> &'a str {
    obj.get(field).and_then(Value::as_str).unwrap_or("")
}

/// The strings of the list at `field`.
pub(crate) fn strings<'a>(obj: &'a Value, field: &str) -> Vec<&'a str> {
    list(obj, field)
        .iter()
        .map(|v| v.as_str().unwrap_or(""))
        .collect()
}

/// The items of the list at `field`.
pub(crate) fn list<'a>(obj: &'a Value, field: &str) -> &'a [Value] {
    obj.get(field)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn string_list(values: &[&str]) -> BadValue {
    BadValue::Json(json!(values))
}

/// Sets `field` of `obj` (an object) when absent.
pub(crate) fn default(obj: &mut Value, field: &str, value: Value) {
    if let Value::Object(m) = obj
        && m.get(field).is_none_or(Value::is_null)
    {
        m.insert(field.into(), value);
    }
}

/// `Unsupported value` when `field` is set to something outside `supported`.
pub(crate) fn one_of(
    obj: &Value,
    field: &str,
    supported: &[&str],
    path: &Path,
    errs: &mut ErrorList,
) {
    if let Some(v) = obj.get(field).and_then(Value::as_str)
        && !supported.contains(&v)
    {
        errs.push(FieldError::not_supported(
            path.child(field),
            BadValue::Str(v.into()),
            supported,
        ));
    }
}

/// `SetDefaults_Rule`: `scope` is `*`.
fn default_rules(rules: Option<&mut Value>) {
    if let Some(Value::Array(rules)) = rules {
        for rule in rules {
            default(rule, "scope", json!("*"));
        }
    }
}

/// `SetDefaults_MatchResources` (and the rules inside).
pub(crate) fn default_match_resources(mr: &mut Value) {
    default(mr, "matchPolicy", json!("Equivalent"));
    default(mr, "namespaceSelector", json!({}));
    default(mr, "objectSelector", json!({}));
    default_rules(mr.get_mut("resourceRules"));
    default_rules(mr.get_mut("excludeResourceRules"));
}

fn has_wildcard(values: &[&str]) -> bool {
    values.contains(&"*")
}

/// `validateResources`: resources with subresources (`pods/status`, `*/*`, …).
fn resources(rs: &[&str], path: &Path, errs: &mut ErrorList) {
    if rs.is_empty() {
        errs.push(FieldError::required(path.clone(), ""));
    }
    let (mut wildcard_sub, mut wildcard_res) = (Vec::new(), Vec::new());
    let (mut double, mut single, mut plain) = (false, false, false);
    for (i, r) in rs.iter().enumerate() {
        if r.is_empty() {
            errs.push(FieldError::required(path.index(i), ""));
            continue;
        }
        double |= *r == "*/*";
        single |= *r == "*";
        let Some((res, sub)) = r.split_once('/') else {
            plain = *r != "*";
            continue;
        };
        if wildcard_sub.contains(&res) {
            errs.push(FieldError::invalid(
                path.index(i),
                BadValue::Str(r.to_string()),
                format!("if '{res}/*' is present, must not specify {r}"),
            ));
        }
        if wildcard_res.contains(&sub) {
            errs.push(FieldError::invalid(
                path.index(i),
                BadValue::Str(r.to_string()),
                format!("if '*/{sub}' is present, must not specify {r}"),
            ));
        }
        if sub == "*" {
            wildcard_sub.push(res);
        }
        if res == "*" {
            wildcard_res.push(sub);
        }
    }
    if rs.len() > 1 && double {
        errs.push(FieldError::invalid(
            path.clone(),
            string_list(rs),
            "if '*/*' is present, must not specify other resources",
        ));
    }
    if single && plain {
        errs.push(FieldError::invalid(
            path.clone(),
            string_list(rs),
            "if '*' is present, must not specify other resources without subresources",
        ));
    }
}

/// `validateRuleWithOperations` (subresources allowed).
pub(crate) fn rule_with_operations(rule: &Value, path: &Path, errs: &mut ErrorList) {
    let listed = |field: &str, what: &str, errs: &mut ErrorList| {
        let items = strings(rule, field);
        if items.is_empty() {
            errs.push(FieldError::required(path.child(field), ""));
        }
        if items.len() > 1 && has_wildcard(&items) {
            errs.push(FieldError::invalid(
                path.child(field),
                string_list(&items),
                format!("if '*' is present, must not specify other {what}"),
            ));
        }
        items
    };
    let ops = listed("operations", "operations", errs);
    for (i, op) in ops.iter().enumerate() {
        if !OPERATIONS.contains(op) {
            errs.push(FieldError::not_supported(
                path.child("operations").index(i),
                BadValue::Str(op.to_string()),
                OPERATIONS,
            ));
        }
    }
    listed("apiGroups", "API groups", errs);
    let versions = listed("apiVersions", "API versions", errs);
    for (i, v) in versions.iter().enumerate() {
        if v.is_empty() {
            errs.push(FieldError::required(path.child("apiVersions").index(i), ""));
        }
    }
    resources(&strings(rule, "resources"), &path.child("resources"), errs);
    one_of(rule, "scope", SCOPES, path, errs);
}

/// `validateMatchResources` of a policy or binding.
pub(crate) fn match_resources(mr: &Value, path: &Path, errs: &mut ErrorList) {
    match mr.get("matchPolicy").and_then(Value::as_str) {
        None => errs.push(FieldError::required(path.child("matchPolicy"), "")),
        Some(_) => one_of(mr, "matchPolicy", MATCH_POLICIES, path, errs),
    }
    for sel in ["namespaceSelector", "objectSelector"] {
        match mr.get(sel).filter(|v| !v.is_null()) {
            None => errs.push(FieldError::required(path.child(sel), "")),
            Some(s) => label::validate(s, label::Options::default(), &path.child(sel), errs),
        }
    }
    for field in ["resourceRules", "excludeResourceRules"] {
        for (i, rule) in list(mr, field).iter().enumerate() {
            let at = path.child(field).index(i);
            let names = strings(rule, "resourceNames");
            for (j, name) in names.iter().enumerate() {
                for m in path_segment_name(name, false) {
                    errs.push(FieldError::invalid(
                        at.child("resourceNames").index(j),
                        BadValue::Str(name.to_string()),
                        m,
                    ));
                }
                if names[..j].contains(name) {
                    errs.push(FieldError::duplicate(
                        at.child("resourceNames").index(j),
                        BadValue::Str(name.to_string()),
                    ));
                }
            }
            rule_with_operations(rule, &at, errs);
        }
    }
}

/// Which variables a compiled expression sees besides `object`, `oldObject`,
/// `request` and `namespaceObject`.
#[derive(Clone, Copy)]
pub(crate) struct Scope<'a> {
    pub params: bool,
    pub authorizer: bool,
    /// The policy's variables (`variables.<name>`), when it has any.
    pub variables: Option<&'a [String]>,
    pub version: KubeVersion,
    /// Expressions (of the role being compiled) the updated object already had:
    /// those compile in the stored-expression environment.
    pub stored: Option<&'a std::collections::HashSet<String>>,
}

/// `validateMatchConditions`: at most 64, names unique and qualified, expressions
/// compiled to bool.
pub(crate) fn match_conditions(
    conditions: &[Value],
    scope: Scope,
    path: &Path,
    errs: &mut ErrorList,
) {
    if conditions.len() > 64 {
        errs.push(FieldError::too_many(
            path.clone(),
            conditions.len() as i64,
            64,
        ));
    }
    let mut names = Vec::new();
    for (i, c) in conditions.iter().enumerate() {
        let at = path.index(i);
        let expression = text(c, "expression").trim();
        if expression.is_empty() {
            errs.push(FieldError::required(at.child("expression"), ""));
        } else {
            compile(expression, Expr::Bool, scope, &at.child("expression"), errs);
        }
        let name = text(c, "name");
        if name.is_empty() {
            errs.push(FieldError::required(at.child("name"), ""));
        } else {
            label_name(name, &at.child("name"), errs);
            if names.contains(&name) {
                errs.push(FieldError::duplicate(
                    at.child("name"),
                    BadValue::Str(name.into()),
                ));
            }
            names.push(name);
        }
    }
}

/// One `Invalid` error of `value` listing all its `problems`, when there are any (the
/// name checks of a param kind's `apiVersion`).
fn joined_problems(value: &str, problems: Vec<String>, at: &Path, errs: &mut ErrorList) {
    if !problems.is_empty() {
        errs.push(FieldError::invalid(
            at.clone(),
            BadValue::Str(value.into()),
            problems.join(","),
        ));
    }
}

/// `validateParamKind`.
pub(crate) fn param_kind(pk: &Value, path: &Path, errs: &mut ErrorList) {
    let api_version = text(pk, "apiVersion");
    let at = path.child("apiVersion");
    if api_version.is_empty() {
        errs.push(FieldError::required(at.clone(), ""));
    } else if api_version.matches('/').count() > 1 {
        errs.push(FieldError::invalid(
            at.clone(),
            BadValue::Str(api_version.into()),
            format!("unexpected GroupVersion string: {api_version}"),
        ));
    } else if api_version != "/" {
        let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
        if !group.is_empty() {
            joined_problems(group, dns1123_subdomain(group), &at, errs);
        }
        if version.is_empty() {
            errs.push(FieldError::invalid(
                at.clone(),
                BadValue::Str(api_version.into()),
                "version must be specified",
            ));
        } else {
            joined_problems(version, dns1035_label(version), &at, errs);
        }
    }
    let kind = text(pk, "kind");
    if kind.is_empty() {
        errs.push(FieldError::required(path.child("kind"), ""));
    } else {
        let problems = dns1035_label(&kind.to_lowercase());
        if !problems.is_empty() {
            errs.push(FieldError::invalid(
                path.child("kind"),
                BadValue::Str(kind.into()),
                format!(
                    "may have mixed case, but should otherwise match: {}",
                    problems.join(",")
                ),
            ));
        }
    }
}

/// `validateParamRef` of a binding.
pub(crate) fn param_ref(pr: &Value, path: &Path, errs: &mut ErrorList) {
    let name = text(pr, "name");
    let selector = pr.get("selector").filter(|v| !v.is_null());
    const EXCLUSIVE: &str = "name and selector are mutually exclusive";
    if !name.is_empty() {
        for m in path_segment_name(name, false) {
            errs.push(FieldError::invalid(
                path.child("name"),
                BadValue::Str(name.into()),
                m,
            ));
        }
        if selector.is_some() {
            errs.push(FieldError::forbidden(path.child("name"), EXCLUSIVE));
        }
    }
    if let Some(sel) = selector {
        label::validate(
            sel,
            label::Options::default(),
            &path.child("selector"),
            errs,
        );
        if !name.is_empty() {
            errs.push(FieldError::forbidden(path.child("selector"), EXCLUSIVE));
        }
    }
    if name.is_empty() && selector.is_none() {
        errs.push(FieldError::required(
            path.clone(),
            "one of name or selector must be specified",
        ));
    }
    match pr.get("parameterNotFoundAction").and_then(Value::as_str) {
        None | Some("") => errs.push(FieldError::required(
            path.child("parameterNotFoundAction"),
            "",
        )),
        Some("Deny" | "Allow") => {}
        Some(other) => errs.push(FieldError::not_supported(
            path.child("parameterNotFoundAction"),
            BadValue::Str(other.into()),
            &["Deny", "Allow"],
        )),
    }
}

/// `isCELIdentifier`: a variable's name.
pub(crate) fn is_cel_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
        && !crd_runtime::cel::is_reserved(name)
}

/// The policies and bindings count generations of their spec.
macro_rules! spec_generation {
    ($($kind:ty),*) => {$(
        impl crate::api::kinds::builtin::behaviour::Preparer for $kind {
            fn prepare_for_create(&self, obj: &mut Value) {
                generation_on_create(obj);
            }

            fn prepare_for_update(
                &self,
                new: &mut Value,
                old: &Value,
                sub: crate::api::kinds::Subresource,
            ) {
                generation_on_update(new, old, sub);
            }
        }
    )*};
}

spec_generation!(
    mutating_policies::MutatingPolicies,
    validating_policies::ValidatingPolicies,
    bindings::Bindings
);

/// The admission policies' and bindings' `PrepareForCreate`: generation 1 (the
/// status controller compares it with `status.observedGeneration`).
fn generation_on_create(obj: &mut Value) {
    crate::api::object::meta_mut(obj).insert("generation".into(), json!(1));
}

/// Their `PrepareForUpdate`: the generation moves on when the spec changes (the status
/// endpoint keeps it).
fn generation_on_update(new: &mut Value, old: &Value, sub: crate::api::kinds::Subresource) {
    let kept = old
        .pointer("/metadata/generation")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    let changed = sub == crate::api::kinds::Subresource::Main && new.get("spec") != old.get("spec");
    let generation = if changed { kept + 1 } else { kept };
    crate::api::object::meta_mut(new).insert("generation".into(), json!(generation));
}

#[cfg(test)]
#[path = "admissionregistration_tests.rs"]
mod tests;
