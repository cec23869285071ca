//! Every real-world CRD in the corpus checks clean, except one the API server
//! itself rejects (see [`KNOWN_INVALID`]), which must yield exactly the server's errors.

use crd_runtime::check::{CheckOptions, validate_crd};
use crd_runtime::load::load_crds;
use crd_toolkit_tests::corpus_files;

/// kopium's test copy of Argo Workflows' "full" ClusterWorkflowTemplate CRD is not
/// structural: `inline: {}` has no type and `steps` is an array of arrays without
/// `items`. Real clusters reject it with exactly these errors (argoproj/argo-workflows
/// issues #6588 and #11266, kube-rs/kopium#158; the server's paths read
/// `spec.validation...` because a single version's schema is promoted to top level).
const KNOWN_INVALID: (&str, [&str; 4]) = (
    "kopium-tests/clusterworkflowtemplates.argoproj.io.yaml",
    [
        "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[templateDefaults].properties[dag].properties[tasks].items.properties[inline].type: Required value: must not be empty for specified object fields",
        "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[templateDefaults].properties[steps].items.items: Required value: must be specified",
        "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[templates].items.properties[dag].properties[tasks].items.properties[inline].type: Required value: must not be empty for specified object fields",
        "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[templates].items.properties[steps].items.items: Required value: must be specified",
    ],
);

#[test]
fn corpus_checks_clean() {
    let opts = CheckOptions::v1_create();
    let mut crds = 0;
    let mut failures = Vec::new();
    let mut known = None;
    for path in corpus_files() {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        for doc in load_crds(&name, &text).unwrap().crds {
            crds += 1;
            let errs = validate_crd(&doc.crd, &opts);
            if name.ends_with(KNOWN_INVALID.0) {
                known = Some(errs.strings());
                continue;
            }
            for e in errs {
                failures.push(format!("{name}: {}: {e}", doc.crd.name()));
            }
        }
    }
    assert!(crds > 300, "only {crds} CRDs");
    assert!(
        failures.is_empty(),
        "{} violations:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(
        known.expect("the known-invalid CRD is in the corpus"),
        KNOWN_INVALID.1
    );
}
