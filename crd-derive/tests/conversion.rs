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
