//! The fast YAML builder against serde-saphyr: same values for everything it accepts.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::yaml_fast::{self, Plain, resolve_plain};
use super::yaml_scan_tests::{manifest_dirs, saphyr};
use super::{LoadError, MAX_DEPTH, parse_documents};

/// Asserts the fast path takes `text` and agrees with serde-saphyr; returns the values.
fn fast_agrees(text: &str) -> Vec<Value> {
    let fast = yaml_fast::parse(text).unwrap_or_else(|| panic!("fast path refused {text:?}"));
    assert_eq!(Ok(fast.clone()), saphyr(text), "{text:?}");
    fast
}

/// Asserts the fast path refuses `text`, so `parse_documents` gives serde-saphyr's result.
fn falls_back(text: &str) {
    assert_eq!(yaml_fast::parse(text), None, "{text:?}");
    assert_eq!(parse_documents("t.yaml", text), saphyr(text), "{text:?}");
}

/// Whatever the fast path returns must be what serde-saphyr returns.
fn consistent(text: &str) -> Result<(), TestCaseError> {
    if let Some(fast) = yaml_fast::parse(text) {
        prop_assert_eq!(Ok(fast), saphyr(text), "{:?}", text);
    }
    Ok(())
}

fn value_of(scalar: &str) -> Value {
    fast_agrees(&format!("k: {scalar}\n"))[0]["k"].clone()
}

#[test]
fn plain_scalars_resolve_like_serde_saphyr() {
    let cases = [
        ("~", json!(null)),
        ("null", json!(null)),
        ("Null", json!(null)),
        ("NULL", json!(null)),
        ("nULL", json!("nULL")),
        ("", json!(null)),
        ("true", json!(true)),
        ("True", json!(true)),
        ("TRUE", json!(true)),
        ("tRuE", json!(true)),
        ("yes", json!(true)),
        ("on", json!(true)),
        ("y", json!(true)),
        ("N", json!(false)),
        ("off", json!(false)),
        ("no", json!(false)),
        ("0x1F", json!(31)),
        ("0X1f", json!(31)),
        ("0o17", json!(15)),
        ("0b101", json!(5)),
        // Upper-case prefixes are integers too, as Go's strconv (base 0) reads them
        // for Kubernetes' YAML decoder; serde-saphyr 2.2 made them strings, so an
        // upgrade must not slip in unnoticed (FUZZING.md).
        ("0O17", json!(15)),
        ("0B101", json!(5)),
        ("017", json!(17.0)),
        ("-017", json!(-17.0)),
        ("0", json!(0)),
        ("+5", json!(5)),
        ("-5", json!(-5)),
        ("-0", json!(0)),
        ("1_000", json!(1000)),
        ("1__000", json!("1__000")),
        ("_1", json!("_1")),
        ("0x_1F", json!("0x_1F")),
        ("1e3", json!(1000.0)),
        ("1.5", json!(1.5)),
        (".5", json!(0.5)),
        ("-.5e-3", json!(-0.0005)),
        ("1.", json!(1.0)),
        ("inf", json!("inf")),
        ("nan", json!("nan")),
        ("Infinity", json!("Infinity")),
        ("18446744073709551615", json!(u64::MAX)),
        ("18446744073709551616", json!(18446744073709551616.0)),
        ("-9223372036854775808", json!(i64::MIN)),
        ("-9223372036854775809", json!(-9223372036854775809.0)),
        ("0x10000000000000000", json!("0x10000000000000000")),
        ("1.2.3", json!("1.2.3")),
        ("v1", json!("v1")),
        ("1Gi", json!("1Gi")),
    ];
    for (scalar, want) in cases {
        assert_eq!(value_of(scalar), want, "{scalar:?}");
    }
}

#[test]
fn non_finite_floats_are_left_to_serde_saphyr() {
    for scalar in [".inf", "-.Inf", "+.INF", ".nan", ".NaN", "1e999", "-9e400"] {
        assert_eq!(resolve_plain(scalar), None, "{scalar:?}");
        falls_back(&format!("k: {scalar}\n"));
    }
    assert_eq!(resolve_plain("word"), Some(Plain::Str));
}

