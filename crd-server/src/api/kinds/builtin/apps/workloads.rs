//! apps/v1: Deployments, StatefulSets, DaemonSets, ReplicaSets and ControllerRevisions
//! as `pkg/apis/apps/v1/defaults.go`, the apps strategies (generation, status reset,
//! selector immutability, a DaemonSet's template generation annotation) and
//! `pkg/apis/apps/validation` define them.

use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use serde_json::{Value, json};

use crate::api::kinds::builtin::apps::printers;
use crate::api::kinds::builtin::apps::rules::{
    created, immutable_selector, nonnegative, nonnegative_fields, replica_template,
    required_selector, restart_always, rolling_update, semantic_eq, status_zeros,
};
use crate::api::kinds::builtin::behaviour::*;
use crate::api::kinds::builtin::core::podspec::defaults;
use crate::api::kinds::builtin::{Validation, default_field};
use crate::api::kinds::{ScalePaths, Subresource};
use crate::api::object::{bump_generation, meta_mut};
use crate::api::selectors::label;
use crate::api::table::Column;

/// Where a DaemonSet's template generation lives in apps/v1.
const TEMPLATE_GENERATION: &str = "deprecated.daemonset.template.generation";

/// The apps/v1 kinds with a pod template.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Workload {
    Deployment,
    StatefulSet,
    DaemonSet,
    ReplicaSet,
}

/// A workload kind's behaviour.
pub struct Apps(pub Workload);

fn set_default(obj: &mut Value, pointer: &str, value: Value) {
    if obj.pointer(pointer).is_none_or(Value::is_null) {
        let (parent, field) = pointer.rsplit_once('/').unwrap_or(("", pointer));
        if let Some(p) = obj.pointer_mut(parent).filter(|p| p.is_object()) {
            p[field] = value;
        }
    }
}

fn ensure_object(obj: &mut Value, field: &str) {
    if obj.get(field).is_none_or(|v| !v.is_object()) && obj.is_object() {
        obj[field] = json!({});
    }
}

fn deployment_defaults(spec: &mut Value) {
    set_default(spec, "/replicas", json!(1));
    ensure_object(spec, "strategy");
    default_field(&mut spec["strategy"], "type", json!("RollingUpdate"));
    if spec["strategy"]["type"] == "RollingUpdate" {
        ensure_object(&mut spec["strategy"], "rollingUpdate");
        set_default(spec, "/strategy/rollingUpdate/maxUnavailable", json!("25%"));
        set_default(spec, "/strategy/rollingUpdate/maxSurge", json!("25%"));
    }
    set_default(spec, "/revisionHistoryLimit", json!(10));
    set_default(spec, "/progressDeadlineSeconds", json!(600));
}

fn daemon_set_defaults(spec: &mut Value) {
    ensure_object(spec, "updateStrategy");
    default_field(&mut spec["updateStrategy"], "type", json!("RollingUpdate"));
    if spec["updateStrategy"]["type"] == "RollingUpdate" {
        ensure_object(&mut spec["updateStrategy"], "rollingUpdate");
        set_default(
            spec,
            "/updateStrategy/rollingUpdate/maxUnavailable",
            json!(1),
        );
        set_default(spec, "/updateStrategy/rollingUpdate/maxSurge", json!(0));
    }
    set_default(spec, "/revisionHistoryLimit", json!(10));
}

fn stateful_set_defaults(spec: &mut Value) -> Result<(), String> {
    default_field(spec, "podManagementPolicy", json!("OrderedReady"));
    ensure_object(spec, "updateStrategy");
    if spec["updateStrategy"]
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("")
        .is_empty()
    {
        spec["updateStrategy"]["type"] = json!("RollingUpdate");
        ensure_object(&mut spec["updateStrategy"], "rollingUpdate");
    }
    if spec["updateStrategy"]["type"] == "RollingUpdate"
        && spec["updateStrategy"]["rollingUpdate"].is_object()
    {
        set_default(spec, "/updateStrategy/rollingUpdate/partition", json!(0));
    }
    ensure_object(spec, "persistentVolumeClaimRetentionPolicy");
    default_field(
        &mut spec["persistentVolumeClaimRetentionPolicy"],
        "whenDeleted",
        json!("Retain"),
    );
    default_field(
        &mut spec["persistentVolumeClaimRetentionPolicy"],
        "whenScaled",
        json!("Retain"),
    );
    set_default(spec, "/replicas", json!(1));
    set_default(spec, "/revisionHistoryLimit", json!(10));
    for claim in spec
        .get_mut("volumeClaimTemplates")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        // `SetDefaults_PersistentVolumeClaim`: a claim starts Pending.
        if let Some(s) = claim.get_mut("spec") {
            defaults::claim_spec(s)?;
        }
        ensure_object(claim, "status");
        default_field(&mut claim["status"], "phase", json!("Pending"));
    }
    Ok(())
}

