//! The `Pipeline` of `../versioned` written by hand: one `#[derive(CustomResource)]`
//! module per version (`v1alpha1` deprecated, `v1beta1`, `v1` stored, the same types
//! and attributes) and the `From` impls between each older version and the storage
//! version, the hub (2(n−1) conversions of the root type, as docs/conversion.md
//! describes). Unlike the macro's, these conversions drop what a version cannot hold.
//! See ../../BENCHMARKS.md ("A three-version kind").
#![allow(missing_docs)]

use crd_runtime::CustomResourceExt;
use crd_runtime::model::{CustomResourceConversion, WebhookClientConfig, WebhookConversion};

fn one() -> i32 {
    1
}

pub mod v1alpha1 {
    use std::collections::BTreeMap;

    use crd_runtime::{CrdSchema, CustomResource};
    use serde::{Deserialize, Serialize};

    /// A CI pipeline.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
    #[crd(
        group = "ci.example.com",
        version = "v1alpha1",
        kind = "Pipeline",
        namespaced,
        storage = false,
        deprecated,
        deprecation_warning = "ci.example.com/v1alpha1 Pipeline is deprecated; use ci.example.com/v1",
        short_names = ["pl"],
        categories = ["ci"],
        status = PipelineStatus,
        printcolumn(name = "Branch", type = "string", json_path = ".spec.branch"),
        printcolumn(name = "Phase", type = "string", json_path = ".status.phase")
    )]
    #[serde(rename_all = "camelCase")]
    pub struct PipelineSpec {
        /// The repository.
        #[crd(min_length = 1, max_length = 253)]
        pub repo: String,
        /// The branch to build.
        #[crd(pattern = "^[A-Za-z0-9._/-]+$")]
        pub branch: String,
        /// Seconds before a run is cancelled.
        pub timeout_seconds: u16,
        /// A cron schedule.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub cron: Option<String>,
        /// Runs only when asked.
        #[serde(default)]
        pub manual: bool,
        /// The steps, in order.
        #[crd(min_items = 1)]
        pub steps: Vec<Step>,
        /// Environment of every step.
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        pub env: BTreeMap<String, String>,
        /// How failed runs are retried.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub retry: Option<Retry>,
    }

    /// A step.
    #[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct Step {
        /// The step's name.
        #[crd(max_length = 63)]
        pub name: String,
        /// The image it runs.
        pub image: String,
        /// The command.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub command: Vec<String>,
        /// What a failure of the step does.
        #[serde(default)]
        pub on_failure: FailurePolicy,
    }

    /// What a failed step does.
    #[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
    #[serde(rename_all = "camelCase")]
    pub enum FailurePolicy {
        /// The run stops.
        #[default]
        Abort,
        /// The next step runs.
        Continue,
    }

    /// How failed runs are retried.
    #[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct Retry {
        /// At most this many times.
        #[crd(minimum = 0, maximum = 10)]
        pub attempts: i32,
        /// Seconds between attempts.
        pub delay: i32,
    }

    /// Observed state.
    #[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
    #[serde(rename_all = "camelCase")]
    pub struct PipelineStatus {
        /// `Running`, `Succeeded` or `Failed`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub phase: Option<String>,
        /// When the last run started.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub last_run: Option<String>,
        /// Runs so far.
        #[serde(default)]
        pub runs: i64,
    }
}

pub mod v1beta1 {
    use std::collections::BTreeMap;

    use crd_runtime::{CrdSchema, CustomResource};
    use serde::{Deserialize, Serialize};

