//! Every real-world CRD in the corpus compiles into an engine (every version, with
//! its regexes), and admitting a minimal object of each kind returns errors, never
//! panics. A fifth of the files keeps the test fast in debug builds.

use crd_runtime::engine::Engine;
use crd_toolkit_tests::corpus_files;
use serde_json::json;

#[test]
fn corpus_crds_compile_and_admit() {
    let files = corpus_files();
    let mut engines = 0;
    let mut admitted = 0;
    for path in files.iter().step_by(5) {
        let text = std::fs::read_to_string(path).unwrap();
        let Ok(loaded) = crd_runtime::load_crds(&path.display().to_string(), &text) else {
            continue;
        };
        for doc in loaded.crds {
            let crd = doc.crd;
            for v in &crd.spec.versions {
                let engine = match Engine::for_crd(&crd, &v.name) {
                    Ok(e) => e,
                    Err(e) => panic!("{}: {e}", path.display()),
                };
                engines += 1;
                let mut obj = json!({
                    "apiVersion": format!("{}/{}", crd.spec.group, v.name),
                    "kind": crd.spec.names.kind,
                    "metadata": {"name": "example", "namespace": "default"},
                    "spec": {},
                });
                if let Err(errs) = engine.admit(&mut obj) {
                    // Required fields are the usual reason; every error renders.
                    assert!(errs.strings().iter().all(|s| !s.is_empty()));
                }
                admitted += 1;
            }
        }
    }
    assert!(engines > 50, "only {engines} engines built");
    println!("corpus: {engines} engines built, {admitted} objects admitted");
}