impl Apps {
    fn name(&self) -> &'static str {
        match self.0 {
            Workload::Deployment => "Deployment",
            Workload::StatefulSet => "StatefulSet",
            Workload::DaemonSet => "DaemonSet",
            Workload::ReplicaSet => "ReplicaSet",
        }
    }

    fn required_status(&self) -> &'static [&'static str] {
        match self.0 {
            Workload::Deployment => &[],
            Workload::StatefulSet => &["replicas", "availableReplicas"],
            Workload::ReplicaSet => &["replicas"],
            Workload::DaemonSet => &[
                "currentNumberScheduled",
                "numberMisscheduled",
                "desiredNumberScheduled",
                "numberReady",
            ],
        }
    }

    fn validate_spec(&self, obj: &Value, errs: &mut ErrorList) {
        let empty = Value::Null;
        let spec = obj.get("spec").unwrap_or(&empty);
        let path = Path::new("spec");
        match self.0 {
            Workload::Deployment | Workload::ReplicaSet => {
                nonnegative_fields(spec, &["replicas"], &path, errs);
                if self.0 == Workload::ReplicaSet {
                    nonnegative_fields(spec, &["minReadySeconds"], &path, errs);
                }
                // The server says `deployment` for both kinds.
                required_selector(
                    spec.get("selector"),
                    &path.child("selector"),
                    "deployment",
                    errs,
                );
                replica_template(spec, &path, self.name(), true, errs);
                if self.0 == Workload::Deployment {
                    deployment_strategy(spec, &path, errs);
                }
            }
            Workload::StatefulSet => stateful_set_spec(spec, &path, errs),
            Workload::DaemonSet => {
                if let Some(s) = spec.get("selector").filter(|s| !s.is_null()) {
                    label::validate(s, label::Options::default(), &path.child("selector"), errs);
                }
                let template = spec.get("template").unwrap_or(&empty);
                crate::api::kinds::builtin::apps::rules::selector_matches_template(
                    spec.get("selector"),
                    template,
                    &path.child("template"),
                    errs,
                );
                if let Some(s) = spec
                    .get("selector")
                    .filter(|s| label::is_empty(s) && !s.is_null())
                {
                    errs.push(crate::api::kinds::builtin::checks::invalid_go(
                        path.child("selector"),
                        &label::go_repr(s),
                        "empty selector is invalid for daemonset",
                    ));
                }
                replica_template(spec, &path, "DaemonSet", false, errs);
                nonnegative_fields(spec, &["minReadySeconds"], &path, errs);
                let strategy = spec.get("updateStrategy").unwrap_or(&empty);
                match strategy.get("type").and_then(Value::as_str).unwrap_or("") {
                    "OnDelete" => {}
                    "RollingUpdate" => {}
                    other => errs.push(FieldError::not_supported(
                        path.child("updateStrategy").child("type"),
                        BadValue::Str(other.into()),
                        &["RollingUpdate", "OnDelete"],
                    )),
                }
                nonnegative_fields(spec, &["revisionHistoryLimit"], &path, errs);
            }
        }
    }
}

/// `ValidateDeploymentStrategy` and the rest of `ValidateDeploymentSpec`.
fn deployment_strategy(spec: &Value, path: &Path, errs: &mut ErrorList) {
    let sp = path.child("strategy");
    let strategy = spec.get("strategy").unwrap_or(&Value::Null);
    let rolling = strategy.get("rollingUpdate").filter(|r| !r.is_null());
    match strategy.get("type").and_then(Value::as_str).unwrap_or("") {
        "Recreate" if rolling.is_some() => errs.push(FieldError::forbidden(
            sp.child("rollingUpdate"),
            "may not be specified when strategy `type` is 'Recreate'",
        )),
        "Recreate" => {}
        "RollingUpdate" => match rolling {
            None => errs.push(FieldError::required(
                sp.child("rollingUpdate"),
                "this should be defaulted and never be nil",
            )),
            Some(r) => rolling_update(r, &sp.child("rollingUpdate"), errs),
        },
        other => errs.push(FieldError::not_supported(
            sp.child("type"),
            BadValue::Str(other.into()),
            &["Recreate", "RollingUpdate"],
        )),
    }
    nonnegative_fields(
        spec,
        &["minReadySeconds", "revisionHistoryLimit"],
        path,
        errs,
    );
    if let Some(p) = spec.get("progressDeadlineSeconds").and_then(Value::as_i64) {
        nonnegative_fields(spec, &["progressDeadlineSeconds"], path, errs);
        let min_ready = spec
            .get("minReadySeconds")
            .and_then(Value::as_i64)
            .unwrap_or(0);
        if p <= min_ready {
            errs.push(FieldError::invalid(
                path.child("progressDeadlineSeconds"),
                BadValue::Int(p),
                "must be greater than minReadySeconds",
            ));
        }
    }
}

