//! crd-gen as a user's build script: the CronTab CRD of the Kubernetes documentation
//! (the one examples/build-script generates from) becomes typed Rust in `OUT_DIR`.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    crd_gen::compile_crds(&["../examples/build-script/crds/"])?;
    Ok(())
}
