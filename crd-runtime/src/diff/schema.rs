//! Schema rules: one version's `openAPIV3Schema` in the old and the new CRD, walked
//! together node by node.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Number, Value};

use super::rules::Rule;
use super::{Changes, show};
use crate::go::quote;
use crate::model::{CustomResourceDefinitionVersion, JSONSchemaProps, ValidationRule};

/// Where a node sits, rendered like a field path: `spec.ports[*].name`.
pub(super) fn child(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

fn shown(path: &str) -> &str {
    if path.is_empty() { "<root>" } else { path }
}

pub(super) fn root(version: &CustomResourceDefinitionVersion) -> Option<&JSONSchemaProps> {
    version.schema.as_ref()?.open_api_v3_schema.as_ref()
}

pub(super) fn compare_version(
    old: &CustomResourceDefinitionVersion,
    new: &CustomResourceDefinitionVersion,
    out: &mut Changes,
) {
    let mut walk = Walk {
        version: &new.name,
        out,
    };
    match (root(old), root(new)) {
        (Some(o), Some(n)) => walk.node(o, n, ""),
        (None, Some(n)) => walk.out.push(
            Some(&new.name),
            "<root>",
            Rule::PreserveUnknownFieldsRemoved,
            format!(
                "a schema {} where there was none: fields it does not name are pruned",
                describe(n)
            ),
        ),
        (Some(_), None) => walk.out.push(
            Some(&new.name),
            "<root>",
            Rule::CompositionRemoved,
            "the schema was removed: objects are no longer validated".into(),
        ),
        (None, None) => {}
    }
}

fn describe(s: &JSONSchemaProps) -> String {
    match s.type_str() {
        "" => "without a type".to_string(),
        t => format!("of type {t}"),
    }
}

pub(super) struct Walk<'a> {
    version: &'a str,
    out: &'a mut Changes,
}

