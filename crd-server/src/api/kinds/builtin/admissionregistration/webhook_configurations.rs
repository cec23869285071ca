//! Validating and mutating webhook configurations: `SetDefaults_ValidatingWebhook`/
//! `SetDefaults_MutatingWebhook` (v1) and `ValidateValidatingWebhookConfiguration`/
//! `ValidateMutatingWebhookConfiguration`, with the looser options an update gets
//! when the stored object already broke a rule added later.

use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use crd_runtime::names::{dns1035_label, dns1123_subdomain};
use serde_json::{Value, json};

use crate::api::kinds::builtin::admissionregistration::preexisting::Preexisting;
use crate::api::kinds::builtin::admissionregistration::{
    FAILURE_POLICIES, Scope, default, list, match_conditions, one_of, rule_with_operations,
    strings, text,
};
use crate::api::kinds::builtin::behaviour::*;
use crate::api::kinds::builtin::checks::fully_qualified_name;
use crate::api::selectors::label::{self, has_invalid_label_value};
use crate::api::table::Column;

const MATCH_POLICIES: &[&str] = &["Equivalent", "Exact"];
const SIDE_EFFECTS: &[&str] = &["None", "NoneOnDryRun", "Some", "Unknown"];
const NO_SIDE_EFFECTS: &[&str] = &["None", "NoneOnDryRun"];
const REINVOCATION: &[&str] = &["IfNeeded", "Never"];
/// `AcceptedAdmissionReviewVersions`.
const REVIEW_VERSIONS: &[&str] = &["v1", "v1beta1"];

/// ValidatingWebhookConfigurations (`mutating: false`) and MutatingWebhookConfigurations.
pub struct Webhooks {
    pub mutating: bool,
}

/// The checks an update relaxes when the old object did not pass them.
struct Options {
    match_conditions: bool,
    no_side_effects: bool,
    recognized_review_version: bool,
    unique_names: bool,
    allow_invalid_label_values: bool,
    /// The old configuration's match conditions (compiled as stored).
    preexisting: Preexisting,
}

impl Options {
    fn create() -> Options {
        Options {
            match_conditions: true,
            no_side_effects: true,
            recognized_review_version: true,
            unique_names: true,
            allow_invalid_label_values: false,
            preexisting: Preexisting::default(),
        }
    }

    fn update(new: &Value, old: &Value) -> Options {
        let (new_hooks, old_hooks) = (list(new, "webhooks"), list(old, "webhooks"));
        let same_conditions = new_hooks.len() == old_hooks.len()
            && new_hooks
                .iter()
                .zip(old_hooks)
                .all(|(n, o)| n.get("matchConditions") == o.get("matchConditions"));
        let names: Vec<&str> = old_hooks.iter().map(|h| text(h, "name")).collect();
        Options {
            match_conditions: !same_conditions,
            no_side_effects: old_hooks.iter().all(|h| {
                h.get("sideEffects")
                    .and_then(Value::as_str)
                    .is_some_and(|s| NO_SIDE_EFFECTS.contains(&s))
            }),
            recognized_review_version: old_hooks.iter().all(|h| {
                let versions = strings(h, "admissionReviewVersions");
                versions.is_empty() || versions.iter().any(|v| REVIEW_VERSIONS.contains(v))
            }),
            unique_names: names
                .iter()
                .enumerate()
                .all(|(i, n)| !names[..i].contains(n)),
            allow_invalid_label_values: old_hooks.iter().any(|h| {
                has_invalid_label_value(h.get("namespaceSelector"))
                    || has_invalid_label_value(h.get("objectSelector"))
            }),
            preexisting: Preexisting::of_webhooks(Some(old)),
        }
    }
}

defaults!(Webhooks: Preparer, Serving, Deleter, AllocateStrategy);

impl Defaulter for Webhooks {
    fn decode(&self, obj: &mut Value) -> Result<(), String> {
        if let Some(Value::Array(hooks)) = obj.get_mut("webhooks") {
            for hook in hooks {
                default(hook, "failurePolicy", json!("Fail"));
                default(hook, "matchPolicy", json!("Equivalent"));
                default(hook, "namespaceSelector", json!({}));
                default(hook, "objectSelector", json!({}));
                default(hook, "timeoutSeconds", json!(10));
                if self.mutating {
                    default(hook, "reinvocationPolicy", json!("Never"));
                }
                if let Some(Value::Array(rules)) = hook.get_mut("rules") {
                    for rule in rules {
                        default(rule, "scope", json!("*"));
                    }
                }
                if let Some(service) = hook.pointer_mut("/clientConfig/service") {
                    default(service, "port", json!(443));
                }
            }
        }
        Ok(())
    }
}

