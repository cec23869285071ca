//! Generator tests on small schemas (the corpus and golden tests live in `tests/`).

use super::*;

fn crontab() -> CustomResourceDefinition {
    crd_runtime::load_crds("crontab.yaml", crate::BUNDLED_CRONTAB)
        .unwrap()
        .crds
        .remove(0)
        .crd
}

#[test]
fn crontab_generates_deterministically() {
    let a = generate(&[crontab()], &Options::default()).unwrap();
    let b = generate(&[crontab()], &Options::default()).unwrap();
    assert_eq!(a.len(), 1);
    let code = &a[0].to_file().unwrap();
    assert_eq!(code, &b[0].to_file().unwrap());
    assert!(code.starts_with("// @generated"), "{code}");
    assert!(code.contains("pub struct CronTabSpec"), "{code}");
    assert!(code.contains("pub mod v1"), "{code}");
}

#[test]
fn names_and_types_the_server_refuses_are_errors_on_every_path() {
    let mut crd = crontab();
    crd.spec.group = "Stable.example.com".into();
    crd.metadata.name = Some("crontabs.Stable.example.com".into());
    crd.spec.names.short_names = Some(vec!["c t".into()]);
    let err = generate(std::slice::from_ref(&crd), &Options::default()).unwrap_err();
    let GenError::Invalid { crd: name, errors } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(name, "crontabs.Stable.example.com");
    assert_eq!(errors.len(), 3, "{errors:#?}");
    assert!(
        errors[0].starts_with(
            r#"metadata.name: Invalid value: "crontabs.Stable.example.com": a lowercase RFC 1123 subdomain"#
        ),
        "{errors:#?}"
    );
    assert!(
        errors
            .iter()
            .any(|e| e.starts_with(r#"spec.group: Invalid value: "Stable.example.com""#)),
        "{errors:#?}"
    );
    assert!(
        errors
            .iter()
            .any(|e| e.starts_with(r#"spec.names.shortNames[0]: Invalid value: "c t""#)),
        "{errors:#?}"
    );
    // The parallel and the moving paths report the same error.
    let files = generate_files(std::slice::from_ref(&crd), &Options::default()).unwrap_err();
    assert_eq!(files, err);
    assert_eq!(crd_file_owned(crd, &Options::default()).unwrap_err(), err);

    let mut crd = crontab();
    let schema = crd.spec.versions[0].schema.as_mut().unwrap();
    let root = schema.open_api_v3_schema.as_mut().unwrap();
    let spec = root.properties.as_mut().unwrap().get_mut("spec").unwrap();
    spec.type_ = Some("dict".into());
    let err = generate(&[crd], &Options::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"crontabs.stable.example.com: spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Unsupported value: "dict": supported values: "array", "boolean", "integer", "number", "object", "string""#
    );
}

#[test]
fn any_version_name_the_server_accepts_is_generated() {
    let mut crd = crontab();
    crd.spec.versions[0].name = "stable".into();
    let code = generate(&[crd], &Options::default()).unwrap()[0]
        .to_file()
        .unwrap();
    assert!(code.contains("pub mod stable"), "{code}");
    assert!(code.contains(r#"version = "stable""#), "{code}");
}

#[test]
fn schemas_too_deep_for_types_are_a_clear_error() {
    // The CronTab with its spec nested `MAX_GENERATED_DEPTH` more levels down.
    let mut crd = crontab();
    let root = crd.spec.versions[0]
        .schema
        .as_mut()
        .and_then(|s| s.open_api_v3_schema.as_mut())
        .unwrap();
    let props = root.properties.as_mut().unwrap();
    let mut spec = *props.remove("spec").unwrap();
    for _ in 0..MAX_GENERATED_DEPTH {
        let mut parent = crd_runtime::JSONSchemaProps {
            type_: Some("object".into()),
            ..Default::default()
        };
        parent.properties = Some([("a".to_string(), Box::new(spec))].into());
        spec = parent;
    }
    props.insert("spec".into(), Box::new(spec));
    let err = generate_crd(&crd, "crontab".into(), &Options::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "crontabs.stable.example.com: spec.versions[0].schema.openAPIV3Schema: nests \
             deeper than {MAX_GENERATED_DEPTH} levels: crd-gen generate writes types for at \
             most {MAX_GENERATED_DEPTH} (a crd-gen limit; the API server and crd-gen \
             check/validate accept schemas as deep as the CRD's JSON holds)"
        )
    );
}
