//! A port from kube-derive to crd-derive, kept as a test (docs/migrate-from-kube-derive.md).
//!
//! Source of the kube-derive types (`kube_derive_port/original.rs`): the examples of
//! https://github.com/kube-rs/kube at commit ac95b1999a549bb41aa9e467410f6d97c09341c2
//! (examples/crd_derive.rs, examples/crd_derive_schema.rs, examples/crd_api.rs,
//! examples/crd_derive_multi.rs; Apache-2.0), built here with kube-derive 5.0.0.
//! `kube_derive_port/port.rs` is the same API written with crd-derive.
//!
//! Both CRDs are generated and compared as JSON: they must be equal except for the
//! differences listed below, each where kube-derive's output is refused by the API server
//! or admits objects the Rust type cannot read, or keeps what the Rust type ignores; the
//! tests after the comparison demonstrate each claim with crd-runtime's CRD validation
//! and admission engine (the API server's rules).
//!
//! Run: `cargo test -p crd-toolkit-examples --features kube,schemars --test kube_derive_port`.

#[path = "kube_derive_port/nesting.rs"]
mod nesting;
#[path = "kube_derive_port/original.rs"]
mod original;
#[path = "kube_derive_port/port.rs"]
mod port;

use crd_runtime::{CheckOptions, CustomResourceDefinition, Engine, validate_crd};
use serde_json::{Value, json};

/// One expected difference: the value at `pointer` in kube-derive's CRD and in ours
/// (`None`: absent), and why ours is the right one.
struct Expected {
    pointer: String,
    kube: Option<Value>,
    ours: Option<Value>,
    why: Why,
}

/// Why each difference exists; the tests after the comparisons demonstrate each.
#[derive(Clone, Copy, Debug)]
enum Why {
    /// The API server refuses kube-derive's CRD (`selectable_field_is_refused`).
    RefusedJsonPath,
    /// `u32` gets `format: uint32` (or the example's hand-written `u32`), formats the API
    /// server does not know, and no `maximum`: the API server stores 4294967296, which
    /// the Rust type then cannot read (`u32_admits_what_the_type_cannot_read`).
    U32WithoutMaximum,
    /// The scale subresource's `specReplicasPath` names a field the spec does not have:
    /// the API server prunes what `kubectl scale` writes there, so the resource cannot be
    /// scaled (`scale_path_to_no_field_is_pruned`). crd-derive refuses it at compile
    /// time, so the port has no scale subresource.
    ScaleToNoField,
    /// `nullable` on every `Option`: the API server then stores `null`s that serde reads
    /// exactly as an absent field, instead of dropping them
    /// (`nullable_keeps_nulls_read_as_absent`). crd-derive writes it where asked
    /// (`#[crd(nullable)]`, as the crd_derive_schema.rs port does).
    NullableWithoutEffect,
}

fn diff(pointer: &str, kube: Option<Value>, ours: Option<Value>, why: Why) -> Expected {
    Expected {
        pointer: pointer.to_string(),
        kube,
        ours,
        why,
    }
}

/// A `u32` node: kube-derive's (schemars' `minimum` is a float) and crd-derive's.
fn u32_node(pointer: &str, kube_format: &str) -> Expected {
    diff(
        pointer,
        Some(json!({"format": kube_format, "minimum": 0.0, "type": "integer"})),
        Some(json!({"type": "integer", "minimum": 0, "maximum": 4294967295u32})),
        Why::U32WithoutMaximum,
    )
}

fn nullable(pointer: &str) -> Expected {
    diff(pointer, Some(json!(true)), None, Why::NullableWithoutEffect)
}

const SPEC: &str = "/spec/versions/0/schema/openAPIV3Schema/properties/spec";
const STATUS: &str = "/spec/versions/0/schema/openAPIV3Schema/properties/status";