impl Validator for Webhooks {
    fn validate_with(&self, obj: &Value, cx: &Validation<'_>, errs: &mut ErrorList) {
        let old = cx.old;
        let opts = match old {
            None => Options::create(),
            Some(old) => Options::update(obj, old),
        };
        let mut names = Vec::new();
        for (i, hook) in list(obj, "webhooks").iter().enumerate() {
            let at = Path::new("webhooks").index(i);
            self.webhook(hook, &opts, cx, &at, errs);
            review_versions(hook, opts.recognized_review_version, &at, errs);
            let name = text(hook, "name");
            if opts.unique_names && !name.is_empty() {
                if names.contains(&name) {
                    errs.push(FieldError::duplicate(
                        at.child("name"),
                        BadValue::Str(name.into()),
                    ));
                } else {
                    names.push(name);
                }
            }
        }
    }
}

impl Printer for Webhooks {
    fn columns(&self) -> Vec<Column> {
        vec![
            Column::computed(
                "Webhooks",
                "integer",
                "Webhooks indicates the number of webhooks in the configuration.",
                |o| json!(list(o, "webhooks").len()),
            ),
            Column::builtin_age(),
        ]
    }
}

impl Webhooks {
    fn webhook(
        &self,
        hook: &Value,
        opts: &Options,
        cx: &Validation,
        at: &Path,
        errs: &mut ErrorList,
    ) {
        fully_qualified_name(text(hook, "name"), &at.child("name"), errs);
        for (i, rule) in list(hook, "rules").iter().enumerate() {
            rule_with_operations(rule, &at.child("rules").index(i), errs);
        }
        one_of(hook, "failurePolicy", FAILURE_POLICIES, at, errs);
        one_of(hook, "matchPolicy", MATCH_POLICIES, at, errs);
        let allowed = if opts.no_side_effects {
            NO_SIDE_EFFECTS
        } else {
            SIDE_EFFECTS
        };
        match hook.get("sideEffects").and_then(Value::as_str) {
            None => errs.push(FieldError::required(
                at.child("sideEffects"),
                format!("must specify one of {}", allowed.join(", ")),
            )),
            Some(_) => one_of(hook, "sideEffects", allowed, at, errs),
        }
        if let Some(t) = hook.get("timeoutSeconds").and_then(Value::as_i64)
            && !(1..=30).contains(&t)
        {
            errs.push(FieldError::invalid(
                at.child("timeoutSeconds"),
                BadValue::Int(t),
                "the timeout value must be between 1 and 30 seconds",
            ));
        }
        for sel in ["namespaceSelector", "objectSelector"] {
            if let Some(s) = hook.get(sel).filter(|v| !v.is_null()) {
                let opts = label::Options {
                    allow_invalid_values: opts.allow_invalid_label_values,
                };
                label::validate(s, opts, &at.child(sel), errs);
            }
        }
        if self.mutating {
            one_of(hook, "reinvocationPolicy", REINVOCATION, at, errs);
        }
        client_config(hook.get("clientConfig").unwrap_or(&Value::Null), at, errs);
        if opts.match_conditions {
            let scope = Scope {
                params: false,
                authorizer: true,
                variables: None,
                version: cx.kube_version,
                stored: Some(&opts.preexisting.match_conditions),
            };
            let conditions = list(hook, "matchConditions");
            match_conditions(conditions, scope, &at.child("matchConditions"), errs);
        }
    }
}

/// `validateAdmissionReviewVersions`.
fn review_versions(hook: &Value, require_recognized: bool, at: &Path, errs: &mut ErrorList) {
    let path = at.child("admissionReviewVersions");
    let versions = strings(hook, "admissionReviewVersions");
    if versions.is_empty() {
        errs.push(FieldError::required(
            path,
            format!("must specify one of {}", REVIEW_VERSIONS.join(", ")),
        ));
        return;
    }
    let mut seen = Vec::new();
    for (i, v) in versions.iter().enumerate() {
        if seen.contains(v) {
            errs.push(FieldError::invalid(
                path.index(i),
                BadValue::Str(v.to_string()),
                "duplicate version",
            ));
            continue;
        }
        seen.push(v);
        for m in dns1035_label(v) {
            errs.push(FieldError::invalid(
                path.index(i),
                BadValue::Str(v.to_string()),
                m,
            ));
        }
    }
    if require_recognized && !versions.iter().any(|v| REVIEW_VERSIONS.contains(v)) {
        errs.push(FieldError::invalid(
            path,
            BadValue::Json(json!(versions)),
            format!(
                "must include at least one of {}",
                REVIEW_VERSIONS.join(", ")
            ),
        ));
    }
}

