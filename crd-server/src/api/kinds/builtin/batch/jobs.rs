//! batch/v1 Jobs and CronJobs: `pkg/apis/batch/v1/defaults.go`, the job strategy's
//! generated selector and labels (`batch.kubernetes.io/controller-uid`, `job-name`),
//! generation and status, and `pkg/apis/batch/validation`'s important checks.

use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use serde_json::{Map, Value, json};

use crate::api::kinds::builtin::apps::rules::{
    created, immutable_selector, nonnegative_fields, selector_matches_template, semantic_eq,
};
use crate::api::kinds::builtin::batch::cron::parse_standard;
use crate::api::kinds::builtin::batch::printers;
use crate::api::kinds::builtin::behaviour::*;
use crate::api::kinds::builtin::checks::invalid_go as invalid_rendered;
use crate::api::kinds::builtin::core::podspec::{defaults, validate_template};
use crate::api::kinds::builtin::{Validation, default_field};
use crate::api::kinds::{GcPolicy, Subresource};
use crate::api::object::{bump_generation, meta_mut, object_at, str_at};
use crate::api::selectors::label::{self, go_repr, go_string_map};
use crate::api::table::Column;

const CONTROLLER_UID: &str = "batch.kubernetes.io/controller-uid";
const JOB_NAME: &str = "batch.kubernetes.io/job-name";
const LEGACY_CONTROLLER_UID: &str = "controller-uid";
const LEGACY_JOB_NAME: &str = "job-name";

fn set_if_absent(obj: &mut Value, field: &str, value: Value) {
    if obj.get(field).is_none_or(Value::is_null) && obj.is_object() {
        obj[field] = value;
    }
}

/// `SetDefaults_Job` on a Job's spec (the labels part needs the whole Job).
fn job_spec_defaults(spec: &mut Value) {
    if spec.get("completions").is_none_or(Value::is_null)
        && spec.get("parallelism").is_none_or(Value::is_null)
    {
        spec["completions"] = json!(1);
    }
    set_if_absent(spec, "parallelism", json!(1));
    set_if_absent(spec, "backoffLimit", json!(6));
    set_if_absent(spec, "completionMode", json!("NonIndexed"));
    set_if_absent(spec, "suspend", json!(false));
    for rule in spec
        .pointer_mut("/podFailurePolicy/rules")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        for pattern in rule
            .get_mut("onPodConditions")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            default_field(pattern, "status", json!("True"));
        }
    }
    let policy = if spec.get("podFailurePolicy").is_some_and(|p| !p.is_null()) {
        "Failed"
    } else {
        "TerminatingOrFailed"
    };
    set_if_absent(spec, "podReplacementPolicy", json!(policy));
    set_if_absent(spec, "manualSelector", json!(false));
}

/// `generateSelector`: the template labels and the selector a Job's pods are found by.
fn generate_selector(job: &mut Value) {
    let name = job.pointer("/metadata/name").cloned().unwrap_or(json!(""));
    let uid = job.pointer("/metadata/uid").cloned().unwrap_or(json!(""));
    let Some(spec) = job.get_mut("spec").filter(|s| s.is_object()) else {
        return;
    };
    let meta = object_at(object_at(spec, "template"), "metadata");
    let labels = object_at(meta, "labels");
    for (key, value) in [
        (LEGACY_JOB_NAME, &name),
        (JOB_NAME, &name),
        (LEGACY_CONTROLLER_UID, &uid),
        (CONTROLLER_UID, &uid),
    ] {
        set_if_absent(labels, key, value.clone());
    }
    let match_labels = object_at(object_at(spec, "selector"), "matchLabels");
    set_if_absent(match_labels, CONTROLLER_UID, uid);
}

fn manual_selector(job: &Value) -> bool {
    job.pointer("/spec/manualSelector") == Some(&Value::Bool(true))
}

