//! `crd_runtime::diff` laws on real CRDs. The corpus holds two revisions of 15 CRDs
//! (kopium's test copies and the projects' own): comparing them both ways, every
//! removal one way is an addition the other way, every tightening a loosening, and
//! nothing is found between a CRD and itself.

use std::collections::BTreeMap;

use crd_runtime::diff::{Change, Rule};
use crd_runtime::load::load_crds;
use crd_runtime::{CustomResourceDefinition, diff};
use crd_toolkit_tests::corpus_files;

fn corpus_by_name() -> BTreeMap<String, Vec<CustomResourceDefinition>> {
    let mut by_name: BTreeMap<String, Vec<CustomResourceDefinition>> = BTreeMap::new();
    for path in corpus_files() {
        let text = std::fs::read_to_string(&path).unwrap();
        for doc in load_crds(&path.display().to_string(), &text).unwrap().crds {
            by_name
                .entry(doc.crd.name().to_string())
                .or_default()
                .push(doc.crd);
        }
    }
    by_name
}

/// The rule that reports the reverse of `rule`, where there is one.
fn reverse(rule: Rule) -> Option<Rule> {
    use Rule::*;
    let pairs = [
        (FieldRemoved, FieldAdded),
        (RequiredAdded, RequiredRemoved),
        (EnumValueRemoved, EnumValueAdded),
        (EnumAdded, EnumRemoved),
        (MaximumTightened, MaximumLoosened),
        (MinimumTightened, MinimumLoosened),
        (MaxLengthTightened, MaxLengthLoosened),
        (MinLengthTightened, MinLengthLoosened),
        (MaxItemsTightened, MaxItemsLoosened),
        (MinItemsTightened, MinItemsLoosened),
        (MaxPropertiesTightened, MaxPropertiesLoosened),
        (MinPropertiesTightened, MinPropertiesLoosened),
        (DefaultAdded, DefaultRemoved),
        (ValidationRuleAdded, ValidationRuleRemoved),
        (NullableRemoved, NullableAdded),
        (PreserveUnknownFieldsRemoved, PreserveUnknownFieldsAdded),
        (VersionRemoved, VersionAdded),
        (ShortNameRemoved, ShortNameAdded),
        (CategoryRemoved, CategoryAdded),
        (TypeChanged, TypeChanged),
        (DefaultChanged, DefaultChanged),
        (ListTypeChanged, ListTypeChanged),
    ];
    pairs.iter().find_map(|&(a, b)| {
        if a == rule {
            Some(b)
        } else if b == rule {
            Some(a)
        } else {
            None
        }
    })
}

/// Rules whose reverse depends on the detail: a pattern or format added is
/// removed the other way, a changed one is changed back.
fn reverse_of(change: &Change) -> Option<Rule> {
    let added = change.detail.ends_with(" added");
    match change.rule {
        Rule::PatternChanged if added => Some(Rule::PatternRemoved),
        Rule::PatternChanged => Some(Rule::PatternChanged),
        Rule::PatternRemoved => Some(Rule::PatternChanged),
        Rule::FormatChanged if added => Some(Rule::FormatRemoved),
        Rule::FormatChanged => Some(Rule::FormatChanged),
        Rule::FormatRemoved => Some(Rule::FormatChanged),
        rule => reverse(rule),
    }
}

fn key(c: &Change) -> (Option<String>, String, Rule) {
    (c.version.clone(), c.path.clone(), c.rule)
}

#[test]
fn revisions_compared_both_ways_mirror_each_other() {
    let mut pairs = 0;
    let mut failures = Vec::new();
    for (name, revisions) in corpus_by_name() {
        for crd in &revisions {
            let same = diff(crd, crd);
            assert!(
                same.is_empty(),
                "{name} against itself: {:?}",
                same.iter().map(ToString::to_string).collect::<Vec<_>>()
            );
        }
        let [a, b, ..] = revisions.as_slice() else {
            continue;
        };
        pairs += 1;
        let forward = diff(a, b);
        let backward = diff(b, a);
        let back: Vec<_> = backward.iter().map(key).collect();
        for change in &forward {
            let Some(reverse_rule) = reverse_of(change) else {
                continue;
            };
            let wanted = (change.version.clone(), change.path.clone(), reverse_rule);
            // A field-level change under a removed field or version has no mirror
            // inside it; only check where the reverse walk reaches the same node.
            if !back.contains(&wanted) && !under_removed(&backward, change) {
                failures.push(format!(
                    "{change}: no {} the other way",
                    reverse_rule.name()
                ));
            }
        }
    }
    assert!(
        pairs >= 10,
        "only {pairs} CRDs with two revisions in the corpus"
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Whether `change` sits under a version or type change the other direction reports
/// instead (the walk stops at a changed type).
fn under_removed(backward: &[Change], change: &Change) -> bool {
    backward.iter().any(|b| {
        b.version == change.version
            && matches!(
                b.rule,
                Rule::TypeChanged | Rule::VersionRemoved | Rule::VersionAdded
            )
            && (b.rule != Rule::TypeChanged || change.path.starts_with(&b.path))
    })
}