/// The `clientConfig`: exactly one of `url` (`ValidateWebhookURL`, https only) and
/// `service` (`ValidateWebhookService`).
fn client_config(cc: &Value, at: &Path, errs: &mut ErrorList) {
    let path = at.child("clientConfig");
    let url = cc.get("url").and_then(Value::as_str);
    let service = cc.get("service").filter(|v| !v.is_null());
    match (url, service) {
        (Some(url), None) => webhook_url(url, &path.child("url"), errs),
        (None, Some(service)) => webhook_service(service, &path.child("service"), errs),
        _ => errs.push(FieldError::required(
            path,
            "exactly one of url or service is required",
        )),
    }
}

/// Go's `url.Parse` in the parts the check reads: scheme, user, host, query, fragment.
struct Url<'a> {
    scheme: &'a str,
    user: Option<&'a str>,
    host: &'a str,
    query: &'a str,
    fragment: &'a str,
}

fn parse_url(s: &str) -> Result<Url<'_>, String> {
    let (rest, fragment) = s.split_once('#').unwrap_or((s, ""));
    let (rest, query) = rest.split_once('?').unwrap_or((rest, ""));
    let (scheme, rest) = match rest.split_once(':') {
        Some((scheme, rest))
            if !scheme.contains('/')
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)) =>
        {
            if scheme.is_empty() {
                return Err(format!("parse {s:?}: missing protocol scheme"));
            }
            (scheme, rest)
        }
        _ => ("", rest),
    };
    let (user, host) = match rest.strip_prefix("//") {
        Some(authority) => {
            let authority = authority.split('/').next().unwrap_or("");
            match authority.rsplit_once('@') {
                Some((user, host)) => (Some(user), host),
                None => (None, authority),
            }
        }
        None => (None, ""),
    };
    Ok(Url {
        scheme,
        user,
        host,
        query,
        fragment,
    })
}

fn webhook_url(url: &str, path: &Path, errs: &mut ErrorList) {
    const FORM: &str = "; desired format: https://host[/path]";
    let u = match parse_url(url) {
        Ok(u) => u,
        Err(e) => {
            errs.push(FieldError::required(
                path.clone(),
                format!("url must be a valid URL: {e}{FORM}"),
            ));
            return;
        }
    };
    let mut invalid = |value: &str, detail: String| {
        errs.push(FieldError::invalid(
            path.clone(),
            BadValue::Str(value.into()),
            detail,
        ))
    };
    if u.scheme != "https" {
        invalid(
            u.scheme,
            format!("'https' is the only allowed URL scheme{FORM}"),
        );
    }
    if u.host.is_empty() {
        invalid(u.host, format!("host must be specified{FORM}"));
    }
    if let Some(user) = u.user {
        invalid(user, "user information is not permitted in the URL".into());
    }
    if !u.fragment.is_empty() {
        invalid(u.fragment, "fragments are not permitted in the URL".into());
    }
    if !u.query.is_empty() {
        invalid(
            u.query,
            "query parameters are not permitted in the URL".into(),
        );
    }
}

