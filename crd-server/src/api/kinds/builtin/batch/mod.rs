//! batch/v1: Jobs and CronJobs.

pub mod cron;
pub mod jobs;
pub mod printers;

use crate::api::kinds::Subresource;
use crate::api::kinds::builtin::batch::jobs::{CronJobs, Jobs};
use crate::api::kinds::builtin::{ALL_VERBS, NONE, NameRule, Spec};

pub(super) static KINDS: &[Spec] = &[
    Spec {
        group: "batch",
        version: "v1",
        plural: "cronjobs",
        singular: "cronjob",
        kind: "CronJob",
        namespaced: true,
        short_names: &["cj"],
        categories: &["all"],
        verbs: ALL_VERBS,
        subresources: &[Subresource::Status],
        prefix: "/registry/cronjobs/",
        codec: None,
        definition: "io.k8s.api.batch.v1.CronJob",
        name_rule: Some(NameRule::DnsSubdomain),
        field_selectors: NONE,
        behaviour: &CronJobs,
    },
    Spec {
        group: "batch",
        version: "v1",
        plural: "jobs",
        singular: "job",
        kind: "Job",
        namespaced: true,
        short_names: &[],
        categories: &["all"],
        verbs: ALL_VERBS,
        subresources: &[Subresource::Status],
        prefix: "/registry/jobs/",
        codec: None,
        definition: "io.k8s.api.batch.v1.Job",
        name_rule: Some(NameRule::DnsSubdomain),
        field_selectors: &[("status.successful", "status.succeeded|0")],
        behaviour: &Jobs,
    },
];
