//! Loading from tapes ([`tape::load_crds`], the first try of [`load_crds`]) gives the
//! models of the value path, and leaves to it what it does not take.

use serde_json::json;

use super::yaml_scan_tests::manifest_dirs;
use super::*;

/// The value path: parse to values, then type.
fn by_values(text: &str) -> Result<LoadedCrds, LoadError> {
    crds_from_documents("m.yaml", parse_documents("m.yaml", text)?)
}

#[test]
fn every_corpus_and_fixture_manifest_loads_from_tapes_like_from_values() {
    for (dir, files) in manifest_dirs() {
        let mut from_tapes = 0;
        for path in &files {
            let text = std::fs::read_to_string(path).unwrap();
            let Some(loaded) = tape::load_crds(&text) else {
                // Only fixtures may be left to the value path (lists, errors).
                assert!(
                    dir == "fixtures",
                    "{}: not loaded from tapes",
                    path.display()
                );
                continue;
            };
            from_tapes += 1;
            assert!(
                by_values(&text).as_ref() == Ok(&loaded),
                "{}: tapes and values differ",
                path.display()
            );
        }
        // Every corpus manifest; most fixtures.
        let min = if dir == "fixtures" { 5 } else { files.len() };
        assert!(
            from_tapes >= min,
            "{dir}: only {from_tapes} loaded from tapes"
        );
    }
}

fn manifest(kind: &str, schema: serde_json::Value) -> String {
    to_yaml(&json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": kind,
        "metadata": {"name": "foos.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": "Foo", "plural": "foos"},
            "scope": "Namespaced",
            "versions": [{"name": "v1", "served": true, "storage": true,
                          "schema": {"openAPIV3Schema": schema}}]
        }
    }))
    .unwrap()
}

#[test]
fn what_tapes_do_not_take_is_left_to_the_value_path() {
    let good = manifest("CustomResourceDefinition", json!({"type": "object"}));
    assert!(tape::load_crds(&good).is_some());
    // A conversion error: the value path names the field.
    let bad = manifest("CustomResourceDefinition", json!({"type": 7}));
    assert_eq!(tape::load_crds(&bad), None);
    let err = load_crds("m.yaml", &bad).unwrap_err().to_string();
    assert!(err.contains("openAPIV3Schema.type"), "{err}");
    // JSON text, list documents and carriage returns.
    let as_json = serde_json::to_string(&parse_documents("m.yaml", &good).unwrap()[0]).unwrap();
    assert_eq!(tape::load_crds(&as_json), None);
    let list = format!(
        "apiVersion: v1\nkind: List\nitems:\n- {}",
        good.replace('\n', "\n  ")
    );
    assert_eq!(tape::load_crds(&list), None);
    assert_eq!(load_crds("m.yaml", &list).unwrap().crds.len(), 1);
    assert_eq!(tape::load_crds(&good.replace('\n', "\r\n")), None);
    // Documents that are not CRDs are listed as skipped, as on the value path.
    let mixed =
        format!("{good}---\napiVersion: v1\nkind: ConfigMap\n---\n- 1\n---\nnull\n---\n{good}");
    let loaded = tape::load_crds(&mixed).expect("from tapes");
    assert_eq!(Ok(&loaded), by_values(&mixed).as_ref());
    assert_eq!(loaded.crds.len(), 2);
    assert_eq!(loaded.skipped.len(), 2);
}

#[test]
fn deep_documents_are_typed_from_tapes_on_a_big_stack() {
    // The document, spec, versions, the version, schema: 5 levels above the schema,
    // which nests `items` down to a leaf mapping.
    // Built and written on a sized stack: `json!` copies and `to_yaml` recurse.
    let text = crate::depth::with_stack_for(crate::depth::MAX_DEPTH, || {
        let schema = (0..MAX_DEPTH - 6).fold(json!({"type": "string"}), |inner, _| {
            let mut m = serde_json::Map::new();
            m.insert("type".into(), json!("array"));
            m.insert("items".into(), inner);
            serde_json::Value::Object(m)
        });
        manifest("CustomResourceDefinition", schema)
    });
    let tapes = yaml_scan::parse_tapes(&text).unwrap();
    assert_eq!(tapes[0].depth, MAX_DEPTH);
    // A 2 MiB thread, as tests and many callers have.
    let small = text.clone();
    let loaded = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || tape::load_crds(&small).map(|l| l.crds.len()))
        .unwrap()
        .join()
        .expect("no stack overflow");
    assert_eq!(loaded, Some(1));
    // Comparing (and dropping) the models recurses too: on a big stack.
    let same = on_big_stack(move || tape::load_crds(&text).map(Ok) == Some(by_values(&text)));
    assert_eq!(same.ok(), Some(true));
}

#[test]
fn duplicate_keys_are_refused_as_by_the_value_reader() {
    for text in [
        "a: 1\na: 2\n",
        "m:\n  abcdefgXz: 1\n  b: 2\n  abcdefgXz: 3\n",
        "- k: 1\n  \"k\": 2\n",
    ] {
        assert_eq!(yaml_scan::parse(text), None, "{text:?}");
        assert!(yaml_scan::parse_tapes(text).is_none(), "{text:?}");
    }
    // Same length, first and last bytes: different keys.
    let text = "abcdefgXz: 1\nabcdefgYz: 2\nnested:\n  abcdefgXz: 3\n";
    let tapes = yaml_scan::parse_tapes(text).expect("no duplicates");
    let value: serde_json::Value =
        tape::from_events(tapes.into_iter().next().unwrap().events).unwrap();
    assert_eq!(Some(vec![value]), yaml_scan::parse(text));
}
