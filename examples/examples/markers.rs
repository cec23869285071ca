//! controller-gen's CRD markers written as `#[crd(...)]` attributes (docs/derive.md,
//! "controller-gen markers"; the types are in `examples/src/markers.rs`). Prints the CRD
//! as YAML on stdout, then shows on stderr what the API server answers when an immutable
//! field changes: `cargo run -p crd-toolkit-examples --example markers`.

use std::process::ExitCode;

use crd_runtime::CustomResourceExt;
use crd_toolkit_examples::markers::Route;
use serde_json::json;

fn main() -> ExitCode {
    let yaml = match Route::crd_yaml() {
        Ok(y) => y,
        Err(e) => {
            eprintln!("error: cannot render the Route CRD: {e}");
            return ExitCode::FAILURE;
        }
    };
    print!("{yaml}");
    let engine = match Route::engine() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error: the Route CRD does not compile: {e}");
            return ExitCode::FAILURE;
        }
    };
    let object = |host: &str| {
        json!({
            "apiVersion": "markers.example.com/v1", "kind": "Route",
            "metadata": {"name": "r", "namespace": "default"},
            "spec": {"host": host, "backend": {"service": "web"}, "owner": "team-a"},
        })
    };
    let mut old = object("a.example.com");
    if let Err(errs) = engine.admit(&mut old) {
        eprintln!("error: the first Route is rejected: {:?}", errs.strings());
        return ExitCode::FAILURE;
    }
    let mut new = object("b.example.com");
    match engine.admit_update(&mut new, &old) {
        Err(errs) => {
            for e in errs.strings() {
                eprintln!("update rejected: {e}");
            }
            ExitCode::SUCCESS
        }
        Ok(()) => {
            eprintln!("error: changing the immutable host was admitted");
            ExitCode::FAILURE
        }
    }
}
