use super::*;

/// `n` arrays, one inside the other, around `1`.
fn nested(n: usize) -> String {
    format!("{}1{}", "[".repeat(n), "]".repeat(n))
}

#[test]
fn text_depth_counts_brackets_outside_strings() {
    assert_eq!(json_text_depth(b"1"), Ok(0));
    assert_eq!(json_text_depth(b"[]"), Ok(1));
    assert_eq!(
        json_text_depth(br#"{"a": [1, {"b": "[[[{"}], "c": []}"#),
        Ok(3)
    );
    assert_eq!(json_text_depth(br#"["\"[[", [["\\", [1]]]]"#), Ok(4));
    assert_eq!(json_text_depth(b"[] [] [[]]"), Ok(2));
}

#[test]
fn the_limit_is_go_s_max_nesting_depth() {
    assert_eq!(json_text_depth(nested(MAX_DEPTH).as_bytes()), Ok(MAX_DEPTH));
    let over = format!("{{\"a\": {}}}", nested(MAX_DEPTH));
    let e = json_text_depth(over.as_bytes()).unwrap_err();
    assert_eq!(e.offset, 6 + MAX_DEPTH - 1);
    assert_eq!(e.to_string(), "invalid character '[' exceeded max depth");
    let braces = format!(
        "{}{}",
        "{\"a\":".repeat(MAX_DEPTH + 1),
        "}".repeat(MAX_DEPTH + 1)
    );
    assert_eq!(
        from_json_slice::<Value>(braces.as_bytes())
            .unwrap_err()
            .to_string(),
        "invalid character '{' exceeded max depth"
    );
}

#[test]
fn deep_json_parses_serializes_and_drops_on_a_small_stack() {
    // A 2 MiB thread, as Tokio workers and test threads have.
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let text = nested(MAX_DEPTH);
            let v: Value = from_json_slice(text.as_bytes()).unwrap();
            assert_eq!(depth_of(&v, usize::MAX), MAX_DEPTH);
            assert_eq!(depth_of(&v, 10), 11, "counting stops past the limit");
            assert_eq!(to_json_vec(&v), text.as_bytes());
            let copy = with_stack_for(MAX_DEPTH, || v.clone());
            assert!(with_stack_for(MAX_DEPTH, || copy == v));
            drop_value(copy);
            drop_value(v);
            let bad = format!("{}x{}", "[".repeat(500), "]".repeat(500));
            assert!(matches!(
                from_json_slice::<Value>(bad.as_bytes()),
                Err(JsonError::Syntax(_))
            ));
        })
        .unwrap()
        .join()
        .expect("no stack overflow");
}

#[test]
fn shallow_values_stay_on_the_callers_stack() {
    let v: Value = from_json_slice(br#"{"a": [1, {"b": null}]}"#).unwrap();
    assert_eq!(depth_of(&v, MAX_DEPTH), 3);
    assert_eq!(depth_of(&Value::Null, 0), 0);
    let here = stacker::remaining_stack();
    let inside = with_stack_for(3, stacker::remaining_stack);
    // Same stack: within a few frames of each other.
    assert!(
        here.zip(inside)
            .is_some_and(|(a, b)| a.abs_diff(b) < 64 << 10)
    );
    assert!(stack_bytes(MAX_DEPTH) > stack_bytes(SHALLOW));
}

/// `JSONSchemaProps`'s own traits (model/schema_traits.rs) at any depth.
mod schema_traits {
    use serde::Deserialize;

    use crate::model::{JSONSchemaProps, JSONSchemaPropsOrArray};

    /// A schema `levels` deep through `items`, built without recursion.
    fn deep_items(levels: usize) -> JSONSchemaProps {
        let mut s = JSONSchemaProps {
            type_: Some("string".into()),
            ..Default::default()
        };
        for _ in 0..levels {
            s = JSONSchemaProps {
                type_: Some("array".into()),
                items: Some(Box::new(JSONSchemaPropsOrArray::Schema(s))),
                ..Default::default()
            };
        }
        s
    }

    /// Every trait on a 10,000-level schema, on a 256 KiB thread: no caller sizes
    /// a stack for them (dropping is the owner's, through `drop_schema`).
    #[test]
    fn every_trait_survives_ten_thousand_levels_on_a_small_stack() {
        std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(|| {
                let s = deep_items(10_000);
                let copy = s.clone();
                assert!(copy == s);
                assert!(format!("{s:?}").len() > 10_000);
                let json = serde_json::to_value(&s).unwrap();
                let back = JSONSchemaProps::deserialize(&json).unwrap();
                assert!(back == s);
                crate::depth::drop_value(json);
                for s in [copy, back, s] {
                    crate::depth::schema::drop_schema(s);
                }
            })
            .unwrap()
            .join()
            .unwrap();
    }

    #[test]
    fn depth_counts_every_step() {
        use crate::depth::schema::schema_depth;
        let s: JSONSchemaProps = serde_json::from_str(
            r#"{"type":"object","properties":{"a":{"type":"array","items":{"anyOf":[{"type":"string"}]}}}}"#,
        )
        .unwrap();
        assert_eq!(s.depth(), 4);
        assert_eq!(schema_depth(&deep_items(100), usize::MAX), 101);
    }
}
