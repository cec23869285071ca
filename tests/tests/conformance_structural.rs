//! `structural.json`: upstream's `TestValidateCustomResourceDefinitionValidation`
//! and `TestValidateStructuralCompleteness` tables.
//!
//! Rows marked `requiresCEL` expect errors from compiling CEL rules; the checker
//! compiles them and estimates their cost (feature `cel`). Rows in [`CEL_GAPS`]
//! need what this crate does not do (see each reason): their
//! non-CEL expectations are checked (every reported error must be expected, every
//! expected error that does not come from CEL must be reported), they are counted
//! and printed, and the test fails if one starts passing fully.

use crd_runtime::check::{validate_schema, validate_structural_completeness};
use crd_runtime::{JSONSchemaProps, Path};
use crd_toolkit_tests::conformance::{expected_list, is_cel_derived, options_from, pair_up};
use crd_toolkit_tests::conformance_cases;

/// `requiresCEL` rows this crate cannot pass fully, with the reason.
const CEL_GAPS: [(&str, &str); 0] = [];

#[test]
fn structural_table() {
    let cases = conformance_cases("structural.json");
    assert_eq!(cases.len(), 127);
    let (mut passed, mut cel_partial, mut failures) = (0, 0, Vec::new());
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let schema: Option<JSONSchemaProps> = serde_json::from_value(case["schema"].clone())
            .unwrap_or_else(|e| panic!("{name}: schema does not load: {e}"));
        let opts = options_from(&case["opts"]);
        let valid = case["valid"].as_bool().unwrap();
        let cel_gap = CEL_GAPS.iter().any(|(n, _)| *n == name);

        if case["pathPrefix"] == "" {
            // Completeness rows: only the completeness rule, expectations are substrings.
            let schema = schema.expect("completeness rows have a schema");
            let got = validate_structural_completeness(&schema, &Path::root(), &opts);
            let wanted: Vec<&str> = case["expectedViolations"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|e| e["errorContains"].as_str())
                .collect();
            let strings = got.strings();
            let ok = got.is_empty() == valid
                && wanted.iter().all(|w| strings.iter().any(|s| s.contains(w)));
            if ok {
                passed += 1;
            } else {
                failures.push(format!("{name}: want {wanted:?}, got {strings:?}"));
            }
            continue;
        }

        let prefix = Path::new(case["pathPrefix"].as_str().unwrap());
        let got = validate_schema(
            schema.as_ref(),
            case["statusEnabled"].as_bool().unwrap(),
            &opts,
            &prefix,
        );
        let expected = expected_list(&case["expectedViolations"]);
        let (missing, extra) = pair_up(&expected, &got);
        if cel_gap {
            cel_partial += 1;
            if missing.is_empty() && extra.is_empty() {
                failures.push(format!("{name}: passes fully now; remove it from CEL_GAPS"));
                continue;
            }
            let missing: Vec<_> = missing.into_iter().filter(|e| !is_cel_derived(e)).collect();
            if missing.is_empty() && extra.is_empty() {
                passed += 1;
            } else {
                failures.push(format!(
                    "{name} (CEL row, non-CEL part): missing {missing:?}, unexpected {extra:?}"
                ));
            }
            continue;
        }
        if missing.is_empty() && extra.is_empty() && got.is_empty() == valid {
            passed += 1;
        } else {
            failures.push(format!("{name}: missing {missing:?}, unexpected {extra:?}"));
        }
    }
    println!(
        "structural.json: {passed}/{} passed ({cel_partial} requiresCEL rows in CEL_GAPS checked for their non-CEL expectations only)",
        cases.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
