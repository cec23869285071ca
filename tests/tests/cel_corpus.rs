//! CEL rules of real-world CRDs applied to realistic objects (written from the
//! projects' documented examples, in `tests/data/cel-corpus/`): each valid
//! object is admitted, each invalid one fails with exactly the listed errors.

use std::path::PathBuf;

use crd_runtime::cel::CelPass;
use crd_runtime::engine::Engine;
use crd_runtime::load::{load_crds, parse_documents};
use crd_toolkit_tests::shared_dir;

fn engine(corpus_file: &str, version: &str) -> Engine {
    let path = shared_dir().join("corpus/crds").join(corpus_file);
    let text = std::fs::read_to_string(&path).unwrap();
    let crd = load_crds(corpus_file, &text).unwrap().crds.remove(0).crd;
    let schema = crd
        .version(version)
        .and_then(|v| v.open_api_schema())
        .unwrap_or_else(|| panic!("{corpus_file}: no schema for {version}"));
    let (pass, problems) = CelPass::new(schema, true);
    assert!(problems.is_empty(), "{corpus_file}: {problems:?}");
    assert!(pass.has_rules(), "{corpus_file}: no rules");
    // The engine compiles and runs the rules itself.
    let engine = Engine::for_crd(&crd, version).unwrap();
    assert!(engine.has_rules() && engine.rule_problems().is_empty());
    engine
}

fn objects(name: &str) -> Vec<serde_json::Value> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("data/cel-corpus")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    parse_documents(name, &text).unwrap()
}

/// Admits every object of `file`; returns the errors of each.
fn admit_all(engine: &Engine, file: &str) -> Vec<Vec<String>> {
    objects(file)
        .into_iter()
        .map(|mut o| match engine.admit(&mut o) {
            Ok(()) => Vec::new(),
            Err(e) => {
                let mut s = e.strings();
                s.sort();
                s
            }
        })
        .collect()
}

fn check(corpus_file: &str, version: &str, stem: &str, invalid: &[&[&str]]) {
    let engine = engine(corpus_file, version);
    for (i, errs) in admit_all(&engine, &format!("{stem}-valid.yaml"))
        .iter()
        .enumerate()
    {
        assert!(errs.is_empty(), "{stem}-valid.yaml #{i}: {errs:#?}");
    }
    let got = admit_all(&engine, &format!("{stem}-invalid.yaml"));
    let want: Vec<Vec<String>> = invalid
        .iter()
        .map(|errs| errs.iter().map(|s| s.to_string()).collect())
        .collect();
    assert_eq!(got, want, "{stem}-invalid.yaml");
}

#[test]
fn cert_manager_issuer() {
    check(
        "cert-manager/issuers.cert-manager.io.yaml",
        "v1",
        "issuer",
        &[&[
            r#"spec.venafi: Invalid value: exactly one of tpp, cloud, or ngts must be configured"#,
        ]],
    );
}

#[test]
fn flux_bucket() {
    check(
        "flux-source-controller/buckets.source.toolkit.fluxcd.io.yaml",
        "v1",
        "bucket",
        &[
            &[
                r#"spec: Invalid value: ServiceAccountName is not supported for the 'generic' Bucket provider"#,
                r#"spec: Invalid value: cannot set both .spec.secretRef and .spec.serviceAccountName"#,
            ],
            &[
                r#"spec: Invalid value: 'aws' is the only supported STS provider for the 'aws' Bucket provider"#,
            ],
        ],
    );
}

#[test]
fn keda_scaled_object() {
    let msg =
        r#"spec: Invalid value: minReplicaCount must be less than or equal to maxReplicaCount"#;
    check(
        "keda/scaledobjects.keda.sh.yaml",
        "v1alpha1",
        "scaledobject",
        &[&[msg], &[msg]],
    );
}

#[test]
fn istio_virtual_service() {
    check(
        "istio/virtualservices.networking.istio.io.yaml",
        "v1",
        "virtualservice",
        &[&[
            r#"spec.http[0].corsPolicy.maxAge: Invalid value: "0s": must be a valid duration greater than 1ms"#,
            r#"spec.http[0].timeout: Invalid value: "500us": must be a valid duration greater than 1ms"#,
        ]],
    );
}

#[test]
fn traefik_middleware() {
    check(
        "traefik/middlewares.traefik.io.yaml",
        "v1alpha1",
        "middleware",
        &[&[r#"spec.addPrefix.prefix: Invalid value: "foo": must start with a '/'"#]],
    );
}
