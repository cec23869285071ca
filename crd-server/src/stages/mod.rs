//! kwok's Stage API (`kwok.x-k8s.io/v1alpha1` `Stage`): rules that move an object
//! through its lifecycle — a [`Selector`] over the object, a weight, a [`Delay`] and
//! what happens [`Then`] (a status from a template, finalizers, a delete, an Event).
//! [`Stage::parse`] reads one as kwok's `stage_types.go` defines it and refuses what
//! kwok would not run, with the field's path; [`defaults`] are kwok's default pod
//! stages as data; [`load`] reads `--stages` files.

pub mod defaults;
pub mod load;
pub mod query;
pub mod template;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use serde_json::Value;

use query::Query;
use template::Template;

/// The Stage kind's group.
pub const GROUP: &str = "kwok.x-k8s.io";
/// Its version.
pub const VERSION: &str = "v1alpha1";
/// The operators of `matchExpressions`.
pub const OPERATORS: &[&str] = &["In", "NotIn", "Exists", "DoesNotExist"];

/// Whether a custom kind is kwok's Stage.
pub fn is_stage(group: &str, kind: &str) -> bool {
    group == GROUP && kind == "Stage"
}

/// Every problem with a Stage object (none: it runs).
pub fn validate(obj: &Value) -> ErrorList {
    Stage::parse(obj).err().unwrap_or_default()
}

/// The pod stages the simulated kubelet starts with: kwok's defaults, or those of
/// `--stages` files, which replace them (as kwok's `--config` does).
#[derive(Clone, Debug, Default)]
pub struct StageSet(Option<Arc<Vec<Stage>>>);

impl StageSet {
    /// The Stages of `paths` (files, or directories of `.yaml`, `.yml` and `.json`
    /// files); an error names the file, the Stage and the field.
    pub fn load(paths: &[PathBuf]) -> Result<StageSet, String> {
        if paths.is_empty() {
            return Ok(StageSet(None));
        }
        Ok(StageSet(Some(Arc::new(load::load_paths(paths)?))))
    }

    /// The stages: those loaded, or kwok's defaults.
    pub(crate) fn stages(&self) -> Vec<Stage> {
        match &self.0 {
            Some(s) => s.as_ref().clone(),
            None => defaults::stages(),
        }
    }
}

/// A parsed Stage.
#[derive(Clone, Debug)]
pub struct Stage {
    pub name: String,
    /// `resourceRef.kind` (`Pod`).
    pub kind: String,
    pub selector: Selector,
    pub weight: i64,
    pub weight_from: Option<Query>,
    pub delay: Option<Delay>,
    pub next: Then,
    pub immediate_next_stage: bool,
}

/// `spec.selector`.
#[derive(Clone, Debug, Default)]
pub struct Selector {
    pub match_labels: BTreeMap<String, String>,
    pub match_annotations: BTreeMap<String, String>,
    pub match_expressions: Vec<Expression>,
}

/// One of `matchExpressions`.
#[derive(Clone, Debug)]
pub struct Expression {
    pub key: Query,
    pub operator: String,
    pub values: Vec<String>,
}

/// `spec.delay`.
#[derive(Clone, Debug, Default)]
pub struct Delay {
    pub duration_ms: i64,
    pub duration_from: Option<Query>,
    pub jitter_ms: Option<i64>,
    pub jitter_from: Option<Query>,
}

/// `spec.next`.
#[derive(Clone, Debug, Default)]
pub struct Then {
    pub status_template: Option<Template>,
    pub finalizers_add: Vec<String>,
    pub finalizers_remove: Vec<String>,
    pub finalizers_empty: bool,
    pub delete: bool,
    pub event: Option<StageEvent>,
}

/// `spec.next.event`.
#[derive(Clone, Debug)]
pub struct StageEvent {
    pub type_: String,
    pub reason: String,
    pub message: Template,
}

impl Selector {
    /// Whether `obj` is selected.
    pub fn matches(&self, obj: &Value) -> bool {
        let map_has = |field: &str, want: &BTreeMap<String, String>| {
            want.iter().all(|(k, v)| {
                obj.pointer(&format!("/metadata/{field}"))
                    .and_then(|m| m.get(k))
                    .and_then(Value::as_str)
                    == Some(v.as_str())
            })
        };
        map_has("labels", &self.match_labels)
            && map_has("annotations", &self.match_annotations)
            && self.match_expressions.iter().all(|e| e.matches(obj))
    }
}

