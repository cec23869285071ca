//! Events, core/v1 and events.k8s.io/v1: one stored object (`/registry/events/`, in
//! its core/v1 form) served in two shapes — kube's `Recorder` writes events.k8s.io/v1,
//! `kubectl get events` reads core/v1. Validation as kube-apiserver's: the legacy
//! checks for every event, the strict ones for events.k8s.io/v1 writes, paths named
//! as the core type names them.

use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use crd_runtime::names::{dns1123_subdomain, qualified_name};
use serde_json::{Map, Value, json};

use crate::api::kinds::builtin::behaviour::*;
use crate::api::kinds::builtin::{Codec, Spec, immutable_field};
use crate::api::table::{Cell, Column, human_since};

/// events.k8s.io/v1 field → core/v1 field, where the names differ.
const RENAMED: [(&str, &str); 6] = [
    ("regarding", "involvedObject"),
    ("note", "message"),
    ("deprecatedSource", "source"),
    ("deprecatedFirstTimestamp", "firstTimestamp"),
    ("deprecatedLastTimestamp", "lastTimestamp"),
    ("deprecatedCount", "count"),
];

fn rename(obj: Value, from_events: bool) -> Value {
    let Value::Object(map) = obj else { return obj };
    let mut out = Map::new();
    for (k, v) in map {
        let k = RENAMED
            .iter()
            .chain(&[("reportingController", "reportingComponent")])
            .find_map(|(events, core)| match from_events {
                true if k == *events => Some(core.to_string()),
                false if k == *core => Some(events.to_string()),
                _ => None,
            })
            .unwrap_or(k);
        out.insert(k, v);
    }
    Value::Object(out)
}

/// events.k8s.io/v1 Events, stored as core/v1 Events.
pub struct EventsV1Codec;

impl Codec for EventsV1Codec {
    fn from_stored(&self, obj: Value) -> Value {
        rename(obj, false)
    }

    fn to_stored(&self, obj: &Value) -> Value {
        let mut core = rename(obj.clone(), true);
        core["apiVersion"] = json!("v1");
        core
    }
}

const REPORTING_INSTANCE_MAX: usize = 128;
const ACTION_MAX: usize = 128;
const REASON_MAX: usize = 128;
const NOTE_MAX: usize = 1024;

fn text<'a>(obj: &'a Value, pointer: &str) -> &'a str {
    obj.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

fn set(obj: &Value, pointer: &str) -> bool {
    obj.pointer(pointer)
        .is_some_and(|v| !v.is_null() && v != "" && v != 0)
}

/// `legacyValidateEvent`, on the core form; `events_api` for events.k8s.io/v1 writes.
fn legacy(core: &Value, events_api: bool, errs: &mut ErrorList) {
    let namespace = text(core, "/metadata/namespace");
    let involved_ns = text(core, "/involvedObject/namespace");
    let mismatch = |errs: &mut ErrorList| {
        errs.push(FieldError::invalid(
            Path::new("involvedObject").child("namespace"),
            BadValue::Str(involved_ns.into()),
            "does not match event.namespace",
        ))
    };
    if !set(core, "/eventTime") {
        let matches = if involved_ns.is_empty() {
            namespace.is_empty() || namespace == "default"
        } else {
            namespace == involved_ns
        };
        if !matches {
            mismatch(errs);
        }
    } else {
        if involved_ns.is_empty() && namespace != "default" && namespace != "kube-system" {
            mismatch(errs);
        }
        let controller_field = if events_api {
            "reportingController"
        } else {
            "reportingComponent"
        };
        let controller = text(core, "/reportingComponent");
        if controller.is_empty() {
            errs.push(FieldError::required(Path::new(controller_field), ""));
        }
        for m in qualified_name(controller) {
            errs.push(FieldError::invalid(
                Path::new(controller_field),
                BadValue::Str(controller.into()),
                m,
            ));
        }
        for (pointer, field, max) in [
            (
                "/reportingInstance",
                "reportingInstance",
                REPORTING_INSTANCE_MAX,
            ),
            ("/action", "action", ACTION_MAX),
            ("/reason", "reason", REASON_MAX),
        ] {
            let value = text(core, pointer);
            if value.is_empty() {
                errs.push(FieldError::required(Path::new(field), ""));
            }
            if value.len() > max {
                errs.push(FieldError::invalid(
                    Path::new(field),
                    BadValue::Str(String::new()),
                    format!("can have at most {max} characters"),
                ));
            }
        }
        if text(core, "/message").len() > NOTE_MAX {
            errs.push(FieldError::invalid(
                Path::new("message"),
                BadValue::Str(String::new()),
                format!("can have at most {NOTE_MAX} characters"),
            ));
        }
    }
    for m in dns1123_subdomain(namespace) {
        errs.push(FieldError::invalid(
            Path::new("namespace"),
            BadValue::Str(namespace.into()),
            m,
        ));
    }
}

