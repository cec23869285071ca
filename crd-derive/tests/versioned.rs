//! `#[crd_runtime::versioned]`: three versions of a kind from one module, with fields
//! added, renamed, retyped, deprecated and removed, a nested struct and an enum with an
//! added and a renamed variant. The merged CRD is valid (and kept as a golden file), the
//! converter converts every pair, and converting to any version and back is the identity
//! (property tests, from every version).

use crd_runtime::model::WebhookClientConfig;
use crd_runtime::{CustomResourceExt, Manifest, assert_valid_crd};
use proptest::prelude::*;
use serde_json::{Value, json};

#[crd_runtime::versioned(
    version(
        name = "v1alpha1",
        deprecated = "example.com/v1alpha1 Widget is deprecated; use example.com/v1"
    ),
    version(name = "v1beta1"),
    version(name = "v1")
)]
pub mod widget {
    use crd_runtime::CrdSchema;
    use serde::{Deserialize, Serialize};

    fn one() -> i32 {
        1
    }

    /// A widget.
    #[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
    #[crd(
        group = "example.com",
        kind = "Widget",
        namespaced,
        status = WidgetStatus,
        derive = [PartialEq],
        printcolumn(name = "Policy", type = "string", json_path = ".spec.policy")
    )]
    #[serde(rename_all = "camelCase")]
    pub struct WidgetSpec {
        /// The image to run.
        #[versioned(changed(since = "v1beta1", from_name = "img"))]
        pub image: String,
        /// How many copies.
        #[versioned(added(since = "v1beta1", default = "one"))]
        #[crd(minimum = 0)]
        pub replicas: i32,
        /// The port, a `u16` before v1.
        #[versioned(changed(since = "v1", from_type = "u16"))]
        pub port: u32,
        /// When to run.
        #[versioned(deprecated(since = "v1", note = "use `rules`"))]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub deprecated_schedule: Option<String>,
        /// Gone in v1.
        #[versioned(removed(since = "v1"))]
        #[serde(default)]
        pub legacy: bool,
        /// What to do.
        pub policy: Policy,
        /// Finer rules.
        #[serde(default)]
        pub rules: Vec<Rule>,
    }

    /// What to do.
    #[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
    #[serde(rename_all = "camelCase")]
    pub enum Policy {
        /// Let it happen.
        #[default]
        Allow,
        /// Stop it (since v1beta1).
        #[versioned(added(since = "v1beta1"))]
        Forbid,
        /// Replace what runs (`swap` before v1).
        #[versioned(changed(since = "v1", from_name = "Swap"))]
        Replace,
    }

    /// A rule.
    #[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
    pub struct Rule {
        /// The rule's name.
        pub name: String,
        /// Its weight (since v1).
        #[versioned(added(since = "v1"))]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub weight: Option<i64>,
        /// What it does.
        pub action: Policy,
    }

    /// Observed state.
    #[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
    pub struct WidgetStatus {
        /// Whether it runs.
        pub ready: bool,
        /// The generation seen (since v1).
        #[versioned(added(since = "v1"))]
        #[serde(default)]
        pub observed: i64,
    }

    impl WidgetStatus {
        /// Works in every version.
        pub fn is_ready(&self) -> bool {
            self.ready
        }
    }
}

use widget::{v1, v1alpha1, v1beta1};

fn webhook() -> WebhookClientConfig {
    WebhookClientConfig {
        url: Some("https://127.0.0.1:8443/convert".into()),
        ..Default::default()
    }
}

