//! `#[derive(CustomResource)]` with a CEL rule, from a crate outside the workspace: the
//! CRD is structural and `admit()` runs the rule with the API server's messages.

use crd_runtime::{CustomResourceExt, assert_valid_crd};
use crd_toolkit_downstream::backup::{self, v1};

fn backup(keep: i32, retain_days: i32) -> v1::Backup {
    v1::Backup::new(
        "nightly",
        v1::BackupSpec {
            volume: "data".into(),
            keep,
            retain_days,
        },
    )
}

#[test]
fn the_derived_crd_carries_the_rule_and_is_valid() {
    let crd = v1::Backup::crd();
    assert_valid_crd(&crd);
    let spec = &crd.spec.versions[0]
        .schema
        .as_ref()
        .and_then(|s| s.open_api_v3_schema.as_ref())
        .unwrap()
        .properties
        .as_ref()
        .unwrap()["spec"];
    let rules = spec.x_kubernetes_validations.as_ref().unwrap();
    assert_eq!(rules[0].rule, "self.keep <= self.retainDays");
    assert_valid_crd(&backup::crd());
    assert_eq!(backup::crd().spec.versions.len(), 2);
}

#[test]
fn admit_runs_the_cel_rule_with_the_api_servers_message() {
    let mut refused = backup(10, 7);
    let err = refused.admit().unwrap_err();
    assert_eq!(
        err.to_string(),
        "spec: Invalid value: keep must not exceed retainDays"
    );

    let mut admitted = backup(3, 7);
    admitted.admit().expect("keep within retainDays");
    assert!(refused.validate().strings().len() == 1);
    assert!(admitted.validate().is_empty());
}

#[test]
fn admit_checks_the_schema_too() {
    let mut refused = backup(0, 400);
    let errors = refused.admit().unwrap_err().to_string();
    assert!(
        errors.contains(
            "spec.keep: Invalid value: 0: spec.keep in body should be greater than or equal to 1"
        ),
        "{errors}"
    );
    assert!(
        errors.contains("spec.retainDays: Invalid value: 400: spec.retainDays in body should be less than or equal to 365"),
        "{errors}"
    );
}
