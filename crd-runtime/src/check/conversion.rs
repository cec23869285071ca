//! `spec.conversion`: the strategy, the webhook endpoint (URL or service, with
//! `k8s.io/apiserver/pkg/util/webhook`'s rules) and `conversionReviewVersions`.

use crate::field::{BadValue, ErrorList, FieldError, Path};
use crate::model::ServiceReference;

use super::internal::InternalConversion;
use crate::names::{dns1035_label, dns1123_subdomain};

/// ConversionReview versions the API server understands (sorted).
const ACCEPTED_REVIEW_VERSIONS: [&str; 2] = ["v1", "v1beta1"];

/// `validateCustomResourceConversion`.
pub fn validate_conversion(
    conversion: Option<&InternalConversion>,
    require_recognized_version: bool,
    path: &Path,
) -> ErrorList {
    let mut errs = ErrorList::new();
    let Some(c) = conversion else {
        return errs;
    };
    super::one_of(
        &mut errs,
        path.child("strategy"),
        &c.strategy,
        &["None", "Webhook"],
    );
    let cc_path = path.child("webhookClientConfig");
    if c.strategy == "Webhook" {
        match &c.webhook_client_config {
            None => errs.push(FieldError::required(
                cc_path,
                "required when strategy is set to Webhook",
            )),
            Some(cc) => match (&cc.url, &cc.service) {
                (Some(url), None) => errs.extend(validate_webhook_url(url, &cc_path.child("url"))),
                (None, Some(svc)) => {
                    errs.extend(validate_webhook_service(svc, &cc_path.child("service")))
                }
                _ => errs.push(FieldError::required(
                    cc_path,
                    "exactly one of url or service is required",
                )),
            },
        }
        // The CA bundle is not checked on create: the CRD is not established yet.
        errs.extend(validate_review_versions(
            &c.conversion_review_versions,
            require_recognized_version,
            &path.child("conversionReviewVersions"),
        ));
    } else {
        if c.webhook_client_config.is_some() {
            errs.push(FieldError::forbidden(
                cc_path,
                "should not be set when strategy is not set to Webhook",
            ));
        }
        if !c.conversion_review_versions.is_empty() {
            errs.push(FieldError::forbidden(
                path.child("conversionReviewVersions"),
                "should not be set when strategy is not set to Webhook",
            ));
        }
    }
    errs
}

fn validate_review_versions(
    versions: &[String],
    require_recognized: bool,
    path: &Path,
) -> ErrorList {
    let mut errs = ErrorList::new();
    if versions.is_empty() {
        errs.push(FieldError::required(path.clone(), ""));
        return errs;
    }
    let mut seen = std::collections::HashSet::new();
    let mut has_accepted = false;
    for (i, v) in versions.iter().enumerate() {
        if !seen.insert(v.as_str()) {
            errs.push(FieldError::invalid(
                path.index(i),
                BadValue::Str(v.clone()),
                "duplicate version",
            ));
            continue;
        }
        for msg in dns1035_label(v) {
            errs.push(FieldError::invalid(
                path.index(i),
                BadValue::Str(v.clone()),
                msg,
            ));
        }
        has_accepted |= ACCEPTED_REVIEW_VERSIONS.contains(&v.as_str());
    }
    if require_recognized && !has_accepted {
        errs.push(FieldError::invalid(
            path.clone(),
            BadValue::Json(serde_json::Value::from(versions.to_vec())),
            format!(
                "must include at least one of {}",
                ACCEPTED_REVIEW_VERSIONS.join(", ")
            ),
        ));
    }
    errs
}

/// The parts of a URL the webhook rules look at (Go's `url.Parse` split).
#[derive(Debug, Default, PartialEq)]
struct UrlParts<'a> {
    scheme: &'a str,
    user: Option<&'a str>,
    host: &'a str,
    query: &'a str,
    fragment: &'a str,
}

fn parse_url(url: &str) -> Result<UrlParts<'_>, String> {
    let (rest, fragment) = url.split_once('#').unwrap_or((url, ""));
    let (rest, query) = rest.split_once('?').unwrap_or((rest, ""));
    let mut parts = UrlParts {
        fragment,
        query,
        ..Default::default()
    };
    let mut rest = rest;
    if let Some(colon) = rest.find(':') {
        let scheme = &rest[..colon];
        let valid = scheme
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
        if colon == 0 {
            return Err("missing protocol scheme".into());
        }
        if valid {
            parts.scheme = scheme;
            rest = &rest[colon + 1..];
        }
    }
    if let Some(authority) = rest.strip_prefix("//") {
        let authority = authority.split('/').next().unwrap_or("");
        match authority.rsplit_once('@') {
            Some((user, host)) => {
                parts.user = Some(user);
                parts.host = host;
            }
            None => parts.host = authority,
        }
        if parts.host.contains(' ') {
            return Err("invalid character \" \" in host name".to_string());
        }
    }
    Ok(parts)
}