/// `ValidateStatefulSetSpec`.
fn stateful_set_spec(spec: &Value, path: &Path, errs: &mut ErrorList) {
    match spec
        .get("podManagementPolicy")
        .and_then(Value::as_str)
        .unwrap_or("")
    {
        "" => errs.push(FieldError::required(path.child("podManagementPolicy"), "")),
        "OrderedReady" | "Parallel" => {}
        other => errs.push(FieldError::invalid(
            path.child("podManagementPolicy"),
            BadValue::Str(other.into()),
            "must be 'OrderedReady' or 'Parallel'",
        )),
    }
    let strategy = spec.get("updateStrategy").unwrap_or(&Value::Null);
    match strategy.get("type").and_then(Value::as_str).unwrap_or("") {
        "" => errs.push(FieldError::required(path.child("updateStrategy"), "")),
        "OnDelete" if strategy.get("rollingUpdate").is_some_and(|r| !r.is_null()) => {
            errs.push(FieldError::invalid(
                path.child("updateStrategy").child("rollingUpdate"),
                BadValue::Json(strategy["rollingUpdate"].clone()),
                "only allowed for updateStrategy 'RollingUpdate'",
            ))
        }
        "OnDelete" => {}
        "RollingUpdate" => nonnegative(
            spec,
            "/updateStrategy/rollingUpdate/partition",
            path.child("updateStrategy")
                .child("rollingUpdate")
                .child("partition"),
            errs,
        ),
        other => errs.push(FieldError::invalid(
            path.child("updateStrategy"),
            BadValue::Str(other.into()),
            "must be 'RollingUpdate' or 'OnDelete'",
        )),
    }
    nonnegative_fields(spec, &["replicas", "minReadySeconds"], path, errs);
    nonnegative(
        spec,
        "/ordinals/start",
        path.child("ordinals").child("start"),
        errs,
    );
    required_selector(
        spec.get("selector"),
        &path.child("selector"),
        "statefulset",
        errs,
    );
    let empty = Value::Null;
    let template = spec.get("template").unwrap_or(&empty);
    let tpath = path.child("template");
    crate::api::kinds::builtin::apps::rules::selector_matches_template(
        spec.get("selector"),
        template,
        &tpath,
        errs,
    );
    // The claim templates are volumes of the pods.
    let mut with_claims = template.clone();
    if let Some(claims) = spec.get("volumeClaimTemplates").and_then(Value::as_array)
        && with_claims.get("spec").is_some_and(Value::is_object)
    {
        let mut volumes = with_claims["spec"]
            .get("volumes")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for c in claims {
            let name = c.pointer("/metadata/name").cloned().unwrap_or(json!(""));
            volumes.push(json!({"name": name, "persistentVolumeClaim": {"claimName": name}}));
        }
        with_claims["spec"]["volumes"] = json!(volumes);
    }
    crate::api::kinds::builtin::core::podspec::validate_template(&with_claims, &tpath, errs);
    restart_always(template, &tpath, errs);
    if template.pointer("/spec/activeDeadlineSeconds").is_some() {
        errs.push(FieldError::forbidden(
            tpath.child("spec").child("activeDeadlineSeconds"),
            "activeDeadlineSeconds in StatefulSet is not Supported",
        ));
    }
}

/// `ValidateStatefulSetUpdate`: only some spec fields may change.
fn stateful_set_update(new: &Value, old: &Value, errs: &mut ErrorList) {
    let mut clone = new.get("spec").cloned().unwrap_or(json!({}));
    let old_spec = old.get("spec").cloned().unwrap_or(json!({}));
    for field in [
        "replicas",
        "ordinals",
        "template",
        "updateStrategy",
        "revisionHistoryLimit",
        "persistentVolumeClaimRetentionPolicy",
        "minReadySeconds",
    ] {
        match old_spec.get(field) {
            Some(v) => clone[field] = v.clone(),
            None => {
                if let Some(m) = clone.as_object_mut() {
                    m.remove(field);
                }
            }
        }
    }
    if !semantic_eq(Some(&clone), Some(&old_spec)) {
        errs.push(FieldError::forbidden(
            Path::new("spec"),
            "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
        ));
    }
}

