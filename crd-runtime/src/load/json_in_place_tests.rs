use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;
use crate::load::StrictValue;

/// What serde_json (with duplicate keys refused) reads from `text`.
fn by_serde(text: &str) -> Option<Value> {
    serde_json::from_str::<StrictValue>(text).ok().map(|v| v.0)
}

/// Reads `text` into `target` and checks the result against serde_json's.
fn read(reader: &mut JsonInPlace, text: &str, target: &mut Value) -> Option<usize> {
    let end = reader.read_object(text, 0, target)?;
    assert_eq!(Some(&*target), by_serde(&text[..end]).as_ref(), "{text}");
    Some(end)
}

#[test]
fn objects_of_one_shape_reuse_the_value() {
    let mut r = JsonInPlace::new();
    let mut v = Value::Null;
    let texts = [
        r#"{"kind": "A", "spec": {"n": 1, "list": [1, 2, 3], "m": {"x": "y"}}}"#,
        r#"{"spec": {"list": [4], "n": -2, "extra": true}, "kind": "B"}"#,
        r#"{"kind": {"nested": null}, "spec": []}"#,
        r#"{"kind": "A", "spec": {"n": 1.5e3, "list": [[], {}, "s"], "m": {}}}"#,
        r#"{}"#,
        r#" {"a":"\"quoted\" \u00e9 \ud83e\udd80 \n"} "#.trim_start(),
    ];
    for text in texts {
        assert!(read(&mut r, text, &mut v).is_some(), "{text}");
    }
}

/// An object of `n` keys `k0..`, with `dup` repeated at the end when given.
fn wide(n: usize, dup: Option<usize>) -> String {
    let mut entries: Vec<String> = (0..n).map(|i| format!("\"k{i}\": {i}")).collect();
    if let Some(d) = dup {
        entries.push(format!("\"k{d}\": true"));
    }
    format!("{{{}}}", entries.join(", "))
}

#[test]
fn small_and_large_maps_take_turns() {
    let mut r = JsonInPlace::new();
    let mut v = Value::Null;
    for n in [3, 20, 2, 16, 17, 64, 0, 16, 5] {
        assert!(read(&mut r, &wide(n, None), &mut v).is_some(), "{n} keys");
    }
    // Past 64 new keys in one object serde_json reads it; the next takes the large path.
    let mut v = json!({});
    assert_eq!(r.read_object(&wide(65, None), 0, &mut v), None);
    let mut v = by_serde(&wide(65, None)).unwrap();
    assert!(read(&mut r, &wide(70, None), &mut v).is_some());
    // Duplicates on both paths, of known and of new keys.
    for (before, n, dup) in [(0, 5, 2), (5, 5, 2), (5, 8, 7), (30, 30, 0), (30, 40, 35)] {
        let mut v = by_serde(&wide(before, None)).unwrap();
        assert_eq!(
            r.read_object(&wide(n, Some(dup)), 0, &mut v),
            None,
            "{before} {n} {dup}"
        );
    }
}

#[test]
fn the_end_offset_is_just_past_the_object() {
    let mut r = JsonInPlace::new();
    let mut v = Value::Null;
    let text = "{\"a\": 1}  \n{\"b\": 2}";
    assert_eq!(r.read_object(text, 0, &mut v), Some(8));
    assert_eq!(r.read_object(text, 11, &mut v), Some(text.len()));
    assert_eq!(v, json!({"b": 2}));
    assert_eq!(
        r.read_object(text, 1, &mut v),
        None,
        "no object starts there"
    );
}

#[test]
fn what_serde_json_must_read_is_left_to_it() {
    let mut r = JsonInPlace::new();
    let deep = format!(
        "{}{}",
        "{\"a\":".repeat(101),
        "1".to_string() + &"}".repeat(101)
    );
    let refused = [
        r#"{"a": 1, "a": 2}"#,                // duplicate: serde words the error
        r#"{"a": {"b": 1, "c": 2, "b": 3}}"#, // duplicate below
        r#"{"a": 1,}"#,                       // trailing comma
        r#"{"a": [1,]}"#,
        r#"{"a": 01}"#, // leading zero
        r#"{"a": 1x}"#,
        r#"{"a": 1E400}"#, // out of range: serde words it
        r#"{"a": tru}"#,
        "{\"a\": \"tab\there\"}", // a raw control character
        r#"{"a": "\q"}"#,         // a bad escape
        r#"{"a\u0062": 1}"#,      // an escaped key
        r#"{"a": "open"#,
        r#"{"a" 1}"#,
        r#"{"a": 1"#,
        "{\"a\": \"\\",
        &deep,
    ];
    for text in refused {
        let mut v = json!({"left": "over"});
        assert_eq!(r.read_object(text, 0, &mut v), None, "{text}");
    }
    // Past the refusals the scratch space still reads well.
    let mut v = Value::Null;
    assert!(read(&mut r, r#"{"a": {"b": 1}}"#, &mut v).is_some());
}

#[test]
fn numbers_read_as_serde_json_reads_them() {
    let mut r = JsonInPlace::new();
    let mut v = Value::Null;
    for n in [
        "0",
        "-0",
        "7",
        "-7",
        "999999999999999999",
        "-999999999999999999",
        "9999999999999999999",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-9223372036854775809",
        "1.0",
        "-1.5e-7",
        "2.5E+3",
        "0.1",
        "123456789012345678901234567890",
    ] {
        let text = format!("{{\"n\": {n}}}");
        assert!(read(&mut r, &text, &mut v).is_some(), "{n}");
    }
}

fn json_value() -> impl Strategy<Value = Value> {
    let key = prop::sample::select(vec![
        "a",
        "b",
        "c",
        "spec",
        "kind",
        "é",
        "",
        "k00",
        "k01",
        "k02",
        "k03",
        "k04",
        "k05",
        "k06",
        "k07",
        "k08",
        "k09",
        "k10",
        "k11",
        "k12",
        "k13",
        "k14",
        "k15",
        "k16",
        "k17",
        "metadataName",
        "metadataNamf",
    ]);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        "[a-z\"\\\\\n\u{e9}\u{1f980} ]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 48, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map(key.clone(), inner, 0..20).prop_map(|m| Value::Object(
                m.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
            )),
        ]
    })
}

proptest! {
    /// Any sequence of objects read into one value gives each object exactly as a
    /// fresh serde_json read does, compact or pretty-printed.
    #[test]
    fn a_sequence_reads_as_fresh_values(values in prop::collection::vec(json_value(), 1..6)) {
        let mut r = JsonInPlace::new();
        let mut target = Value::Null;
        for (i, v) in values.into_iter().enumerate() {
            let v = json!({"item": v});
            let text = if i % 2 == 0 {
                serde_json::to_string(&v).unwrap()
            } else {
                serde_json::to_string_pretty(&v).unwrap()
            };
            prop_assert!(r.read_object(&text, 0, &mut target).is_some());
            // serde_json's float reading does not always round-trip: compare reads.
            let fresh = by_serde(&text);
            prop_assert_eq!(Some(&target), fresh.as_ref());
        }
    }
}