/// `ValidateHasLabel`.
fn has_label(
    labels: Option<&Map<String, Value>>,
    key: &str,
    want: &str,
    path: &Path,
    errs: &mut ErrorList,
) {
    let at = path.child("labels").key(key);
    match labels.and_then(|l| l.get(key)).and_then(Value::as_str) {
        None => errs.push(FieldError::required(at, format!("must be '{want}'"))),
        Some(v) if v != want => errs.push(invalid_rendered(
            at,
            &go_string_map(labels),
            &format!("must be '{want}'"),
        )),
        Some(_) => {}
    }
}

/// `validateGeneratedSelector`: the generated labels are there, the selector is ours.
fn generated_selector(job: &Value, errs: &mut ErrorList) {
    if manual_selector(job) {
        return;
    }
    let Some(labels) = job
        .pointer("/spec/template/metadata/labels")
        .and_then(Value::as_object)
    else {
        return;
    };
    let uid = str_at(job, "/metadata/uid");
    let name = str_at(job, "/metadata/name");
    let path = Path::new("spec").child("template").child("metadata");
    has_label(Some(labels), LEGACY_CONTROLLER_UID, uid, &path, errs);
    has_label(Some(labels), LEGACY_JOB_NAME, name, &path, errs);
    has_label(Some(labels), CONTROLLER_UID, uid, &path, errs);
    has_label(Some(labels), JOB_NAME, name, &path, errs);
    if let Some(sel) = job.pointer("/spec/selector") {
        let expected: Map<String, Value> = [(CONTROLLER_UID.to_string(), json!(uid))]
            .into_iter()
            .collect();
        if !label::matches(sel, Some(&expected)) {
            errs.push(invalid_rendered(
                Path::new("spec").child("selector"),
                &go_repr(sel),
                "`selector` not auto-generated",
            ));
        }
    }
}

/// `validateJobSpec`: counts, completion mode, the template and its restart policy.
fn job_spec(spec: &Value, path: &Path, errs: &mut ErrorList) {
    let counts = [
        "parallelism",
        "completions",
        "activeDeadlineSeconds",
        "backoffLimit",
        "ttlSecondsAfterFinished",
    ];
    nonnegative_fields(spec, &counts, path, errs);
    match spec.get("completionMode").and_then(Value::as_str) {
        None | Some("NonIndexed") => {}
        Some("Indexed") => {
            if spec.get("completions").is_none_or(Value::is_null) {
                errs.push(FieldError::required(
                    path.child("completions"),
                    "when completion mode is Indexed",
                ));
            }
        }
        Some(other) => errs.push(FieldError::not_supported(
            path.child("completionMode"),
            BadValue::Str(other.into()),
            &["NonIndexed", "Indexed"],
        )),
    }
    if let Some(p) = spec.get("podReplacementPolicy").and_then(Value::as_str)
        && p != "TerminatingOrFailed"
        && p != "Failed"
    {
        errs.push(FieldError::not_supported(
            path.child("podReplacementPolicy"),
            BadValue::Str(p.into()),
            &["Failed", "TerminatingOrFailed"],
        ));
    }
    let empty = Value::Null;
    let template = spec.get("template").unwrap_or(&empty);
    let tpath = path.child("template");
    validate_template(template, &tpath, errs);
    let policy = str_at(template, "/spec/restartPolicy");
    if policy != "OnFailure" && policy != "Never" {
        errs.push(FieldError::not_supported(
            tpath.child("spec").child("restartPolicy"),
            BadValue::Str(policy.into()),
            &["OnFailure", "Never"],
        ));
    }
}

/// Jobs.
pub struct Jobs;

defaults!(Jobs: Serving, AllocateStrategy);

