//! The text reader against serde-saphyr: same values for
//! everything it accepts, and it accepts every real manifest.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{LoadError, MAX_DEPTH, parse_documents, parse_yaml_saphyr, yaml_scan};

/// The reference result.
pub(super) fn saphyr(text: &str) -> Result<Vec<Value>, LoadError> {
    parse_yaml_saphyr("t.yaml", text)
}

/// Asserts the reader takes `text` and agrees with serde-saphyr; returns the values.
fn agrees(text: &str) -> Vec<Value> {
    let scanned = yaml_scan::parse(text).unwrap_or_else(|| panic!("reader refused {text:?}"));
    assert_eq!(Ok(scanned.clone()), saphyr(text), "{text:?}");
    scanned
}

/// Asserts the reader refuses `text`, and that `parse_documents` still gives
/// serde-saphyr's result.
fn refuses(text: &str) {
    assert_eq!(yaml_scan::parse(text), None, "{text:?}");
    assert_eq!(parse_documents("t.yaml", text), saphyr(text), "{text:?}");
}

/// Asserts each `(key, value)` of the mapping `v`.
fn assert_fields(v: &Value, want: &[(&str, Value)]) {
    for (key, value) in want {
        assert_eq!(&v[*key], value, "{key:?}");
    }
}

fn one(text: &str) -> Value {
    let mut docs = agrees(text);
    assert_eq!(docs.len(), 1, "{text:?}");
    docs.remove(0)
}

#[test]
fn block_collections() {
    assert_eq!(
        one("a: 1\nb:\n  c: x\n  d:\n  - 1\n  - two\ne:\n- f: 1\n  g: [2]\n- - h\n  - i\n-\n"),
        json!({"a": 1, "b": {"c": "x", "d": [1, "two"]}, "e": [{"f": 1, "g": [2]}, ["h", "i"], null]})
    );
    assert_eq!(
        one("- a\n-\n- \n-   b: 1\n    c: 2\n"),
        json!(["a", null, null, {"b": 1, "c": 2}])
    );
    assert_eq!(
        one("  indented: 1\n  root: 2\n"),
        json!({"indented": 1, "root": 2})
    );
    assert_eq!(
        one("a:\n    deep: 1\nb: 2\n"),
        json!({"a": {"deep": 1}, "b": 2})
    );
    assert_eq!(one("- - - x\n    - w\n  - z\n"), json!([[["x", "w"], "z"]]));
    assert_eq!(one("a:\n# between\n  b: 1\n"), json!({"a": {"b": 1}}));
}

#[test]
fn empty_values() {
    assert_eq!(
        one("a:\nb:   \nc: # note\nd: ''\n"),
        json!({"a": null, "b": null, "c": null, "d": ""})
    );
    assert_eq!(one("- \n-\n- # x\n"), json!([null, null, null]));
    assert_eq!(one("a:\n- \n"), json!({"a": [null]}));
    assert_eq!(one("a:\n  b:\nc: 1\n"), json!({"a": {"b": null}, "c": 1}));
}

#[test]
fn documents() {
    assert_eq!(agrees(""), Vec::<Value>::new());
    assert_eq!(
        agrees("# only a comment\n  # and another\n"),
        Vec::<Value>::new()
    );
    assert_eq!(agrees("---\n---\n...\n---\n# c\n"), Vec::<Value>::new());
    assert_eq!(
        agrees("--- 5\n--- \"x\" # c\n--- [a]\n--- |\n  t\n"),
        vec![json!(5), json!("x"), json!(["a"]), json!("t\n")]
    );
    assert_eq!(
        agrees("a: 1\n...\nb: 2\n--- # c\nc: 3\n... # end\n"),
        vec![json!({"a": 1}), json!({"b": 2}), json!({"c": 3})]
    );
    assert_eq!(agrees("---\n~\n---\nnull\n--- ''\n"), vec![json!("")]);
    assert_eq!(
        agrees("plain\n--- two\n"),
        vec![json!("plain"), json!("two")]
    );
    assert_eq!(
        agrees("---\n- a\n---\n- b"),
        vec![json!(["a"]), json!(["b"])]
    );
}

