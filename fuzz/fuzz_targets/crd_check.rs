//! CRD loading and `validate_crd`: structural rules, regular expressions, CEL
//! compilation and cost estimation, on CRD text from the fuzzer.
#![no_main]

use crd_runtime::{CheckOptions, validate_crd};
use crd_toolkit_fuzz::MessageCheck;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(loaded) = crd_runtime::load::load_crds_bytes("fuzz.yaml", data) else {
        return;
    };
    let check = MessageCheck::new(data);
    for doc in &loaded.crds {
        for error in validate_crd(&doc.crd, &CheckOptions::default()).0 {
            check.assert_clean(&error.to_string());
        }
    }
});
