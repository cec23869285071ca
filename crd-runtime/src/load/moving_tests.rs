//! Typing while moving the parsed values ([`load_crds`], [`load_crds_bytes`]) gives
//! the same models and the same errors (field path and message) as typing by
//! reference ([`crds_from_documents`]): on a failure the text is parsed again.

use serde_json::{Value, json};

use super::*;

/// The reference: parse, then type by reference.
fn by_reference(text: &str) -> Result<LoadedCrds, LoadError> {
    crds_from_documents("m.yaml", parse_documents("m.yaml", text)?)
}

fn agree(text: &str) -> Result<LoadedCrds, LoadError> {
    let moved = load_crds("m.yaml", text);
    assert_eq!(moved, by_reference(text), "{text}");
    assert_eq!(load_crds_bytes("m.yaml", text.as_bytes()), moved);
    moved
}

fn crd(name: &str, served: Value, schema: Value) -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{name}s.example.com")},
        "spec": {
            "group": "example.com",
            "names": {"kind": name, "plural": format!("{name}s")},
            "scope": "Namespaced",
            "versions": [{"name": "v1", "served": served, "storage": true,
                          "schema": {"openAPIV3Schema": schema}}]
        }
    })
}

fn yaml(docs: &[Value]) -> String {
    to_yaml_documents(docs).expect("serializable")
}

/// An object schema nesting `depth` levels of `a`, with `leaf` at the bottom.
fn nested(depth: usize, leaf: Value) -> Value {
    (0..depth).fold(
        leaf,
        |inner, _| json!({"type": "object", "properties": {"a": inner}}),
    )
}

#[test]
fn good_manifests_load_the_same() {
    let schema =
        json!({"type": "object", "description": "d", "properties": {"spec": {"type": "string"}}});
    let loaded = agree(&yaml(&[
        crd("Foo", json!(true), schema.clone()),
        json!({"apiVersion": "v1", "kind": "ConfigMap"}),
        crd("Bar", json!(false), nested(45, json!({"type": "string"}))),
    ]))
    .expect("valid");
    assert_eq!(loaded.crds.len(), 2);
    assert_eq!(loaded.skipped.len(), 1);
    let list = json!({"apiVersion": "v1", "kind": "List",
                      "items": [crd("Foo", json!(true), schema.clone()), crd("Baz", json!(true), schema)]});
    assert_eq!(agree(&yaml(&[list])).expect("valid").crds.len(), 2);
}

#[test]
fn errors_name_the_same_field_and_document() {
    let schema = json!({"type": "object"});
    let bad_served = crd("Bad", json!("maybe"), schema.clone());
    let bad_deep = crd(
        "Deep",
        json!(true),
        nested(45, json!({"type": "string", "minLength": "x"})),
    );
    for docs in [
        vec![crd("Ok", json!(true), schema.clone()), bad_served.clone()],
        vec![json!({"apiVersion": "v1", "kind": "List",
                    "items": [crd("Ok", json!(true), schema.clone()), bad_served]})],
        vec![crd("Ok", json!(true), schema), bad_deep],
    ] {
        let err = agree(&yaml(&docs)).expect_err("invalid");
        match &err {
            LoadError::Field { document, path, .. } => {
                assert!(*document <= 1, "{err}");
                assert!(!path.is_empty(), "the field is named: {err}");
            }
            other => panic!("not a field error: {other}"),
        }
    }
}

#[test]
fn without_a_reload_the_message_is_kept() {
    let doc = crd("Bad", json!("maybe"), json!({"type": "object"}));
    let err =
        from_value_moving::<crate::model::CustomResourceDefinition>("m.yaml", 3, doc, &|| None)
            .expect_err("invalid");
    match err {
        LoadError::Field {
            document,
            path,
            message,
            ..
        } => {
            assert_eq!((document, path.as_str()), (3, ""));
            assert!(
                message.contains("maybe") || message.contains("boolean"),
                "{message}"
            );
        }
        other => panic!("not a field error: {other}"),
    }
}
