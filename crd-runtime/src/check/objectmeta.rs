//! `ObjectMeta` checks of the CRD object itself (`ValidateObjectMeta` for a
//! cluster-scoped object) and the API-approval annotation of protected groups.

use crate::field::{BadValue, ErrorList, FieldError, Path};
use crate::model::ObjectMeta;

use crate::engine::objectmeta::{MetaRules, NamespaceRule, validate_object_meta};
use crate::names::dns_subdomain_name;

/// The annotation protected groups (`*.k8s.io`, `*.kubernetes.io`) must carry.
pub const API_APPROVED_ANNOTATION: &str = "api-approved.kubernetes.io";

/// `ValidateObjectMeta` of a cluster-scoped object whose name must be `required_name`.
pub fn validate_crd_metadata(meta: &ObjectMeta, required_name: &str, path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    let value = serde_json::to_value(meta).unwrap_or_default();
    let map = value.as_object().cloned().unwrap_or_default();
    let rules = MetaRules {
        namespace: NamespaceRule::Forbidden,
        name: dns_subdomain_name,
        name_optional: false,
    };
    validate_object_meta(&map, rules, path, &mut errs);
    // The rest of the API server's name function for CRDs.
    for (field, value) in [("generateName", &meta.generate_name), ("name", &meta.name)] {
        if let Some(v) = value.as_deref().filter(|v| !v.is_empty()) {
            errs.extend(name_mismatch(path.child(field), v, required_name));
        }
    }
    errs
}

/// A CRD's name (or generated name) that is not `plural.group`.
pub(crate) fn name_mismatch(field: Path, name: &str, required_name: &str) -> Option<FieldError> {
    (name != required_name).then(|| {
        FieldError::invalid(
            field,
            BadValue::Str(name.into()),
            r#"must be spec.names.plural+"."+spec.group"#,
        )
    })
}

fn is_protected_group(group: &str) -> bool {
    group == "k8s.io"
        || group.ends_with(".k8s.io")
        || group == "kubernetes.io"
        || group.ends_with(".kubernetes.io")
}

/// `validateAPIApproval` for a create: groups under `k8s.io`/`kubernetes.io` need
/// the approval annotation with a URL, or a reason starting with `unapproved`.
pub fn validate_api_approval(group: &str, meta: &ObjectMeta) -> ErrorList {
    let mut errs = ErrorList::new();
    if !is_protected_group(group) {
        return errs;
    }
    let path = Path::new("metadata")
        .child("annotations")
        .key(API_APPROVED_ANNOTATION);
    match meta.annotations.as_ref().and_then(|a| a.get(API_APPROVED_ANNOTATION)) {
        None => errs.push(FieldError::required(
            path,
            format!(
                "protected groups must have approval annotation {API_APPROVED_ANNOTATION:?}, see https://github.com/kubernetes/enhancements/pull/1111"
            ),
        )),
        Some(v) if v.starts_with("unapproved") => {}
        Some(v) if is_request_uri(v) => {}
        Some(v) => errs.push(FieldError::invalid(
            path,
            BadValue::Str(v.clone()),
            format!(
                "protected groups must have approval annotation {API_APPROVED_ANNOTATION:?} with either a URL or a reason starting with \"unapproved\", see https://github.com/kubernetes/enhancements/pull/1111"
            ),
        )),
    }
    errs
}

/// Go's `url.ParseRequestURI` acceptance: an absolute URL (`scheme:...`) or an
/// absolute path, without spaces or control characters.
fn is_request_uri(v: &str) -> bool {
    if v.is_empty() || v.chars().any(|c| c.is_control() || c == ' ') {
        return false;
    }
    if v.starts_with('/') {
        return true;
    }
    match v.split_once(':') {
        Some((scheme, _)) => {
            scheme
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn approval() {
        let mut meta = ObjectMeta::default();
        assert!(validate_api_approval("example.com", &meta).is_empty());
        assert_eq!(
            validate_api_approval("gateway.networking.k8s.io", &meta).len(),
            1
        );
        let mut ann = std::collections::BTreeMap::new();
        ann.insert(
            API_APPROVED_ANNOTATION.to_string(),
            "https://github.com/kubernetes/enhancements/pull/1111".to_string(),
        );
        meta.annotations = Some(ann.clone());
        assert!(validate_api_approval("x.k8s.io", &meta).is_empty());
        ann.insert(API_APPROVED_ANNOTATION.to_string(), "not a url".to_string());
        meta.annotations = Some(ann);
        assert_eq!(validate_api_approval("x.k8s.io", &meta).len(), 1);
    }

    #[test]
    fn metadata_name() {
        let meta = ObjectMeta {
            name: Some("crontabs.stable.example.com".into()),
            ..Default::default()
        };
        assert!(
            validate_crd_metadata(&meta, "crontabs.stable.example.com", &Path::new("metadata"))
                .is_empty()
        );
        let errs = validate_crd_metadata(&meta, "x.y", &Path::new("metadata")).strings();
        assert_eq!(
            errs,
            vec![
                r#"metadata.name: Invalid value: "crontabs.stable.example.com": must be spec.names.plural+"."+spec.group"#
            ]
        );
    }
}
