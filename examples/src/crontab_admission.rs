//! Admission webhooks for the CronTab (`examples/examples/admission-webhook.rs` serves
//! them): `/validate` refuses what the CRD's schema cannot express (a cron field out
//! of its range, more replicas than [`MAX_REPLICAS`]), `/mutate` fills defaults (the
//! image [`DEFAULT_IMAGE`], the label [`ADMITTED_LABEL`]).
//!
//! [`configurations`] renders the `ValidatingWebhookConfiguration` and
//! `MutatingWebhookConfiguration` that point the API server at them.

use crd_runtime::admission::review::{AdmissionRequest, AdmissionResponse};
use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use crd_webhook::{AdmissionRequestExt, AdmissionRoutes, mutate_object};
use serde_json::{Value, json};

use crate::crontab::CronTab;

/// The most replicas the validating webhook admits (the schema allows 10).
pub const MAX_REPLICAS: i32 = 5;
/// The image the mutating webhook sets when a CronTab has none.
pub const DEFAULT_IMAGE: &str = "busybox:1.36";
/// The label the mutating webhook adds, with [`ADMITTED_VALUE`].
pub const ADMITTED_LABEL: &str = "stable.example.com/admitted-by";
/// The value of [`ADMITTED_LABEL`].
pub const ADMITTED_VALUE: &str = "crontab-admission-webhook";
/// The validating webhook's name (in its configuration and in denials).
pub const VALIDATING_WEBHOOK: &str = "validate.crontab.stable.example.com";
/// The mutating webhook's name.
pub const MUTATING_WEBHOOK: &str = "mutate.crontab.stable.example.com";
/// The name of both configurations.
pub const CONFIGURATION_NAME: &str = "crontab-admission";

/// The five cron fields with their ranges.
const CRON_FIELDS: [(&str, u32, u32); 5] = [
    ("minute", 0, 59),
    ("hour", 0, 23),
    ("day of month", 1, 31),
    ("month", 1, 12),
    ("day of week", 0, 6),
];

/// Why `spec` is no schedule: five fields, each `*` or a number in its range,
/// optionally with a `/STEP` of at least 1.
pub fn check_cron_spec(spec: &str) -> Result<(), String> {
    let fields: Vec<&str> = spec.split_whitespace().collect();
    if fields.len() != CRON_FIELDS.len() {
        return Err(format!(
            "must have 5 fields (minute hour day-of-month month day-of-week), got {}",
            fields.len()
        ));
    }
    for (text, (name, min, max)) in fields.iter().zip(CRON_FIELDS) {
        let (value, step) = match text.split_once('/') {
            Some((v, s)) => (v, Some(s)),
            None => (*text, None),
        };
        if value != "*" {
            match value.parse::<u32>() {
                Ok(n) if (min..=max).contains(&n) => {}
                Ok(n) => return Err(format!("{name} {n} is out of range {min}-{max}")),
                Err(_) => return Err(format!("{name} {value:?} is not a number or *")),
            }
        }
        if let Some(step) = step {
            match step.parse::<u32>() {
                Ok(n) if n >= 1 => {}
                _ => {
                    return Err(format!(
                        "{name} step {step:?} is not a number of at least 1"
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The validating webhook: denies with every field error, as the API server lists
/// them.
pub fn validate(request: &AdmissionRequest) -> AdmissionResponse {
    if request.object.is_none() {
        return AdmissionResponse::allow(&request.uid);
    }
    let crontab: CronTab = match request.object_as() {
        Ok(c) => c,
        Err(e) => return e.deny(&request.uid),
    };
    let spec = Path::new("spec");
    let mut errors = ErrorList::new();
    if let Err(detail) = check_cron_spec(&crontab.spec.cron_spec) {
        errors.push(FieldError::invalid(
            spec.child("cronSpec"),
            BadValue::Str(crontab.spec.cron_spec.clone()),
            detail,
        ));
    }
    if crontab.spec.replicas > MAX_REPLICAS {
        errors.push(FieldError::invalid(
            spec.child("replicas"),
            BadValue::Int(crontab.spec.replicas.into()),
            format!("must be less than or equal to {MAX_REPLICAS}"),
        ));
    }
    if errors.is_empty() {
        AdmissionResponse::allow(&request.uid)
    } else {
        AdmissionResponse::deny(&request.uid, errors.aggregate())
    }
}

/// The mutating webhook: sets [`DEFAULT_IMAGE`] when there is no image and adds
/// [`ADMITTED_LABEL`].
pub fn mutate(request: &AdmissionRequest) -> AdmissionResponse {
    if request.object.is_none() {
        return AdmissionResponse::allow(&request.uid);
    }
    let mutated = mutate_object(request, |crontab: &mut CronTab| {
        if crontab.spec.image.is_none() {
            crontab.spec.image = Some(DEFAULT_IMAGE.into());
        }
        crontab
            .metadata
            .labels
            .get_or_insert_default()
            .insert(ADMITTED_LABEL.into(), ADMITTED_VALUE.into());
    });
    mutated.unwrap_or_else(|e| e.deny(&request.uid))
}

/// `/validate` and `/mutate`.
pub fn routes() -> AdmissionRoutes {
    AdmissionRoutes::new()
        .route("/validate", validate)
        .route("/mutate", mutate)
}

/// The two configurations for a webhook at `base_url` (`https://HOST:PORT`), trusting
/// `ca_bundle` (base64 PEM; `None`: the API server's own trust).
pub fn configurations(base_url: &str, ca_bundle: Option<&str>) -> [Value; 2] {
    let webhook = |name: &str, path: &str| {
        let mut client = json!({"url": format!("{base_url}{path}")});
        if let Some(ca) = ca_bundle {
            client["caBundle"] = json!(ca);
        }
        json!({
            "name": name,
            "clientConfig": client,
            "rules": [{
                "apiGroups": ["stable.example.com"], "apiVersions": ["v1"],
                "operations": ["CREATE", "UPDATE"], "resources": ["crontabs"],
                "scope": "Namespaced"
            }],
            "admissionReviewVersions": ["v1", "v1beta1"],
            "sideEffects": "None",
            "failurePolicy": "Fail",
            "timeoutSeconds": 5
        })
    };
    let configuration = |kind: &str, hook: Value| {
        json!({
            "apiVersion": "admissionregistration.k8s.io/v1", "kind": kind,
            "metadata": {"name": CONFIGURATION_NAME},
            "webhooks": [hook]
        })
    };
    [
        configuration(
            "MutatingWebhookConfiguration",
            webhook(MUTATING_WEBHOOK, "/mutate"),
        ),
        configuration(
            "ValidatingWebhookConfiguration",
            webhook(VALIDATING_WEBHOOK, "/validate"),
        ),
    ]
}
