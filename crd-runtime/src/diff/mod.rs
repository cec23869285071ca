//! What changed between two revisions of a CRD, and whether it breaks stored objects
//! or clients ([`diff`]).
//!
//! Each [`Change`] names its CRD, version, field path and [`Rule`]; every rule has a
//! [`Class`] (breaking, compatible, informational). The rules cover those of crdify
//! and openshift's crd-schema-checker, and judge changes by the API server's own
//! semantics: a tightened bound or a new CEL rule can make stored objects fail
//! validation on their next update, a removed field is pruned from them, a removed
//! served version breaks every client of it. Served versions of one revision are
//! also compared with each other ([`served_versions`]), as crdify does.

mod crd;
mod lints;
mod policy;
mod rules;
mod schema;
mod served;

use std::fmt;

pub use policy::{Level, Policy};
pub use rules::{Class, Rule};
pub use served::{compare_priority, served_versions};

use crate::CustomResourceDefinition;

/// One difference between the old and the new revision of a CRD.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// `metadata.name` of the CRD.
    pub crd: String,
    /// The version whose schema changed, `OLDER -> NEWER` for a difference between
    /// two served versions of one revision, or `None` for CRD-wide changes.
    pub version: Option<String>,
    /// Where: a field path in the version's objects (`spec.replicas`), or a CRD field
    /// (`spec.scope`) for CRD-wide changes.
    pub path: String,
    /// Which rule found it.
    pub rule: Rule,
    /// What changed, in words (`maximum lowered from 10 to 5`).
    pub detail: String,
}

impl Change {
    /// The rule's class.
    pub fn class(&self) -> Class {
        self.rule.class()
    }
}

/// `CRD-NAME: VERSION: FIELD-PATH: RULE: DETAIL` (`-` for a CRD-wide version).
impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}: {}: {}: {}",
            self.crd,
            self.version.as_deref().unwrap_or("-"),
            self.path,
            self.rule.name(),
            self.detail
        )
    }
}

/// Every change from `old` to `new` (the same CRD, two revisions), CRD-wide changes
/// first, then per version in the new CRD's order, fields in schema order; then the
/// served-version findings of `new` that `old` did not have ([`served_versions`]).
pub fn diff(old: &CustomResourceDefinition, new: &CustomResourceDefinition) -> Vec<Change> {
    let mut out = Changes::new(new.metadata.name.clone().unwrap_or_default());
    crd::compare(old, new, &mut out);
    out.changes.extend(served::introduced(Some(old), new));
    out.changes
}

/// Every change from the CRDs `old` to the CRDs `new`, matched by name: a CRD only
/// in `old` is [`Rule::CrdRemoved`], one only in `new` [`Rule::CrdAdded`] (with the
/// served-version findings of its versions). Old CRDs come in name order, new ones
/// after them.
pub fn diff_all(old: &[CustomResourceDefinition], new: &[CustomResourceDefinition]) -> Vec<Change> {
    let (old, new) = (by_name(old), by_name(new));
    let whole = |name: &str, rule: Rule, detail: &str| Change {
        crd: name.to_string(),
        version: None,
        path: "<crd>".to_string(),
        rule,
        detail: detail.to_string(),
    };
    let mut changes = Vec::new();
    for (name, old_crd) in &old {
        match new.get(name) {
            Some(new_crd) => changes.extend(diff(old_crd, new_crd)),
            None => changes.push(whole(
                name,
                Rule::CrdRemoved,
                "the CRD is gone from the new revision",
            )),
        }
    }
    for name in new.keys().filter(|name| !old.contains_key(*name)) {
        changes.push(whole(name, Rule::CrdAdded, "a new CRD"));
        changes.extend(served::introduced(None, new[name]));
    }
    changes
}

fn by_name(
    crds: &[CustomResourceDefinition],
) -> std::collections::BTreeMap<String, &CustomResourceDefinition> {
    crds.iter().map(|c| (c.name().to_string(), c)).collect()
}

/// Collects changes for one CRD.
pub(crate) struct Changes {
    crd: String,
    changes: Vec<Change>,
}

impl Changes {
    fn new(crd: String) -> Changes {
        Changes {
            crd,
            changes: Vec::new(),
        }
    }

    fn push(&mut self, version: Option<&str>, path: &str, rule: Rule, detail: String) {
        self.changes.push(Change {
            crd: self.crd.clone(),
            version: version.map(str::to_string),
            path: path.to_string(),
            rule,
            detail,
        });
    }
}

/// A value in a detail: JSON, strings quoted, long values cut.
pub(crate) fn show(value: &serde_json::Value) -> String {
    let text = value.to_string();
    if text.chars().count() <= 80 {
        return text;
    }
    let head: String = text.chars().take(60).collect();
    format!("{head}...")
}

#[cfg(test)]
mod tests;
