//! Names and version bookkeeping of a CRD: `spec.names` / `status.acceptedNames`
//! syntax, `status.storedVersions`, and deprecation warnings.

use crate::field::{BadValue, ErrorList, FieldError, Path};
use crate::model::{CustomResourceDefinition, CustomResourceDefinitionNames};

use super::internal::InternalVersion;
use crate::names::{dns1035_label, dns1123_subdomain};

/// The rules of [`validate_crd`](super::validate_crd) for what names the resource:
/// `metadata.name`, `spec.group`, `spec.names` and the version names, with the
/// server's paths and wording. Far cheaper than the whole check (no schema is
/// visited), for tools that need a usable identity but accept schemas as they come.
pub fn validate_identity(crd: &CustomResourceDefinition) -> ErrorList {
    let spec = &crd.spec;
    let path = Path::new("spec");
    let mut errs = ErrorList::new();
    let required_name = format!("{}.{}", spec.names.plural, spec.group);
    let name = crd.metadata.name.as_deref().unwrap_or("");
    if name.is_empty() {
        errs.push(FieldError::required(
            Path::new("metadata").child("name"),
            "name or generateName is required",
        ));
    } else {
        let field = Path::new("metadata").child("name");
        for problem in dns1123_subdomain(name) {
            errs.push(FieldError::invalid(
                field.clone(),
                BadValue::Str(name.into()),
                problem,
            ));
        }
        errs.extend(super::objectmeta::name_mismatch(
            field,
            name,
            &required_name,
        ));
    }
    errs.extend(validate_group(&spec.group, &path.child("group")));
    let mut seen = std::collections::HashSet::new();
    for (i, v) in spec.versions.iter().enumerate() {
        let vp = path.child("versions").index(i);
        errs.extend(validate_version_name(&v.name, &vp.child("name")));
        seen.insert(v.name.as_str());
    }
    if seen.len() != spec.versions.len() {
        errs.push(FieldError::invalid(
            path.child("versions"),
            versions_value(spec.versions.iter().map(|v| v.name.as_str())),
            UNIQUE_VERSION_NAMES,
        ));
    }
    // v1 defaults singular and listKind; plural and kind have no default.
    let names = path.child("names");
    for (value, field) in [(&spec.names.plural, "plural"), (&spec.names.kind, "kind")] {
        if value.is_empty() {
            errs.push(FieldError::required(names.child(field), ""));
        }
    }
    errs.extend(validate_names(&spec.names, &names));
    errs
}

/// Why a list of versions with a repeated name is refused.
pub(crate) const UNIQUE_VERSION_NAMES: &str = "must contain unique version names";

/// The value printed for an error about the whole versions list: the server prints
/// the list, and the names identify it.
pub(crate) fn versions_value<'a>(names: impl Iterator<Item = &'a str>) -> BadValue {
    BadValue::Json(serde_json::Value::from(names.collect::<Vec<_>>()))
}

/// `spec.group`: a DNS subdomain with at least one dot.
pub(crate) fn validate_group(group: &str, path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    if group.is_empty() {
        errs.push(FieldError::required(path.clone(), ""));
        return errs;
    }
    if !invalid_if_any(&mut errs, path.clone(), group, dns1123_subdomain(group))
        && !group.contains('.')
    {
        errs.push(FieldError::invalid(
            path.clone(),
            BadValue::Str(group.into()),
            "should be a domain with at least one dot",
        ));
    }
    errs
}

/// `spec.versions[i].name`: a DNS-1035 label.
pub(crate) fn validate_version_name(name: &str, path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    invalid_if_any(&mut errs, path.clone(), name, dns1035_label(name));
    errs
}

/// One invalid-value error at `path` with every problem of `value`, when there are
/// any (the API server joins them with `,`); whether there were.
fn invalid_if_any(errs: &mut ErrorList, path: Path, value: &str, problems: Vec<String>) -> bool {
    if problems.is_empty() {
        return false;
    }
    errs.push(FieldError::invalid(
        path,
        BadValue::Str(value.into()),
        problems.join(","),
    ));
    true
}

