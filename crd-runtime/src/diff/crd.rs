//! CRD-wide rules: identity, names, versions, subresources, printer columns,
//! selectable fields, conversion; then each version's schema.

use std::collections::BTreeSet;

use super::rules::Rule;
use super::{Changes, lints, schema};
use crate::check::stored_versions_on_update;
use crate::field::BadValue;
use crate::model::{
    CustomResourceColumnDefinition, CustomResourceDefinition, CustomResourceDefinitionVersion,
};
use crate::{CheckOptions, validate_crd};

pub(super) fn compare(
    old: &CustomResourceDefinition,
    new: &CustomResourceDefinition,
    out: &mut Changes,
) {
    identity(old, new, out);
    invalid(old, new, out);
    versions(old, new, out);
    let conversion = |crd: &CustomResourceDefinition| {
        crd.spec
            .conversion
            .as_ref()
            .map(|c| serde_json::to_value(c).unwrap_or_default())
    };
    if conversion(old) != conversion(new) {
        let strategy = |crd: &CustomResourceDefinition| {
            crd.spec
                .conversion
                .as_ref()
                .map_or("None", |c| c.strategy.as_str())
                .to_string()
        };
        let detail = if strategy(old) == strategy(new) {
            format!("the {} conversion settings changed", strategy(new))
        } else {
            format!(
                "strategy changed from {} to {}",
                strategy(old),
                strategy(new)
            )
        };
        out.push(None, "spec.conversion", Rule::ConversionChanged, detail);
    }
    for new_version in &new.spec.versions {
        let Some(old_version) = old
            .spec
            .versions
            .iter()
            .find(|v| v.name == new_version.name)
        else {
            lints::lint_new_version(new_version, out);
            continue;
        };
        version_details(old_version, new_version, out);
        schema::compare_version(old_version, new_version, out);
    }
}

fn identity(old: &CustomResourceDefinition, new: &CustomResourceDefinition, out: &mut Changes) {
    if old.spec.scope != new.spec.scope {
        let detail = format!(
            "scope changed from {} to {}",
            old.spec.scope, new.spec.scope
        );
        out.push(None, "spec.scope", Rule::ScopeChanged, detail);
    }
    if old.spec.group != new.spec.group {
        let detail = format!(
            "group changed from {} to {}",
            old.spec.group, new.spec.group
        );
        out.push(None, "spec.group", Rule::GroupChanged, detail);
    }
    let (o, n) = (&old.spec.names, &new.spec.names);
    let fields = [
        ("kind", Some(o.kind.as_str()), Some(n.kind.as_str())),
        ("plural", Some(o.plural.as_str()), Some(n.plural.as_str())),
        ("singular", o.singular.as_deref(), n.singular.as_deref()),
        ("listKind", o.list_kind.as_deref(), n.list_kind.as_deref()),
    ];
    for (field, before, after) in fields {
        // An unset singular or listKind is derived (lowercase kind, kind + "List").
        let derived =
            |name: Option<&str>, names: &crate::model::CustomResourceDefinitionNames| match (
                field, name,
            ) {
                ("singular", None) => names.kind.to_lowercase(),
                ("listKind", None) => format!("{}List", names.kind),
                (_, name) => name.unwrap_or_default().to_string(),
            };
        let (before, after) = (derived(before, o), derived(after, n));
        if before != after {
            let detail = format!("{field} changed from {before} to {after}");
            out.push(
                None,
                &format!("spec.names.{field}"),
                Rule::NamesChanged,
                detail,
            );
        }
    }
    let set = |list: &Option<Vec<String>>| list.iter().flatten().cloned().collect::<BTreeSet<_>>();
    for (field, removed, added, before, after) in [
        (
            "shortNames",
            Rule::ShortNameRemoved,
            Rule::ShortNameAdded,
            set(&o.short_names),
            set(&n.short_names),
        ),
        (
            "categories",
            Rule::CategoryRemoved,
            Rule::CategoryAdded,
            set(&o.categories),
            set(&n.categories),
        ),
    ] {
        for gone in before.difference(&after) {
            out.push(
                None,
                &format!("spec.names.{field}"),
                removed,
                format!("{gone} removed"),
            );
        }
        for new_one in after.difference(&before) {
            out.push(
                None,
                &format!("spec.names.{field}"),
                added,
                format!("{new_one} added"),
            );
        }
    }
}

