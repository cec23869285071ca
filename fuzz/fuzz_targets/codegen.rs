//! The code generator on arbitrary schemas (hostile property names, nesting,
//! enums, maps, int-or-string, ...), on CRD text, and on schemas nested as deep as a
//! CRD body carries them (and a little deeper): the generated Rust parses, or
//! loading or generation fails with a clean message — never a stack overflow.
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

/// One level of a deep chain: how a schema holds the next one.
const LEVELS: [(&str, &str); 4] = [
    (r#"{"type":"object","properties":{"n":"#, "}}"),
    (r#"{"type":"array","items":"#, "}"),
    (
        r#"{"type":"object","additionalProperties":"#,
        "}",
    ),
    (r#"{"type":"object","properties":{"a":{"type":"string"}},"allOf":["#, "]}"),
];

/// Deep mode: a CRD whose `spec` is a chain of up to 10,050 schema levels, each
/// shaped by the input's bytes, written as JSON text (built without recursion) and
/// read and generated through the library entry points a build script calls.
fn deep(u: &mut Unstructured) -> arbitrary::Result<()> {
    let levels = usize::from(u.int_in_range(0..=10_050u16)?);
    let shapes: Vec<u8> = u.arbitrary_iter()?.take(64).collect::<Result<_, _>>()?;
    let mut text = String::from(
        r#"{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"deeps.example.com"},"spec":{"group":"example.com","names":{"plural":"deeps","singular":"deep","kind":"Deep","listKind":"DeepList"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":"#,
    );
    let mut closers = Vec::with_capacity(levels);
    for i in 0..levels {
        let shape = shapes.get(i % shapes.len().max(1)).copied().unwrap_or(0);
        let (open, close) = LEVELS[usize::from(shape) % LEVELS.len()];
        text.push_str(open);
        closers.push(close);
    }
    text.push_str(r#"{"type":"string"}"#);
    closers.iter().rev().for_each(|c| text.push_str(c));
    text.push_str("}}}}]}}");
    let config = crd_gen::Config::new();
    let inputs = [("deep.json", text.as_bytes())];
    match crd_gen::load_input("deep.json", text.as_bytes()) {
        Ok(crds) => {
            generate(&crds, text.as_bytes());
            // The caller drops what it loaded: deep schemas on a sized stack.
            crds.into_iter()
                .for_each(crd_runtime::__private::depth::schema::drop_crd);
        }
        Err(e) => MessageCheck::new(text.as_bytes()).assert_clean(&e.to_string()),
    }
    if let Err(e) = config.generate_inputs(&inputs) {
        MessageCheck::new(text.as_bytes()).assert_clean(&e.to_string());
    }
    Ok(())
}

/// The first byte picks the mode, so seeds keep their meaning under mutation:
/// 0 — CRD text (seeded with the corpus); 3 — a deep chain ([`deep`]); otherwise a
/// generated schema.
/// `FUZZ_CODEGEN_MODE=deep` runs every input in deep mode (`fuzz/run.sh deep`).
fn deep_only() -> bool {
    static DEEP: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *DEEP.get_or_init(|| std::env::var("FUZZ_CODEGEN_MODE").is_ok_and(|m| m == "deep"))
}

fn run(data: &[u8]) -> arbitrary::Result<()> {
    let (&mode, rest) = data.split_first().ok_or(arbitrary::Error::NotEnoughData)?;
    let mut u = Unstructured::new(rest);
    if mode % 4 == 3 || deep_only() {
        return deep(&mut u);
    }
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
