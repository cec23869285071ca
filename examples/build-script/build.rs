//! Generates a Rust module per CRD in `crds/` into `OUT_DIR` (with `crds.rs`, the
//! include file). Cargo reruns this only when a file under `crds/` changes, and
//! unchanged output files are not rewritten.
//!
//! With feature `kube`, it also generates `../workload-crd.yaml` (the CRD of the
//! examples' `Workload`) with `Config::k8s_types` into `OUT_DIR/k8s/`: the pod
//! template, selector, resources and conditions come back as k8s-openapi's types.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    crd_gen::compile_crds(&["crds/"])?;
    if std::env::var_os("CARGO_FEATURE_KUBE").is_some() {
        let out = std::path::PathBuf::from(std::env::var("OUT_DIR")?).join("k8s");
        crd_gen::Config::new()
            .k8s_types(true)
            // k8s-openapi's `latest` feature, which this package enables.
            .k8s_version("1.37")?
            .out_dir(out)
            .compile(&["../workload-crd.yaml"])?;
    }
    Ok(())
}