/// The API server would refuse the new CRD: its errors, one change each. Errors
/// the old revision already had are left out: an update keeps what was accepted
/// (the server relaxes such rules on update), and they are no change.
fn invalid(old: &CustomResourceDefinition, new: &CustomResourceDefinition, out: &mut Changes) {
    let options = CheckOptions {
        require_served_version: false,
        ..CheckOptions::v1_create()
    };
    let before: BTreeSet<String> = validate_crd(old, &options)
        .0
        .iter()
        .map(ToString::to_string)
        .collect();
    for error in validate_crd(new, &options).0 {
        if !before.contains(&error.to_string()) {
            out.push(None, error.field.as_str(), Rule::CrdInvalid, error.body());
        }
    }
}

fn versions(old: &CustomResourceDefinition, new: &CustomResourceDefinition, out: &mut Changes) {
    let find = |crd: &'_ CustomResourceDefinition, name: &str| {
        crd.spec.versions.iter().find(|v| v.name == name).cloned()
    };
    let stored: Vec<String> = old
        .status
        .as_ref()
        .and_then(|s| s.stored_versions.clone())
        .unwrap_or_default();
    for old_version in &old.spec.versions {
        let name = old_version.name.as_str();
        match find(new, name) {
            None if stored.iter().any(|s| s == name) => out.push(
                Some(name),
                "spec.versions",
                Rule::StoredVersionRemoved,
                stored_version_removed(name, new, &stored),
            ),
            None => out.push(
                Some(name),
                "spec.versions",
                Rule::VersionRemoved,
                format!("version {name} removed"),
            ),
            Some(new_version) if old_version.served && !new_version.served => out.push(
                Some(name),
                "served",
                Rule::VersionUnserved,
                format!("version {name} is no longer served"),
            ),
            Some(new_version) if !old_version.served && new_version.served => out.push(
                Some(name),
                "served",
                Rule::VersionServed,
                format!("version {name} is served again"),
            ),
            Some(_) => {}
        }
    }
    for new_version in &new.spec.versions {
        if find(old, &new_version.name).is_none() {
            let name = new_version.name.as_str();
            let detail = format!(
                "version {name} added{}",
                if new_version.served {
                    ""
                } else {
                    " (not served)"
                }
            );
            out.push(Some(name), "spec.versions", Rule::VersionAdded, detail);
        }
    }
    let storage = |crd: &CustomResourceDefinition| {
        crd.spec
            .versions
            .iter()
            .find(|v| v.storage)
            .map(|v| v.name.clone())
    };
    if let (Some(before), Some(after)) = (storage(old), storage(new))
        && before != after
    {
        let still_served = find(new, &before).is_some_and(|v| v.served);
        let (rule, detail) = if still_served {
            (
                Rule::StorageVersionChanged,
                format!("storage version moved from {before} to {after}"),
            )
        } else {
            (
                Rule::StorageVersionUnserved,
                format!(
                    "storage version moved from {before} to {after}, and {before} is no longer served"
                ),
            )
        };
        out.push(Some(&after), "storage", rule, detail);
    }
}

/// Why removing the stored version `name` breaks, in the API server's words (its
/// refusal of the update, from crd-runtime's copy of the rule), and the way out.
fn stored_version_removed(name: &str, new: &CustomResourceDefinition, stored: &[String]) -> String {
    let refusal = stored_versions_on_update(new, stored)
        .iter()
        .find(|e| matches!(&e.bad_value, BadValue::Str(v) if v == name))
        .map(|e| format!(" ({e})"))
        .unwrap_or_default();
    format!(
        "version {name} removed while status.storedVersions lists it: objects may still be \
         stored in {name}, and the API server refuses the update{refusal}; migrate the stored \
         objects to the storage version (e.g. with a StorageVersionMigration), then remove \
         {name} from status.storedVersions"
    )
}

