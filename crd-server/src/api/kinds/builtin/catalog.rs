//! The built-in kinds served, with the names, scope, verbs and storage keys
//! kube-apiserver's discovery and storage use for them.

use super::config::{ConfigMaps, Secrets};
use super::events::{Events, EventsV1Codec};
use super::lease::{Leases, ServiceAccounts};
use super::{NameRule, Spec};
use crate::api::protobuf::kinds;

/// The verbs of a built-in kind with every verb, as its discovery lists them.
const ALL_VERBS: &[&str] = &[
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
];

const CORE: &str = "";

/// The field selector every object supports beyond name and namespace.
const NONE: &[(&str, &str)] = &[];

/// Every built-in kind this server serves.
pub fn catalog() -> &'static [Spec] {
    CATALOG
}

static CATALOG: &[Spec] = &[
    Spec {
        group: CORE,
        version: "v1",
        plural: "configmaps",
        singular: "configmap",
        kind: "ConfigMap",
        namespaced: true,
        short_names: &["cm"],
        categories: &[],
        verbs: ALL_VERBS,
        subresources: &[],
        prefix: "/registry/configmaps/",
        codec: None,
        definition: "io.k8s.api.core.v1.ConfigMap",
        name_rule: Some(NameRule::DnsSubdomain),
        field_selectors: NONE,
        proto: Some(&kinds::CONFIG_MAP),
        behaviour: &ConfigMaps,
    },
    Spec {
        group: CORE,
        version: "v1",
        plural: "secrets",
        singular: "secret",
        kind: "Secret",
        namespaced: true,
        short_names: &[],
        categories: &[],
        verbs: ALL_VERBS,
        subresources: &[],
        prefix: "/registry/secrets/",
        codec: None,
        definition: "io.k8s.api.core.v1.Secret",
        name_rule: Some(NameRule::DnsSubdomain),
        field_selectors: &[("type", "type")],
        proto: Some(&kinds::SECRET),
        behaviour: &Secrets,
    },
    Spec {
        group: CORE,
        version: "v1",
        plural: "serviceaccounts",
        singular: "serviceaccount",
        kind: "ServiceAccount",
        namespaced: true,
        short_names: &["sa"],
        categories: &[],
        verbs: ALL_VERBS,
        subresources: &[],
        prefix: "/registry/serviceaccounts/",
        codec: None,
        definition: "io.k8s.api.core.v1.ServiceAccount",
        name_rule: Some(NameRule::DnsSubdomain),
        field_selectors: NONE,
        proto: Some(&kinds::SERVICE_ACCOUNT),
        behaviour: &ServiceAccounts,
    },
    Spec {
        group: "coordination.k8s.io",
        version: "v1",
        plural: "leases",
        singular: "lease",
        kind: "Lease",
        namespaced: true,
        short_names: &[],
        categories: &[],
        verbs: ALL_VERBS,
        subresources: &[],
        prefix: "/registry/leases/",
        codec: None,
        definition: "io.k8s.api.coordination.v1.Lease",
        name_rule: Some(NameRule::DnsSubdomain),
        field_selectors: NONE,
        proto: Some(&kinds::LEASE),
        behaviour: &Leases,
    },
    Spec {
        group: CORE,
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
        codec: None,
        definition: "io.k8s.api.core.v1.Event",
        name_rule: None,
        field_selectors: &[
            ("involvedObject.kind", "involvedObject.kind"),
            ("involvedObject.namespace", "involvedObject.namespace"),
            ("involvedObject.name", "involvedObject.name"),
            ("involvedObject.uid", "involvedObject.uid"),
            ("involvedObject.apiVersion", "involvedObject.apiVersion"),
            (
                "involvedObject.resourceVersion",
                "involvedObject.resourceVersion",
            ),
            ("involvedObject.fieldPath", "involvedObject.fieldPath"),
            ("reason", "reason"),
            ("reportingComponent", "reportingComponent"),
            ("source", "source.component"),
            ("type", "type"),
        ],
        proto: Some(&kinds::EVENT),
        behaviour: &Events { events_api: false },
    },
    Spec {
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
        proto: None,
        behaviour: &Events { events_api: true },
    },
];
