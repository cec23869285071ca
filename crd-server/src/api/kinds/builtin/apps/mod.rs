//! apps/v1: the workload controllers' kinds.

pub mod printers;
pub mod rules;
pub mod workloads;

use crate::api::kinds::Subresource;
use crate::api::kinds::builtin::apps::workloads::{Apps, ControllerRevisions, Workload};
use crate::api::kinds::builtin::{ALL_VERBS, NONE, NameRule, Spec};

const APPS: &str = "apps";
const ALL: &[&str] = &["all"];
const SCALED: &[Subresource] = &[Subresource::Status, Subresource::Scale];

pub(super) static KINDS: &[Spec] = &[
    Spec {
        group: APPS,
        version: "v1",
        plural: "controllerrevisions",
        singular: "controllerrevision",
        kind: "ControllerRevision",
        namespaced: true,
        short_names: &[],
        categories: &[],
        verbs: ALL_VERBS,
        subresources: &[],
        prefix: "/registry/controllerrevisions/",
        codec: None,
        definition: "io.k8s.api.apps.v1.ControllerRevision",
        name_rule: Some(NameRule::DnsSubdomain),
        field_selectors: NONE,
        behaviour: &ControllerRevisions,
    },
    Spec {
        group: APPS,
        version: "v1",
        plural: "daemonsets",
        singular: "daemonset",
        kind: "DaemonSet",
        namespaced: true,
        short_names: &["ds"],
        categories: ALL,
        verbs: ALL_VERBS,
        subresources: &[Subresource::Status],
        prefix: "/registry/daemonsets/",
        codec: None,
        definition: "io.k8s.api.apps.v1.DaemonSet",
        name_rule: Some(NameRule::DnsSubdomain),
        field_selectors: NONE,
        behaviour: &Apps(Workload::DaemonSet),
    },
    Spec {
        group: APPS,
        version: "v1",
        plural: "deployments",
        singular: "deployment",
        kind: "Deployment",
        namespaced: true,
        short_names: &["deploy"],
        categories: ALL,
        verbs: ALL_VERBS,
        subresources: SCALED,
        prefix: "/registry/deployments/",
        codec: None,
        definition: "io.k8s.api.apps.v1.Deployment",
        name_rule: Some(NameRule::DnsSubdomain),
        field_selectors: NONE,
        behaviour: &Apps(Workload::Deployment),
    },
    Spec {
        group: APPS,
        version: "v1",
        plural: "replicasets",
        singular: "replicaset",
        kind: "ReplicaSet",
        namespaced: true,
        short_names: &["rs"],
        categories: ALL,
        verbs: ALL_VERBS,
        subresources: SCALED,
        prefix: "/registry/replicasets/",
        codec: None,
        definition: "io.k8s.api.apps.v1.ReplicaSet",
        name_rule: Some(NameRule::DnsSubdomain),
        field_selectors: &[("status.replicas", "status.replicas|0")],
        behaviour: &Apps(Workload::ReplicaSet),
    },
    Spec {
        group: APPS,
        version: "v1",
        plural: "statefulsets",
        singular: "statefulset",
        kind: "StatefulSet",
        namespaced: true,
        short_names: &["sts"],
        categories: ALL,
        verbs: ALL_VERBS,
        subresources: SCALED,
        prefix: "/registry/statefulsets/",
        codec: None,
        definition: "io.k8s.api.apps.v1.StatefulSet",
        name_rule: Some(NameRule::DnsSubdomain),
        field_selectors: NONE,
        behaviour: &Apps(Workload::StatefulSet),
    },
];
