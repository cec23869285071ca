//! Hub-and-spoke conversion between derived versions (`crd_runtime::conversion`): the
//! round trip through a version that lacks a field is the identity (property test),
//! metadata other than labels/annotations is kept, and `ConversionReview`s are answered
//! in order with the uid echoed, or with a Failure result.

use crd_runtime::conversion::{self, Converter};
use crd_runtime::{CustomResource, CustomResourceExt};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

mod v1 {
    use super::*;
    /// The hub.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
    #[crd(
        group = "stable.example.com",
        version = "v1",
        kind = "CronTab",
        namespaced
    )]
    #[serde(rename_all = "camelCase")]
    pub struct CronTabSpec {
        pub cron_spec: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub image: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub replicas: Option<i64>,
    }
}

mod v2 {
    use super::*;
    /// No `replicas`: it travels in an annotation.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
    #[crd(
        group = "stable.example.com",
        version = "v2",
        kind = "CronTab",
        namespaced
    )]
    pub struct CronTabSpec {
        pub schedule: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub image: Option<String>,
    }
}

const REPLICAS: &str = "stable.example.com/v1-replicas";

impl From<v1::CronTab> for v2::CronTab {
    fn from(o: v1::CronTab) -> Self {
        let mut metadata = o.metadata;
        if let Some(replicas) = o.spec.replicas {
            conversion::stash(&mut metadata, REPLICAS, &replicas);
        }
        v2::CronTab {
            metadata,
            spec: v2::CronTabSpec {
                schedule: o.spec.cron_spec,
                image: o.spec.image,
            },
        }
    }
}

impl TryFrom<v2::CronTab> for v1::CronTab {
    type Error = String;
    fn try_from(o: v2::CronTab) -> Result<Self, String> {
        if o.spec.schedule.is_empty() {
            return Err("spec.schedule: must not be empty".into());
        }
        let mut metadata = o.metadata;
        let replicas = conversion::unstash(&mut metadata, REPLICAS);
        Ok(v1::CronTab {
            metadata,
            spec: v1::CronTabSpec {
                cron_spec: o.spec.schedule,
                image: o.spec.image,
                replicas,
            },
        })
    }
}

fn converter() -> Converter<v1::CronTab> {
    Converter::<v1::CronTab>::hub().spoke::<v2::CronTab>()
}

fn v1_object(name: &str, cron: &str, image: Option<&str>, replicas: Option<i64>) -> Value {
    let mut spec = json!({"cronSpec": cron});
    if let Some(i) = image {
        spec["image"] = json!(i);
    }
    if let Some(r) = replicas {
        spec["replicas"] = json!(r);
    }
    json!({
        "apiVersion": "stable.example.com/v1", "kind": "CronTab",
        "metadata": {"name": name, "namespace": "default", "uid": "u-1", "resourceVersion": "7",
                     "labels": {"app": "cron"}},
        "spec": spec
    })
}

proptest! {
    #[test]
    fn v1_to_v2_to_v1_is_the_identity(
        cron in "[ -~]{1,20}",
        image in proptest::option::of("[a-z0-9:./-]{1,20}"),
        replicas in proptest::option::of(any::<i64>()),
    ) {
        let c = converter();
        let original = v1_object("a", &cron, image.as_deref(), replicas);
        let v2 = c.convert(&original, v2::CronTab::API_VERSION).unwrap();
        prop_assert_eq!(&v2["apiVersion"], "stable.example.com/v2");
        prop_assert!(v2["spec"].get("replicas").is_none());
        let back = c.convert(&v2, v1::CronTab::API_VERSION).unwrap();
        prop_assert_eq!(back, original);
    }
}

#[test]
fn metadata_other_than_labels_and_annotations_is_kept() {
    let c = converter();
    let v2 = c
        .convert(
            &v1_object("a", "* * * * *", None, Some(3)),
            "stable.example.com/v2",
        )
        .unwrap();
    assert_eq!(v2["metadata"]["uid"], "u-1");
    assert_eq!(v2["metadata"]["resourceVersion"], "7");
    assert_eq!(v2["metadata"]["annotations"][REPLICAS], "3");
    assert_eq!(v2["kind"], "CronTab");
    assert_eq!(
        c.api_versions().collect::<Vec<_>>(),
        ["stable.example.com/v1", "stable.example.com/v2"]
    );
}

#[test]
fn review_converts_in_order_and_echoes_the_uid() {
    let body = json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
        "request": {"uid": "r-42", "desiredAPIVersion": "stable.example.com/v2", "objects": [
            v1_object("first", "1 * * * *", None, None),
            v1_object("second", "2 * * * *", Some("img"), Some(1)),
        ]}
    });
    let out = conversion::review(&converter(), body.to_string().as_bytes()).unwrap();
    let response = out.response.unwrap();
    assert_eq!(out.kind, "ConversionReview");
    assert_eq!(response.uid, "r-42");
    assert_eq!(response.result, json!({"status": "Success"}));
    let names: Vec<&str> = response
        .converted_objects
        .iter()
        .map(|o| o["metadata"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["first", "second"]);
    assert_eq!(
        response.converted_objects[1]["spec"]["schedule"],
        "2 * * * *"
    );
}