/// Per-version settings besides the schema.
fn version_details(
    old: &CustomResourceDefinitionVersion,
    new: &CustomResourceDefinitionVersion,
    out: &mut Changes,
) {
    let name = Some(new.name.as_str());
    if !old.deprecated.unwrap_or(false) && new.deprecated.unwrap_or(false) {
        let warning = new
            .deprecation_warning
            .as_deref()
            .map(|w| format!(": {w}"))
            .unwrap_or_default();
        out.push(
            name,
            "deprecated",
            Rule::VersionDeprecated,
            format!("version {} is deprecated{warning}", new.name),
        );
    }
    let subresources =
        |v: &CustomResourceDefinitionVersion| v.subresources.clone().unwrap_or_default();
    let (o, n) = (subresources(old), subresources(new));
    match (o.status.is_some(), n.status.is_some()) {
        (true, false) => out.push(
            name,
            "subresources.status",
            Rule::SubresourceRemoved,
            "status subresource removed".into(),
        ),
        (false, true) => out.push(
            name,
            "subresources.status",
            Rule::StatusSubresourceAdded,
            "status subresource added".into(),
        ),
        _ => {}
    }
    match (&o.scale, &n.scale) {
        (Some(_), None) => out.push(
            name,
            "subresources.scale",
            Rule::SubresourceRemoved,
            "scale subresource removed".into(),
        ),
        (None, Some(_)) => out.push(
            name,
            "subresources.scale",
            Rule::ScaleSubresourceAdded,
            "scale subresource added".into(),
        ),
        (Some(before), Some(after)) => {
            for (field, b, a) in [
                (
                    "specReplicasPath",
                    Some(&before.spec_replicas_path),
                    Some(&after.spec_replicas_path),
                ),
                (
                    "statusReplicasPath",
                    Some(&before.status_replicas_path),
                    Some(&after.status_replicas_path),
                ),
                (
                    "labelSelectorPath",
                    before.label_selector_path.as_ref(),
                    after.label_selector_path.as_ref(),
                ),
            ] {
                if b != a {
                    let show = |p: Option<&String>| p.map_or("(none)".to_string(), Clone::clone);
                    let detail = format!("{field} changed from {} to {}", show(b), show(a));
                    out.push(
                        name,
                        &format!("subresources.scale.{field}"),
                        Rule::ScalePathsChanged,
                        detail,
                    );
                }
            }
        }
        (None, None) => {}
    }
    printer_columns(old, new, out);
    let fields = |v: &CustomResourceDefinitionVersion| {
        v.selectable_fields
            .iter()
            .flatten()
            .map(|f| f.json_path.clone())
            .collect::<BTreeSet<_>>()
    };
    let (before, after) = (fields(old), fields(new));
    for gone in before.difference(&after) {
        out.push(
            name,
            "selectableFields",
            Rule::SelectableFieldRemoved,
            format!("{gone} removed"),
        );
    }
    for added in after.difference(&before) {
        out.push(
            name,
            "selectableFields",
            Rule::SelectableFieldAdded,
            format!("{added} added"),
        );
    }
}

/// Printer columns, paired by name (the n-th column of a name with the n-th of the
/// same name: some CRDs repeat a name with different priorities).
fn printer_columns(
    old: &CustomResourceDefinitionVersion,
    new: &CustomResourceDefinitionVersion,
    out: &mut Changes,
) {
    let version = Some(new.name.as_str());
    let columns = |v: &CustomResourceDefinitionVersion| {
        v.additional_printer_columns.clone().unwrap_or_default()
    };
    let (before, after) = (columns(old), columns(new));
    let nth = |list: &[CustomResourceColumnDefinition], name: &str, n: usize| {
        list.iter().filter(|c| c.name == name).nth(n).cloned()
    };
    let occurrence = |list: &[CustomResourceColumnDefinition], i: usize| {
        list[..i].iter().filter(|c| c.name == list[i].name).count()
    };
    for (i, column) in before.iter().enumerate() {
        let at = format!("additionalPrinterColumns[{}]", column.name);
        match nth(&after, &column.name, occurrence(&before, i)) {
            None => out.push(
                version,
                &at,
                Rule::PrinterColumnsChanged,
                format!("column {} removed", column.name),
            ),
            Some(c) if c.json_path != column.json_path => {
                let detail = format!(
                    "column {} now shows {} instead of {}",
                    c.name, c.json_path, column.json_path
                );
                out.push(version, &at, Rule::PrinterColumnsChanged, detail);
            }
            Some(c) if c != *column => {
                let detail = format!(
                    "column {}: type, format, priority or description changed",
                    c.name
                );
                out.push(version, &at, Rule::PrinterColumnsChanged, detail);
            }
            Some(_) => {}
        }
    }
    for (i, column) in after.iter().enumerate() {
        if nth(&before, &column.name, occurrence(&after, i)).is_none() {
            let at = format!("additionalPrinterColumns[{}]", column.name);
            let detail = format!("column {} added, showing {}", column.name, column.json_path);
            out.push(version, &at, Rule::PrinterColumnsChanged, detail);
        }
    }
}