/// Asserts that `kube` and `ours` differ exactly at the listed pointers, as listed.
/// `required` lists compare as sets: kube-derive sorts them, crd-derive keeps the field
/// order, and the API server reads them as sets.
fn assert_differ_only(name: &str, mut kube: Value, mut ours: Value, expected: &[Expected]) {
    sort_required(&mut kube);
    sort_required(&mut ours);
    for e in expected {
        let (p, why) = (&e.pointer, e.why);
        assert_eq!(
            kube.pointer(p),
            e.kube.as_ref(),
            "{name}: kube-derive at {p} ({why:?})"
        );
        assert_eq!(
            ours.pointer(p),
            e.ours.as_ref(),
            "{name}: crd-derive at {p} ({why:?})"
        );
        let (parent, key) = p.rsplit_once('/').expect("a pointer below the root");
        match (kube.pointer_mut(parent), &e.ours) {
            (Some(Value::Object(map)), Some(v)) => {
                map.insert(key.to_string(), v.clone());
            }
            (Some(Value::Object(map)), None) => {
                map.remove(key);
            }
            (Some(Value::Array(items)), Some(v)) => {
                items[key.parse::<usize>().expect("an index")] = v.clone()
            }
            (parent, _) => panic!("{name}: cannot edit {parent:?} at {p}"),
        }
    }
    let mut unlisted = Vec::new();
    differences(&kube, &ours, String::new(), &mut unlisted);
    assert!(
        unlisted.is_empty(),
        "{name}: the CRDs differ beyond the listed differences:\n{}",
        unlisted.join("\n")
    );
}

fn sort_required(v: &mut Value) {
    match v {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                if let (true, Value::Array(items)) = (key == "required", &mut *v) {
                    items.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
                } else {
                    sort_required(v);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(sort_required),
        _ => {}
    }
}

/// The JSON pointers where `a` and `b` differ, with both values.
fn differences(a: &Value, b: &Value, at: String, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for key in x.keys().chain(y.keys().filter(|k| !x.contains_key(*k))) {
                let at = format!("{at}/{}", key.replace('~', "~0").replace('/', "~1"));
                match (x.get(key), y.get(key)) {
                    (Some(a), Some(b)) => differences(a, b, at, out),
                    (a, b) => out.push(format!("{at}: kube-derive {a:?}, crd-derive {b:?}")),
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (a, b)) in x.iter().zip(y).enumerate() {
                differences(a, b, format!("{at}/{i}"), out);
            }
        }
        _ if a != b => out.push(format!("{at}: kube-derive {a}, crd-derive {b}")),
        _ => {}
    }
}

fn json_of(crd: impl serde::Serialize) -> Value {
    serde_json::to_value(crd).expect("a CRD serializes")
}

/// kube-derive's CRD of `K`, as JSON.
fn kube_crd<K: kube::CustomResourceExt>() -> Value {
    json_of(K::crd())
}

/// crd-derive's CRD of `K`, checked as the API server would.
fn our_crd<K: crd_runtime::CustomResourceExt>() -> CustomResourceDefinition {
    let crd = K::crd();
    crd_runtime::assert_valid_crd(&crd);
    crd
}

/// kube-derive's CRD in crd-runtime's model (the API server's).
fn as_ours(kube: &Value) -> CustomResourceDefinition {
    serde_json::from_value(kube.clone()).expect("kube-derive's CRD reads as a CRD")
}

/// The API server's create-time checks of a CRD, as strings.
fn refusals(crd: &Value) -> Vec<String> {
    validate_crd(&as_ours(crd), &CheckOptions::v1_create()).strings()
}