impl Defaulter for Jobs {
    fn decode(&self, obj: &mut Value) -> Result<(), String> {
        let Some(spec) = obj.get_mut("spec").filter(|s| s.is_object()) else {
            return Ok(());
        };
        job_spec_defaults(spec);
        if let Some(t) = spec.get_mut("template") {
            defaults::template(t)?;
        }
        // A Job without labels takes its template's (before any are generated).
        let template_labels = obj.pointer("/spec/template/metadata/labels").cloned();
        let has_labels = obj
            .pointer("/metadata/labels")
            .and_then(Value::as_object)
            .is_some_and(|l| !l.is_empty());
        if let Some(labels) = template_labels.filter(|_| !has_labels) {
            meta_mut(obj).insert("labels".into(), labels);
        }
        Ok(())
    }
}

impl Validator for Jobs {
    fn validate(&self, obj: &Value, old: Option<&Value>, errs: &mut ErrorList) {
        generated_selector(obj, errs);
        let empty = Value::Null;
        let spec = obj.get("spec").unwrap_or(&empty);
        let path = Path::new("spec");
        match spec.get("selector").filter(|s| !s.is_null()) {
            None => errs.push(FieldError::required(path.child("selector"), "")),
            Some(s) => label::validate(s, label::Options::default(), &path.child("selector"), errs),
        }
        if let Some(s) = spec.get("selector").filter(|s| !s.is_null()) {
            let template = spec.get("template").unwrap_or(&empty);
            selector_matches_template(Some(s), template, &path.child("template"), errs);
        }
        job_spec(spec, &path, errs);
        let Some(old) = old else { return };
        immutable_selector(obj, old, "/spec/selector", path.child("selector"), errs);
        for (field, pointer) in [
            ("completionMode", "/spec/completionMode"),
            ("podFailurePolicy", "/spec/podFailurePolicy"),
            ("backoffLimitPerIndex", "/spec/backoffLimitPerIndex"),
        ] {
            let (n, o) = (obj.pointer(pointer), old.pointer(pointer));
            if !semantic_eq(n, o) {
                errs.push(FieldError::invalid(
                    path.child(field),
                    BadValue::from_json(n.unwrap_or(&Value::Null)),
                    "field is immutable",
                ));
            }
        }
        let indexed = obj.pointer("/spec/completionMode") == Some(&json!("Indexed"));
        let elastic =
            indexed && obj.pointer("/spec/completions") == obj.pointer("/spec/parallelism");
        if !elastic && obj.pointer("/spec/completions") != old.pointer("/spec/completions") {
            errs.push(FieldError::invalid(
                path.child("completions"),
                BadValue::from_json(obj.pointer("/spec/completions").unwrap_or(&Value::Null)),
                "field is immutable",
            ));
        }
        if !semantic_eq(obj.pointer("/spec/template"), old.pointer("/spec/template")) {
            errs.push(FieldError::invalid(
                path.child("template"),
                BadValue::Json(
                    obj.pointer("/spec/template")
                        .cloned()
                        .unwrap_or(Value::Null),
                ),
                "field is immutable",
            ));
        }
    }

    fn validate_with(&self, obj: &Value, cx: &Validation<'_>, errs: &mut ErrorList) {
        validate_unless_status(self, obj, cx, errs);
    }
}

/// `PrepareForUpdate` of Jobs and CronJobs: a status update keeps the metadata; an
/// update of the spec is a new generation.
fn prepare_update(new: &mut Value, old: &Value, sub: Subresource) {
    if sub == Subresource::Status {
        crate::api::kinds::builtin::core::pod::reset_meta_for_status(new, old);
    } else if !semantic_eq(new.get("spec"), old.get("spec")) {
        bump_generation(new, old);
    }
}

impl Preparer for Jobs {
    fn prepare_for_create(&self, obj: &mut Value) {
        if !manual_selector(obj) {
            generate_selector(obj);
        }
        created(obj, json!({}));
    }

    fn prepare_for_update(&self, new: &mut Value, old: &Value, sub: Subresource) {
        prepare_update(new, old, sub);
    }
}

impl Printer for Jobs {
    fn columns(&self) -> Vec<Column> {
        printers::job()
    }
}

