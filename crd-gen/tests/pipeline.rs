//! The one-pass pipeline (`Config::generate_inputs`, used by `generate -o` and build
//! scripts) gives the same files as loading first and generating after.

mod common;

use crd_gen::Config;
use crd_gen::codegen::{self, GeneratedFile};

/// Corpus manifests chosen for the module naming rules: two copies of the same CRD
/// (cert-manager's certificates), two CRDs sharing a singular (certificates from
/// knative), several versions (`multiversions.clux.dev`).
const SOURCES: [&str; 5] = [
    "cert-manager/certificates.cert-manager.io.yaml",
    "kopium-tests/certificates.cert-manager.io.yaml",
    "knative-serving/certificates.networking.internal.knative.dev.yaml",
    "kopium-tests/multiversions.clux.dev.yaml",
    "cert-manager/issuers.cert-manager.io.yaml",
];

fn inputs() -> Vec<(String, String)> {
    SOURCES
        .iter()
        .map(|s| (s.to_string(), common::source_text(s)))
        .collect()
}

/// The reference: every CRD loaded, then generated and formatted one by one.
fn load_then_generate(config: &Config, inputs: &[(String, String)]) -> Vec<GeneratedFile> {
    let crds = crd_gen::load_inputs(inputs).expect("corpus loads");
    config
        .generate(&crds)
        .expect("corpus generates")
        .into_iter()
        .map(|g| GeneratedFile {
            contents: g.to_file().expect("formats"),
            crd_name: g.crd_name,
            module: g.module,
        })
        .collect()
}

fn names(files: &[GeneratedFile]) -> Vec<&str> {
    files.iter().map(|f| f.module.as_str()).collect()
}

#[test]
fn one_pass_equals_load_then_generate() {
    let inputs = inputs();
    let config = Config::new();
    let expected = load_then_generate(&config, &inputs);
    let one_pass = config.generate_inputs(&inputs).expect("one pass");
    assert_eq!(
        names(&one_pass),
        [
            "certificate_cert_manager_io",
            "certificate_cert_manager_io_2",
            "certificate_networking_internal_knative_dev",
            "multiversion",
            "issuer"
        ]
    );
    assert_eq!(one_pass, expected);
    let crds = crd_gen::load_inputs(&inputs).unwrap();
    assert_eq!(config.generate_files(&crds).unwrap(), expected);
}

#[test]
fn filters_keep_module_names_stable() {
    let inputs = inputs();
    let mut config = Config::new();
    config
        .kinds(&["Certificate", "MultiVersion"])
        .versions(&["v1"]);
    let one_pass = config.generate_inputs(&inputs).expect("one pass");
    assert_eq!(one_pass, load_then_generate(&config, &inputs));
    assert!(names(&one_pass).iter().all(|n| *n != "issuer"));
    assert!(
        one_pass
            .iter()
            .all(|f| !f.contents.contains("pub mod v2alpha1"))
    );
    assert!(one_pass.iter().any(|f| f.module == "multiversion"));
}

#[test]
fn unreadable_manifest_is_reported_before_generation_errors() {
    let mut inputs = inputs();
    inputs.push(("broken.yaml".into(), "a: [1, 2\nb: c\n".into()));
    let err = Config::new().generate_inputs(&inputs).unwrap_err();
    assert!(matches!(err, crd_gen::Error::Load(_)), "{err}");
    assert!(err.to_string().starts_with("broken.yaml:"), "{err}");
}

/// Inputs loaded on the workers: `(name, text)`, where a `None` text cannot be read.
fn load_lazily(
    input: &(String, Option<String>),
) -> Result<Vec<crd_runtime::CustomResourceDefinition>, crd_gen::Error> {
    match &input.1 {
        Some(text) => crd_gen::load_input(&input.0, text.as_bytes()),
        None => Err(crd_gen::Error::Io {
            path: input.0.clone().into(),
            source: std::io::Error::from(std::io::ErrorKind::NotFound),
        }),
    }
}