#[test]
fn review_failures_are_results_and_bad_bodies_errors() {
    let review = |desired: &str, objects: Value| {
        let body = json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
            "request": {"uid": "r", "desiredAPIVersion": desired, "objects": objects}
        });
        conversion::review(&converter(), body.to_string().as_bytes())
            .unwrap()
            .response
            .unwrap()
    };
    let unknown = review(
        "stable.example.com/v9",
        json!([v1_object("a", "x", None, None)]),
    );
    assert_eq!(unknown.result["status"], "Failure");
    assert_eq!(
        unknown.result["message"],
        "unsupported version \"stable.example.com/v9\" for kind CronTab (supported: stable.example.com/v1, stable.example.com/v2)"
    );
    assert!(unknown.converted_objects.is_empty());
    let mut empty = v1_object("b", "x", None, None);
    empty["apiVersion"] = json!("stable.example.com/v2");
    empty["spec"] = json!({"schedule": ""});
    let failed = review("stable.example.com/v1", json!([empty]));
    assert_eq!(
        failed.result["message"],
        "converting \"b\" from stable.example.com/v2 to stable.example.com/v1: spec.schedule: must not be empty"
    );
    let mut wrong_type = v1_object("c", "x", None, None);
    wrong_type["spec"]["replicas"] = json!("three");
    let failed = review("stable.example.com/v2", json!([wrong_type]));
    assert!(
        failed.result["message"]
            .as_str()
            .unwrap()
            .contains("spec.replicas: invalid type: string \"three\""),
        "{}",
        failed.result["message"]
    );

    let not_a_review =
        conversion::review(&converter(), b"{\"kind\": \"Pod\", \"apiVersion\": \"v1\"}");
    assert!(
        not_a_review
            .unwrap_err()
            .to_string()
            .contains("expected a ConversionReview")
    );
    assert!(conversion::review(&converter(), b"not json").is_err());
}

/// Objects stored before a field had a default lack it; a conversion reads them with
/// their own version's schema defaults applied, as the API server does when it reads
/// from storage.
mod defaulted {
    use super::*;

    pub mod v1 {
        use super::*;
        /// The hub.
        #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
        #[crd(
            group = "defaults.example.com",
            version = "v1",
            kind = "Job",
            namespaced
        )]
        #[serde(rename_all = "camelCase")]
        pub struct JobSpec {
            #[crd(default = "* * * * *")]
            pub cron_spec: String,
            #[crd(default = 1)]
            pub replicas: i32,
            #[crd(default = json!({}))]
            pub policy: Policy,
        }
        #[derive(crd_runtime::CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
        pub struct Policy {
            #[crd(default = "Allow")]
            pub concurrency: String,
        }
    }

    pub mod v2 {
        use super::*;
        #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
        #[crd(
            group = "defaults.example.com",
            version = "v2",
            kind = "Job",
            namespaced
        )]
        pub struct JobSpec {
            pub schedule: String,
            #[crd(minimum = 1, default = 3)]
            pub replicas: i32,
            #[crd(default = "Forbid")]
            pub concurrency: String,
        }
    }

    impl From<v1::Job> for v2::Job {
        fn from(o: v1::Job) -> Self {
            v2::Job {
                metadata: o.metadata,
                spec: v2::JobSpec {
                    schedule: o.spec.cron_spec,
                    replicas: o.spec.replicas,
                    concurrency: o.spec.policy.concurrency,
                },
            }
        }
    }

    impl From<v2::Job> for v1::Job {
        fn from(o: v2::Job) -> Self {
            v1::Job {
                metadata: o.metadata,
                spec: v1::JobSpec {
                    cron_spec: o.spec.schedule,
                    replicas: o.spec.replicas,
                    policy: v1::Policy {
                        concurrency: o.spec.concurrency,
                    },
                },
            }
        }
    }

    fn converter() -> Converter<v1::Job> {
        Converter::<v1::Job>::hub().spoke::<v2::Job>()
    }

    fn job(version: &str, spec: Value) -> Value {
        json!({
            "apiVersion": format!("defaults.example.com/{version}"), "kind": "Job",
            "metadata": {"name": "stored", "namespace": "default"},
            "spec": spec
        })
    }

    #[test]
    fn a_spoke_object_without_defaulted_fields_gets_its_versions_defaults() {
        let c = converter();
        let v1 = c
            .convert(
                &job("v2", json!({"schedule": "0 1 * * *"})),
                "defaults.example.com/v1",
            )
            .unwrap();
        // v2's defaults (3, "Forbid"), not v1's (1, "Allow").
        assert_eq!(
            v1,
            job(
                "v1",
                json!({"cronSpec": "0 1 * * *", "replicas": 3, "policy": {"concurrency": "Forbid"}})
            )
        );
    }

    #[test]
    fn a_hub_object_without_defaulted_fields_gets_the_hubs_defaults() {
        let c = converter();
        // The hub's defaults nest: `policy` defaults to `{}`, then its `concurrency`.
        let v2 = c
            .convert(&job("v1", json!({})), "defaults.example.com/v2")
            .unwrap();
        assert_eq!(
            v2,
            job(
                "v2",
                json!({"schedule": "* * * * *", "replicas": 1, "concurrency": "Allow"})
            )
        );
        let v2 = c
            .convert(
                &job(
                    "v1",
                    json!({"cronSpec": "5 * * * *", "replicas": null, "policy": {}}),
                ),
                "defaults.example.com/v2",
            )
            .unwrap();
        assert_eq!(
            v2["spec"],
            json!({"schedule": "5 * * * *", "replicas": 1, "concurrency": "Allow"})
        );
    }

    #[test]
    fn a_field_without_a_default_is_still_required() {
        let err = converter()
            .convert(
                &job("v2", json!({"replicas": 2})),
                "defaults.example.com/v1",
            )
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "converting \"stored\" from defaults.example.com/v2 to defaults.example.com/v1: spec: missing field `schedule`"
        );
    }
}