impl Deleter for Jobs {
    /// batch/v1 Jobs orphan their Pods unless told otherwise, for compatibility.
    fn default_gc_policy(&self) -> GcPolicy {
        GcPolicy::OrphanDependents
    }
}

/// `validateCronJobSpec`.
fn cron_job_spec(spec: &Value, old: Option<&Value>, errs: &mut ErrorList) {
    let path = Path::new("spec");
    let schedule = spec.get("schedule").and_then(Value::as_str).unwrap_or("");
    let time_zone = spec.get("timeZone").and_then(Value::as_str);
    if schedule.is_empty() {
        errs.push(FieldError::required(path.child("schedule"), ""));
    } else {
        if let Err(e) = parse_standard(schedule) {
            errs.push(FieldError::invalid(
                path.child("schedule"),
                BadValue::Str(schedule.into()),
                e,
            ));
        }
        let allow_tz = old
            .and_then(|o| o.pointer("/spec/schedule"))
            .and_then(Value::as_str)
            .is_some_and(|s| s.contains("TZ"));
        if allow_tz && schedule.contains("TZ") && time_zone.is_some() {
            errs.push(FieldError::invalid(
                path.child("schedule"),
                BadValue::Str(schedule.into()),
                "cannot use both timeZone field and TZ or CRON_TZ in schedule",
            ));
        } else if !allow_tz && schedule.contains("TZ") {
            errs.push(FieldError::invalid(
                path.child("schedule"),
                BadValue::Str(schedule.into()),
                "cannot use TZ or CRON_TZ in schedule, use timeZone field instead",
            ));
        }
    }
    nonnegative_fields(spec, &["startingDeadlineSeconds"], &path, errs);
    match time_zone {
        Some("") => errs.push(FieldError::invalid(
            path.child("timeZone"),
            BadValue::Str(String::new()),
            "timeZone must be nil or non-empty string",
        )),
        Some(tz) if tz.eq_ignore_ascii_case("local") => errs.push(FieldError::invalid(
            path.child("timeZone"),
            BadValue::Str(tz.into()),
            "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones",
        )),
        _ => {}
    }
    let policy = spec
        .get("concurrencyPolicy")
        .and_then(Value::as_str)
        .unwrap_or("");
    crate::api::kinds::builtin::checks::one_of(
        policy,
        &["Allow", "Forbid", "Replace"],
        path.child("concurrencyPolicy"),
        errs,
    );
    let jt = path.child("jobTemplate").child("spec");
    let empty = Value::Null;
    let job = spec.pointer("/jobTemplate/spec").unwrap_or(&empty);
    job_spec(job, &jt, errs);
    if let Some(sel) = job.get("selector").filter(|s| !s.is_null()) {
        errs.push(invalid_rendered(
            jt.child("selector"),
            &format!("&{}", go_repr(sel)),
            "`selector` will be auto-generated",
        ));
    }
    if job.get("manualSelector") == Some(&Value::Bool(true)) {
        errs.push(FieldError::not_supported(
            jt.child("manualSelector"),
            BadValue::Bool(true),
            &["nil", "false"],
        ));
    }
    let limits = ["successfulJobsHistoryLimit", "failedJobsHistoryLimit"];
    nonnegative_fields(spec, &limits, &path, errs);
}

/// CronJobs.
pub struct CronJobs;

defaults!(CronJobs: Serving, Deleter, AllocateStrategy);

impl Defaulter for CronJobs {
    fn decode(&self, obj: &mut Value) -> Result<(), String> {
        let Some(spec) = obj.get_mut("spec").filter(|s| s.is_object()) else {
            return Ok(());
        };
        default_field(spec, "concurrencyPolicy", json!("Allow"));
        set_if_absent(spec, "suspend", json!(false));
        set_if_absent(spec, "successfulJobsHistoryLimit", json!(3));
        set_if_absent(spec, "failedJobsHistoryLimit", json!(1));
        if let Some(t) = spec.pointer_mut("/jobTemplate/spec/template") {
            defaults::template(t)?;
        }
        Ok(())
    }
}