#[test]
fn quoted_and_block_scalars_are_strings() {
    let docs = fast_agrees(
        "a: \"quoted\"\nb: 'single'\nc: \"true\"\nd: '~'\ne: \"\"\nf: '12'\n\
         g: |\n  line\n  next\n\nh: >\n  folded\n  text\n\ni: |-\n  strip\n\n\
         j: |+\n  keep\n\nk: >-\n  x\nl: \"esc\\t\\u00e9\"\nm: 'it''s'\n",
    );
    let v = &docs[0];
    assert_eq!(v["c"], json!("true"));
    assert_eq!(v["d"], json!("~"));
    assert_eq!(v["f"], json!("12"));
    assert_eq!(v["g"], json!("line\nnext\n"));
    assert_eq!(v["h"], json!("folded text\n"));
    assert_eq!(v["i"], json!("strip"));
    assert_eq!(v["j"], json!("keep\n\n"));
}

#[test]
fn empty_values_and_documents() {
    let docs = fast_agrees("a:\nb: []\nc: {}\nd: ''\n---\n---\n~\n---\n- \n- x\n...\n");
    assert_eq!(
        docs,
        vec![
            json!({"a": null, "b": [], "c": {}, "d": ""}),
            json!([null, "x"])
        ]
    );
    assert_eq!(fast_agrees(""), Vec::<Value>::new());
    assert_eq!(fast_agrees("# only a comment\n"), Vec::<Value>::new());
    assert_eq!(fast_agrees("--- \"\"\n"), vec![json!("")]);
    assert_eq!(fast_agrees("--- 5\n"), vec![json!(5)]);
}

#[test]
fn keys() {
    let docs = fast_agrees("\"1\": a\n'true': b\nname: c\n\"~\": d\nv1.x: e\n");
    assert_eq!(docs[0]["1"], json!("a"));
    assert_eq!(docs[0]["true"], json!("b"));
    // Keys that resolve to something else than a string, merge keys, complex keys and
    // duplicates (in any spelling) are serde-saphyr's business.
    for text in [
        "1: a\n",
        "true: a\n",
        "on: a\n",
        "~: a\n",
        "null: a\n",
        "1.5: a\n",
        "? [a]\n: b\n",
        "? {a: 1}\n: b\n",
        "a: 1\na: 2\n",
        "a: 1\n\"a\": 2\n",
        "b: &x {c: 1}\nd:\n  <<: *x\n",
        "'<<': 1\n",
    ] {
        falls_back(text);
    }
}

#[test]
fn anchors_tags_and_directives_fall_back() {
    for text in [
        "a: &x 1\nb: *x\n",
        "a: !!str 5\n",
        "a: !custom x\n",
        "a: !!binary aGk=\n",
        "--- !!map\na: 1\n",
        "a: !!null ''\n",
        "%YAML 1.1\n---\na: yes\n",
        "a: !!float 1\n",
    ] {
        falls_back(text);
    }
}

#[test]
fn errors_fall_back_with_serde_saphyr_messages() {
    for text in [
        "a: [1, 2\nb: c\n",
        "a: b: c\n",
        "a:\n  - x\n - y\n",
        "\"open\n",
    ] {
        falls_back(text);
        assert!(parse_documents("t.yaml", text).is_err(), "{text:?}");
    }
}

#[test]
fn nesting_limit_matches() {
    for depth in MAX_DEPTH - 2..=MAX_DEPTH + 2 {
        let flow = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
        let block: String = (0..depth)
            .map(|i| format!("{}a:\n", " ".repeat(i)))
            .collect();
        for text in [flow, block] {
            let fast = yaml_fast::parse(&text);
            let slow = saphyr(&text);
            if depth <= MAX_DEPTH {
                assert_eq!(fast.map(Ok), Some(slow), "depth {depth}");
            } else {
                assert_eq!(fast, None, "depth {depth}");
                let err = slow.unwrap_err().to_string();
                assert!(
                    err.contains("document nests deeper than 128 levels"),
                    "{err}"
                );
            }
        }
    }
}

