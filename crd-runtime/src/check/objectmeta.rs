//! `ObjectMeta` checks of the CRD object itself (`ValidateObjectMeta` for a
//! cluster-scoped object) and the API-approval annotation of protected groups.

use crate::field::{BadValue, ErrorList, FieldError, Path};
use crate::model::ObjectMeta;

use super::names::{TOTAL_ANNOTATION_SIZE_LIMIT, dns1123_subdomain, label_value, qualified_name};

/// The annotation protected groups (`*.k8s.io`, `*.kubernetes.io`) must carry.
pub const API_APPROVED_ANNOTATION: &str = "api-approved.kubernetes.io";

/// `ValidateObjectMeta` of a cluster-scoped object whose name must be `required_name`.
pub fn validate_crd_metadata(meta: &ObjectMeta, required_name: &str, path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    let name_problems = |name: &str, prefix: bool| {
        // A generateName prefix may end in '-': the generated suffix follows it.
        let checked = if prefix {
            name.strip_suffix('-').unwrap_or(name)
        } else {
            name
        };
        let mut problems = dns1123_subdomain(checked);
        if name != required_name {
            problems.push(r#"must be spec.names.plural+"."+spec.group"#.to_string());
        }
        problems
    };
    if let Some(g) = meta.generate_name.as_deref().filter(|g| !g.is_empty()) {
        for msg in name_problems(g, true) {
            errs.push(FieldError::invalid(
                path.child("generateName"),
                BadValue::Str(g.into()),
                msg,
            ));
        }
    }
    match meta.name.as_deref().filter(|n| !n.is_empty()) {
        None => errs.push(FieldError::required(
            path.child("name"),
            "name or generateName is required",
        )),
        Some(n) => {
            for msg in name_problems(n, false) {
                errs.push(FieldError::invalid(
                    path.child("name"),
                    BadValue::Str(n.into()),
                    msg,
                ));
            }
        }
    }
    if meta.namespace.as_deref().is_some_and(|n| !n.is_empty()) {
        errs.push(FieldError::forbidden(
            path.child("namespace"),
            "not allowed on this type",
        ));
    }
    if let Some(labels) = &meta.labels {
        errs.extend(validate_labels(labels, &path.child("labels")));
    }
    if let Some(annotations) = &meta.annotations {
        errs.extend(validate_annotations(
            annotations,
            &path.child("annotations"),
        ));
    }
    errs
}

/// `ValidateLabels`: qualified-name keys and label values.
pub fn validate_labels<'a>(
    labels: impl IntoIterator<Item = (&'a String, &'a String)>,
    path: &Path,
) -> ErrorList {
    let mut errs = ErrorList::new();
    for (k, v) in labels {
        for msg in qualified_name(k) {
            errs.push(FieldError::invalid(
                path.clone(),
                BadValue::Str(k.clone()),
                msg,
            ));
        }
        for msg in label_value(v) {
            errs.push(FieldError::invalid(
                path.clone(),
                BadValue::Str(v.clone()),
                msg,
            ));
        }
    }
    errs
}

/// `ValidateAnnotations`: qualified-name keys (case-insensitive) and total size.
pub fn validate_annotations<'a>(
    annotations: impl IntoIterator<Item = (&'a String, &'a String)>,
    path: &Path,
) -> ErrorList {
    let mut errs = ErrorList::new();
    let mut total = 0;
    for (k, v) in annotations {
        for msg in qualified_name(&k.to_lowercase()) {
            errs.push(FieldError::invalid(
                path.clone(),
                BadValue::Str(k.clone()),
                msg,
            ));
        }
        total += k.len() + v.len();
    }
    if total > TOTAL_ANNOTATION_SIZE_LIMIT {
        errs.push(FieldError::too_long(
            path.clone(),
            TOTAL_ANNOTATION_SIZE_LIMIT as i64,
        ));
    }
    errs
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