impl Validator for CronJobs {
    fn validate(&self, obj: &Value, old: Option<&Value>, errs: &mut ErrorList) {
        if old.is_none() {
            let name = str_at(obj, "/metadata/name");
            if name.len() > 52 {
                errs.push(FieldError::invalid(
                    Path::new("metadata").child("name"),
                    BadValue::Str(name.into()),
                    "must be no more than 52 characters",
                ));
            }
        }
        let empty = Value::Null;
        cron_job_spec(obj.get("spec").unwrap_or(&empty), old, errs);
    }

    fn validate_with(&self, obj: &Value, cx: &Validation<'_>, errs: &mut ErrorList) {
        validate_unless_status(self, obj, cx, errs);
    }
}

impl Preparer for CronJobs {
    fn prepare_for_create(&self, obj: &mut Value) {
        created(obj, json!({}));
    }

    fn prepare_for_update(&self, new: &mut Value, old: &Value, sub: Subresource) {
        prepare_update(new, old, sub);
    }
}

impl Printer for CronJobs {
    fn columns(&self) -> Vec<Column> {
        printers::cron_job()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job() -> Value {
        json!({"metadata": {"name": "pi", "namespace": "default", "uid": "u-1"},
               "spec": {"template": {"spec": {"containers": [{"name": "pi", "image": "perl"}],
                                              "restartPolicy": "Never"}}}})
    }

    #[test]
    fn jobs_get_defaults_and_generated_selectors() {
        let mut j = job();
        Jobs.decode(&mut j).unwrap();
        Jobs.prepare_for_create(&mut j);
        let spec = &j["spec"];
        for (k, v) in [
            ("completions", json!(1)),
            ("parallelism", json!(1)),
            ("backoffLimit", json!(6)),
            ("completionMode", json!("NonIndexed")),
            ("suspend", json!(false)),
            ("podReplacementPolicy", json!("TerminatingOrFailed")),
            ("manualSelector", json!(false)),
        ] {
            assert_eq!(spec[k], v, "{k}");
        }
        assert_eq!(
            spec["selector"],
            json!({"matchLabels": {CONTROLLER_UID: "u-1"}})
        );
        assert_eq!(spec["template"]["metadata"]["labels"][JOB_NAME], "pi");
        assert_eq!(
            spec["template"]["metadata"]["labels"][LEGACY_CONTROLLER_UID],
            "u-1"
        );
        assert_eq!(j["status"], json!({}));
        assert_eq!(j["metadata"]["generation"], 1);
        let errs = errors_of(&Jobs, &j, None);
        assert!(errs.is_empty(), "{errs:?}");
    }

    #[test]
    fn a_job_restarting_always_and_a_bad_schedule_are_refused() {
        let mut j = job();
        j["spec"]["template"]["spec"]
            .as_object_mut()
            .unwrap()
            .remove("restartPolicy");
        Jobs.decode(&mut j).unwrap();
        Jobs.prepare_for_create(&mut j);
        assert_eq!(
            errors_of(&Jobs, &j, None),
            [
                "spec.template.spec.restartPolicy: Unsupported value: \"Always\": supported values: \"OnFailure\", \"Never\""
            ]
        );
        let mut cj = json!({"metadata": {"name": "c"}, "spec": {"schedule": "61 * * * *",
            "jobTemplate": {"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "x"}], "restartPolicy": "OnFailure"}}}}}});
        CronJobs.decode(&mut cj).unwrap();
        assert_eq!(cj["spec"]["concurrencyPolicy"], "Allow");
        assert_eq!(cj["spec"]["successfulJobsHistoryLimit"], 3);
        assert_eq!(
            errors_of(&CronJobs, &cj, None),
            [
                "spec.schedule: Invalid value: \"61 * * * *\": end of range (61) above maximum (59): 61"
            ]
        );
    }
}
