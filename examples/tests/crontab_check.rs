//! The derived CronTab CRD passes every check a v1 create would apply.

use crd_runtime::CustomResourceExt;
use crd_toolkit_examples::crontab::CronTab;

#[test]
fn derived_crontab_crd_is_valid() {
    crd_runtime::assert_valid_crd(&CronTab::crd());
}

#[test]
fn assert_valid_crd_lists_every_violation() {
    let mut crd = CronTab::crd();
    crd.metadata.name = Some("wrong".into());
    crd.spec.versions[0].storage = false;
    let panic = std::panic::catch_unwind(|| crd_runtime::assert_valid_crd(&crd)).unwrap_err();
    let msg = panic
        .downcast_ref::<String>()
        .expect("a formatted panic message");
    assert!(msg.contains("has 3 violation(s)"), "{msg}");
    assert!(
        msg.contains("metadata.name: Invalid value: \"wrong\""),
        "{msg}"
    );
    assert!(
        msg.contains("must have exactly one version marked as storage version"),
        "{msg}"
    );
    assert!(
        msg.contains(
            "status.storedVersions: Invalid value: []: must have at least one stored version"
        ),
        "{msg}"
    );
}