#[test]
fn the_merged_crd_is_valid_and_needs_a_webhook() {
    let e = widget::crd().unwrap_err();
    assert_eq!(e.field, "spec.conversion");
    assert!(e.message.contains("\"v1alpha1\" and \"v1beta1\""), "{e}");
    let crd = widget::crd_with_webhook(webhook()).unwrap();
    assert_valid_crd(&crd);
    let versions: Vec<_> = crd
        .spec
        .versions
        .iter()
        .map(|v| {
            (
                v.name.as_str(),
                v.served,
                v.storage,
                v.deprecated,
                v.deprecation_warning.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        versions,
        [
            (
                "v1alpha1",
                true,
                false,
                Some(true),
                Some("example.com/v1alpha1 Widget is deprecated; use example.com/v1")
            ),
            ("v1beta1", true, false, None, None),
            ("v1", true, true, None, None),
        ]
    );
    let conversion = crd.spec.conversion.as_ref().unwrap();
    assert_eq!(conversion.strategy, "Webhook");
    let hook = conversion.webhook.as_ref().unwrap();
    assert_eq!(hook.conversion_review_versions, ["v1"]);
    assert_eq!(widget::VERSIONS, ["v1alpha1", "v1beta1", "v1"]);
    assert_eq!(widget::STORAGE_VERSION, "v1");
    Manifest::new().crd(crd).assert_file_matches(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/versioned.crd.yaml"
    ));
}

#[test]
fn each_version_has_its_fields_under_its_names() {
    let spec = |v: Value| v["spec"]["versions"].clone();
    let crd = serde_json::to_value(widget::crd_with_webhook(webhook()).unwrap()).unwrap();
    let props = |i: usize| -> Vec<String> {
        let mut keys: Vec<String> = spec(crd.clone())[i]["schema"]["openAPIV3Schema"]["properties"]
            ["spec"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        keys.sort();
        keys
    };
    assert_eq!(
        props(0),
        ["img", "legacy", "policy", "port", "rules", "schedule"]
    );
    assert_eq!(
        props(1),
        [
            "image", "legacy", "policy", "port", "replicas", "rules", "schedule"
        ]
    );
    assert_eq!(
        props(2),
        [
            "deprecatedSchedule",
            "image",
            "policy",
            "port",
            "replicas",
            "rules"
        ]
    );
    let versions = spec(crd);
    assert_eq!(
        versions[0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["policy"]["enum"],
        json!(["allow", "swap"])
    );
    assert_eq!(
        versions[2]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["policy"]["enum"],
        json!(["allow", "forbid", "replace"])
    );
    let deprecated = &versions[2]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
        ["deprecatedSchedule"]["description"];
    assert!(
        deprecated
            .as_str()
            .unwrap()
            .contains("Deprecated since v1: use `rules`"),
        "{deprecated}"
    );
    // Each version's root is a full derived type: admission, impl blocks.
    let mut old = v1alpha1::Widget::new(
        "w",
        v1alpha1::WidgetSpec {
            img: "nginx".into(),
            port: 80,
            schedule: None,
            legacy: false,
            policy: v1alpha1::Policy::Swap,
            rules: vec![],
        },
    );
    old.admit().unwrap();
    assert!(!v1::WidgetStatus::default().is_ready());
}

fn a_v1() -> Value {
    json!({
        "apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w", "namespace": "default", "uid": "u-1",
                     "annotations": {"team": "a"}},
        "spec": {"image": "nginx", "replicas": 3, "port": 70000, "policy": "forbid",
                 "deprecatedSchedule": "daily",
                 "rules": [{"name": "r", "weight": 5, "action": "replace"}]},
        "status": {"ready": true, "observed": 4}
    })
}

#[test]
fn going_down_keeps_what_the_older_version_cannot_hold_in_an_annotation() {
    let c = widget::converter();
    let old = c.convert(&a_v1(), "example.com/v1alpha1").unwrap();
    assert_eq!(
        old["spec"],
        json!({"img": "nginx", "port": 0, "policy": "allow", "schedule": "daily",
               "legacy": false, "rules": [{"name": "r", "action": "swap"}]})
    );
    assert_eq!(old["status"], json!({"ready": true}));
    let annotations = old["metadata"]["annotations"].as_object().unwrap();
    let kept =
        |key: &str| -> Value { serde_json::from_str(annotations[key].as_str().unwrap()).unwrap() };
    assert_eq!(
        kept("example.com/conversion.v1"),
        json!({"/spec/port": 70000, "/spec/rules/0/weight": 5, "/status/observed": 4})
    );
    assert_eq!(
        kept("example.com/conversion.v1beta1"),
        json!({"/spec/policy": "forbid", "/spec/replicas": 3})
    );
    assert_eq!(annotations["team"], "a");
    let back = c.convert(&old, "example.com/v1").unwrap();
    assert_eq!(back, a_v1());
}

#[test]
fn typed_from_impls_link_adjacent_versions_and_every_version_to_the_hub() {
    let newest: v1::Widget = serde_json::from_value(a_v1()).unwrap();
    let beta: v1beta1::Widget = newest.clone().into();
    assert_eq!(beta.spec.replicas, 3);
    assert_eq!(beta.spec.port, 0);
    let alpha: v1alpha1::Widget = newest.clone().into();
    let alpha_via_beta: v1alpha1::Widget = beta.clone().into();
    assert_eq!(alpha, alpha_via_beta);
    let again: v1::Widget = alpha.into();
    assert_eq!(again, newest);
}

#[test]
fn an_edit_in_the_old_version_wins_over_the_kept_value() {
    let c = widget::converter();
    let mut old = c.convert(&a_v1(), "example.com/v1alpha1").unwrap();
    old["spec"]["port"] = json!(8080);
    let back = c.convert(&old, "example.com/v1").unwrap();
    assert_eq!(back["spec"]["port"], 8080);
    assert_eq!(back["spec"]["replicas"], 3);
    assert!(
        back["metadata"]["annotations"]
            .get("example.com/conversion.v1alpha1")
            .is_none()
    );
}

#[test]
fn the_converter_converts_every_pair() {
    let c = widget::converter();
    let objects = [
        a_v1(),
        c.convert(&a_v1(), "example.com/v1beta1").unwrap(),
        c.convert(&a_v1(), "example.com/v1alpha1").unwrap(),
    ];
    for object in &objects {
        for to in widget::VERSIONS {
            let converted = c.convert(object, &format!("example.com/{to}")).unwrap();
            assert_eq!(converted["apiVersion"], format!("example.com/{to}"));
            assert_eq!(converted["metadata"]["uid"], "u-1");
        }
    }
}

fn policy(version: usize) -> impl Strategy<Value = &'static str> {
    let names: &'static [&'static str] = match version {
        0 => &["allow", "swap"],
        1 => &["allow", "forbid", "swap"],
        _ => &["allow", "forbid", "replace"],
    };
    proptest::sample::select(names)
}