impl Walk<'_> {
    pub(super) fn push(&mut self, path: &str, rule: Rule, detail: String) {
        self.out.push(Some(self.version), shown(path), rule, detail);
    }

    /// Reports a change of the `(name, default)` setting, whose absence means its
    /// default, from `old` to `new`; returns whether it changed.
    fn defaulted_change(
        &mut self,
        path: &str,
        rule: Rule,
        (name, default): (&str, &str),
        (old, new): (&Option<String>, &Option<String>),
    ) -> bool {
        let old = old.as_deref().unwrap_or(default);
        let new = new.as_deref().unwrap_or(default);
        if old == new {
            return false;
        }
        self.push(path, rule, format!("{name} changed from {old} to {new}"));
        true
    }

    fn node(&mut self, old: &JSONSchemaProps, new: &JSONSchemaProps, path: &str) {
        if old.type_str() != new.type_str() {
            let name = |s: &JSONSchemaProps| match s.type_str() {
                "" if s.is_int_or_string() => "int-or-string".to_string(),
                "" => "any".to_string(),
                t => t.to_string(),
            };
            let detail = format!("type changed from {} to {}", name(old), name(new));
            self.push(path, Rule::TypeChanged, detail);
            return;
        }
        self.format(old, new, path);
        match (&old.pattern, &new.pattern) {
            (a, b) if a == b => {}
            (Some(a), None) => self.push(
                path,
                Rule::PatternRemoved,
                format!("pattern {} removed", quote(a)),
            ),
            (None, Some(b)) => self.push(
                path,
                Rule::PatternChanged,
                format!("pattern {} added", quote(b)),
            ),
            (Some(a), Some(b)) => self.push(
                path,
                Rule::PatternChanged,
                format!("pattern changed from {} to {}", quote(a), quote(b)),
            ),
            (None, None) => {}
        }
        self.enumeration(old, new, path);
        self.bounds(old, new, path);
        self.flags(old, new, path);
        self.validation_rules(old, new, path);
        self.compositions(old, new, path);
        if old.default != new.default {
            let (rule, detail) = match (&old.default, &new.default) {
                (None, Some(d)) => (Rule::DefaultAdded, format!("default {} added", show(d))),
                (Some(d), None) => (Rule::DefaultRemoved, format!("default {} removed", show(d))),
                (Some(a), Some(b)) => (
                    Rule::DefaultChanged,
                    format!("default changed from {} to {}", show(a), show(b)),
                ),
                (None, None) => unreachable!("the defaults differ"),
            };
            self.push(path, rule, detail);
        }
        if old.description != new.description {
            self.push(path, Rule::DescriptionChanged, "description changed".into());
        }
        self.required(old, new, path);
        self.properties(old, new, path);
        match (old.items_schema(), new.items_schema()) {
            (Some(o), Some(n)) => self.node(o, n, &format!("{path}[*]")),
            (None, Some(n)) => self.push(
                &format!("{path}[*]"),
                Rule::TypeChanged,
                format!("list items now have a schema {}", describe(n)),
            ),
            _ => {}
        }
        match (
            old.additional_properties_schema(),
            new.additional_properties_schema(),
        ) {
            (Some(o), Some(n)) => self.node(o, n, &format!("{path}[*]")),
            (Some(_), None) => self.push(
                &format!("{path}[*]"),
                Rule::FieldRemoved,
                "arbitrary keys are no longer allowed: entries the schema does not name are pruned"
                    .into(),
            ),
            (None, Some(n)) => {
                self.push(
                    &format!("{path}[*]"),
                    Rule::FieldAdded,
                    "arbitrary keys are now allowed".into(),
                );
                self.lint_new(n, &format!("{path}[*]"), "");
            }
            (None, None) => {}
        }
    }

    fn format(&mut self, old: &JSONSchemaProps, new: &JSONSchemaProps, path: &str) {
        match (old.format.as_deref(), new.format.as_deref()) {
            (a, b) if a == b => {}
            (Some(a), None) => self.push(path, Rule::FormatRemoved, format!("format {a} removed")),
            (None, Some(b)) => self.push(path, Rule::FormatChanged, format!("format {b} added")),
            (Some(a), Some(b)) => self.push(
                path,
                Rule::FormatChanged,
                format!("format changed from {a} to {b}"),
            ),
            (None, None) => {}
        }
    }

    fn enumeration(&mut self, old: &JSONSchemaProps, new: &JSONSchemaProps, path: &str) {
        match (&old.enum_, &new.enum_) {
            (None, Some(values)) => {
                let list = values.iter().map(show).collect::<Vec<_>>().join(", ");
                self.push(path, Rule::EnumAdded, format!("values limited to [{list}]"));
            }
            (Some(_), None) => {
                self.push(path, Rule::EnumRemoved, "any value is now allowed".into())
            }
            (Some(before), Some(after)) => {
                for gone in before.iter().filter(|v| !after.contains(v)) {
                    self.push(
                        path,
                        Rule::EnumValueRemoved,
                        format!("value {} removed", show(gone)),
                    );
                }
                for added in after.iter().filter(|v| !before.contains(v)) {
                    self.push(
                        path,
                        Rule::EnumValueAdded,
                        format!("value {} added", show(added)),
                    );
                }
            }
            (None, None) => {}
        }
    }

    fn bounds(&mut self, old: &JSONSchemaProps, new: &JSONSchemaProps, path: &str) {
        let upper = |s: &JSONSchemaProps| {
            s.maximum
                .as_ref()
                .map(|m| (m.clone(), s.exclusive_maximum.unwrap_or(false)))
        };
        let lower = |s: &JSONSchemaProps| {
            s.minimum
                .as_ref()
                .map(|m| (m.clone(), s.exclusive_minimum.unwrap_or(false)))
        };
        let rules = (Rule::MaximumTightened, Rule::MaximumLoosened);
        self.number_bound(path, "maximum", upper(old), upper(new), Bound::Upper, rules);
        let rules = (Rule::MinimumTightened, Rule::MinimumLoosened);
        self.number_bound(path, "minimum", lower(old), lower(new), Bound::Lower, rules);
        let counts = [
            (
                "maxLength",
                old.max_length,
                new.max_length,
                Bound::Upper,
                Rule::MaxLengthTightened,
                Rule::MaxLengthLoosened,
            ),
            (
                "minLength",
                old.min_length,
                new.min_length,
                Bound::Lower,
                Rule::MinLengthTightened,
                Rule::MinLengthLoosened,
            ),
            (
                "maxItems",
                old.max_items,
                new.max_items,
                Bound::Upper,
                Rule::MaxItemsTightened,
                Rule::MaxItemsLoosened,
            ),
            (
                "minItems",
                old.min_items,
                new.min_items,
                Bound::Lower,
                Rule::MinItemsTightened,
                Rule::MinItemsLoosened,
            ),
            (
                "maxProperties",
                old.max_properties,
                new.max_properties,
                Bound::Upper,
                Rule::MaxPropertiesTightened,
                Rule::MaxPropertiesLoosened,
            ),
            (
                "minProperties",
                old.min_properties,
                new.min_properties,
                Bound::Lower,
                Rule::MinPropertiesTightened,
                Rule::MinPropertiesLoosened,
            ),
        ];
        for (name, before, after, bound, tightened, loosened) in counts {
            let as_bound = |v: Option<i64>| v.map(|n| (Number::from(n), false));
            self.number_bound(
                path,
                name,
                as_bound(before),
                as_bound(after),
                bound,
                (tightened, loosened),
            );
        }
        match (&old.multiple_of, &new.multiple_of) {
            (a, b) if a == b => {}
            (Some(a), None) => self.push(
                path,
                Rule::MultipleOfLoosened,
                format!("multipleOf {a} removed"),
            ),
            (None, Some(b)) => self.push(
                path,
                Rule::MultipleOfChanged,
                format!("multipleOf {b} added"),
            ),
            (Some(a), Some(b)) => {
                let divides = match (a.as_f64(), b.as_f64()) {
                    (Some(a), Some(b)) if b != 0.0 => (a / b).fract() == 0.0,
                    _ => false,
                };
                let rule = if divides {
                    Rule::MultipleOfLoosened
                } else {
                    Rule::MultipleOfChanged
                };
                self.push(path, rule, format!("multipleOf changed from {a} to {b}"));
            }
            (None, None) => {}
        }
    }

    /// Compares one bound; `(value, exclusive)`, `None` for no bound.
    fn number_bound(
        &mut self,
        path: &str,
        name: &str,
        old: Option<(Number, bool)>,
        new: Option<(Number, bool)>,
        bound: Bound,
        (tightened, loosened): (Rule, Rule),
    ) {
        let text = |b: &(Number, bool)| {
            if b.1 {
                format!("{} (exclusive)", b.0)
            } else {
                b.0.to_string()
            }
        };
        let (rule, detail) = match (&old, &new) {
            (None, None) => return,
            (None, Some(n)) => (tightened, format!("{name} {} added", text(n))),
            (Some(o), None) => (loosened, format!("{name} {} removed", text(o))),
            (Some(o), Some(n)) => {
                let (ov, nv) = (o.0.as_f64().unwrap_or(0.0), n.0.as_f64().unwrap_or(0.0));
                if ov == nv && o.1 == n.1 {
                    return;
                }
                // Tighter: a smaller upper bound (or the same one made exclusive), a
                // larger lower bound.
                let tighter = match bound {
                    Bound::Upper => nv < ov || (nv == ov && n.1 && !o.1),
                    Bound::Lower => nv > ov || (nv == ov && n.1 && !o.1),
                };
                let verb = match (bound, nv.partial_cmp(&ov)) {
                    (Bound::Upper, Some(std::cmp::Ordering::Less))
                    | (Bound::Lower, Some(std::cmp::Ordering::Less)) => "lowered",
                    (_, Some(std::cmp::Ordering::Greater)) => "raised",
                    _ => "changed",
                };
                let rule = if tighter { tightened } else { loosened };
                (
                    rule,
                    format!("{name} {verb} from {} to {}", text(o), text(n)),
                )
            }
        };
        self.push(path, rule, detail);
    }

    fn flags(&mut self, old: &JSONSchemaProps, new: &JSONSchemaProps, path: &str) {
        let pairs = [
            (
                old.is_nullable(),
                new.is_nullable(),
                Rule::NullableAdded,
                Rule::NullableRemoved,
                "nullable",
            ),
            (
                old.preserves_unknown_fields(),
                new.preserves_unknown_fields(),
                Rule::PreserveUnknownFieldsAdded,
                Rule::PreserveUnknownFieldsRemoved,
                "x-kubernetes-preserve-unknown-fields",
            ),
            (
                old.is_int_or_string(),
                new.is_int_or_string(),
                Rule::IntOrStringAdded,
                Rule::IntOrStringRemoved,
                "x-kubernetes-int-or-string",
            ),
            (
                old.unique_items.unwrap_or(false),
                new.unique_items.unwrap_or(false),
                Rule::UniqueItemsAdded,
                Rule::UniqueItemsRemoved,
                "uniqueItems",
            ),
        ];
        for (before, after, added, removed, name) in pairs {
            match (before, after) {
                (false, true) => self.push(path, added, format!("{name} set")),
                (true, false) => self.push(path, removed, format!("{name} unset")),
                _ => {}
            }
        }
        if old.is_embedded_resource() != new.is_embedded_resource() {
            let detail = format!(
                "x-kubernetes-embedded-resource {}",
                if new.is_embedded_resource() {
                    "set"
                } else {
                    "unset"
                }
            );
            self.push(path, Rule::EmbeddedResourceChanged, detail);
        }
        if new.type_str() == "array" {
            let list_types = (&old.x_kubernetes_list_type, &new.x_kubernetes_list_type);
            let setting = ("x-kubernetes-list-type", "atomic");
            if !self.defaulted_change(path, Rule::ListTypeChanged, setting, list_types) {
                let keys = |s: &JSONSchemaProps| name_set(&s.x_kubernetes_list_map_keys);
                if keys(old) != keys(new) {
                    let join = |k: BTreeSet<String>| k.into_iter().collect::<Vec<_>>().join(", ");
                    let detail = format!(
                        "map keys changed from [{}] to [{}]",
                        join(keys(old)),
                        join(keys(new))
                    );
                    self.push(path, Rule::ListMapKeysChanged, detail);
                }
            }
        }
        if new.type_str() == "object" {
            let map_types = (&old.x_kubernetes_map_type, &new.x_kubernetes_map_type);
            let setting = ("x-kubernetes-map-type", "granular");
            self.defaulted_change(path, Rule::MapTypeChanged, setting, map_types);
        }
    }

    fn validation_rules(&mut self, old: &JSONSchemaProps, new: &JSONSchemaProps, path: &str) {
        let before: Vec<&ValidationRule> = old.x_kubernetes_validations.iter().flatten().collect();
        let after: Vec<&ValidationRule> = new.x_kubernetes_validations.iter().flatten().collect();
        let mut unmatched_old: Vec<&ValidationRule> = Vec::new();
        for o in &before {
            match after.iter().find(|n| n.rule == o.rule) {
                Some(n) => {
                    if (&o.message, &o.message_expression, &o.reason, &o.field_path)
                        != (&n.message, &n.message_expression, &n.reason, &n.field_path)
                    {
                        let detail = format!(
                            "message, reason or fieldPath of rule {} changed",
                            quote(&n.rule)
                        );
                        self.push(path, Rule::ValidationMessageChanged, detail);
                    }
                }
                None => unmatched_old.push(o),
            }
        }
        let mut unmatched_new: Vec<&ValidationRule> = after
            .iter()
            .filter(|n| !before.iter().any(|o| o.rule == n.rule))
            .copied()
            .collect();
        // A rule whose text changed: the same message, or else the same position
        // among the unmatched ones.
        let mut pairs: Vec<(&ValidationRule, &ValidationRule)> = Vec::new();
        unmatched_old.retain(|o| {
            let same_message = o.message.as_ref().and_then(|m| {
                unmatched_new
                    .iter()
                    .position(|n| n.message.as_ref() == Some(m))
            });
            match same_message {
                Some(i) => {
                    pairs.push((o, unmatched_new.remove(i)));
                    false
                }
                None => true,
            }
        });
        while !unmatched_old.is_empty() && !unmatched_new.is_empty() {
            pairs.push((unmatched_old.remove(0), unmatched_new.remove(0)));
        }
        for (o, n) in pairs {
            let detail = format!("rule {} became {}", quote(&o.rule), quote(&n.rule));
            self.push(path, Rule::ValidationRuleChanged, detail);
        }
        for n in unmatched_new {
            self.push(
                path,
                Rule::ValidationRuleAdded,
                format!("rule {} added", quote(&n.rule)),
            );
        }
        for o in unmatched_old {
            self.push(
                path,
                Rule::ValidationRuleRemoved,
                format!("rule {} removed", quote(&o.rule)),
            );
        }
    }

    fn compositions(&mut self, old: &JSONSchemaProps, new: &JSONSchemaProps, path: &str) {
        // One composition of both sides as JSON (null when absent).
        let sides = |field: fn(&JSONSchemaProps) -> serde_json::Result<Value>| {
            (
                field(old).unwrap_or_default(),
                field(new).unwrap_or_default(),
            )
        };
        for (name, (before, after)) in [
            ("allOf", sides(|s| serde_json::to_value(&s.all_of))),
            ("anyOf", sides(|s| serde_json::to_value(&s.any_of))),
            ("oneOf", sides(|s| serde_json::to_value(&s.one_of))),
            ("not", sides(|s| serde_json::to_value(&s.not))),
        ] {
            match (before.is_null(), after.is_null()) {
                (true, false) => self.push(path, Rule::CompositionAdded, format!("{name} added")),
                (false, true) => {
                    self.push(path, Rule::CompositionRemoved, format!("{name} removed"))
                }
                (false, false) if before != after => {
                    self.push(path, Rule::CompositionChanged, format!("{name} changed"))
                }
                _ => {}
            }
        }
    }

    fn required(&mut self, old: &JSONSchemaProps, new: &JSONSchemaProps, path: &str) {
        let (before, after) = (name_set(&old.required), name_set(&new.required));
        for added in after.difference(&before) {
            let existed = old
                .properties
                .as_ref()
                .is_some_and(|p| p.contains_key(added));
            let detail = if existed {
                "the field is now required"
            } else {
                "a new required field"
            };
            self.push(&child(path, added), Rule::RequiredAdded, detail.into());
        }
        for removed in before.difference(&after) {
            self.push(
                &child(path, removed),
                Rule::RequiredRemoved,
                "the field is no longer required".into(),
            );
        }
    }

    fn properties(&mut self, old: &JSONSchemaProps, new: &JSONSchemaProps, path: &str) {
        let empty = BTreeMap::new();
        let before = old.properties.as_ref().unwrap_or(&empty);
        let after = new.properties.as_ref().unwrap_or(&empty);
        for (name, schema) in before {
            let at = child(path, name);
            match after.get(name) {
                Some(n) => self.node(schema, n, &at),
                None => {
                    let kept = if new.preserves_unknown_fields() {
                        " (kept as an unknown field)"
                    } else {
                        ""
                    };
                    self.push(
                        &at,
                        Rule::FieldRemoved,
                        format!("field {} removed{kept}", describe(schema)),
                    );
                }
            }
        }
        for (name, schema) in after.iter().filter(|(name, _)| !before.contains_key(*name)) {
            let at = child(path, name);
            self.push(
                &at,
                Rule::FieldAdded,
                format!("field {} added", describe(schema)),
            );
            self.lint_new(schema, &at, name);
        }
    }
}

#[derive(Clone, Copy)]
enum Bound {
    Upper,
    Lower,
}

/// The names of an optional list (`required`, list-map keys) as a set.
fn name_set(names: &Option<Vec<String>>) -> BTreeSet<String> {
    names.iter().flatten().cloned().collect()
}
