//! Served versions of one revision compared with each other, as crdify's
//! served-version validator does: every served version against every served version
//! of higher priority (`v1alpha1 -> v1beta1`, `v1alpha1 -> v1`, `v1beta1 -> v1`), with
//! the schema rules [`super::diff`] applies between revisions.
//!
//! Only breaking changes are findings: a newer version that adds fields or loosens a
//! bound is how versions are meant to evolve. Their rule says whether the API
//! server's validation ratcheting (GA in 1.33) tolerates them for stored objects:
//! a tightened value constraint (enum, bounds, pattern, format, CEL rule without
//! `oldSelf`, ...) only refuses new or changed values, so it is
//! [`Rule::ServedVersionTightened`] (`warn` by default); a removed field, a type
//! change or a new required field is not a validation error ratcheting can drop.

use std::cmp::Ordering;

use super::rules::{Class, Rule};
use super::{Change, Changes, schema};
use crate::CustomResourceDefinition;
use crate::model::CustomResourceDefinitionVersion;

/// Every served-version finding of `crd`: for each pair of served versions (lower
/// priority first), the breaking schema changes from the one to the other. The
/// version column is `OLDER -> NEWER`.
pub fn served_versions(crd: &CustomResourceDefinition) -> Vec<Change> {
    let mut served: Vec<&CustomResourceDefinitionVersion> =
        crd.spec.versions.iter().filter(|v| v.served).collect();
    served.sort_by(|a, b| compare_priority(&a.name, &b.name));
    let mut out = Vec::new();
    for (i, older) in served.iter().enumerate() {
        for newer in &served[i + 1..] {
            let mut pair = Changes::new(crd.name().to_string());
            schema::compare_version(older, newer, &mut pair);
            let column = format!("{} -> {}", older.name, newer.name);
            out.extend(pair.changes.into_iter().filter_map(|change| {
                let rule = served_rule(change.rule, &change.detail)?;
                Some(Change {
                    version: Some(column.clone()),
                    rule,
                    detail: format!("{}: {}", change.rule.name(), change.detail),
                    ..change
                })
            }));
        }
    }
    out
}

/// The served-version findings of `new` that `old` (the previous revision) did not
/// already have: crdify reports only what a change introduces.
pub(super) fn introduced(
    old: Option<&CustomResourceDefinition>,
    new: &CustomResourceDefinition,
) -> Vec<Change> {
    let known = old.map(served_versions).unwrap_or_default();
    served_versions(new)
        .into_iter()
        .filter(|c| !known.contains(c))
        .collect()
}

/// The served-version rule for a change between two served versions, or `None`
/// when it breaks nothing.
fn served_rule(rule: Rule, detail: &str) -> Option<Rule> {
    use Rule::*;
    match rule {
        FieldRemoved => Some(ServedVersionFieldRemoved),
        TypeChanged | IntOrStringRemoved => Some(ServedVersionTypeChanged),
        RequiredAdded => Some(ServedVersionRequiredAdded),
        // Transition rules (oldSelf) are evaluated on updates only and never ratcheted.
        ValidationRuleAdded | ValidationRuleChanged if detail.contains("oldSelf") => {
            Some(ServedVersionIncompatible)
        }
        EnumAdded
        | EnumValueRemoved
        | MaximumTightened
        | MinimumTightened
        | MaxLengthTightened
        | MinLengthTightened
        | MaxItemsTightened
        | MinItemsTightened
        | MaxPropertiesTightened
        | MinPropertiesTightened
        | MultipleOfChanged
        | UniqueItemsAdded
        | PatternChanged
        | FormatChanged
        | ValidationRuleAdded
        | ValidationRuleChanged
        | CompositionAdded
        | CompositionChanged => Some(ServedVersionTightened),
        _ if rule.class() == Class::Breaking => Some(ServedVersionIncompatible),
        _ => None,
    }
}

/// Kubernetes version priority, lowest first: names that are not `vN`, `vNbetaM`
/// or `vNalphaM` (reverse alphabetical), then alpha, beta, GA, each by major then
/// minor number (apimachinery's `CompareKubeAwareVersionStrings`).
pub fn compare_priority(a: &str, b: &str) -> Ordering {
    fn parse(v: &str) -> Option<(u8, u64, u64)> {
        let rest = v.strip_prefix('v')?;
        let number = |s: &str| -> Option<u64> {
            (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse().ok())?
        };
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let major = number(&rest[..digits])?;
        let tail = &rest[digits..];
        if tail.is_empty() {
            return Some((2, major, 0));
        }
        [("beta", 1), ("alpha", 0)]
            .into_iter()
            .find_map(|(label, rank)| Some((rank, major, number(tail.strip_prefix(label)?)?)))
    }
    match (parse(a), parse(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => Ordering::Greater,
        (None, Some(_)) => Ordering::Less,
        (None, None) => b.cmp(a),
    }
}

#[cfg(test)]
#[path = "served_tests.rs"]
mod tests;