impl Expression {
    /// kwok's operators over every value the key reaches.
    pub fn matches(&self, obj: &Value) -> bool {
        let found = self.key.eval(obj);
        let has = |v: &Value| self.values.contains(&query::text_of(v));
        match self.operator.as_str() {
            "Exists" => !found.is_empty(),
            "DoesNotExist" => found.is_empty(),
            "In" => found.iter().any(has),
            _ => !found.iter().any(has),
        }
    }
}

impl Stage {
    /// Reads a Stage object, or every problem with it (paths from the object's root).
    pub fn parse(obj: &Value) -> Result<Stage, ErrorList> {
        let mut errs = ErrorList::new();
        let spec_path = Path::new("spec");
        let spec = obj.get("spec").cloned().unwrap_or(Value::Null);
        let name = obj
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let kind = spec
            .pointer("/resourceRef/kind")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let kind_path = spec_path.child("resourceRef").child("kind");
        if kind.is_empty() {
            errs.push(FieldError::required(kind_path, ""));
        } else if kind != "Pod" {
            errs.push(FieldError::not_supported(
                kind_path,
                BadValue::from_json(&Value::String(kind.clone())),
                &["Pod"],
            ));
        }
        if let Some(group) = spec
            .pointer("/resourceRef/apiGroup")
            .and_then(Value::as_str)
            && !matches!(group, "" | "v1")
        {
            errs.push(FieldError::not_supported(
                spec_path.child("resourceRef").child("apiGroup"),
                BadValue::from_json(&Value::String(group.into())),
                &["v1"],
            ));
        }
        let selector = selector(&spec["selector"], &spec_path.child("selector"), &mut errs);
        let weight = integer(&spec["weight"], &spec_path.child("weight"), &mut errs).unwrap_or(0);
        let weight_from = from(
            &spec["weightFrom"],
            &spec_path.child("weightFrom"),
            &mut errs,
        );
        let delay = (!spec["delay"].is_null())
            .then(|| delay(&spec["delay"], &spec_path.child("delay"), &mut errs));
        let next = then(&spec["next"], &spec_path.child("next"), &mut errs);
        if !spec["steps"].is_null() {
            errs.push(FieldError::forbidden(
                spec_path.child("steps"),
                "not supported: use spec.next",
            ));
        }
        let immediate_next_stage = spec["immediateNextStage"].as_bool().unwrap_or(false);
        if errs.is_empty() {
            Ok(Stage {
                name,
                kind,
                selector,
                weight,
                weight_from,
                delay,
                next,
                immediate_next_stage,
            })
        } else {
            Err(errs)
        }
    }

    /// The weight this stage has for `obj` (`weightFrom` when it reaches a number).
    pub fn weight_for(&self, obj: &Value) -> i64 {
        self.weight_from
            .as_ref()
            .and_then(|q| q.first_text(obj))
            .and_then(|t| t.parse().ok())
            .unwrap_or(self.weight)
    }
}

/// A non-negative integer field (absent: `None`).
fn integer(v: &Value, path: &Path, errs: &mut ErrorList) -> Option<i64> {
    match v {
        Value::Null => None,
        Value::Number(n) if n.as_i64().is_some_and(|i| i >= 0) => n.as_i64(),
        Value::Number(_) => {
            errs.push(FieldError::invalid(
                path.clone(),
                BadValue::from_json(v),
                "must be greater than or equal to 0",
            ));
            None
        }
        other => {
            errs.push(FieldError::invalid(
                path.clone(),
                BadValue::from_json(other),
                "must be an integer (milliseconds)",
            ));
            None
        }
    }
}

fn query_at(v: &Value, path: &Path, errs: &mut ErrorList) -> Option<Query> {
    let text = v.as_str().unwrap_or_default();
    match Query::parse(text) {
        Ok(q) => Some(q),
        Err(e) => {
            errs.push(FieldError::invalid(path.clone(), BadValue::from_json(v), e));
            None
        }
    }
}

/// An `ExpressionFromSource`: `{expressionFrom: KEY}` or kwok's newer `{jq: {expression: KEY}}`.
fn from(v: &Value, path: &Path, errs: &mut ErrorList) -> Option<Query> {
    if v.is_null() {
        return None;
    }
    if !v["expressionFrom"].is_null() {
        return query_at(&v["expressionFrom"], &path.child("expressionFrom"), errs);
    }
    if !v["jq"]["expression"].is_null() {
        let p = path.child("jq").child("expression");
        return query_at(&v["jq"]["expression"], &p, errs);
    }
    errs.push(FieldError::required(path.child("expressionFrom"), ""));
    None
}