    /// A CI pipeline.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
    #[crd(
        group = "ci.example.com",
        version = "v1beta1",
        kind = "Pipeline",
        namespaced,
        storage = false,
        short_names = ["pl"],
        categories = ["ci"],
        status = PipelineStatus,
        printcolumn(name = "Branch", type = "string", json_path = ".spec.branch"),
        printcolumn(name = "Phase", type = "string", json_path = ".status.phase")
    )]
    #[serde(rename_all = "camelCase")]
    pub struct PipelineSpec {
        /// The repository.
        #[crd(min_length = 1, max_length = 253)]
        pub repository: String,
        /// The branch to build.
        #[crd(pattern = "^[A-Za-z0-9._/-]+$")]
        pub branch: String,
        /// Runs at once.
        #[crd(minimum = 1, maximum = 20)]
        pub parallelism: i32,
        /// Seconds before a run is cancelled.
        pub timeout_seconds: u16,
        /// A cron schedule.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub cron: Option<String>,
        /// Runs only when asked.
        #[serde(default)]
        pub manual: bool,
        /// The steps, in order.
        #[crd(min_items = 1)]
        pub steps: Vec<Step>,
        /// Environment of every step.
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        pub env: BTreeMap<String, String>,
        /// How failed runs are retried.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub retry: Option<Retry>,
    }

    /// A step.
    #[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct Step {
        /// The step's name.
        #[crd(max_length = 63)]
        pub name: String,
        /// The image it runs.
        pub image: String,
        /// The command.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub command: Vec<String>,
        /// Where the command runs.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub working_dir: Option<String>,
        /// What a failure of the step does.
        #[serde(default)]
        pub on_failure: FailurePolicy,
    }

    /// What a failed step does.
    #[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
    #[serde(rename_all = "camelCase")]
    pub enum FailurePolicy {
        /// The run stops.
        #[default]
        Abort,
        /// The next step runs.
        Continue,
    }

    /// How failed runs are retried.
    #[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct Retry {
        /// At most this many times.
        #[crd(minimum = 0, maximum = 10)]
        pub attempts: i32,
        /// Seconds between attempts.
        pub delay: i32,
    }

    /// Observed state.
    #[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
    #[serde(rename_all = "camelCase")]
    pub struct PipelineStatus {
        /// `Running`, `Succeeded` or `Failed`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub phase: Option<String>,
        /// When the last run started.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub last_run: Option<String>,
        /// Runs so far.
        #[serde(default)]
        pub runs: i64,
        /// The generation the status is for.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub observed_generation: Option<i64>,
    }
}

pub mod v1 {
    use std::collections::BTreeMap;

    use crd_runtime::{CrdSchema, CustomResource};
    use serde::{Deserialize, Serialize};

    /// A CI pipeline.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
    #[crd(
        group = "ci.example.com",
        version = "v1",
        kind = "Pipeline",
        namespaced,
        short_names = ["pl"],
        categories = ["ci"],
        status = PipelineStatus,
        printcolumn(name = "Branch", type = "string", json_path = ".spec.branch"),
        printcolumn(name = "Phase", type = "string", json_path = ".status.phase")
    )]
    #[serde(rename_all = "camelCase")]
    pub struct PipelineSpec {
        /// The repository.
        #[crd(min_length = 1, max_length = 253)]
        pub repository: String,
        /// The branch to build.
        #[crd(pattern = "^[A-Za-z0-9._/-]+$")]
        pub branch: String,
        /// Runs at once.
        #[crd(minimum = 1, maximum = 20)]
        pub parallelism: i32,
        /// Seconds before a run is cancelled.
        pub timeout_seconds: u32,
        /// Runs only when asked. Deprecated: use `triggers`.
        #[serde(default)]
        pub deprecated_manual: bool,
        /// What starts a run.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub triggers: Vec<Trigger>,
        /// The steps, in order.
        #[crd(min_items = 1)]
        pub steps: Vec<Step>,
        /// Environment of every step.
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        pub env: BTreeMap<String, String>,
        /// How failed runs are retried.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub retry: Option<Retry>,
    }

    /// A step.
    #[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct Step {
        /// The step's name.
        #[crd(max_length = 63)]
        pub name: String,
        /// The image it runs.
        pub image: String,
        /// The command.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub command: Vec<String>,
        /// Where the command runs.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub working_dir: Option<String>,
        /// What a failure of the step does.
        #[serde(default)]
        pub on_failure: FailurePolicy,
    }

    /// What a failed step does.
    #[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
    #[serde(rename_all = "camelCase")]
    pub enum FailurePolicy {
        /// The run stops.
        #[default]
        Abort,
        /// The next step runs.
        Continue,
        /// The step runs again.
        Retry,
    }

    /// How failed runs are retried.
    #[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct Retry {
        /// At most this many times.
        #[crd(minimum = 0, maximum = 10)]
        pub attempts: i32,
        /// Seconds between attempts.
        pub backoff_seconds: i32,
    }

    /// What starts a run.
    #[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct Trigger {
        /// The kind of trigger.
        pub on: TriggerKind,
        /// The cron schedule of a `schedule` trigger.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub schedule: Option<String>,
    }

    /// The kind of trigger.
    #[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub enum TriggerKind {
        /// A push to the branch.
        Push,
        /// A time.
        Schedule,
        /// A new tag.
        Tag,
    }

    /// Observed state.
    #[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
    #[serde(rename_all = "camelCase")]
    pub struct PipelineStatus {
        /// `Running`, `Succeeded` or `Failed`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub phase: Option<String>,
        /// When the last run started.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub last_run: Option<String>,
        /// Runs so far.
        #[serde(default)]
        pub runs: i64,
        /// The generation the status is for.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub observed_generation: Option<i64>,
    }
}

