//! Compiling `x-kubernetes-validations` at CRD check time (feature `cel`):
//! syntax and type errors, unknown fields, `optionalOldSelf` without `oldSelf`, and transition rules where old and new
//! values cannot be correlated. The shape of each rule (empty rule, line breaks,
//! unknown reason) and its `fieldPath` are checked in [`super::openapi`] without CEL.
//!
//! Like the API server, rules of a node are only compiled when the node's subtree
//! is a valid structural schema; here that means it converts to one and no node
//! mixes `properties` with `additionalProperties` (the invalid shapes upstream's
//! tables exercise). Rules whose estimated cost exceeds the API server's
//! per-expression or per-CRD limits are `Forbidden` ([`Validator::cost_errors`]).

use crate::cel::{CelEnvironment, RuleField, Validator};
use crate::field::{ErrorList, Path};
use crate::model::{JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool};

use super::CheckOptions;
use super::structural::conversion_error;

/// The compile errors of every rule in the schema at `root`
/// (`spec.versions[0].schema.openAPIV3Schema`).
pub fn cel_rule_errors(schema: &JSONSchemaProps, root: &Path, opts: &CheckOptions) -> ErrorList {
    let mut errs = ErrorList::new();
    if !has_rules(schema) {
        return errs;
    }
    let mut compilable = schema.clone();
    drop_rules_of_invalid_subtrees(&mut compilable);
    // Rules inside allOf are forbidden in structural schemas (reported by the
    // structural checks); upstream does not compile them.
    drop_all_of_rules(&mut compilable);
    // New expressions at the compatibility version; on an update, those the old
    // CRD had in the environment of the server (one release newer).
    let (new, stored) = match opts.cel_environment_version {
        Some((major, minor)) => (
            CelEnvironment::for_compatibility_version(major, minor),
            CelEnvironment::stored_for_version(major, minor.saturating_add(1)),
        ),
        None => (CelEnvironment::NEWEST, CelEnvironment::NEWEST),
    };
    let (validator, problems) = match &opts.preexisting_expressions {
        Some(old) => Validator::new_for_update(&compilable, true, new, stored, old),
        None => Validator::new_in(&compilable, true, new),
    };
    errs.extend(
        problems
            .iter()
            // `fieldPath`s are resolved by the checker itself (`openapi`).
            .filter(|p| p.error.from_compiler() && p.error.field != RuleField::FieldPath)
            .map(|p| p.to_field_error(root)),
    );
    if let Some(v) = validator {
        errs.extend(v.cost_errors(root));
    }
    errs
}

fn has_rules(s: &JSONSchemaProps) -> bool {
    if s.x_kubernetes_validations
        .as_ref()
        .is_some_and(|v| !v.is_empty())
    {
        return true;
    }
    let mut found = false;
    s.for_each_child(&mut |_, c| found = found || has_rules(c));
    found
}

/// Whether `s` itself can be compiled against: it converts to a structural
/// schema and does not mix `properties` with `additionalProperties`.
fn node_ok(s: &JSONSchemaProps) -> bool {
    let mixed = s.properties.as_ref().is_some_and(|p| !p.is_empty())
        && matches!(
            s.additional_properties.as_deref(),
            Some(JSONSchemaPropsOrBool::Schema(_)) | Some(JSONSchemaPropsOrBool::Bool(true))
        );
    !mixed && conversion_error(s).is_none()
}

/// [`node_ok`] for `s` and everything below it.
fn subtree_ok(s: &JSONSchemaProps) -> bool {
    let mut ok = node_ok(s);
    s.for_each_child(&mut |_, c| ok = ok && subtree_ok(c));
    ok
}

/// Removes the rules of nodes whose subtree is not structural; returns whether
/// `s`'s subtree is fine (computed bottom-up along the spine).
fn drop_rules_of_invalid_subtrees(s: &mut JSONSchemaProps) -> bool {
    let mut ok = true;
    if let Some(props) = s.properties.as_mut() {
        for child in props.values_mut() {
            ok &= drop_rules_of_invalid_subtrees(child);
        }
    }
    if let Some(JSONSchemaPropsOrArray::Schema(items)) = s.items.as_deref_mut() {
        ok &= drop_rules_of_invalid_subtrees(items);
    }
    if let Some(JSONSchemaPropsOrBool::Schema(ap)) = s.additional_properties.as_deref_mut() {
        ok &= drop_rules_of_invalid_subtrees(ap);
    }
    for branch in s.all_of.iter_mut().flatten() {
        ok &= subtree_ok(branch);
    }
    // Children off the spine (anyOf, oneOf, not) count too.
    ok = ok
        && node_ok(s)
        && s.any_of
            .iter()
            .chain(s.one_of.iter())
            .flatten()
            .all(subtree_ok)
        && s.not.as_deref().is_none_or(subtree_ok);
    if !ok {
        s.x_kubernetes_validations = None;
    }
    ok
}

fn drop_all_of_rules(s: &mut JSONSchemaProps) {
    for branch in s.all_of.iter_mut().flatten() {
        branch.x_kubernetes_validations = None;
    }
    if let Some(props) = s.properties.as_mut() {
        props.values_mut().for_each(|p| drop_all_of_rules(p));
    }
    if let Some(JSONSchemaPropsOrArray::Schema(items)) = s.items.as_deref_mut() {
        drop_all_of_rules(items);
    }
    if let Some(JSONSchemaPropsOrBool::Schema(ap)) = s.additional_properties.as_deref_mut() {
        drop_all_of_rules(ap);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::check::{CheckOptions, validate_crd};
    use crate::model::PreexistingExpressions;

    fn crd(rules: &[&str]) -> crate::CustomResourceDefinition {
        let rules: Vec<String> = rules.iter().map(|r| format!("- rule: {r:?}")).collect();
        let yaml = format!(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n\
             metadata: {{name: things.example.com}}\nspec:\n  group: example.com\n  scope: Namespaced\n  \
             names: {{plural: things, kind: Thing}}\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    \
             schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          \
             v: {{type: string, maxLength: 10}}\n        x-kubernetes-validations:\n        {}\n",
            rules.join("\n        ")
        );
        crate::load_crds("crd.yaml", &yaml)
            .unwrap()
            .crds
            .remove(0)
            .crd
    }

    #[test]
    fn an_update_keeps_compiling_its_rules_in_the_stored_environment() {
        // A 1.33 server: new rules at 1.32 (no semver), kept ones at 1.33.
        let old = crd(&["isSemver(self.v)"]);
        let new = crd(&["isSemver(self.v)", "isSemver(self.v + '.0')"]);
        let create = CheckOptions {
            cel_environment_version: Some((1, 32)),
            ..CheckOptions::v1_create()
        };
        assert_eq!(validate_crd(&old, &create).len(), 1);
        let update = CheckOptions {
            preexisting_expressions: Some(Arc::new(PreexistingExpressions::of(&old))),
            ..create
        };
        let errs = validate_crd(&new, &update).strings();
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(
            errs[0].contains("x-kubernetes-validations[1].rule")
                && errs[0].contains("undeclared reference to 'isSemver'"),
            "{errs:?}"
        );
    }
}
