//! The code generator on arbitrary schemas (hostile property names, nesting,
//! enums, maps, int-or-string, ...) and on CRD text: the generated Rust parses, or
//! generation fails with a clean message.
#![no_main]

use arbitrary::Unstructured;
use crd_runtime::CustomResourceDefinition;
use crd_toolkit_fuzz::{any_schema, assert_clean_message, crd_with_schema};
use libfuzzer_sys::fuzz_target;

fn generate(crds: &[CustomResourceDefinition]) {
    let config = crd_gen::Config::new();
    match config.generate_single_file(crds) {
        Ok(code) => {
            if let Err(e) = syn::parse_file(&code) {
                panic!("generated Rust does not parse: {e}\n{code}");
            }
        }
        Err(e) => assert_clean_message(&e.to_string()),
    }
}

fn run(data: &[u8]) -> arbitrary::Result<()> {
    let mut u = Unstructured::new(data);
    if u.ratio(1, 4)? {
        // CRD text (seeded with the corpus).
        if let Ok(loaded) = crd_runtime::load::load_crds_bytes("fuzz.yaml", u.take_rest()) {
            let crds: Vec<_> = loaded.crds.into_iter().map(|d| d.crd).collect();
            generate(&crds);
        }
        return Ok(());
    }
    let schema = any_schema(&mut u, 6)?;
    let crd = crd_with_schema(&mut u, schema)?;
    if let Ok(crd) = serde_json::from_value::<CustomResourceDefinition>(crd) {
        generate(&[crd]);
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let _ = run(data);
});