pub(crate) fn deprecation_warning_problems(deprecated: bool, warning: Option<&str>) -> Vec<String> {
    let Some(w) = warning else {
        return Vec::new();
    };
    if !deprecated {
        return vec!["can only be set for deprecated versions".into()];
    }
    let mut out = Vec::new();
    if w.len() > 256 {
        out.push("must be <= 256 characters long".into());
    }
    if w.is_empty() {
        out.push("must not be an empty string".into());
    }
    if let Some((i, _)) = w.char_indices().find(|(_, c)| c.is_control()) {
        out.push(format!(
            "must only contain printable UTF-8 characters; control character found at index {i}"
        ));
    }
    out
}

/// `ValidateCustomResourceDefinitionNames`.
pub(crate) fn validate_names(n: &CustomResourceDefinitionNames, path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    let singular = n.singular.as_deref().unwrap_or("");
    let list_kind = n.list_kind.as_deref().unwrap_or("");
    let label = |errs: &mut ErrorList, path: Path, value: &str| {
        invalid_if_any(errs, path, value, dns1035_label(value));
    };
    for (value, name) in [(n.plural.as_str(), "plural"), (singular, "singular")] {
        if !value.is_empty() {
            label(&mut errs, path.child(name), value);
        }
    }
    for (value, name) in [(n.kind.as_str(), "kind"), (list_kind, "listKind")] {
        if !value.is_empty()
            && let Some(message) = crate::names::mixed_case_kind(value)
        {
            errs.push(FieldError::invalid(
                path.child(name),
                BadValue::Str(value.into()),
                message,
            ));
        }
    }
    for (i, short) in n.short_names.iter().flatten().enumerate() {
        label(&mut errs, path.child("shortNames").index(i), short);
    }
    if !n.kind.is_empty() && n.kind == list_kind {
        errs.push(FieldError::invalid(
            path.child("listKind"),
            BadValue::Str(list_kind.into()),
            "kind and listKind may not be the same",
        ));
    }
    for (i, c) in n.categories.iter().flatten().enumerate() {
        label(&mut errs, path.child("categories").index(i), c);
    }
    errs
}