fn rule(version: usize) -> impl Strategy<Value = Value> {
    (
        "[a-z]{1,8}",
        proptest::option::of(any::<i64>()),
        policy(version),
    )
        .prop_map(move |(name, weight, action)| {
            let mut rule = json!({"name": name, "action": action});
            if let (Some(w), 2) = (weight, version) {
                rule["weight"] = json!(w);
            }
            rule
        })
}

/// An object of version `version` (0 = v1alpha1) with every field set.
fn object(version: usize) -> impl Strategy<Value = Value> {
    (
        (
            "[a-z0-9./:-]{1,20}",
            0..100i32,
            any::<u32>(),
            proptest::option::of("[a-z ]{0,10}"),
            any::<bool>(),
        ),
        (
            policy(version),
            proptest::collection::vec(rule(version), 0..3),
            proptest::option::of((any::<bool>(), any::<i64>())),
            proptest::option::of("[a-z]{1,5}"),
        ),
    )
        .prop_map(
            move |((image, replicas, port, schedule, legacy), (policy, rules, status, note))| {
                let name = widget::VERSIONS[version];
                let mut spec = json!({"policy": policy, "rules": rules});
                let port = if version == 2 { port } else { port % 65536 };
                spec["port"] = json!(port);
                match version {
                    0 => spec["img"] = json!(image),
                    _ => spec["image"] = json!(image),
                }
                if version >= 1 {
                    spec["replicas"] = json!(replicas);
                }
                if version <= 1 {
                    spec["legacy"] = json!(legacy);
                }
                if let Some(s) = schedule {
                    let key = if version == 2 {
                        "deprecatedSchedule"
                    } else {
                        "schedule"
                    };
                    spec[key] = json!(s);
                }
                let mut metadata = json!({"name": "w", "namespace": "default", "uid": "u-1",
                                          "resourceVersion": "9", "labels": {"app": "w"}});
                if let Some(n) = note {
                    metadata["annotations"] = json!({"note": n});
                }
                let mut o = json!({
                    "apiVersion": format!("example.com/{name}"), "kind": "Widget",
                    "metadata": metadata, "spec": spec
                });
                if let Some((ready, observed)) = status {
                    o["status"] = json!({"ready": ready});
                    if version == 2 {
                        o["status"]["observed"] = json!(observed);
                    }
                }
                o
            },
        )
}

proptest! {
    #[test]
    fn v1alpha1_round_trips_through_every_version(o in object(0)) {
        prop_assert_eq!(widget::check_round_trip(&o), Ok(()));
    }

    #[test]
    fn v1beta1_round_trips_through_every_version(o in object(1)) {
        prop_assert_eq!(widget::check_round_trip(&o), Ok(()));
    }

    #[test]
    fn v1_round_trips_through_every_version(o in object(2)) {
        prop_assert_eq!(widget::check_round_trip(&o), Ok(()));
    }
}

/// Versions whose schemas are all the same need no webhook; a version can be unserved
/// and the storage version need not be the last.
mod same_schema {
    #[crd_runtime::versioned(
        version(name = "v1", served = false),
        version(name = "v2", storage),
        version(name = "v3")
    )]
    pub mod gadget {
        use serde::{Deserialize, Serialize};

        #[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
        #[crd(group = "example.com", kind = "Gadget")]
        pub struct GadgetSpec {
            pub size: i32,
        }
    }

    #[test]
    fn strategy_none_and_the_storage_version_in_the_middle() {
        let crd = gadget::crd().unwrap();
        crd_runtime::assert_valid_crd(&crd);
        assert_eq!(crd.spec.conversion.as_ref().unwrap().strategy, "None");
        assert_eq!(crd.storage_version().unwrap().name, "v2");
        assert!(!crd.spec.versions[0].served);
        let object = serde_json::json!({
            "apiVersion": "example.com/v1", "kind": "Gadget",
            "metadata": {"name": "g"}, "spec": {"size": 2}
        });
        assert_eq!(gadget::check_round_trip(&object), Ok(()));
        let v3: gadget::v3::Gadget =
            gadget::v1::Gadget::new("g", gadget::v1::GadgetSpec { size: 2 }).into();
        assert_eq!(v3.spec.size, 2);
    }
}