fn string_map(v: &Value, path: &Path, errs: &mut ErrorList) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (k, val) in v.as_object().into_iter().flatten() {
        match val.as_str() {
            Some(s) => {
                out.insert(k.clone(), s.to_string());
            }
            None => errs.push(FieldError::invalid(
                path.key(k),
                BadValue::from_json(val),
                "must be a string",
            )),
        }
    }
    out
}

fn selector(v: &Value, path: &Path, errs: &mut ErrorList) -> Selector {
    let mut s = Selector {
        match_labels: string_map(&v["matchLabels"], &path.child("matchLabels"), errs),
        match_annotations: string_map(
            &v["matchAnnotations"],
            &path.child("matchAnnotations"),
            errs,
        ),
        match_expressions: Vec::new(),
    };
    for (i, e) in v["matchExpressions"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let p = path.child("matchExpressions").index(i);
        // kwok's newer form wraps the expression in `jq`.
        let (e, p) = if e["jq"].is_object() {
            (&e["jq"], p.child("jq"))
        } else {
            (e, p)
        };
        let key = query_at(&e["key"], &p.child("key"), errs);
        let operator = e["operator"].as_str().unwrap_or_default().to_string();
        if !OPERATORS.contains(&operator.as_str()) {
            errs.push(FieldError::not_supported(
                p.child("operator"),
                BadValue::from_json(&e["operator"]),
                OPERATORS,
            ));
        }
        let values: Vec<String> = e["values"]
            .as_array()
            .into_iter()
            .flatten()
            .map(query::text_of)
            .collect();
        match operator.as_str() {
            "In" | "NotIn" if values.is_empty() => errs.push(FieldError::required(
                p.child("values"),
                "must be specified when `operator` is 'In' or 'NotIn'",
            )),
            "Exists" | "DoesNotExist" if !values.is_empty() => errs.push(FieldError::forbidden(
                p.child("values"),
                "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            )),
            _ => {}
        }
        if let Some(key) = key {
            s.match_expressions.push(Expression {
                key,
                operator,
                values,
            });
        }
    }
    s
}

fn delay(v: &Value, path: &Path, errs: &mut ErrorList) -> Delay {
    Delay {
        duration_ms: integer(
            &v["durationMilliseconds"],
            &path.child("durationMilliseconds"),
            errs,
        )
        .unwrap_or(0),
        duration_from: from(&v["durationFrom"], &path.child("durationFrom"), errs),
        jitter_ms: integer(
            &v["jitterDurationMilliseconds"],
            &path.child("jitterDurationMilliseconds"),
            errs,
        ),
        jitter_from: from(
            &v["jitterDurationFrom"],
            &path.child("jitterDurationFrom"),
            errs,
        ),
    }
}

fn template_at(v: &Value, path: &Path, errs: &mut ErrorList) -> Option<Template> {
    let text = v.as_str()?;
    match template::parse(text) {
        Ok(t) => Some(t),
        Err(e) => {
            errs.push(FieldError::invalid(
                path.clone(),
                BadValue::from_json(v),
                format!("template: {e}"),
            ));
            None
        }
    }
}

fn names(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f["value"].as_str().map(str::to_string))
        .collect()
}

fn then(v: &Value, path: &Path, errs: &mut ErrorList) -> Then {
    let event = if v["event"].is_null() {
        None
    } else {
        let e = &v["event"];
        let p = path.child("event");
        let type_ = e["type"].as_str().unwrap_or("Normal").to_string();
        if !matches!(type_.as_str(), "Normal" | "Warning") {
            errs.push(FieldError::not_supported(
                p.child("type"),
                BadValue::from_json(&e["type"]),
                &["Normal", "Warning"],
            ));
        }
        let reason = e["reason"].as_str().unwrap_or_default().to_string();
        if reason.is_empty() {
            errs.push(FieldError::required(p.child("reason"), ""));
        }
        let message = template_at(&e["message"], &p.child("message"), errs)
            .or_else(|| template::parse("").ok());
        message.map(|message| StageEvent {
            type_,
            reason,
            message,
        })
    };
    Then {
        status_template: template_at(&v["statusTemplate"], &path.child("statusTemplate"), errs),
        finalizers_add: names(&v["finalizers"]["add"]),
        finalizers_remove: names(&v["finalizers"]["remove"]),
        finalizers_empty: v["finalizers"]["empty"].as_bool().unwrap_or(false),
        delete: v["delete"].as_bool().unwrap_or(false),
        event,
    }
}

#[cfg(test)]
#[path = "stages_tests.rs"]
mod tests;
