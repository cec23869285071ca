//! Document loading: YAML and JSON, multi-document, `List`s, CRDs, and JSON lines.
//! Never a panic; every error a clean message with a position, and JSON lines lose
//! no good line to a bad one.
#![no_main]

use crd_toolkit_fuzz::MessageCheck;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let check = MessageCheck::new(data);
    if let Err(e) = crd_runtime::load::parse_documents_bytes("fuzz.yaml", data) {
        let message = e.to_string();
        assert!(message.starts_with("fuzz.yaml"), "{message}");
        check.assert_clean(&message);
    }
    if let Err(e) = crd_runtime::load::load_crds_bytes("fuzz.yaml", data) {
        check.assert_clean(&e.to_string());
    }
    // JSON lines: every value is either read or reported, and reading goes on.
    let mut reported = 0usize;
    crd_gen::json_stream::for_each_json_value(data, |r| match r {
        Ok(_) => {}
        Err(e) => {
            reported += 1;
            check.assert_clean(&e.message);
        }
    });
    // Each valid line on its own must also be read when embedded in the stream.
    if let Ok(text) = std::str::from_utf8(data) {
        for line in text.lines().filter(|l| l.starts_with('{')) {
            if serde_json::from_str::<crd_runtime::load::StrictValue>(line).is_ok() {
                let mut seen = 0;
                crd_gen::json_stream::for_each_json_value(line.as_bytes(), |r| {
                    seen += usize::from(r.is_ok())
                });
                assert_eq!(seen, 1, "{line}");
            }
        }
    }
    let _ = reported;
});