#[test]
fn line_endings_bom_and_trailing_spaces() {
    assert_eq!(
        one("a: 1\r\nb:\r\n  - x  \r\nc: |\r\n  l1\r\n  l2\r\n"),
        json!({"a": 1, "b": ["x"], "c": "l1\nl2\n"})
    );
    assert_eq!(one("\u{feff}a: 1\n"), json!({"a": 1}));
    assert_eq!(
        one("a: b   \nc: 'q'   \nd:    \ne: [x]  \n"),
        json!({"a": "b", "c": "q", "d": null, "e": ["x"]})
    );
    assert_eq!(one("a: 1"), json!({"a": 1}));
    assert_eq!(one("a: x\n   "), json!({"a": "x"}));
}

#[test]
fn plain_scalars() {
    let v = one(
        "a: word and more\nb: multi\n  line\n\n  folded\n\n\n  twice\nc: x#y\nd: x # comment\n\
         e: http://x:80/y\nf: a:b\nh: -5\nj: \"q\" # c\n\
         k: trailing\n   \nl: x\n  - y\n  \"z\" 'w' [v] {u} !t &s *r\n",
    );
    assert_fields(
        &v,
        &[
            ("a", json!("word and more")),
            ("b", json!("multi line\nfolded\n\ntwice")),
            ("c", json!("x#y")),
            ("d", json!("x")),
            ("e", json!("http://x:80/y")),
            ("f", json!("a:b")),
            ("h", json!(-5)),
            ("k", json!("trailing")),
            ("l", json!("x - y \"z\" 'w' [v] {u} !t &s *r")),
        ],
    );
    // Controller-gen style: descriptions continue on more-indented lines.
    let v = one(
        "props:\n  x:\n    description: The first line\n      continues here.\n\n      New paragraph.\n    type: string\n",
    );
    assert_eq!(
        v["props"]["x"]["description"],
        json!("The first line continues here.\nNew paragraph.")
    );
    assert_eq!(one("- a\n  b\n- c\n"), json!(["a b", "c"]));
    assert_eq!(
        one("a: x\n  # comment ends it\nb: z\n"),
        json!({"a": "x", "b": "z"})
    );
}

#[test]
fn keys() {
    let v = one(
        "a:b: 1\n\"q\\\"uote\": 2\n'it''s': 3\nwith space  : 4\nx-kubernetes-int-or-string: 5\n\
         \"1\": 6\n'true': 7\n$ref: 8\nv1.x/y: 9\né: 10\n",
    );
    assert_eq!(
        v,
        json!({"a:b": 1, "q\"uote": 2, "it's": 3, "with space": 4, "x-kubernetes-int-or-string": 5,
               "1": 6, "true": 7, "$ref": 8, "v1.x/y": 9, "é": 10})
    );
    assert_eq!(
        one("- name: a\n  value: b\n- \"name\": c\n"),
        json!([{"name": "a", "value": "b"}, {"name": "c"}])
    );
}

#[test]
fn plain_scalars_resolve_as_before() {
    for (scalar, want) in [
        ("~", json!(null)),
        ("yes", json!(true)),
        ("Off", json!(false)),
        ("0x1F", json!(31)),
        ("017", json!(17.0)),
        ("1_000", json!(1000)),
        ("1e3", json!(1000.0)),
        ("-.5", json!(-0.5)),
        ("18446744073709551616", json!(18446744073709551616.0)),
        ("1Gi", json!("1Gi")),
    ] {
        assert_eq!(one(&format!("k: {scalar}\n"))["k"], want, "{scalar}");
        assert_eq!(one(&format!("- {scalar}\n"))[0], want, "{scalar}");
        assert_eq!(one(&format!("k: [{scalar}]\n"))["k"][0], want, "{scalar}");
    }
}