#[test]
fn inputs_loaded_on_the_workers_give_the_same_files_and_errors() {
    let inputs = inputs();
    let lazy: Vec<(String, Option<String>)> = inputs
        .iter()
        .map(|(n, t)| (n.clone(), Some(t.clone())))
        .collect();
    let config = Config::new();
    let cost = |i: &(String, Option<String>)| i.1.as_ref().map_or(0, String::len);
    let files = config.generate_loaded(&lazy, cost, load_lazily).unwrap();
    assert_eq!(files, config.generate_inputs(&inputs).unwrap());
    assert_eq!(
        crd_gen::load_loaded(&lazy, cost, load_lazily).unwrap(),
        crd_gen::load_inputs(&inputs).unwrap()
    );

    // As if everything were read first: an unreadable input wins over an earlier
    // one that does not load, and the first unreadable one is named.
    let mut broken = lazy.clone();
    broken.insert(1, ("broken.yaml".into(), Some("a: [1, 2\nb: c\n".into())));
    let no_load = config
        .generate_loaded(&broken, cost, load_lazily)
        .unwrap_err();
    assert!(no_load.to_string().starts_with("broken.yaml:"), "{no_load}");
    broken.push(("missing-1.yaml".into(), None));
    broken.push(("missing-2.yaml".into(), None));
    for err in [
        config
            .generate_loaded(&broken, cost, load_lazily)
            .unwrap_err(),
        crd_gen::load_loaded(&broken, cost, load_lazily).unwrap_err(),
    ] {
        assert!(matches!(err, crd_gen::Error::Io { .. }), "{err}");
        assert!(err.to_string().starts_with("missing-1.yaml:"), "{err}");
    }
}

#[test]
fn owned_and_borrowed_generation_agree() {
    let crds = crd_gen::load_inputs(&inputs()).unwrap();
    let opts = codegen::Options::default();
    for crd in crds {
        let borrowed = codegen::generate_crd(&crd, "m".into(), &opts)
            .unwrap()
            .unwrap();
        let owned = codegen::generate_crd_owned(crd, "m".into(), &opts)
            .unwrap()
            .unwrap();
        assert_eq!(borrowed.to_file().unwrap(), owned.to_file().unwrap());
    }
}

#[test]
fn single_file_on_every_core_equals_the_sequential_one() {
    let crds = crd_gen::load_inputs(&inputs()).unwrap();
    for flat in [false, true] {
        let mut config = Config::new();
        config.flat(flat);
        let sequential = config
            .single_file(&config.generate(&crds).unwrap())
            .unwrap();
        assert_eq!(config.generate_single_file(&crds).unwrap(), sequential);
        // One CRD: the header names it instead of counting.
        let one = config
            .single_file(&config.generate(&crds[..1]).unwrap())
            .unwrap();
        assert_eq!(config.generate_single_file(&crds[..1]).unwrap(), one);
        assert!(one.starts_with("// @generated by crd-gen from the CustomResourceDefinition `certificates.cert-manager.io`"), "{one}");
    }
    // Nothing selected: just the header, like the sequential path.
    let mut config = Config::new();
    config.kinds(&["NoSuchKind"]);
    let empty = config.generate_single_file(&crds).unwrap();
    assert_eq!(empty, config.single_file(&[]).unwrap());
}

/// A build script's error names the file of the CRD that cannot be generated (and
/// not another file defining a CRD of the same name), in both layouts.
#[test]
fn build_script_errors_name_the_failing_file() {
    let dir = tempfile::tempdir().unwrap();
    let crds = dir.path().join("crds");
    std::fs::create_dir_all(&crds).unwrap();
    let text = std::fs::read_to_string(format!("{}/data/crontab.yaml", env!("CARGO_MANIFEST_DIR")))
        .unwrap();
    std::fs::write(crds.join("a-good.yaml"), &text).unwrap();
    let bad = crds.join("b-bad.yaml");
    std::fs::write(&bad, text.replace("- name: v1\n", "- name: V1\n")).unwrap();
    for flat in [false, true] {
        let err = Config::new()
            .out_dir(dir.path().join("out"))
            .flat(flat)
            .emit_rerun_if_changed(false)
            .compile(&[&crds])
            .unwrap_err();
        let crd_gen::Error::Input { input, .. } = &err else {
            panic!("flat {flat}: {err:?}");
        };
        assert_eq!(input, &bad.display().to_string());
        assert!(
            err.to_string().starts_with(&format!(
                r#"{}: crontabs.stable.example.com: spec.versions[0].name: Invalid value: "V1": a DNS-1035 label"#,
                bad.display()
            )),
            "{err}"
        );
    }
}

/// An include file written outside `OUT_DIR` names its modules beside it (a path
/// relative to the include file), so it works wherever the directory is.
#[test]
fn an_out_dir_include_file_names_modules_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    Config::new()
        .out_dir(&out)
        .emit_rerun_if_changed(false)
        .compile(&[format!("{}/data/crontab.yaml", env!("CARGO_MANIFEST_DIR"))])
        .unwrap();
    let include = std::fs::read_to_string(out.join(crd_gen::INCLUDE_FILE)).unwrap();
    assert!(
        include.contains("pub mod crontab {\n    include!(\"crontab.rs\");\n}"),
        "{include}"
    );
    assert!(out.join("crontab.rs").is_file());
}