fn template_generation(obj: &Value) -> i64 {
    obj.pointer("/metadata/annotations")
        .and_then(|a| a.get(TEMPLATE_GENERATION))
        .and_then(Value::as_str)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

fn set_template_generation(obj: &mut Value, generation: i64) {
    let meta = meta_mut(obj);
    let annotations = meta.entry("annotations").or_insert_with(|| json!({}));
    if !annotations.is_object() {
        *annotations = json!({});
    }
    annotations[TEMPLATE_GENERATION] = json!(generation.to_string());
}

defaults!(Apps: Deleter, AllocateStrategy);

impl Defaulter for Apps {
    fn decode(&self, obj: &mut Value) -> Result<(), String> {
        if let Some(spec) = obj.get_mut("spec").filter(|s| s.is_object()) {
            match self.0 {
                Workload::Deployment => deployment_defaults(spec),
                Workload::DaemonSet => daemon_set_defaults(spec),
                Workload::StatefulSet => stateful_set_defaults(spec)?,
                Workload::ReplicaSet => set_default(spec, "/replicas", json!(1)),
            }
            if let Some(t) = spec.get_mut("template") {
                defaults::template(t)?;
            }
        }
        status_zeros(obj, self.required_status());
        Ok(())
    }
}

impl Validator for Apps {
    fn validate(&self, obj: &Value, old: Option<&Value>, errs: &mut ErrorList) {
        self.validate_spec(obj, errs);
        let Some(old) = old else { return };
        if self.0 == Workload::StatefulSet {
            stateful_set_update(obj, old, errs);
        }
        immutable_selector(
            obj,
            old,
            "/spec/selector",
            Path::new("spec").child("selector"),
            errs,
        );
    }

    fn validate_with(&self, obj: &Value, cx: &Validation<'_>, errs: &mut ErrorList) {
        validate_unless_status(self, obj, cx, errs);
    }
}

impl Preparer for Apps {
    fn prepare_for_create(&self, obj: &mut Value) {
        let zeros: serde_json::Map<String, Value> = self
            .required_status()
            .iter()
            .map(|f| (f.to_string(), json!(0)))
            .collect();
        created(obj, Value::Object(zeros));
        if self.0 == Workload::DaemonSet {
            let generation = template_generation(obj).max(1);
            set_template_generation(obj, generation);
        }
    }

    fn prepare_for_update(&self, new: &mut Value, old: &Value, sub: Subresource) {
        if sub == Subresource::Status {
            // The apps status strategies keep the spec only (and a Deployment its
            // labels): the deployment controller records the revision annotation
            // through the status.
            if self.0 == Workload::Deployment {
                let labels = old.pointer("/metadata/labels").cloned();
                let meta = crate::api::object::meta_mut(new);
                match labels {
                    Some(l) => meta.insert("labels".into(), l),
                    None => meta.remove("labels"),
                };
            }
            return;
        }
        let (n, o) = (new.get("spec"), old.get("spec"));
        match self.0 {
            Workload::DaemonSet => {
                let mut generation = template_generation(old);
                let template_changed =
                    !semantic_eq(new.pointer("/spec/template"), old.pointer("/spec/template"));
                if template_changed {
                    generation += 1;
                }
                if template_changed || !semantic_eq(n, o) {
                    bump_generation(new, old);
                }
                set_template_generation(new, generation);
            }
            Workload::Deployment => {
                let annotations_changed = !semantic_eq(
                    new.pointer("/metadata/annotations"),
                    old.pointer("/metadata/annotations"),
                );
                if !semantic_eq(n, o) || annotations_changed {
                    bump_generation(new, old);
                }
            }
            _ => {
                if !semantic_eq(n, o) {
                    bump_generation(new, old);
                }
            }
        }
    }
}

impl Printer for Apps {
    fn columns(&self) -> Vec<Column> {
        match self.0 {
            Workload::Deployment => printers::deployment(),
            Workload::StatefulSet => printers::stateful_set(),
            Workload::DaemonSet => printers::daemon_set(),
            Workload::ReplicaSet => printers::replica_set(),
        }
    }
}

impl Serving for Apps {
    fn scale(&self) -> Option<ScalePaths> {
        (self.0 != Workload::DaemonSet).then(|| ScalePaths {
            spec_replicas: ".spec.replicas".into(),
            status_replicas: ".status.replicas".into(),
            label_selector: Some(".spec.selector".into()),
            label_selector_object: true,
        })
    }
}

/// ControllerRevisions (immutable data, a non-negative revision).
pub struct ControllerRevisions;

defaults!(ControllerRevisions: Defaulter, Preparer, Serving, Deleter, AllocateStrategy);

impl Validator for ControllerRevisions {
    fn validate(&self, obj: &Value, old: Option<&Value>, errs: &mut ErrorList) {
        if obj.get("data").is_none_or(Value::is_null) {
            errs.push(FieldError::required(Path::new("data"), "data is mandatory"));
        }
        nonnegative(obj, "/revision", Path::new("revision"), errs);
        if let Some(old) = old
            && obj.get("data") != old.get("data")
        {
            errs.push(FieldError::invalid(
                Path::new("data"),
                BadValue::Json(obj.get("data").cloned().unwrap_or(Value::Null)),
                "field is immutable",
            ));
        }
    }
}

impl Printer for ControllerRevisions {
    fn columns(&self) -> Vec<Column> {
        printers::controller_revision()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deployment() -> Value {
        json!({"metadata": {"name": "web", "namespace": "default"},
               "spec": {"selector": {"matchLabels": {"app": "web"}},
                        "template": {"metadata": {"labels": {"app": "web"}},
                                     "spec": {"containers": [{"name": "web", "image": "nginx:1.25"}]}}}})
    }

    #[test]
    fn deployments_get_the_apps_v1_defaults() {
        let mut d = deployment();
        Apps(Workload::Deployment).decode(&mut d).unwrap();
        let spec = &d["spec"];
        assert_eq!(spec["replicas"], 1);
        assert_eq!(
            spec["strategy"],
            json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}})
        );
        assert_eq!(spec["revisionHistoryLimit"], 10);
        assert_eq!(spec["progressDeadlineSeconds"], 600);
        assert_eq!(spec["template"]["spec"]["restartPolicy"], "Always");
        assert!(spec["template"]["spec"].get("enableServiceLinks").is_none());
        let mut errs = ErrorList::new();
        Apps(Workload::Deployment).validate(&d, None, &mut errs);
        assert!(errs.is_empty(), "{:?}", errs.strings());
    }

    #[test]
    fn selectors_must_match_and_stay() {
        let mut d = deployment();
        d["spec"]["template"]["metadata"]["labels"]["app"] = json!("other");
        Apps(Workload::Deployment).decode(&mut d).unwrap();
        let mut errs = ErrorList::new();
        Apps(Workload::Deployment).validate(&d, None, &mut errs);
        assert_eq!(
            errs.strings(),
            [
                "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"other\"}: `selector` does not match template `labels`"
            ]
        );
        let old = deployment();
        let mut new = deployment();
        new["spec"]["selector"]["matchLabels"]["tier"] = json!("x");
        new["spec"]["template"]["metadata"]["labels"]["tier"] = json!("x");
        let mut errs = ErrorList::new();
        immutable_selector(
            &new,
            &old,
            "/spec/selector",
            Path::new("spec").child("selector"),
            &mut errs,
        );
        assert_eq!(
            errs.strings(),
            [
                "spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{\"app\":\"web\", \"tier\":\"x\"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable"
            ]
        );
    }

    #[test]
    fn stateful_sets_and_daemon_sets_default_and_count_template_generations() {
        let mut s = deployment();
        Apps(Workload::StatefulSet).decode(&mut s).unwrap();
        assert_eq!(s["spec"]["podManagementPolicy"], "OrderedReady");
        assert_eq!(
            s["spec"]["updateStrategy"],
            json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 0}})
        );
        assert_eq!(
            s["spec"]["persistentVolumeClaimRetentionPolicy"],
            json!({"whenDeleted": "Retain", "whenScaled": "Retain"})
        );
        let mut ds = deployment();
        Apps(Workload::DaemonSet).decode(&mut ds).unwrap();
        Apps(Workload::DaemonSet).prepare_for_create(&mut ds);
        assert_eq!(ds["metadata"]["annotations"][TEMPLATE_GENERATION], "1");
        assert_eq!(ds["status"]["numberReady"], 0);
        let mut changed = ds.clone();
        changed["spec"]["template"]["spec"]["containers"][0]["image"] = json!("nginx:2");
        Apps(Workload::DaemonSet).prepare_for_update(&mut changed, &ds, Subresource::Main);
        assert_eq!(changed["metadata"]["annotations"][TEMPLATE_GENERATION], "2");
        assert_eq!(changed["metadata"]["generation"], 2);
    }
}