#[test]
fn quoted_scalars() {
    let v = one(
        "a: 'it''s'\nb: \"esc \\\" \\\\ \\/ \\t \\n \\x41 \\u00e9 \\U0001F600 \\N \\_ \\L \\P \\0 \\e \\a\"\n\
         c: 'multi\n  line\n\n  para'\nd: \"fold  \n   here\"\ne: \"escaped \\\n   break\"\n\
         f: \"keep \\\n\n  empty\"\ng: '# not a comment'\nh: \"a\\tb\\ \"\n\"quoted key\": 1\n'k: v': 2\n\
         \"\": 3\n",
    );
    assert_fields(
        &v,
        &[
            ("a", json!("it's")),
            (
                "b",
                json!("esc \" \\ / \t \n A é 😀 \u{85} \u{a0} \u{2028} \u{2029} \0 \u{1b} \u{7}"),
            ),
            ("c", json!("multi line\npara")),
            ("d", json!("fold here")),
            ("e", json!("escaped break")),
            ("f", json!("keep \nempty")),
            ("g", json!("# not a comment")),
            ("h", json!("a\tb ")),
            ("quoted key", json!(1)),
            ("k: v", json!(2)),
            ("", json!(3)),
        ],
    );
}

#[test]
fn block_scalars() {
    let v = one(
        "a: |\n  l1\n   l2\n\n  l3\nb: |-\n  x\n\n\nc: |+\n  x\n\n\nd: >\n  f1\n  f2\n\n  f3\n    more\n  f4\n\
         e: >-\n  x\n  y\nf: >+\n  x\n\ng: |2\n    two\n  one\nh: |-2\n   x\ni: |1-\n  x\nj: |  # c\n  x\n\
         k: |\n\n\n  after empties\nl: |\n  tab\there\n  \tlead\nm: >\n  a\n  \tb\n  c\n",
    );
    assert_fields(
        &v,
        &[
            ("a", json!("l1\n l2\n\nl3\n")),
            ("b", json!("x")),
            ("c", json!("x\n\n\n")),
            ("d", json!("f1 f2\nf3\n  more\nf4\n")),
            ("e", json!("x y")),
            ("f", json!("x\n\n")),
            ("g", json!("  two\none\n")),
            ("h", json!(" x")),
            ("i", json!(" x")),
            ("k", json!("\n\nafter empties\n")),
            ("l", json!("tab\there\n\tlead\n")),
        ],
    );
    assert_eq!(
        one("- |\n  item\n- >-\n  folded\n  item\n"),
        json!(["item\n", "folded item"])
    );
    assert_eq!(
        one("a: |\nb: |+\n\nc: 1\n"),
        json!({"a": "", "b": "\n", "c": 1})
    );
    assert_eq!(one("a: |\n  x"), json!({"a": "x\n"}));
    assert_eq!(one("a: |+\n  x\n\n  "), json!({"a": "x\n\n"}));
    assert_eq!(one("a: |\n  x\n #c\nb: 1\n"), json!({"a": "x\n", "b": 1}));
}

#[test]
fn flow_collections() {
    let v = one(
        "a: []\nb: {}\nc: [x, \"y\", 'z', 1, ~, true]\nd: {k: v, \"q\": [1, {m: []}], e: {}}\n\
         e: [ spaced , out ]\nf: [http://x:1/y, a:b]\n",
    );
    assert_fields(
        &v,
        &[
            ("c", json!(["x", "y", "z", 1, null, true])),
            ("d", json!({"k": "v", "q": [1, {"m": []}], "e": {}})),
            ("e", json!(["spaced", "out"])),
            ("f", json!(["http://x:1/y", "a:b"])),
        ],
    );
}