/// The three-version CRD, converted by the webhook at `url`.
pub fn crd(
    url: &str,
) -> Result<crd_runtime::model::CustomResourceDefinition, crd_runtime::MergeError> {
    let mut crd = crd_runtime::merge_versions(&[
        v1alpha1::Pipeline::crd(),
        v1beta1::Pipeline::crd(),
        v1::Pipeline::crd(),
    ])?;
    crd.spec.conversion = Some(CustomResourceConversion {
        strategy: "Webhook".into(),
        webhook: Some(WebhookConversion {
            client_config: Some(WebhookClientConfig {
                url: Some(url.into()),
                ..Default::default()
            }),
            conversion_review_versions: vec!["v1".into()],
        }),
    });
    Ok(crd)
}

// v1alpha1 <-> v1

impl From<v1alpha1::FailurePolicy> for v1::FailurePolicy {
    fn from(p: v1alpha1::FailurePolicy) -> Self {
        match p {
            v1alpha1::FailurePolicy::Abort => v1::FailurePolicy::Abort,
            v1alpha1::FailurePolicy::Continue => v1::FailurePolicy::Continue,
        }
    }
}

impl From<v1::FailurePolicy> for v1alpha1::FailurePolicy {
    fn from(p: v1::FailurePolicy) -> Self {
        match p {
            v1::FailurePolicy::Abort | v1::FailurePolicy::Retry => v1alpha1::FailurePolicy::Abort,
            v1::FailurePolicy::Continue => v1alpha1::FailurePolicy::Continue,
        }
    }
}

impl From<v1alpha1::Step> for v1::Step {
    fn from(s: v1alpha1::Step) -> Self {
        v1::Step {
            name: s.name,
            image: s.image,
            command: s.command,
            working_dir: None,
            on_failure: s.on_failure.into(),
        }
    }
}

impl From<v1::Step> for v1alpha1::Step {
    fn from(s: v1::Step) -> Self {
        v1alpha1::Step {
            name: s.name,
            image: s.image,
            command: s.command,
            on_failure: s.on_failure.into(),
        }
    }
}

impl From<v1alpha1::Retry> for v1::Retry {
    fn from(r: v1alpha1::Retry) -> Self {
        v1::Retry {
            attempts: r.attempts,
            backoff_seconds: r.delay,
        }
    }
}

impl From<v1::Retry> for v1alpha1::Retry {
    fn from(r: v1::Retry) -> Self {
        v1alpha1::Retry {
            attempts: r.attempts,
            delay: r.backoff_seconds,
        }
    }
}

impl From<v1alpha1::PipelineStatus> for v1::PipelineStatus {
    fn from(s: v1alpha1::PipelineStatus) -> Self {
        v1::PipelineStatus {
            phase: s.phase,
            last_run: s.last_run,
            runs: s.runs,
            observed_generation: None,
        }
    }
}

impl From<v1::PipelineStatus> for v1alpha1::PipelineStatus {
    fn from(s: v1::PipelineStatus) -> Self {
        v1alpha1::PipelineStatus {
            phase: s.phase,
            last_run: s.last_run,
            runs: s.runs,
        }
    }
}

impl From<v1alpha1::Pipeline> for v1::Pipeline {
    fn from(p: v1alpha1::Pipeline) -> Self {
        let s = p.spec;
        v1::Pipeline {
            metadata: p.metadata,
            spec: v1::PipelineSpec {
                repository: s.repo,
                branch: s.branch,
                parallelism: one(),
                timeout_seconds: s.timeout_seconds.into(),
                deprecated_manual: s.manual,
                triggers: Vec::new(),
                steps: s.steps.into_iter().map(Into::into).collect(),
                env: s.env,
                retry: s.retry.map(Into::into),
            },
            status: p.status.map(Into::into),
        }
    }
}

impl From<v1::Pipeline> for v1alpha1::Pipeline {
    fn from(p: v1::Pipeline) -> Self {
        let s = p.spec;
        v1alpha1::Pipeline {
            metadata: p.metadata,
            spec: v1alpha1::PipelineSpec {
                repo: s.repository,
                branch: s.branch,
                timeout_seconds: s.timeout_seconds.try_into().unwrap_or_default(),
                cron: None,
                manual: s.deprecated_manual,
                steps: s.steps.into_iter().map(Into::into).collect(),
                env: s.env,
                retry: s.retry.map(Into::into),
            },
            status: p.status.map(Into::into),
        }
    }
}

// v1beta1 <-> v1

impl From<v1beta1::FailurePolicy> for v1::FailurePolicy {
    fn from(p: v1beta1::FailurePolicy) -> Self {
        match p {
            v1beta1::FailurePolicy::Abort => v1::FailurePolicy::Abort,
            v1beta1::FailurePolicy::Continue => v1::FailurePolicy::Continue,
        }
    }
}