/// The strict checks of an events.k8s.io/v1 create (`ValidateEventCreate`).
fn strict_create(core: &Value, errs: &mut ErrorList) {
    if !set(core, "/eventTime") {
        errs.push(FieldError::required(Path::new("eventTime"), ""));
    }
    let type_ = text(core, "/type");
    if type_ != "Normal" && type_ != "Warning" {
        errs.push(FieldError::invalid(
            Path::new("type"),
            BadValue::Str(String::new()),
            format!("has invalid value: {type_}"),
        ));
    }
    for (pointer, field) in [
        ("/firstTimestamp", "firstTimestamp"),
        ("/lastTimestamp", "lastTimestamp"),
        ("/count", "count"),
    ] {
        if set(core, pointer) {
            errs.push(FieldError::invalid(
                Path::new(field),
                BadValue::Str(String::new()),
                "needs to be unset",
            ));
        }
    }
    if set(core, "/source/component") || set(core, "/source/host") {
        errs.push(FieldError::invalid(
            Path::new("source"),
            BadValue::Str(String::new()),
            "needs to be unset",
        ));
    }
    series(core, errs);
}

/// `validateV1EventSeries`.
fn series(core: &Value, errs: &mut ErrorList) {
    let Some(series) = core.get("series").filter(|s| !s.is_null()) else {
        return;
    };
    let count = series.get("count").and_then(Value::as_i64).unwrap_or(0);
    if count < 2 {
        errs.push(FieldError::invalid(
            Path::new("series.count"),
            BadValue::Str(String::new()),
            "should be at least 2",
        ));
    }
    if !set(series, "/lastObservedTime") {
        errs.push(FieldError::required(
            Path::new("series.lastObservedTime"),
            "",
        ));
    }
}

/// `ValidateEventUpdate`'s strict part: what an events.k8s.io/v1 update may not change.
fn strict_update(core: &Value, old: &Value, errs: &mut ErrorList) {
    if core.get("series") != old.get("series") {
        series(core, errs);
    }
    for field in [
        "involvedObject",
        "reason",
        "message",
        "source",
        "firstTimestamp",
        "lastTimestamp",
        "count",
        "type",
        "eventTime",
        "action",
        "related",
        "reportingComponent",
        "reportingInstance",
    ] {
        immutable_field(core, old, &format!("/{field}"), Path::new(field), errs);
    }
}

/// The Event kind as `group` serves it: the two APIs store the same objects under one
/// prefix, each with its own shape (`codec`), definition and field selectors.
pub(crate) const fn spec(
    group: &'static str,
    codec: Option<&'static dyn Codec>,
    definition: &'static str,
    field_selectors: &'static [(&'static str, &'static str)],
    behaviour: &'static dyn Behaviour,
) -> Spec {
    Spec {
        namespaced: true,
        short_names: &["ev"],
        prefix: "/registry/events/",
        codec,
        field_selectors,
        ..Spec::v1(group, "events", "event", "Event", definition, behaviour)
    }
}

/// Events of one of the two APIs.
pub struct Events {
    /// events.k8s.io/v1 (strict validation, the events.k8s.io shape).
    pub events_api: bool,
}

defaults!(Events: Defaulter, Preparer, Serving, Deleter, AllocateStrategy);

impl Validator for Events {
    fn validate(&self, obj: &Value, old: Option<&Value>, errs: &mut ErrorList) {
        let core = if self.events_api {
            rename(obj.clone(), true)
        } else {
            obj.clone()
        };
        legacy(&core, self.events_api, errs);
        if !self.events_api {
            return;
        }
        match old {
            None => strict_create(&core, errs),
            Some(old) => strict_update(&core, &rename(old.clone(), true), errs),
        }
    }
}

impl Printer for Events {
    fn columns(&self) -> Vec<Column> {
        vec![
            Column::computed(
                "Last Seen",
                "string",
                "The time at which the most recent occurrence of this event was recorded.",
                |o| json!(last_seen(&core(o))),
            ),
            Column::computed(
                "Type",
                "string",
                "Type of this event (Normal, Warning).",
                |o| json!(text(&core(o), "/type")),
            ),
            Column::computed(
                "Reason",
                "string",
                "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
                |o| json!(text(&core(o), "/reason")),
            ),
            Column::computed(
                "Object",
                "string",
                "The object that this event is about.",
                |o| json!(target(&core(o))),
            ),
            priority(Column::computed(
                "Subobject",
                "string",
                "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.",
                |o| json!(text(&core(o), "/involvedObject/fieldPath")),
            )),
            priority(Column::computed(
                "Source",
                "string",
                "The component reporting this event.",
                |o| json!(source(&core(o))),
            )),
            Column::computed(
                "Message",
                "string",
                "A human-readable description of the status of this operation.",
                |o| json!(text(&core(o), "/message").trim()),
            ),
            priority(Column::computed(
                "First Seen",
                "string",
                "The time at which the event was first recorded.",
                |o| json!(first_seen(&core(o))),
            )),
            priority(Column::computed(
                "Count",
                "string",
                "The number of times this event has occurred.",
                |o| json!(count(&core(o))),
            )),
            priority(Column {
                name: "Name".into(),
                type_: "string".into(),
                format: "name".into(),
                description: "Name must be unique within a namespace.".into(),
                priority: 1,
                cell: Cell::Name,
            }),
        ]
    }
}