/// Members that are added and then changed, a removed variant, user conversion functions,
/// nested types in maps and boxes, and the storage version in the middle.
mod edges {
    use serde_json::json;

    #[crd_runtime::versioned(
        version(name = "v1alpha1"),
        version(name = "v1beta1", storage),
        version(name = "v1")
    )]
    pub mod thing {
        use std::collections::BTreeMap;

        use crd_runtime::CrdSchema;
        use serde::{Deserialize, Serialize};

        fn label() -> String {
            "none".into()
        }

        fn to_millis(seconds: u32) -> u64 {
            u64::from(seconds) * 1000
        }

        fn to_seconds(millis: u64) -> u32 {
            u32::try_from(millis / 1000).unwrap_or(u32::MAX)
        }

        #[derive(Serialize, Deserialize, Clone, Debug)]
        #[crd(group = "edges.example.com", kind = "Thing", status = ThingStatus)]
        #[serde(rename_all = "camelCase")]
        pub struct ThingSpec {
            #[versioned(
                added(since = "v1beta1", default = "label"),
                changed(since = "v1", from_name = "tag")
            )]
            pub label: String,
            #[versioned(changed(
                since = "v1",
                from_name = "seconds",
                from_type = "u32",
                upgrade_with = "to_millis",
                downgrade_with = "to_seconds"
            ))]
            pub millis: u64,
            #[versioned(removed(since = "v1beta1", default = "label"))]
            pub old_name: String,
            #[serde(default)]
            pub parts: BTreeMap<String, Part>,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub main: Option<Box<Part>>,
        }

        #[derive(CrdSchema, Serialize, Deserialize, Clone, Debug)]
        pub struct Part {
            pub kind: Kind,
            #[versioned(added(since = "v1"))]
            #[serde(default)]
            pub size: i64,
        }

        #[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, Default)]
        pub enum Kind {
            #[default]
            Plain,
            #[versioned(removed(since = "v1"))]
            Legacy,
        }

        #[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, Default)]
        pub struct ThingStatus {
            pub phase: String,
        }
    }

    fn objects() -> Vec<serde_json::Value> {
        let meta = json!({"name": "t", "uid": "u"});
        vec![
            json!({"apiVersion": "edges.example.com/v1alpha1", "kind": "Thing", "metadata": meta,
                   "spec": {"seconds": 5, "oldName": "x",
                            "parts": {"a": {"kind": "Legacy"}, "b": {"kind": "Plain"}},
                            "main": {"kind": "Legacy"}},
                   "status": {"phase": "Ready"}}),
            json!({"apiVersion": "edges.example.com/v1beta1", "kind": "Thing", "metadata": meta,
                   "spec": {"tag": "t", "seconds": 4294967295u32, "parts": {}}}),
            json!({"apiVersion": "edges.example.com/v1", "kind": "Thing", "metadata": meta,
                   "spec": {"label": "l", "millis": 1500, "parts": {"a": {"kind": "Plain", "size": 3}},
                            "main": {"kind": "Plain", "size": 9}}}),
        ]
    }

    #[test]
    fn every_object_round_trips_through_every_version() {
        for o in objects() {
            assert_eq!(thing::check_round_trip(&o), Ok(()), "{o}");
        }
    }

    #[test]
    fn a_lossy_user_downgrade_keeps_the_value() {
        let c = thing::converter();
        let v1 = &objects()[2];
        let down = c.convert(v1, "edges.example.com/v1beta1").unwrap();
        assert_eq!(down["spec"]["seconds"], 1);
        assert_eq!(down["spec"]["tag"], "l");
        assert_eq!(
            down["metadata"]["annotations"]["edges.example.com/conversion.v1"],
            r#"{"/spec/main/size":9,"/spec/millis":1500,"/spec/parts/a/size":3}"#
        );
        // The removed variant in a map and a box comes back from v1.
        let old = &objects()[0];
        let up = c.convert(old, "edges.example.com/v1").unwrap();
        assert_eq!(up["spec"]["parts"]["a"]["kind"], "Plain");
        assert_eq!(up["spec"]["label"], "none");
        assert_eq!(up["spec"]["millis"], 5000);
        let back = c.convert(&up, "edges.example.com/v1alpha1").unwrap();
        assert_eq!(&back, old);
    }
}
