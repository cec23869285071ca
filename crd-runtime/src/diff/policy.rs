//! What to do about each rule: fail (`error`), report (`warn`) or stay silent
//! (`ignore`). Defaults: breaking rules fail, the others report, except
//! descriptions and crd-schema-checker's style checks, which are silent, and
//! `served-version-tightened`, which validation ratcheting makes a warning.
//!
//! A policy file sets levels by rule name:
//!
//! ```yaml
//! rules:
//!   enum-value-added: error      # crdify's additionPolicy: Disallow
//!   default-added: warn
//!   new-bool-field: warn
//! conversion: Ignore             # crdify's: skip served versions of webhook-converted CRDs
//! ```

use std::collections::BTreeMap;
use std::fmt;

use serde_json::Value;

use super::rules::{Class, Rule};

/// What a change of some rule does to the outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Reported, and the comparison fails.
    Error,
    /// Reported only.
    Warn,
    /// Not reported.
    Ignore,
}

impl Level {
    /// `error`, `warn` or `ignore`.
    pub fn name(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warn => "warn",
            Level::Ignore => "ignore",
        }
    }

    fn from_name(name: &str) -> Option<Level> {
        [Level::Error, Level::Warn, Level::Ignore]
            .into_iter()
            .find(|l| l.name() == name)
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

/// A level for every rule.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Policy {
    overrides: BTreeMap<Rule, Level>,
    /// crdify's `conversion: Ignore`: a webhook converts between the served versions,
    /// so their schemas may differ on purpose.
    skip_webhook_served_versions: bool,
}

impl Policy {
    /// The level of `rule` when no policy file sets it.
    pub fn default_level(rule: Rule) -> Level {
        match rule {
            Rule::DescriptionChanged
            | Rule::NewBoolField
            | Rule::NewFloatField
            | Rule::NewMapField
            | Rule::NewUintField => Level::Ignore,
            // Validation ratcheting tolerates it for stored objects.
            Rule::ServedVersionTightened => Level::Warn,
            _ if rule.class() == Class::Breaking => Level::Error,
            _ => Level::Warn,
        }
    }

    /// The level of `rule` under this policy.
    pub fn level(&self, rule: Rule) -> Level {
        self.overrides
            .get(&rule)
            .copied()
            .unwrap_or_else(|| Policy::default_level(rule))
    }

    /// Sets the level of `rule`.
    pub fn set(&mut self, rule: Rule, level: Level) {
        self.overrides.insert(rule, level);
    }

    /// Whether the served versions of `crd` (the new revision) are compared: always,
    /// unless the policy says `conversion: Ignore` and `crd` converts with a webhook.
    pub fn compares_served_versions(&self, crd: &crate::CustomResourceDefinition) -> bool {
        let webhook = crd
            .spec
            .conversion
            .as_ref()
            .is_some_and(|c| c.strategy == "Webhook");
        !(self.skip_webhook_served_versions && webhook)
    }

    /// crdify's conversion policy: `true` is `Ignore` (served versions of CRDs with a
    /// conversion webhook are not compared), `false` is `None` (the default).
    pub fn set_ignore_webhook_served_versions(&mut self, ignore: bool) {
        self.skip_webhook_served_versions = ignore;
    }