fn priority(mut c: Column) -> Column {
    c.priority = 1;
    c
}

/// An event in its core/v1 shape, whichever API it is presented in.
fn core(o: &Value) -> Value {
    if o.get("apiVersion").and_then(Value::as_str) == Some("events.k8s.io/v1") {
        rename(o.clone(), true)
    } else {
        o.clone()
    }
}

fn since(obj: &Value, pointer: &str) -> Option<String> {
    obj.pointer(pointer)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(human_since)
}

fn first_seen(core: &Value) -> String {
    since(core, "/firstTimestamp")
        .or_else(|| since(core, "/eventTime"))
        .unwrap_or_else(|| "<unknown>".into())
}

fn last_seen(core: &Value) -> String {
    if core.get("series").is_some_and(|s| !s.is_null()) {
        return since(core, "/series/lastObservedTime").unwrap_or_else(|| "<unknown>".into());
    }
    since(core, "/lastTimestamp").unwrap_or_else(|| first_seen(core))
}

fn count(core: &Value) -> i64 {
    if let Some(n) = core.pointer("/series/count").and_then(Value::as_i64) {
        return n;
    }
    match core.get("count").and_then(Value::as_i64).unwrap_or(0) {
        0 => 1,
        n => n,
    }
}

fn target(core: &Value) -> String {
    let kind = text(core, "/involvedObject/kind").to_lowercase();
    match text(core, "/involvedObject/name") {
        "" => kind,
        name => format!("{kind}/{name}"),
    }
}

/// `formatEventSource`: the source component (or reporting controller) and host.
fn source(core: &Value) -> String {
    let mut component = text(core, "/source/component");
    if component.is_empty() {
        component = text(core, "/reportingComponent");
    }
    let mut host = text(core, "/source/host");
    if host.is_empty() {
        host = text(core, "/reportingInstance");
    }
    if host.is_empty() {
        component.to_string()
    } else {
        format!("{component}, {host}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recorded() -> Value {
        json!({"apiVersion": "events.k8s.io/v1", "kind": "Event",
               "metadata": {"name": "a.1", "namespace": "default"},
               "eventTime": "2026-11-26T05:00:00.000000Z", "reportingController": "example.com/op",
               "reportingInstance": "op-1", "action": "Reconcile", "reason": "Created",
               "regarding": {"kind": "ConfigMap", "name": "c", "namespace": "default"},
               "note": "made it", "type": "Normal"})
    }

    #[test]
    fn the_two_shapes_are_one_stored_object() {
        let core = EventsV1Codec.to_stored(&recorded());
        assert_eq!(core["apiVersion"], "v1");
        assert_eq!(core["involvedObject"]["kind"], "ConfigMap");
        assert_eq!(core["message"], "made it");
        assert_eq!(core["reportingComponent"], "example.com/op");
        let mut back = EventsV1Codec.from_stored(core);
        back["apiVersion"] = json!("events.k8s.io/v1");
        assert_eq!(back, recorded());
    }

    #[test]
    fn events_api_writes_are_held_to_the_strict_rules() {
        let mut errs = ErrorList::new();
        Events { events_api: true }.validate(&recorded(), None, &mut errs);
        assert!(errs.is_empty(), "{:?}", errs.strings());
        let mut bad = recorded();
        bad["type"] = json!("Odd");
        bad["reportingController"] = json!("");
        bad["deprecatedCount"] = json!(3);
        let mut errs = ErrorList::new();
        Events { events_api: true }.validate(&bad, None, &mut errs);
        // An empty controller is also not a qualified name: the server says both.
        let out = errs.strings();
        assert_eq!(out[0], "reportingController: Required value");
        assert_eq!(
            out[1],
            "reportingController: Invalid value: \"\": name part must be non-empty"
        );
        assert_eq!(
            out[3..],
            [
                "type: Invalid value: \"\": has invalid value: Odd",
                "count: Invalid value: \"\": needs to be unset"
            ]
        );
        // The legacy API keeps its leniency.
        let legacy = json!({"metadata": {"name": "x", "namespace": "default"}, "involvedObject": {"namespace": "other"}});
        let mut errs = ErrorList::new();
        Events { events_api: false }.validate(&legacy, None, &mut errs);
        assert_eq!(
            errs.strings(),
            ["involvedObject.namespace: Invalid value: \"other\": does not match event.namespace"]
        );
    }

    #[test]
    fn printer_cells_read_either_shape() {
        let core = EventsV1Codec.to_stored(&recorded());
        assert_eq!(target(&core), "configmap/c");
        assert_eq!(source(&core), "example.com/op, op-1");
        assert_eq!(count(&core), 1);
    }
}
