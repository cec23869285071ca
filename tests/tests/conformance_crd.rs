//! `crd.json`: upstream's `TestValidateCustomResourceDefinition` table, run on
//! the internal form with the options of a v1 create.
//!
//! Rows marked `requiresCEL` expect errors from compiling CEL rules or checking
//! `fieldPath`s against the schema with CEL's path rules; the checker does both
//! (feature `cel`), so they are checked in full.

use crd_runtime::check::{CheckOptions, InternalCrd, validate_internal_crd};
use crd_toolkit_tests::conformance::{expected_list, pair_up};
use crd_toolkit_tests::conformance_cases;

#[test]
fn crd_table() {
    let cases = conformance_cases("crd.json");
    assert_eq!(cases.len(), 57);
    let opts = CheckOptions::api_server_create();
    let (mut passed, mut cel_rows, mut failures) = (0, 0, Vec::new());
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        assert_eq!(case["crdForm"], "internal", "{name}");
        let mut crd: InternalCrd = serde_json::from_value(case["crd"].clone())
            .unwrap_or_else(|e| panic!("{name}: does not load: {e}"));
        // Upstream's test does this too ("duplicate defaulting behaviour"): the
        // v1beta1 default of conversionReviewVersions for webhook conversion.
        if let Some(c) = crd.spec.conversion.as_mut()
            && c.strategy == "Webhook"
            && c.conversion_review_versions.is_empty()
        {
            c.conversion_review_versions = vec!["v1beta1".into()];
        }
        let got = validate_internal_crd(&crd, &opts);
        let expected = expected_list(&case["expectedErrorFields"]);
        let (missing, extra) = pair_up(&expected, &got);
        let valid = case["valid"].as_bool().unwrap();
        if case["requiresCEL"].as_bool().unwrap_or(false) {
            cel_rows += 1;
        }
        if missing.is_empty() && extra.is_empty() && got.is_empty() == valid {
            passed += 1;
        } else {
            failures.push(format!("{name}: missing {missing:?}, unexpected {extra:?}"));
        }
    }
    println!(
        "crd.json: {passed}/{} passed ({cel_rows} of them requiresCEL rows)",
        cases.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