fn webhook_service(service: &Value, path: &Path, errs: &mut ErrorList) {
    if text(service, "name").is_empty() {
        errs.push(FieldError::required(
            path.child("name"),
            "service name is required",
        ));
    }
    if text(service, "namespace").is_empty() {
        errs.push(FieldError::required(
            path.child("namespace"),
            "service namespace is required",
        ));
    }
    let port = service.get("port").and_then(Value::as_i64).unwrap_or(0);
    if !(1..=65535).contains(&port) {
        errs.push(FieldError::invalid(
            path.child("port"),
            BadValue::Int(port),
            "port is not valid: must be between 1 and 65535, inclusive",
        ));
    }
    let Some(url_path) = service.get("path").and_then(Value::as_str) else {
        return;
    };
    let at = path.child("path");
    let invalid =
        |detail: String| FieldError::invalid(at.clone(), BadValue::Str(url_path.into()), detail);
    if url_path.is_empty() || url_path == "/" {
        return;
    }
    if url_path == "//" {
        errs.push(invalid("segment[0] may not be empty".into()));
        return;
    }
    if !url_path.starts_with('/') {
        errs.push(invalid("must start with a '/'".into()));
    }
    let mut check = url_path.get(1..).unwrap_or("");
    check = check.strip_suffix('/').unwrap_or(check);
    for (i, step) in check.split('/').enumerate() {
        if step.is_empty() {
            errs.push(invalid(format!("segment[{i}] may not be empty")));
            continue;
        }
        for m in dns1123_subdomain(step) {
            errs.push(invalid(format!("segment[{i}]: {m}")));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hook(extra: Value) -> Value {
        let mut h = json!({
            "name": "check.example.com",
            "clientConfig": {"service": {"namespace": "default", "name": "hook"}},
            "admissionReviewVersions": ["v1"],
            "sideEffects": "None",
        });
        if let (Value::Object(h), Value::Object(e)) = (&mut h, extra) {
            h.extend(e);
        }
        h
    }

    fn errors(b: &Webhooks, obj: Value) -> Vec<String> {
        let mut obj = obj;
        b.decode(&mut obj).unwrap();
        let mut errs = ErrorList::new();
        b.validate_with(&obj, &Validation::main(None), &mut errs);
        errs.strings()
    }

    #[test]
    fn webhooks_are_defaulted_like_v1() {
        let mut obj = json!({"webhooks": [hook(json!({"rules": [{"operations": ["CREATE"]}]}))]});
        Webhooks { mutating: true }.decode(&mut obj).unwrap();
        let h = &obj["webhooks"][0];
        assert_eq!(h["failurePolicy"], "Fail");
        assert_eq!(h["matchPolicy"], "Equivalent");
        assert_eq!(h["namespaceSelector"], json!({}));
        assert_eq!(h["objectSelector"], json!({}));
        assert_eq!(h["timeoutSeconds"], 10);
        assert_eq!(h["reinvocationPolicy"], "Never");
        assert_eq!(h["rules"][0]["scope"], "*");
        assert_eq!(h["clientConfig"]["service"]["port"], 443);
        assert!(h.get("sideEffects").is_some());
    }

    #[test]
    fn webhooks_are_validated_with_the_server_messages() {
        let v = Webhooks { mutating: false };
        let mut missing = hook(json!({}));
        missing.as_object_mut().unwrap().remove("sideEffects");
        assert_eq!(
            errors(&v, json!({"webhooks": [missing]})),
            ["webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun"]
        );
        let bad = hook(json!({
            "name": "hook",
            "sideEffects": "Some",
            "timeoutSeconds": 31,
            "clientConfig": {"url": "http://user@x.io/p?q=1"},
            "rules": [{"operations": ["*", "CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["*/*", "pods"]}],
            "matchConditions": [{"name": "m", "expression": "nope == 1"}],
        }));
        let out = errors(&v, json!({"webhooks": [bad.clone(), bad]}));
        assert_eq!(
            out[..9],
            [
                "webhooks[0].name: Invalid value: \"hook\": should be a domain with at least three segments separated by dots",
                "webhooks[0].rules[0].operations: Invalid value: [\"*\",\"CREATE\"]: if '*' is present, must not specify other operations",
                "webhooks[0].rules[0].resources: Invalid value: [\"*/*\",\"pods\"]: if '*/*' is present, must not specify other resources",
                "webhooks[0].sideEffects: Unsupported value: \"Some\": supported values: \"None\", \"NoneOnDryRun\"",
                "webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds",
                "webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
                "webhooks[0].clientConfig.url: Invalid value: \"user\": user information is not permitted in the URL",
                "webhooks[0].clientConfig.url: Invalid value: \"q=1\": query parameters are not permitted in the URL",
                "webhooks[0].matchConditions[0].expression: Invalid value: \"nope == 1\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'nope' (in container '')\n | nope == 1\n | ^",
            ]
        );
        assert_eq!(
            out.last().map(String::as_str),
            Some("webhooks[1].name: Duplicate value: \"hook\"")
        );
        let both = hook(json!({"clientConfig": {}, "admissionReviewVersions": ["v2"]}));
        assert_eq!(
            errors(&v, json!({"webhooks": [both]})),
            [
                "webhooks[0].clientConfig: Required value: exactly one of url or service is required",
                "webhooks[0].admissionReviewVersions: Invalid value: [\"v2\"]: must include at least one of v1, v1beta1"
            ]
        );
    }

    #[test]
    fn an_update_keeps_what_the_old_object_already_had() {
        let v = Webhooks { mutating: false };
        let old = json!({"webhooks": [hook(json!({"sideEffects": "Unknown"}))]});
        let mut new = json!({"webhooks": [hook(json!({"sideEffects": "Some"}))]});
        v.decode(&mut new).unwrap();
        let mut errs = ErrorList::new();
        v.validate_with(&new, &Validation::main(Some(&old)), &mut errs);
        assert!(errs.is_empty(), "{:?}", errs.strings());
    }
}
