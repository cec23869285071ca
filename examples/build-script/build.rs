//! Generates a Rust module per CRD in `crds/` into `OUT_DIR` (with `crds.rs`, the
//! include file). Cargo reruns this only when a file under `crds/` changes, and
//! unchanged output files are not rewritten.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    crd_gen::compile_crds(&["crds/"])?;
    Ok(())
}