/// `ValidateCustomResourceDefinitionStoredVersions`.
pub(crate) fn validate_stored_versions(
    stored: &[String],
    versions: &[InternalVersion],
    path: &Path,
) -> ErrorList {
    let mut errs = ErrorList::new();
    let value = || BadValue::Json(serde_json::Value::from(stored.to_vec()));
    if stored.is_empty() {
        errs.push(FieldError::invalid(
            path.clone(),
            value(),
            "must have at least one stored version",
        ));
        return errs;
    }
    // Like upstream's map: a duplicated stored version keeps its last index.
    let mut remaining: std::collections::HashMap<&str, usize> = stored
        .iter()
        .enumerate()
        .map(|(i, s)| (s.as_str(), i))
        .collect();
    for v in versions {
        let found = remaining.remove(v.name.as_str()).is_some();
        if v.storage && !found {
            errs.push(FieldError::invalid(
                path.clone(),
                value(),
                format!("must have the storage version {}", v.name),
            ));
        }
    }
    let mut remaining: Vec<(usize, &str)> = remaining.into_iter().map(|(s, i)| (i, s)).collect();
    remaining.sort();
    for (i, v) in remaining {
        errs.push(FieldError::invalid(
            path.index(i),
            BadValue::Str(v.into()),
            format!("missing from spec.versions; {v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in {v} and removes {v} from status.storedVersions"),
        ));
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::validate_identity;
    use crate::check::{CheckOptions, validate_crd};
    use crate::load::load_crds;
    use crate::model::CustomResourceDefinition;
    use proptest::prelude::*;

    const CRONTAB: &str = include_str!("../../tests/data/crontab-full.yaml");

    fn crontab() -> CustomResourceDefinition {
        load_crds("crontab.yaml", CRONTAB)
            .unwrap()
            .crds
            .remove(0)
            .crd
    }

    /// Whether the whole check's error is about the resource's names.
    fn is_identity_error(e: &str) -> bool {
        e.starts_with("metadata.name:")
            || e.starts_with("spec.group:")
            || e.starts_with("spec.names.")
            || e.starts_with("spec.versions: Invalid value: ")
                && e.ends_with("unique version names")
            || e.starts_with("spec.versions[")
                && e.split(": ").next().is_some_and(|p| p.ends_with("].name"))
    }

    #[test]
    fn the_crontab_has_a_valid_identity() {
        assert!(validate_identity(&crontab()).is_empty());
    }

    #[test]
    fn names_the_field_in_the_servers_words() {
        let mut crd = crontab();
        crd.spec.names.kind = "Cron\u{7}Tab".into();
        crd.spec.group = "Stable".into();
        crd.spec.versions[0].name = "1".into();
        crd.spec.versions.push(crd.spec.versions[0].clone());
        let got = validate_identity(&crd).strings();
        assert_eq!(got.len(), 6, "{got:#?}");
        assert_eq!(
            got[0],
            r#"metadata.name: Invalid value: "crontabs.stable.example.com": must be spec.names.plural+"."+spec.group"#
        );
        assert!(
            got[1].starts_with(
                r#"spec.group: Invalid value: "Stable": a lowercase RFC 1123 subdomain"#
            ),
            "{}",
            got[1]
        );
        assert!(
            got[2].starts_with(r#"spec.versions[0].name: Invalid value: "1": a DNS-1035 label"#),
            "{}",
            got[2]
        );
        assert!(
            got[3].starts_with(r#"spec.versions[1].name: Invalid value: "1""#),
            "{}",
            got[3]
        );
        assert_eq!(
            got[4],
            r#"spec.versions: Invalid value: ["1","1"]: must contain unique version names"#
        );
        assert!(
            got[5]
                .starts_with(r#"spec.names.kind: Invalid value: "Cron\aTab": may have mixed case"#),
            "{}",
            got[5]
        );
    }

    #[test]
    fn plural_and_kind_are_required_singular_and_list_kind_default() {
        let mut crd = crontab();
        crd.spec.names.plural.clear();
        crd.spec.names.kind.clear();
        crd.spec.names.singular = None;
        crd.spec.names.list_kind = None;
        crd.metadata.name = Some(".stable.example.com".into());
        let got = validate_identity(&crd).strings();
        assert_eq!(got.len(), 3, "{got:#?}");
        assert!(got[0].starts_with(
            r#"metadata.name: Invalid value: ".stable.example.com": a lowercase RFC 1123 subdomain"#
        ));
        assert_eq!(
            got[1..],
            [
                "spec.names.plural: Required value",
                "spec.names.kind: Required value"
            ]
        );
    }

    fn name_like() -> impl Strategy<Value = String> {
        // Mostly plausible names, with the characters that break them.
        proptest::string::string_regex("[a-zA-Z0-9.\\-_ \u{7}é]{0,12}").unwrap()
    }

    proptest! {
        /// Every identity error is one the whole check reports, and whenever the whole
        /// check finds the names wrong, so does the identity check.
        #[test]
        fn agrees_with_the_whole_check(
            group in name_like(),
            plural in name_like(),
            kind in name_like(),
            version in name_like(),
            name_from_parts in any::<bool>(),
        ) {
            let mut crd = crontab();
            crd.metadata.name = Some(if name_from_parts {
                format!("{plural}.{group}")
            } else {
                "crontabs.stable.example.com".into()
            });
            crd.spec.group = group;
            crd.spec.names.plural = plural;
            crd.spec.names.kind = kind;
            crd.spec.names.singular = None;
            crd.spec.names.list_kind = None;
            crd.spec.versions[0].name = version;
            let identity = validate_identity(&crd).strings();
            let whole = validate_crd(&crd, &CheckOptions::v1_create()).strings();
            for e in &identity {
                prop_assert!(whole.contains(e), "{e} is not in {whole:#?}");
            }
            let whole_names: Vec<&String> = whole.iter().filter(|e| is_identity_error(e)).collect();
            prop_assert_eq!(identity.is_empty(), whole_names.is_empty(), "{:#?} vs {:#?}", identity, whole_names);
        }
    }
}