    /// Reads a policy file (YAML or JSON) named `source` in messages. Errors name the
    /// file and the key: `policy.yaml: rules.enum-added: unknown level "fatal" ...`.
    pub fn from_text(source: &str, text: &str) -> Result<Policy, String> {
        let docs = crate::load::parse_documents(source, text).map_err(|e| e.to_string())?;
        let mut policy = Policy::default();
        let doc = match docs.as_slice() {
            [] => return Ok(policy),
            [doc] => doc,
            _ => return Err(format!("{source}: a policy file holds one document")),
        };
        let Value::Object(top) = doc else {
            return Err(format!("{source}: expected a map with the key rules"));
        };
        if let Some(key) = top.keys().find(|k| *k != "rules" && *k != "conversion") {
            return Err(format!(
                "{source}: {key}: unknown key (a policy file has rules and conversion)"
            ));
        }
        match top.get("conversion") {
            None => {}
            Some(Value::String(v)) if v == "None" => {}
            Some(Value::String(v)) if v == "Ignore" => policy.skip_webhook_served_versions = true,
            Some(other) => {
                return Err(format!(
                    "{source}: conversion: unknown value {other}: expected Ignore or None"
                ));
            }
        }
        let Some(rules) = top.get("rules") else {
            return Ok(policy);
        };
        let Value::Object(rules) = rules else {
            return Err(format!(
                "{source}: rules: expected a map of rule name to error, warn or ignore"
            ));
        };
        for (name, level) in rules {
            let rule = Rule::from_name(name).ok_or_else(|| {
                format!("{source}: rules.{name}: unknown rule (crd-gen diff --rules lists them)")
            })?;
            let level = level.as_str().and_then(Level::from_name).ok_or_else(|| {
                format!(
                    "{source}: rules.{name}: unknown level {level}: expected error, warn or ignore"
                )
            })?;
            policy.set(rule, level);
        }
        Ok(policy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_fail_on_breaking_and_hide_style_checks() {
        let p = Policy::default();
        assert_eq!(p.level(Rule::FieldRemoved), Level::Error);
        assert_eq!(p.level(Rule::FieldAdded), Level::Warn);
        assert_eq!(p.level(Rule::PrinterColumnsChanged), Level::Warn);
        assert_eq!(p.level(Rule::NewBoolField), Level::Ignore);
    }

    #[test]
    fn files_set_levels_and_errors_name_the_key() {
        let p = Policy::from_text(
            "p.yaml",
            "rules:\n  enum-value-added: error\n  field-removed: warn\n",
        )
        .unwrap();
        assert_eq!(p.level(Rule::EnumValueAdded), Level::Error);
        assert_eq!(p.level(Rule::FieldRemoved), Level::Warn);
        assert_eq!(p.level(Rule::TypeChanged), Level::Error);
        assert_eq!(
            Policy::from_text("p.yaml", "rules:\n  nope: error\n").unwrap_err(),
            "p.yaml: rules.nope: unknown rule (crd-gen diff --rules lists them)"
        );
        assert_eq!(
            Policy::from_text("p.yaml", "rules:\n  field-removed: fatal\n").unwrap_err(),
            "p.yaml: rules.field-removed: unknown level \"fatal\": expected error, warn or ignore"
        );
        assert_eq!(
            Policy::from_text("p.yaml", "rulez: {}\n").unwrap_err(),
            "p.yaml: rulez: unknown key (a policy file has rules and conversion)"
        );
        assert!(
            Policy::from_text("p.yaml", "rules: [\n")
                .unwrap_err()
                .starts_with("p.yaml:1:")
        );
        assert_eq!(Policy::from_text("p.yaml", "").unwrap(), Policy::default());
        assert_eq!(
            Policy::from_text("p.yaml", "conversion: ignore\n").unwrap_err(),
            "p.yaml: conversion: unknown value \"ignore\": expected Ignore or None"
        );
    }

    #[test]
    fn conversion_ignore_skips_served_versions_of_webhook_crds_only() {
        let crd = |strategy: &str| -> crate::CustomResourceDefinition {
            serde_json::from_value(serde_json::json!({
                "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                "metadata": {"name": "as.example.com"},
                "spec": {"group": "example.com", "scope": "Namespaced",
                         "names": {"plural": "as", "kind": "A"}, "versions": [],
                         "conversion": {"strategy": strategy}}
            }))
            .unwrap()
        };
        let ignore = Policy::from_text("p.yaml", "conversion: Ignore\n").unwrap();
        assert!(!ignore.compares_served_versions(&crd("Webhook")));
        assert!(ignore.compares_served_versions(&crd("None")));
        let none = Policy::from_text("p.yaml", "conversion: None\n").unwrap();
        assert!(none.compares_served_versions(&crd("Webhook")));
        assert!(Policy::default().compares_served_versions(&crd("Webhook")));
    }
}
