//! The fast YAML readers (straight from text; CRDs from its event tapes) against
//! serde-saphyr: whenever a fast path answers, it must answer exactly what
//! serde-saphyr does.
#![no_main]

use crd_runtime::load::fuzzing;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let general = fuzzing::saphyr(text);
    if let Some(docs) = fuzzing::scan(text) {
        match &general {
            Ok(expected) => assert_eq!(&docs, expected, "scan disagrees on {text:?}"),
            Err(e) => panic!("scan read {docs:?} where serde-saphyr says {e}: {text:?}"),
        }
    }
    if let Some(loaded) = fuzzing::crds_from_tapes(text) {
        let docs =
            general.unwrap_or_else(|e| panic!("tapes read CRDs where serde-saphyr says {e}"));
        let expected = crd_runtime::load::crds_from_documents("fuzz", docs)
            .unwrap_or_else(|e| panic!("tapes typed CRDs the general path refuses: {e}"));
        assert_eq!(loaded.crds.len(), expected.crds.len());
        for (got, want) in loaded.crds.iter().zip(&expected.crds) {
            assert_eq!(got.document, want.document);
            assert_eq!(got.original_api_version, want.original_api_version);
            assert_eq!(
                serde_json::to_value(&got.crd).unwrap(),
                serde_json::to_value(&want.crd).unwrap()
            );
        }
        assert_eq!(loaded.skipped.len(), expected.skipped.len());
    }
});