#[test]
fn crd_derive_example() {
    let kube = kube_crd::<original::crd_derive::FooCrd>();
    let ours = json_of(our_crd::<port::crd_derive::FooCrd>());
    assert_differ_only(
        "crd_derive.rs",
        kube,
        ours,
        &[
            diff(
                "/spec/versions/0/selectableFields/0/jsonPath",
                Some(json!("spec.name")),
                Some(json!(".spec.name")),
                Why::RefusedJsonPath,
            ),
            diff(
                "/spec/versions/0/subresources/scale",
                Some(
                    json!({"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}),
                ),
                None,
                Why::ScaleToNoField,
            ),
            nullable(&format!("{SPEC}/properties/info/nullable")),
            nullable(&format!("{STATUS}/nullable")),
        ],
    );
}

#[test]
fn crd_derive_schema_example() {
    let kube = kube_crd::<original::crd_derive_schema::Foo>();
    let ours = json_of(our_crd::<port::crd_derive_schema::Foo>());
    assert_differ_only(
        "crd_derive_schema.rs",
        kube,
        ours,
        &[
            u32_node(
                &format!("{SPEC}/properties/defaultListable/items"),
                "uint32",
            ),
            u32_node(&format!("{SPEC}/properties/setListable/items"), "u32"),
        ],
    );
}

#[test]
fn crd_api_example() {
    let kube = kube_crd::<original::crd_api::Foo>();
    let ours = json_of(our_crd::<port::crd_api::Foo>());
    assert_differ_only(
        "crd_api.rs",
        kube,
        ours,
        &[nullable(&format!("{STATUS}/nullable"))],
    );
}

#[test]
fn crd_derive_multi_example() {
    use kube::CustomResourceExt as _;
    use original::crd_derive_multi as o;
    use port::crd_derive_multi as p;
    let kube = kube::core::crd::merge_crds(
        vec![o::v1::ManyDerive::crd(), o::v2::ManyDerive::crd()],
        "v1",
    )
    .expect("kube merges the versions");
    let ours = crd_runtime::merge_versions(&[
        // Each version alone is not a valid CRD (v2 is not the storage version).
        <p::v1::ManyDerive as crd_runtime::CustomResourceExt>::crd(),
        <p::v2::ManyDerive as crd_runtime::CustomResourceExt>::crd(),
    ])
    .expect("crd-runtime merges the versions");
    crd_runtime::assert_valid_crd(&ours);
    let mut expected = vec![u32_node(&format!("{SPEC}/properties/oldprop"), "uint32")];
    for v in ["0", "1"] {
        let status = STATUS.replace("/0/", &format!("/{v}/"));
        expected.push(nullable(&format!("{status}/nullable")));
        expected.push(nullable(&format!("{status}/properties/condition/nullable")));
    }
    let v2_spec = SPEC.replace("/0/", "/1/");
    expected.push(nullable(&format!("{v2_spec}/properties/extra/nullable")));
    assert_differ_only(
        "crd_derive_multi.rs",
        json_of(kube),
        json_of(ours),
        &expected,
    );
}

/// `docs/examples/kube-derive-foo-crd.yaml` is kube-derive's CRD for crd_derive.rs, for
/// `crd-gen check` in docs/migrate-from-kube-derive.md (`UPDATE_GOLDEN=1` rewrites it).
#[test]
fn kube_derive_crd_in_docs_is_current() {
    crd_runtime::Manifest::new()
        .crd(as_ours(&kube_crd::<original::crd_derive::FooCrd>()))
        .assert_file_matches(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../docs/examples/kube-derive-foo-crd.yaml"
        ));
}

/// `Why::RefusedJsonPath`, and that it is the only refusal: every other kube-derive CRD
/// here passes the API server's checks (structural schema included).
#[test]
fn selectable_field_is_refused() {
    assert_eq!(
        refusals(&kube_crd::<original::crd_derive::FooCrd>()),
        [
            r#"spec.versions[0].selectableFields[0].jsonPath: Invalid value: "spec.name": is an invalid path: expected [ or . but got: spec"#
        ]
    );
    for crd in [
        kube_crd::<original::crd_derive_schema::Foo>(),
        kube_crd::<original::crd_api::Foo>(),
        kube_crd::<original::crd_derive_multi::v1::ManyDerive>(),
        kube_crd::<original::crd_derive_multi::v2::ManyDerive>(),
    ] {
        assert_eq!(refusals(&crd), Vec::<String>::new());
    }
}

fn many_derive(oldprop: Value) -> Value {
    json!({
        "apiVersion": "kube.rs/v1",
        "kind": "ManyDerive",
        "metadata": {"name": "big", "namespace": "default"},
        "spec": {"name": "n", "oldprop": oldprop},
    })
}

/// `Why::U32WithoutMaximum`: the API server admits 2^32 under kube-derive's schema, and
/// the Rust type cannot read the stored object; crd-derive's schema refuses it.
#[test]
fn u32_admits_what_the_type_cannot_read() {
    let kube = as_ours(&kube_crd::<original::crd_derive_multi::v1::ManyDerive>());
    let kube = Engine::for_crd(&kube, "v1").expect("kube-derive's schema compiles");
    let mut stored = many_derive(json!(4294967296u64));
    kube.admit(&mut stored)
        .expect("the API server admits it under kube-derive's schema");
    let read = serde_json::from_value::<original::crd_derive_multi::v1::ManyDerive>(stored);
    assert!(read.unwrap_err().to_string().contains("4294967296"));

    let ours = Engine::for_crd(&our_crd::<port::crd_derive_multi::v1::ManyDerive>(), "v1").unwrap();
    let errors = ours
        .admit(&mut many_derive(json!(4294967296u64)))
        .unwrap_err();
    assert_eq!(
        errors.strings(),
        [
            "spec.oldprop: Invalid value: 4294967296: spec.oldprop in body should be less than or equal to 4294967295"
        ]
    );
    // Both read the largest u32.
    let mut max = many_derive(json!(u32::MAX));
    ours.admit(&mut max).unwrap();
    serde_json::from_value::<port::crd_derive_multi::v1::ManyDerive>(max).unwrap();
}

/// `Why::NullableWithoutEffect`: under kube-derive's schema the API server stores the
/// `null`, under crd-derive's it drops it; the Rust type reads both the same.
#[test]
fn nullable_keeps_nulls_read_as_absent() {
    let object = json!({
        "apiVersion": "clux.dev/v1",
        "kind": "Foo",
        "metadata": {"name": "a", "namespace": "default"},
        "spec": {"name": "a", "info": null},
    });
    let kube = as_ours(&kube_crd::<original::crd_derive::FooCrd>());
    let mut under_kube = object.clone();
    Engine::for_crd(&kube, "v1")
        .unwrap()
        .admit(&mut under_kube)
        .unwrap();
    assert_eq!(under_kube["spec"], json!({"name": "a", "info": null}));

    let mut under_ours = object;
    Engine::for_crd(&our_crd::<port::crd_derive::FooCrd>(), "v1")
        .unwrap()
        .admit(&mut under_ours)
        .unwrap();
    assert_eq!(under_ours["spec"], json!({"name": "a"}));

    let a: original::crd_derive::FooCrd = serde_json::from_value(under_kube).unwrap();
    let b: original::crd_derive::FooCrd = serde_json::from_value(under_ours).unwrap();
    assert_eq!(a.spec, b.spec);
    // And the Rust side never writes the null (`skip_serializing_if`).
    assert_eq!(serde_json::to_value(&a.spec).unwrap(), json!({"name": "a"}));
}

/// `Why::ScaleToNoField`: what `kubectl scale` writes at `.spec.replicas` (the API server
/// sets the path, then admits the object as an update) is pruned under kube-derive's
/// schema, so the scale stays unset.
#[test]
fn scale_path_to_no_field_is_pruned() {
    let kube = as_ours(&kube_crd::<original::crd_derive::FooCrd>());
    let old = json!({
        "apiVersion": "clux.dev/v1",
        "kind": "Foo",
        "metadata": {"name": "a", "namespace": "default"},
        "spec": {"name": "a"},
    });
    let mut scaled = old.clone();
    scaled["spec"]["replicas"] = json!(3);
    Engine::for_crd(&kube, "v1")
        .unwrap()
        .admit_update(&mut scaled, &old)
        .unwrap();
    assert_eq!(scaled["spec"], json!({"name": "a"}));
}
