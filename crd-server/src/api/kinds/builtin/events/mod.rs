//! events.k8s.io/v1: Events stored as core/v1 Events.

use crate::api::kinds::builtin::core::events::{Events, EventsV1Codec};
use crate::api::kinds::builtin::{ALL_VERBS, Spec};

pub(super) static KINDS: &[Spec] = &[Spec {
    group: "events.k8s.io",
    version: "v1",
    plural: "events",
    singular: "event",
    kind: "Event",
    namespaced: true,
    short_names: &["ev"],
    categories: &[],
    verbs: ALL_VERBS,
    subresources: &[],
    prefix: "/registry/events/",
    codec: Some(&EventsV1Codec),
    definition: "io.k8s.api.events.v1.Event",
    name_rule: None,
    field_selectors: &[
        ("regarding.kind", "regarding.kind"),
        ("regarding.namespace", "regarding.namespace"),
        ("regarding.name", "regarding.name"),
        ("regarding.uid", "regarding.uid"),
        ("regarding.apiVersion", "regarding.apiVersion"),
        ("regarding.resourceVersion", "regarding.resourceVersion"),
        ("regarding.fieldPath", "regarding.fieldPath"),
        ("reason", "reason"),
        ("reportingController", "reportingController"),
        ("type", "type"),
    ],
    behaviour: &Events { events_api: true },
}];
