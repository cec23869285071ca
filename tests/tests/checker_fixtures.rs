//! The CronTab fixtures: the documentation's non-structural example yields exactly
//! its six violations; the structural example and every `crd-*.yaml` are accepted.

use crd_runtime::check::{CheckOptions, validate_crd, validate_schema};
use crd_runtime::load::{from_value, load_crds, parse_documents};
use crd_runtime::{JSONSchemaProps, Path};
use crd_toolkit_tests::crontab_dir;

fn schema(file: &str) -> JSONSchemaProps {
    let path = crontab_dir().join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let doc = parse_documents(file, &text).unwrap().remove(0);
    from_value(file, 0, doc).unwrap()
}

#[test]
fn non_structural_example_has_exactly_six_violations() {
    let errs = validate_schema(
        Some(&schema("non-structural.yaml")),
        false,
        &CheckOptions::v1_create(),
        &Path::new("spec.versions[0].schema"),
    );
    let p = "spec.versions[0].schema.openAPIV3Schema";
    let mut got = errs.strings();
    got.sort();
    let mut want = vec![
        // rule 1: the type at the root is missing
        format!("{p}.type: Required value: must not be empty at the root"),
        // rule 1: the type of foo is missing
        format!(
            "{p}.properties[foo].type: Required value: must not be empty for specified object fields"
        ),
        // rule 2: bar inside of anyOf is not specified outside
        format!(
            "{p}.properties[bar]: Required value: because it is defined in {p}.anyOf[0].properties[bar]"
        ),
        // rule 3: bar's type is within anyOf
        format!("{p}.anyOf[0].properties[bar].type: Forbidden: must be empty to be structural"),
        // rule 3: the description is set within anyOf
        format!("{p}.anyOf[0].description: Forbidden: must be empty to be structural"),
        // rule 4: metadata.finalizers might not be restricted
        format!(
            "{p}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified"
        ),
    ];
    want.sort();
    assert_eq!(got, want);
}

#[test]
fn structural_example_is_accepted() {
    let errs = validate_schema(
        Some(&schema("structural.yaml")),
        false,
        &CheckOptions::v1_create(),
        &Path::new("spec.versions[0].schema"),
    );
    assert!(errs.is_empty(), "{errs}");
}

#[test]
fn crontab_crds_are_accepted() {
    let mut checked = 0;
    for entry in std::fs::read_dir(crontab_dir()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !(name.starts_with("crd-") && name.ends_with(".yaml")) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for doc in load_crds(&name, &text).unwrap().crds {
            let errs = validate_crd(&doc.crd, &CheckOptions::v1_create());
            assert!(errs.is_empty(), "{name}: {errs}");
            crd_runtime::assert_valid_crd(&doc.crd);
            checked += 1;
        }
    }
    assert!(checked >= 3, "only {checked} CRDs found");
}

#[test]
fn broken_crd_reports_every_violation_with_per_version_paths() {
    let text = std::fs::read_to_string(crontab_dir().join("crd-basic.yaml")).unwrap();
    let mut crd = load_crds("crd-basic.yaml", &text)
        .unwrap()
        .crds
        .remove(0)
        .crd;
    crd.metadata.name = Some("wrong.name".into());
    crd.spec.versions[0].storage = false;
    let s = crd.spec.versions[0]
        .schema
        .as_mut()
        .unwrap()
        .open_api_v3_schema
        .as_mut()
        .unwrap();
    s.properties
        .as_mut()
        .unwrap()
        .get_mut("spec")
        .unwrap()
        .type_ = None;
    let got = validate_crd(&crd, &CheckOptions::v1_create()).strings();
    assert!(got.contains(&r#"metadata.name: Invalid value: "wrong.name": must be spec.names.plural+"."+spec.group"#.to_string()), "{got:?}");
    assert!(got.contains(&r#"spec.versions: Invalid value: ["v1"]: must have exactly one version marked as storage version"#.to_string()), "{got:?}");
    assert!(
        got.contains(&"spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields".to_string()),
        "{got:?}"
    );
    // The API server's own paths: a schema shared by all versions is promoted.
    let server = validate_crd(&crd, &CheckOptions::api_server_create()).strings();
    assert!(
        server.contains(&"spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields".to_string()),
        "{server:?}"
    );
}
