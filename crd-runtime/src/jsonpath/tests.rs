//! Evaluation as the server's table printer and scale subresource use it (ported from
//! crd-server's own copy), and the parser's errors.

use serde_json::{Value, json};

use super::*;

fn obj() -> Value {
    json!({"spec": {"cronSpec": "* * * * */5", "list": [1, 2], "a.b": 3, "replicas": 2},
        "status": {"conditions": [{"type": "Ready", "status": "True"},
                                  {"type": "Other", "status": "False"},
                                  {"status": "Unknown"}]}})
}

fn found(p: &str) -> Vec<Value> {
    let obj = obj();
    JsonPath::parse(p)
        .unwrap()
        .find(&obj)
        .into_iter()
        .cloned()
        .collect()
}

#[test]
fn printer_column_paths() {
    assert_eq!(found(".spec.cronSpec"), [json!("* * * * */5")]);
    assert_eq!(found("{.spec.list[1]}"), [json!(2)]);
    assert_eq!(found(".spec.list[-1]"), [json!(2)]);
    assert!(found(".spec.list[5]").is_empty());
    assert!(found(".spec.list[-3]").is_empty());
    assert_eq!(found(".spec.list[*]"), [json!(1), json!(2)]);
    assert_eq!(found(".spec['a.b']"), [json!(3)]);
    assert_eq!(found(r#".spec["a.b"]"#), [json!(3)]);
    assert_eq!(found("spec.replicas"), [json!(2)]);
    assert_eq!(found(" { .spec.replicas } "), [json!(2)]);
    assert!(found(".spec.missing.deeper").is_empty());
    assert!(found(".spec.list.x").is_empty());
    assert_eq!(found(""), [obj()]);
}

#[test]
fn filters() {
    assert_eq!(
        found(r#".status.conditions[?(@.type=="Ready")].status"#),
        [json!("True")]
    );
    assert_eq!(
        found(".status.conditions[?(@.type == 'Other')].status"),
        [json!("False")]
    );
    // `!=` keeps the items without the field; `==` never does.
    assert_eq!(
        found(r#".status.conditions[?(@.type!="Ready")].status"#),
        [json!("False"), json!("Unknown")]
    );
    // Non-strings compare as they print.
    let obj = json!({"items": [{"n": 1, "v": "a"}, {"n": 2, "v": "b"}]});
    let p = JsonPath::parse("{.items[?(@.n==2)].v}").unwrap();
    assert_eq!(p.find(&obj), [&json!("b")]);
    // A quoted `]` does not close the bracket.
    let obj = json!({"items": [{"k": "a]b", "v": 1}]});
    let p = JsonPath::parse(r#".items[?(@.k=="a]b")].v"#).unwrap();
    assert_eq!(p.find(&obj), [&json!(1)]);
}

#[test]
fn text_prints_like_the_jsonpath_printer() {
    let obj = obj();
    let text = |p: &str| JsonPath::parse(p).unwrap().text(&obj);
    assert_eq!(text(".spec.list[*]").as_deref(), Some("1 2"));
    assert_eq!(
        text(".status.conditions[*].status").as_deref(),
        Some("True False Unknown")
    );
    assert_eq!(text(".spec.list").as_deref(), Some("[1,2]"));
    assert_eq!(text(".spec.nothing"), None);
}

#[test]
fn fields_of_a_plain_path() {
    assert_eq!(
        JsonPath::parse(".spec.replicas").unwrap().fields(),
        Some(vec!["spec", "replicas"])
    );
    assert_eq!(
        JsonPath::parse(".spec['a.b']").unwrap().fields(),
        Some(vec!["spec", "a.b"])
    );
    assert_eq!(JsonPath::parse(".spec.list[0]").unwrap().fields(), None);
}

#[test]
fn parse_errors() {
    let err = |p: &str| JsonPath::parse(p).unwrap_err().to_string();
    assert_eq!(err(".spec["), r#"unterminated [ in JSONPath ".spec[""#);
    assert_eq!(
        err(".spec..x"),
        r#"empty field name in JSONPath ".spec..x""#
    );
    assert_eq!(err(".spec."), r#"empty field name in JSONPath ".spec.""#);
    assert_eq!(err(".a[1:2]"), r#"unsupported [1:2] in JSONPath ".a[1:2]""#);
    assert_eq!(
        err(".a[?(@.x>1)]"),
        r#"unsupported [?(@.x>1)] in JSONPath ".a[?(@.x>1)]""#
    );
    assert_eq!(err(".a[0]b"), r#"unexpected "b" in JSONPath ".a[0]b""#);
    assert_eq!(err(".a]"), r#"unexpected "]" in JSONPath ".a]""#);
    assert_eq!(
        err(r".a['\q']"),
        r"invalid string literal: invalid escape sequence \q"
    );
}