/// `webhook.ValidateWebhookURL` with https required.
pub fn validate_webhook_url(url: &str, path: &Path) -> ErrorList {
    const FORM: &str = "; desired format: https://host[/path]";
    let mut errs = ErrorList::new();
    let u = match parse_url(url) {
        Ok(u) => u,
        Err(e) => {
            errs.push(FieldError::required(
                path.clone(),
                format!("url must be a valid URL: {e}{FORM}"),
            ));
            return errs;
        }
    };
    let invalid =
        |v: &str, d: String| FieldError::invalid(path.clone(), BadValue::Str(v.into()), d);
    if u.scheme != "https" {
        errs.push(invalid(
            u.scheme,
            format!("'https' is the only allowed URL scheme{FORM}"),
        ));
    }
    if u.host.is_empty() {
        errs.push(invalid(u.host, format!("host must be specified{FORM}")));
    }
    if let Some(user) = u.user {
        errs.push(invalid(
            user,
            "user information is not permitted in the URL".into(),
        ));
    }
    if !u.fragment.is_empty() {
        errs.push(invalid(
            u.fragment,
            "fragments are not permitted in the URL".into(),
        ));
    }
    if !u.query.is_empty() {
        errs.push(invalid(
            u.query,
            "query parameters are not permitted in the URL".into(),
        ));
    }
    errs
}

/// `webhook.ValidateWebhookService` (an unset port is the internal zero value).
pub fn validate_webhook_service(svc: &ServiceReference, path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    if svc.name.is_empty() {
        errs.push(FieldError::required(
            path.child("name"),
            "service name is required",
        ));
    }
    if svc.namespace.is_empty() {
        errs.push(FieldError::required(
            path.child("namespace"),
            "service namespace is required",
        ));
    }
    let port = svc.port.unwrap_or(0);
    if !(1..=65535).contains(&port) {
        errs.push(FieldError::invalid(
            path.child("port"),
            BadValue::Int(port.into()),
            "port is not valid: must be between 1 and 65535, inclusive",
        ));
    }
    let Some(url_path) = svc.path.as_deref() else {
        return errs;
    };
    if url_path == "/" {
        return errs;
    }
    let p = path.child("path");
    let invalid = |d: String| FieldError::invalid(p.clone(), BadValue::Str(url_path.into()), d);
    if !url_path.starts_with('/') {
        errs.push(invalid("must start with a '/'".into()));
    }
    let steps = url_path.strip_prefix('/').unwrap_or(url_path).split('/');
    for (i, step) in steps.enumerate() {
        if step.is_empty() {
            errs.push(invalid(format!("segment[{i}] may not be empty")));
        }
        for msg in dns1123_subdomain(step) {
            errs.push(invalid(format!("segment[{i}]: {msg}")));
        }
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let p = Path::new("url");
        assert!(validate_webhook_url("https://example.com/webhook", &p).is_empty());
        assert_eq!(validate_webhook_url("", &p).len(), 2);
        let errs = validate_webhook_url("http://u@h/x?q=1#f", &p).strings();
        assert_eq!(errs.len(), 4, "{errs:?}");
        assert!(errs[0].contains("'https' is the only allowed URL scheme"));
    }

    #[test]
    fn services() {
        let svc = ServiceReference {
            namespace: "ns".into(),
            name: "n".into(),
            path: Some("/convert".into()),
            port: Some(443),
        };
        assert!(validate_webhook_service(&svc, &Path::new("s")).is_empty());
        let bad = ServiceReference {
            path: Some("x//Y".into()),
            port: Some(0),
            ..Default::default()
        };
        let errs = validate_webhook_service(&bad, &Path::new("s")).strings();
        assert!(
            errs.iter().any(|e| e.contains("must start with a '/'")),
            "{errs:?}"
        );
        assert!(
            errs.iter()
                .any(|e| e.starts_with("s.port: Invalid value: 0")),
            "{errs:?}"
        );
    }
}
