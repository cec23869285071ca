//! Every real-world CRD parses into the model, and parse → write → parse is the identity.

use crd_runtime::load::{load_crds, to_yaml};
use crd_toolkit_tests::corpus_files;

#[test]
fn corpus_round_trips_through_yaml_and_json() {
    let files = corpus_files();
    let mut crds = 0;
    let mut failures = Vec::new();
    for path in &files {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).unwrap();
        let loaded = match load_crds(&name, &text) {
            Ok(l) => l,
            Err(e) => {
                failures.push(e.to_string());
                continue;
            }
        };
        assert!(
            loaded.skipped.is_empty(),
            "{name}: unexpected non-CRD documents"
        );
        for doc in loaded.crds {
            crds += 1;
            let yaml = to_yaml(&doc.crd).unwrap();
            let again = load_crds(&name, &yaml).map(|mut l| l.crds.remove(0).crd);
            if again.as_ref() != Ok(&doc.crd) {
                failures.push(format!("{name}: YAML round trip differs"));
            }
            let json = serde_json::to_string(&doc.crd).unwrap();
            let again = load_crds(&name, &json).map(|mut l| l.crds.remove(0).crd);
            if again.as_ref() != Ok(&doc.crd) {
                failures.push(format!("{name}: JSON round trip differs"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(crds, files.len(), "one CRD per corpus file");
}
