//! The in-place JSON reader (`crd_gen validate`'s object reader) against serde_json:
//! the text is cut at its first newline into two pieces read one after the other
//! into the same value. Whenever the reader answers, the value must be exactly what
//! serde_json (duplicate keys refused) reads from the same bytes, and its compact
//! text (`load::write_json`) exactly what serde_json writes.
#![no_main]

use crd_runtime::load::{JsonInPlace, StrictValue, write_json};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut reader = JsonInPlace::new();
    let mut target = Value::Null;
    let pieces = match text.split_once('\n') {
        Some((a, b)) => [a, b],
        None => [text, ""],
    };
    for piece in pieces {
        let start = piece.len() - piece.trim_start().len();
        let Some(end) = reader.read_object(piece, start, &mut target) else {
            continue;
        };
        let expected = serde_json::from_str::<StrictValue>(&piece[start..end])
            .unwrap_or_else(|e| panic!("read in place where serde_json says {e}: {piece:?}"));
        assert_eq!(target, expected.0, "{piece:?}");
        let mut ours = Vec::new();
        write_json(&mut ours, &target);
        assert_eq!(ours, serde_json::to_vec(&target).unwrap());
    }
});
