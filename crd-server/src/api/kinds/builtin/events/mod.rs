//! events.k8s.io/v1: Events stored as core/v1 Events.

use crate::api::kinds::builtin::Spec;
use crate::api::kinds::builtin::core::events::{self, Events, EventsV1Codec};

pub(super) static KINDS: &[Spec] = &[events::spec(
    "events.k8s.io",
    Some(&EventsV1Codec),
    "io.k8s.api.events.v1.Event",
    &[
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
    &Events { events_api: true },
)];
