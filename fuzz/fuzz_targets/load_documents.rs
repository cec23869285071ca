//! Document loading: YAML and JSON, multi-document, `List`s, CRDs, and JSON lines.
//! Never a panic; every error a clean message with a position, and JSON lines lose
//! no good line to a bad one. Inputs starting with `#deep` are nested around the
//! rest to near the API server's 10,000 levels first, so deep values are reached.
#![no_main]

use crd_toolkit_fuzz::MessageCheck;
use libfuzzer_sys::fuzz_target;

/// `#deep` + two bytes (depth around the limit, object or array) + the rest: the rest
/// nested that deep; anything else as it is.
fn deepen(data: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    let Some([a, b, rest @ ..]) = data.strip_prefix(b"#deep") else {
        return data.into();
    };
    let limit = crd_runtime::__private::depth::MAX_DEPTH;
    // Mostly within a few levels of the limit, sometimes anywhere below it.
    let depth = match a % 4 {
        0 => usize::from(*b) * limit / 255,
        _ => limit - 3 + usize::from(*b % 6),
    };
    let (open, close): (&[u8], &[u8]) = if a & 4 == 0 {
        (b"[", b"]")
    } else {
        (b"{\"k\":", b"}")
    };
    let mut out = Vec::with_capacity(rest.len() + depth * (open.len() + 1));
    (0..depth).for_each(|_| out.extend_from_slice(open));
    out.extend_from_slice(rest);
    (0..depth).for_each(|_| out.extend_from_slice(close));
    out.into()
}

fuzz_target!(|data: &[u8]| {
    let data = &*deepen(data);
    let check = MessageCheck::new(data);
    match crd_runtime::load::parse_documents_bytes("fuzz.yaml", data) {
        // Deep values are dropped without recursion.
        Ok(docs) => docs
            .into_iter()
            .for_each(crd_runtime::__private::depth::drop_value),
        Err(e) => {
            let message = e.to_string();
            assert!(message.starts_with("fuzz.yaml"), "{message}");
            check.assert_clean(&message);
        }
    }
    if let Err(e) = crd_runtime::load::load_crds_bytes("fuzz.yaml", data) {
        check.assert_clean(&e.to_string());
    }
    // JSON lines: every value is either read or reported, and reading goes on.
    let mut reported = 0usize;
    crd_gen::json_stream::for_each_json_value(data, |r| match r {
        Ok(v) => crd_runtime::__private::depth::drop_value(std::mem::take(v)),
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