impl From<v1::FailurePolicy> for v1beta1::FailurePolicy {
    fn from(p: v1::FailurePolicy) -> Self {
        match p {
            v1::FailurePolicy::Abort | v1::FailurePolicy::Retry => v1beta1::FailurePolicy::Abort,
            v1::FailurePolicy::Continue => v1beta1::FailurePolicy::Continue,
        }
    }
}

impl From<v1beta1::Step> for v1::Step {
    fn from(s: v1beta1::Step) -> Self {
        v1::Step {
            name: s.name,
            image: s.image,
            command: s.command,
            working_dir: s.working_dir,
            on_failure: s.on_failure.into(),
        }
    }
}

impl From<v1::Step> for v1beta1::Step {
    fn from(s: v1::Step) -> Self {
        v1beta1::Step {
            name: s.name,
            image: s.image,
            command: s.command,
            working_dir: s.working_dir,
            on_failure: s.on_failure.into(),
        }
    }
}

impl From<v1beta1::Retry> for v1::Retry {
    fn from(r: v1beta1::Retry) -> Self {
        v1::Retry {
            attempts: r.attempts,
            backoff_seconds: r.delay,
        }
    }
}

impl From<v1::Retry> for v1beta1::Retry {
    fn from(r: v1::Retry) -> Self {
        v1beta1::Retry {
            attempts: r.attempts,
            delay: r.backoff_seconds,
        }
    }
}

impl From<v1beta1::PipelineStatus> for v1::PipelineStatus {
    fn from(s: v1beta1::PipelineStatus) -> Self {
        v1::PipelineStatus {
            phase: s.phase,
            last_run: s.last_run,
            runs: s.runs,
            observed_generation: s.observed_generation,
        }
    }
}

impl From<v1::PipelineStatus> for v1beta1::PipelineStatus {
    fn from(s: v1::PipelineStatus) -> Self {
        v1beta1::PipelineStatus {
            phase: s.phase,
            last_run: s.last_run,
            runs: s.runs,
            observed_generation: s.observed_generation,
        }
    }
}

impl From<v1beta1::Pipeline> for v1::Pipeline {
    fn from(p: v1beta1::Pipeline) -> Self {
        let s = p.spec;
        v1::Pipeline {
            metadata: p.metadata,
            spec: v1::PipelineSpec {
                repository: s.repository,
                branch: s.branch,
                parallelism: s.parallelism,
                timeout_seconds: s.timeout_seconds.into(),
                deprecated_manual: s.manual,
                triggers: Vec::new(),
                steps: s.steps.into_iter().map(Into::into).collect(),
                env: s.env,
                retry: s.retry.map(Into::into),
            },
            status: p.status.map(Into::into),
        }
    }
}

impl From<v1::Pipeline> for v1beta1::Pipeline {
    fn from(p: v1::Pipeline) -> Self {
        let s = p.spec;
        v1beta1::Pipeline {
            metadata: p.metadata,
            spec: v1beta1::PipelineSpec {
                repository: s.repository,
                branch: s.branch,
                parallelism: s.parallelism,
                timeout_seconds: s.timeout_seconds.try_into().unwrap_or_default(),
                cron: None,
                manual: s.deprecated_manual,
                steps: s.steps.into_iter().map(Into::into).collect(),
                env: s.env,
                retry: s.retry.map(Into::into),
            },
            status: p.status.map(Into::into),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_crd_is_valid_and_a_v1alpha1_object_converts() {
        let crd = super::crd("https://127.0.0.1:8443/convert").unwrap();
        crd_runtime::assert_valid_crd(&crd);
        assert_eq!(crd.spec.versions.len(), 3);
        let old = super::v1alpha1::Pipeline::new(
            "build",
            super::v1alpha1::PipelineSpec {
                repo: "https://git.example.com/app".into(),
                branch: "main".into(),
                timeout_seconds: 600,
                cron: Some("0 3 * * *".into()),
                manual: false,
                steps: vec![super::v1alpha1::Step {
                    name: "test".into(),
                    image: "rust:1".into(),
                    command: vec!["cargo".into(), "test".into()],
                    on_failure: super::v1alpha1::FailurePolicy::Continue,
                }],
                env: Default::default(),
                retry: Some(super::v1alpha1::Retry {
                    attempts: 2,
                    delay: 30,
                }),
            },
        );
        let new: super::v1::Pipeline = old.into();
        assert_eq!(new.spec.repository, "https://git.example.com/app");
        assert_eq!(new.spec.parallelism, 1);
        assert_eq!(new.spec.retry.unwrap().backoff_seconds, 30);
    }
}