#[test]
fn refusals() {
    for text in [
        // Not in the subset: anchors, aliases, tags, directives, merge and complex keys.
        "a: &x 1\nb: *x\n",
        "a: !!str 5\n",
        "--- !!map\na: 1\n",
        "%YAML 1.1\n---\na: yes\n",
        "b: {c: 1}\nd:\n  <<: {e: 2}\n",
        "'<<': 1\n",
        "? [a]\n: b\n",
        "? a\n: b\n",
        // Keys that are not strings, duplicates.
        "1: a\n",
        "true: a\n",
        "~: a\n",
        "a: 1\na: 2\n",
        "a: 1\n\"a\": 2\n",
        "a: {b: 1, b: 2}\n",
        // Tabs outside scalar text.
        "a:\n\tb: 1\n",
        "a:\tb\n",
        "-\ta\n",
        "a: 'x\n\ty'\n",
        // Errors.
        "a: [1, 2\nb: c\n",
        "a: b: c\n",
        "a: key::\n",
        "a:\n  - x\n - y\n",
        "\"open\n",
        "a: 'x'#y\n",
        "a: \"x\" y\n",
        "a: x\n  b: y\n",
        "a: x # c\n  more\n",
        "- a\nb: 1\n",
        "a: - x\n",
        "a: |0\n  x\n",
        "a: |\n    x\n  y\n",
        "a: \"\\q\"\n",
        "a: \"\\ud800\"\n",
        "a: [x,]\n",
        "a: [x: y]\n",
        "a: {x}\n",
        "a: 'x\ny'\n",
        // Non-finite floats, lone carriage returns, control characters.
        "a: .inf\n",
        "a: 1\rb: 2\n",
        "a: \u{1}\n",
        "a: \u{feff}x\n",
        // Edges left to the full parser: multi-line flow, block scalars at the end.
        "a: [1,\n  2]\n",
        "a: |\n",
        "a: |+\n  \n",
        "--- |\nzero indent\n",
        "plain\nat column zero\n",
    ] {
        refuses(text);
    }
}

#[test]
fn depth_limit() {
    for depth in MAX_DEPTH - 2..=MAX_DEPTH + 2 {
        // Under a key: a text starting with `[` would be read as JSON.
        let flow = format!("a: {}1{}", "[".repeat(depth - 1), "]".repeat(depth - 1));
        let block: String = (0..depth)
            .map(|i| format!("{}a:\n", " ".repeat(i)))
            .collect();
        let seqs = format!("{}x\n", "- ".repeat(depth));
        for text in [flow, block, seqs] {
            let scanned = yaml_scan::parse(&text);
            if depth <= MAX_DEPTH {
                assert_eq!(scanned.map(Ok), Some(saphyr(&text)), "depth {depth}");
            } else {
                refuses(&text);
            }
        }
    }
}

/// `../shared` beside the checkout (or `CRD_TOOLKIT_SHARED`).
pub(super) fn shared() -> PathBuf {
    match std::env::var_os("CRD_TOOLKIT_SHARED") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
    }
}

/// Every `*.yaml`/`*.yml` file under `dir`.
pub(super) fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            yaml_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push(path);
        }
    }
}

/// The corpus and fixture manifests, by directory (each holding as many as expected).
pub(super) fn manifest_dirs() -> Vec<(&'static str, Vec<PathBuf>)> {
    [("corpus/crds", 300), ("fixtures", 5)]
        .into_iter()
        .map(|(dir, min)| {
            let mut files = Vec::new();
            yaml_files(&shared().join(dir), &mut files);
            assert!(files.len() >= min, "{dir}: only {} files", files.len());
            (dir, files)
        })
        .collect()
}

#[test]
fn corpus_and_fixtures_take_the_reader_with_the_same_values() {
    for (_, files) in manifest_dirs() {
        for path in &files {
            let text = std::fs::read_to_string(path).unwrap();
            let scanned = yaml_scan::parse(&text)
                .unwrap_or_else(|| panic!("{}: reader refused it", path.display()));
            assert!(
                saphyr(&text).as_ref() == Ok(&scanned),
                "{}: differs from serde-saphyr",
                path.display()
            );
        }
    }
}
