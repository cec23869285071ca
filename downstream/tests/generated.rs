//! The types `build.rs` generated with crd-gen (`crd_gen::compile_crds`) read an object
//! of the CronTab fixtures and derive back the CRD they came from.

use crd_runtime::CustomResourceExt;
use crd_toolkit_downstream::crontab::v1::CronTab;
use serde_json::Value;

/// The input object of the case named `name` in `../shared/fixtures/crontab/cases.yaml`.
fn case_input(name: &str) -> Value {
    let path = "../../shared/fixtures/crontab/cases.yaml";
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let docs = crd_runtime::parse_documents(path, &text).unwrap();
    let case = docs[0]["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no case {name:?}"));
    case["input"].clone()
}

#[test]
fn the_generated_type_reads_a_fixture_object() {
    let input = case_input("valid object is accepted");
    let mut crontab: CronTab = serde_json::from_value(input).unwrap();
    assert_eq!(crontab.metadata.name.as_deref(), Some("my-new-cron-object"));
    assert_eq!(crontab.spec.cron_spec.as_deref(), Some("* * * * */5"));
    assert_eq!(crontab.spec.image.as_deref(), Some("my-awesome-cron-image"));
    assert_eq!(crontab.spec.replicas, Some(5));
    crontab.admit().expect("the case is valid");
}

#[test]
fn the_generated_type_derives_the_source_crd() {
    let source = crd_runtime::load_crds(
        "crontab.yaml",
        include_str!("../../examples/build-script/crds/crontab.yaml"),
    )
    .unwrap()
    .crds
    .remove(0)
    .crd;
    let derived = CronTab::crd();
    assert_eq!(derived.name(), source.name());
    assert_eq!(
        derived.spec.versions[0].schema,
        source.spec.versions[0].schema
    );
}
