//! Random schemas through the generator: whatever the schema, generation never
//! panics, and what it returns is Rust that parses, the same every time and on
//! both printing paths (syntax trees, and the one-pass text with spliced attributes).
//! The corpus and golden tests cover real CRDs; these cover the odd corners between.

use crd_gen::Config;
use crd_gen::codegen::{self, Options};
use proptest::prelude::*;

mod common;
use common::random_crd::{crd, schema};

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn any_schema_generates_parseable_deterministic_rust(spec in schema()) {
        let crd = crd(spec, 0);
        let opts = Options::default();
        let first = codegen::generate(std::slice::from_ref(&crd), &opts);
        let again = codegen::generate(std::slice::from_ref(&crd), &opts);
        match (first, again) {
            (Ok(first), Ok(again)) => {
                prop_assert_eq!(first.len(), 1);
                let tree_text = first[0].to_file().expect("formats");
                prop_assert_eq!(&tree_text, &again[0].to_file().unwrap());
                if let Err(e) = syn::parse_file(&tree_text) {
                    return Err(TestCaseError::fail(format!("{e}\n{tree_text}")));
                }
                // The one-pass path splices attributes into printed text: same file.
                let files = Config::new()
                    .generate_inputs(&[("random.json", serde_json::to_vec(&crd).unwrap())])
                    .expect("the one-pass path generates what the tree path does");
                prop_assert_eq!(&files[0].contents, &tree_text);
            }
            (Err(first), Err(again)) => prop_assert_eq!(first, again),
            (first, again) => {
                return Err(TestCaseError::fail(format!("not deterministic: {first:?} vs {again:?}")));
            }
        }
    }
}
