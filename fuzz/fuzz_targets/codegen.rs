//! The code generator on arbitrary schemas (hostile property names, nesting,
//! enums, maps, int-or-string, ...) and on CRD text: the generated Rust parses, or
//! generation fails with a clean message.
#![no_main]

use arbitrary::Unstructured;
use crd_runtime::CustomResourceDefinition;
use crd_toolkit_fuzz::{MessageCheck, any_schema, crd_with_schema};
use libfuzzer_sys::fuzz_target;

fn generate(crds: &[CustomResourceDefinition], input: &[u8]) {
    let config = crd_gen::Config::new();
    match config.generate_single_file(crds) {
        Ok(code) => {
            if let Err(e) = syn::parse_file(&code) {
                panic!("generated Rust does not parse: {e}\n{code}");
            }
        }
        Err(e) => MessageCheck::new(input).assert_clean(&e.to_string()),
    }
}

/// The first byte picks the mode, so seeds keep their meaning under mutation:
/// 0 — CRD text (seeded with the corpus); otherwise a generated schema.
fn run(data: &[u8]) -> arbitrary::Result<()> {
    let (&mode, rest) = data.split_first().ok_or(arbitrary::Error::NotEnoughData)?;
    let mut u = Unstructured::new(rest);
    if mode % 4 == 0 {
        if let Ok(loaded) = crd_runtime::load::load_crds_bytes("fuzz.yaml", rest) {
            let crds: Vec<_> = loaded.crds.into_iter().map(|d| d.crd).collect();
            generate(&crds, rest);
        }
        return Ok(());
    }
    let schema = any_schema(&mut u, 6)?;
    let crd = crd_with_schema(&mut u, schema)?;
    let text = crd.to_string();
    if let Ok(crd) = serde_json::from_value::<CustomResourceDefinition>(crd) {
        generate(&[crd], text.as_bytes());
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let _ = run(data);
});
