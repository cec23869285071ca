//! One kind, the `Pipeline`, in three versions (`v1alpha1` deprecated, `v1beta1`, `v1`
//! stored) from one `#[crd_runtime::versioned]` module. `../hand-versions` writes the same
//! three versions by hand. See ../../BENCHMARKS.md ("A three-version kind").
#![allow(missing_docs)]

#[crd_runtime::versioned(
    version(
        name = "v1alpha1",
        deprecated = "ci.example.com/v1alpha1 Pipeline is deprecated; use ci.example.com/v1"
    ),
    version(name = "v1beta1"),
    version(name = "v1")
)]
pub mod pipeline {
    use std::collections::BTreeMap;

    use crd_runtime::CrdSchema;
    use serde::{Deserialize, Serialize};

    fn one() -> i32 {
        1
    }

    /// A CI pipeline.
    #[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
    #[crd(
        group = "ci.example.com",
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
        /// The repository (`repo` in v1alpha1).
        #[versioned(changed(since = "v1beta1", from_name = "repo"))]
        #[crd(min_length = 1, max_length = 253)]
        pub repository: String,
        /// The branch to build.
        #[crd(pattern = "^[A-Za-z0-9._/-]+$")]
        pub branch: String,
        /// Runs at once (since v1beta1).
        #[versioned(added(since = "v1beta1", default = "one"))]
        #[crd(minimum = 1, maximum = 20)]
        pub parallelism: i32,
        /// Seconds before a run is cancelled: a `u16` before v1.
        #[versioned(changed(since = "v1", from_type = "u16"))]
        pub timeout_seconds: u32,
        /// A cron schedule (gone in v1, which has `triggers`).
        #[versioned(removed(since = "v1"))]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub cron: Option<String>,
        /// Runs only when asked.
        #[versioned(deprecated(since = "v1", note = "use `triggers`"))]
        #[serde(default)]
        pub deprecated_manual: bool,
        /// What starts a run (since v1).
        #[versioned(added(since = "v1"))]
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
        /// Where the command runs (since v1beta1).
        #[versioned(added(since = "v1beta1"))]
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
        /// The step runs again (since v1).
        #[versioned(added(since = "v1"))]
        Retry,
    }

    /// How failed runs are retried.
    #[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct Retry {
        /// At most this many times.
        #[crd(minimum = 0, maximum = 10)]
        pub attempts: i32,
        /// Seconds between attempts (`delay` before v1).
        #[versioned(changed(since = "v1", from_name = "delay"))]
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
        /// The generation the status is for (since v1beta1).
        #[versioned(added(since = "v1beta1"))]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub observed_generation: Option<i64>,
    }
}

/// The three-version CRD, converted by the webhook at `url`.
pub fn crd(
    url: &str,
) -> Result<crd_runtime::model::CustomResourceDefinition, crd_runtime::MergeError> {
    pipeline::crd_with_webhook(crd_runtime::model::WebhookClientConfig {
        url: Some(url.into()),
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::pipeline::{v1, v1alpha1};

    #[test]
    fn the_crd_is_valid_and_a_v1alpha1_object_converts() {
        let crd = super::crd("https://127.0.0.1:8443/convert").unwrap();
        crd_runtime::assert_valid_crd(&crd);
        assert_eq!(crd.spec.versions.len(), 3);
        let old = v1alpha1::Pipeline::new(
            "build",
            v1alpha1::PipelineSpec {
                repo: "https://git.example.com/app".into(),
                branch: "main".into(),
                timeout_seconds: 600,
                cron: Some("0 3 * * *".into()),
                manual: false,
                steps: vec![v1alpha1::Step {
                    name: "test".into(),
                    image: "rust:1".into(),
                    command: vec!["cargo".into(), "test".into()],
                    on_failure: v1alpha1::FailurePolicy::Continue,
                }],
                env: Default::default(),
                retry: Some(v1alpha1::Retry {
                    attempts: 2,
                    delay: 30,
                }),
            },
        );
        let new: v1::Pipeline = old.into();
        assert_eq!(new.spec.repository, "https://git.example.com/app");
        assert_eq!(new.spec.parallelism, 1);
        assert_eq!(new.spec.retry.unwrap().backoff_seconds, 30);
    }
}
