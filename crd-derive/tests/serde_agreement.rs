//! The schema follows serde: rename, rename_all, skip, flatten, default, the four enum
//! representations, Option/Box/Vec/maps. A property test checks the law "a value serde
//! writes is admitted unchanged, and what is admitted deserializes".

use std::collections::BTreeMap;

use crd_runtime::{
    CrdSchema, CustomResource, CustomResourceExt, JSONSchemaProps, assert_valid_crd,
};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
#[serde(rename_all = "kebab-case")]
pub struct Inner {
    pub first_name: String,
    #[serde(rename = "AGE")]
    pub age: Option<u32>,
}

#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum External {
    Text(String),
    Pair { a: i32, b: i32 },
}

#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Internal {
    Circle { radius: f64 },
    Square { side: f64 },
    Nothing,
}

#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(tag = "t", content = "c")]
pub enum Adjacent {
    Num { value: i64 },
    Inner(Inner),
}

#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(untagged)]
pub enum Untagged {
    // Most specific first: serde picks the first variant that matches.
    ById { id: i64, name: String },
    ByName { name: String },
}

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[crd(group = "example.com", version = "v1", kind = "Agreement", derive = [PartialEq])]
#[serde(rename_all = "camelCase")]
pub struct AgreementSpec {
    pub plain_field: String,
    #[serde(rename = "renamed")]
    pub original: bool,
    #[serde(skip)]
    pub skipped: u8,
    #[serde(default)]
    pub defaulted: Vec<i64>,
    #[serde(flatten)]
    pub inner: Inner,
    pub boxed: Box<Option<Inner>>,
    pub map: BTreeMap<String, Vec<Option<String>>>,
    pub external: Option<External>,
    pub internal: Option<Internal>,
    pub adjacent: Option<Adjacent>,
    pub untagged: Option<Untagged>,
}

fn spec() -> JSONSchemaProps {
    let crd = Agreement::crd();
    assert_valid_crd(&crd);
    crd.spec.versions[0]
        .open_api_schema()
        .unwrap()
        .properties
        .as_ref()
        .unwrap()["spec"]
        .clone()
}

#[test]
fn names_skips_flatten_and_required_follow_serde() {
    let s = spec();
    let props = s.properties.as_ref().unwrap();
    let names: Vec<&str> = props.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "AGE",
            "adjacent",
            "boxed",
            "defaulted",
            "external",
            "first-name",
            "internal",
            "map",
            "plainField",
            "renamed",
            "untagged"
        ]
    );
    assert_eq!(
        s.required,
        Some(vec![
            "plainField".into(),
            "renamed".into(),
            "first-name".into(),
            "map".into()
        ])
    );
    assert_eq!(props["boxed"].required, Some(vec!["first-name".into()]));
    assert_eq!(
        props["map"]
            .additional_properties_schema()
            .unwrap()
            .items_schema()
            .unwrap()
            .type_str(),
        "string"
    );
}

#[test]
fn enum_representations() {
    let s = spec();
    let p = s.properties.unwrap();
    assert_eq!(
        serde_json::to_value(&p["external"]).unwrap(),
        json!({
        "type": "object", "minProperties": 1, "maxProperties": 1,
        "properties": {"Text": {"type": "string"},
                       "Pair": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                                "required": ["a", "b"]}}})
    );
    assert_eq!(
        serde_json::to_value(&p["internal"]).unwrap(),
        json!({
        "type": "object", "required": ["kind"],
        "properties": {"kind": {"type": "string", "enum": ["circle", "square", "nothing"]},
                       "radius": {"type": "number"}, "side": {"type": "number"}}})
    );
    let adj = &p["adjacent"];
    assert_eq!(adj.required, Some(vec!["t".into()]));
    let c = &adj.properties.as_ref().unwrap()["c"];
    assert_eq!(
        c.properties.as_ref().unwrap().len(),
        3,
        "value + first-name + AGE"
    );
    let un = &p["untagged"];
    assert_eq!(
        un.required,
        Some(vec!["name".into()]),
        "only the fields every variant has"
    );
}

fn admit(v: serde_json::Value) -> Result<serde_json::Value, crd_runtime::ErrorList> {
    let engine = Agreement::engine().unwrap();
    let mut v = v;
    engine.admit(&mut v).map(|()| v)
}

fn arb_inner() -> impl Strategy<Value = Inner> {
    ("[a-z]{0,6}", proptest::option::of(0u32..1000))
        .prop_map(|(first_name, age)| Inner { first_name, age })
}

fn arb_spec() -> impl Strategy<Value = AgreementSpec> {
    let external = prop_oneof![
        "[a-z]{0,4}".prop_map(External::Text),
        (any::<i32>(), any::<i32>()).prop_map(|(a, b)| External::Pair { a, b }),
    ];
    let internal = prop_oneof![
        (0.0f64..10.0).prop_map(|radius| Internal::Circle { radius }),
        (0.0f64..10.0).prop_map(|side| Internal::Square { side }),
        Just(Internal::Nothing),
    ];
    let adjacent = prop_oneof![
        any::<i64>().prop_map(|value| Adjacent::Num { value }),
        arb_inner().prop_map(Adjacent::Inner),
    ];
    let untagged = prop_oneof![
        "[a-z]{1,4}".prop_map(|name| Untagged::ByName { name }),
        (any::<i64>(), "[a-z]{1,4}").prop_map(|(id, name)| Untagged::ById { id, name }),
    ];
    (
        (
            "[a-z]{0,5}",
            any::<bool>(),
            proptest::collection::vec(any::<i64>(), 0..3),
            arb_inner(),
        ),
        proptest::option::of(arb_inner()),
        proptest::collection::btree_map(
            "[a-z]{1,3}",
            proptest::collection::vec(proptest::option::of("[a-z]{0,3}"), 0..3),
            0..3,
        ),
        (
            proptest::option::of(external),
            proptest::option::of(internal),
        ),
        (
            proptest::option::of(adjacent),
            proptest::option::of(untagged),
        ),
    )
        .prop_map(
            |(
                (plain_field, original, defaulted, inner),
                boxed,
                map,
                (external, internal),
                (adjacent, untagged),
            )| {
                AgreementSpec {
                    plain_field,
                    original,
                    skipped: 0,
                    defaulted,
                    inner,
                    boxed: Box::new(boxed),
                    map,
                    external,
                    internal,
                    adjacent,
                    untagged,
                }
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Everything serde writes, the API server admits without change (no field pruned,
    /// nothing rejected), and it reads back as the same value.
    #[test]
    fn serde_output_is_admitted_unchanged(spec in arb_spec()) {
        let obj = Agreement::new("a", spec);
        let written = serde_json::to_value(&obj).unwrap();
        let admitted = admit(written.clone());
        prop_assert!(admitted.is_ok(), "rejected: {:?}\n{written:#}", admitted.err());
        let admitted = admitted.unwrap();
        // Nulls of non-nullable fields are dropped by the server; serde reads them as None.
        let back: Agreement = serde_json::from_value(admitted).unwrap();
        prop_assert_eq!(back, obj);
    }

    /// What the schema rejects, serde rejects too: a wrong type in a required field.
    #[test]
    fn schema_rejections_are_serde_rejections(n in any::<i64>()) {
        let v = json!({"apiVersion": "example.com/v1", "kind": "Agreement", "metadata": {"name": "a"},
                       "spec": {"plainField": n, "renamed": true, "map": {}, "first-name": "x", "boxed": null}});
        prop_assert!(admit(v.clone()).is_err());
        prop_assert!(serde_json::from_value::<Agreement>(v).is_err());
    }
}