#[test]
fn corpus_and_fixtures_agree_with_serde_saphyr() {
    for (dir, files) in manifest_dirs() {
        let mut refused = Vec::new();
        for path in &files {
            let text = std::fs::read_to_string(path).unwrap();
            let slow = saphyr(&text);
            match yaml_fast::parse(&text) {
                Some(fast) => assert!(
                    slow.as_ref() == Ok(&fast),
                    "{}: fast path differs from serde-saphyr ({})",
                    path.display(),
                    slow.as_ref()
                        .map_or_else(|e| e.to_string(), |_| "values".into())
                ),
                None => refused.push(path.display().to_string()),
            }
        }
        // Every real manifest is in the fast path's subset.
        assert!(refused.is_empty(), "{dir}: fast path refused {refused:#?}");
    }
}

/// Plain-scalar-ish text, biased towards the characters that matter for resolution.
fn scalar_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[-+._0-9a-fA-FxXoObB]{1,8}",
        "[-+.0-9eE]{1,6}",
        "(~|null|Null|NULL|true|True|TRUE|yes|Yes|on|ON|off|n|Y|no)",
        "[a-zA-Z][a-zA-Z0-9 ._/-]{0,10}[a-zA-Z0-9]",
        "[0-9]{18,22}",
        "-?(0x|0o|0b)?[0-9a-f_]{1,20}",
    ]
}

/// A scalar as written in YAML: plain, or quoted.
fn written_scalar() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => scalar_text(),
        1 => scalar_text().prop_map(|s| format!("\"{s}\"")),
        1 => scalar_text().prop_map(|s| format!("'{s}'")),
    ]
}

#[derive(Debug, Clone)]
enum Node {
    Scalar(String),
    Seq(Vec<Node>),
    Map(Vec<(String, Node)>),
}

fn node() -> impl Strategy<Value = Node> {
    let leaf = written_scalar().prop_map(Node::Scalar);
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Node::Seq),
            prop::collection::vec((written_scalar(), inner), 0..4).prop_map(Node::Map),
        ]
    })
}

/// Block style, with flow style for empty containers.
fn render(node: &Node, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    match node {
        Node::Scalar(s) => {
            out.push(' ');
            out.push_str(s);
            out.push('\n');
        }
        Node::Seq(items) if items.is_empty() => out.push_str(" []\n"),
        Node::Map(entries) if entries.is_empty() => out.push_str(" {}\n"),
        Node::Seq(items) => {
            out.push('\n');
            for item in items {
                out.push_str(&format!("{pad}-"));
                render(item, indent + 2, out);
            }
        }
        Node::Map(entries) => {
            out.push('\n');
            for (key, value) in entries {
                out.push_str(&format!("{pad}{key}:"));
                render(value, indent + 2, out);
            }
        }
    }
}

/// The random documents below mostly take the fast path, so their agreement checks
/// are not vacuous.
#[test]
fn random_documents_mostly_take_the_fast_path() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = node();
    let mut taken = 0;
    for _ in 0..200 {
        let mut text = String::from("root:");
        render(
            &strategy.new_tree(&mut runner).unwrap().current(),
            2,
            &mut text,
        );
        taken += usize::from(yaml_fast::parse(&text).is_some());
    }
    assert!(taken >= 100, "only {taken} of 200 took the fast path");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_plain_scalars_agree(s in scalar_text()) {
        consistent(&format!("k: {s}\n"))?;
        consistent(&format!("- {s}\n"))?;
        consistent(&format!("{s}: v\n"))?;
        consistent(&format!("[{s}, \"{s}\"]\n"))?;
    }

    #[test]
    fn random_documents_agree(root in node(), second in node()) {
        let mut text = String::from("root:");
        render(&root, 2, &mut text);
        text.push_str("---\nnext:");
        render(&second, 2, &mut text);
        consistent(&text)?;
    }
}

#[test]
fn typed_conversion_keeps_path_errors() {
    use crate::model::CustomResourceDefinition;
    let doc = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "x"},
        "spec": {"group": "g", "names": {"kind": "K", "plural": "ks"}, "scope": "Namespaced",
                 "versions": [{"name": "v1", "served": "maybe", "storage": true}]}
    });
    let want =
        serde_path_to_error::deserialize::<_, CustomResourceDefinition>(doc.clone()).unwrap_err();
    match super::from_value::<CustomResourceDefinition>("s", 0, doc) {
        Err(LoadError::Field { path, message, .. }) => {
            assert_eq!(path, want.path().to_string());
            assert_eq!(message, want.inner().to_string());
        }
        other => panic!("unexpected {other:?}"),
    }
}
