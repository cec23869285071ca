//! Plain scalars through the text reader: every resolution serde-saphyr makes, the
//! ones left to it, and random scalars agreeing with it.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::parse_documents;
use super::yaml_scan::{
    self,
    plain::{Plain, resolve_plain},
};
use super::yaml_scan_tests::saphyr;

/// Asserts the text reader takes `text` and agrees with serde-saphyr; returns the values.
fn fast_agrees(text: &str) -> Vec<Value> {
    let fast = yaml_scan::parse(text).unwrap_or_else(|| panic!("text reader refused {text:?}"));
    assert_eq!(Ok(fast.clone()), saphyr(text), "{text:?}");
    fast
}

/// Asserts the text reader refuses `text`, so `parse_documents` gives serde-saphyr's result.
fn falls_back(text: &str) {
    assert_eq!(yaml_scan::parse(text), None, "{text:?}");
    assert_eq!(parse_documents("t.yaml", text), saphyr(text), "{text:?}");
}

/// Whatever the text reader returns must be what serde-saphyr returns.
fn consistent(text: &str) -> Result<(), TestCaseError> {
    if let Some(fast) = yaml_scan::parse(text) {
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_plain_scalars_agree(s in scalar_text()) {
        consistent(&format!("k: {s}\n"))?;
        consistent(&format!("- {s}\n"))?;
        consistent(&format!("{s}: v\n"))?;
        consistent(&format!("[{s}, \"{s}\"]\n"))?;
    }
}
