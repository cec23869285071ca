//! What the example-binary tests share: building an example once per test binary.

use std::path::PathBuf;
use std::process::Command;

/// `target/<profile>/examples/NAME`, brought up to date by cargo (a no-op after
/// `cargo test`, which builds the examples) with this build's features.
pub fn example_binary(name: &str) -> PathBuf {
    static BUILT: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap().join("examples");
    let bin = dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if !built.iter().any(|b| b == name) {
        let features = if cfg!(feature = "schemars") {
            "kube,schemars"
        } else {
            "kube"
        };
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut build = Command::new(cargo);
        // The package variables `cargo test` sets for this test are not the ones of a
        // plain build: build scripts watching them (ring's) would rerun, and rebuild
        // crd-server here and again at the next `cargo test`.
        for (var, _) in std::env::vars_os() {
            let var = var.to_string_lossy();
            if [
                "CARGO_PKG_",
                "CARGO_MANIFEST_",
                "CARGO_CRATE_",
                "CARGO_BIN_",
                "CARGO_PRIMARY_",
            ]
            .iter()
            .any(|p| var.starts_with(p))
                || var == "CARGO_TARGET_TMPDIR"
            {
                build.env_remove(var.as_ref());
            }
        }
        let status = build
            .args(["build", "-q", "-p", "crd-toolkit-examples"])
            .args(["--features", features, "--example", name])
            .status()
            .unwrap();
        assert!(status.success(), "building the {name} example failed");
        built.push(name.to_string());
    }
    assert!(
        bin.is_file(),
        "{} is missing after the build",
        bin.display()
    );
    bin
}
