//! `crd-gen validate` with `x-kubernetes-validations`: CEL rules run after the
//! OpenAPI checks, and `--old` turns matching objects into updates so that
//! transition rules (`oldSelf`) run.

use std::path::Path;
use std::process::Command;

#[path = "../../tests/src/test_crd.rs"]
mod test_crd;

const BIN: &str = env!("CARGO_BIN_EXE_crd-gen");

/// A CEL rule on `spec` and a transition rule on `spec.storageClass`.
fn crd() -> String {
    test_crd::crd_yaml(
        "example.com",
        "Widget",
        r#"
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: self.minReplicas <= self.maxReplicas
              message: minReplicas must not exceed maxReplicas
            properties:
              minReplicas: {type: integer, maximum: 10}
              maxReplicas: {type: integer}
              storageClass:
                type: string
                x-kubernetes-validations:
                - {rule: self == oldSelf, message: storageClass is immutable}
        "#,
    )
}

/// A fresh scratch directory for one test, deleted when it goes out of scope.
fn scratch(test: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("crd-gen-cel-{test}-"))
        .tempdir()
        .unwrap()
}

fn write(dir: &Path, name: &str, content: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    p.display().to_string()
}

fn run(args: &[&str]) -> (i32, String) {
    let out = Command::new(BIN)
        .arg("validate")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
    )
}

fn widget(name: &str, min: i64, max: i64, class: &str) -> String {
    format!(
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {{name: {name}, namespace: ns}}\n\
         spec: {{minReplicas: {min}, maxReplicas: {max}, storageClass: {class}}}\n"
    )
}

#[test]
fn rules_run_and_transition_rules_need_old_objects() {
    let dir = scratch("old");
    let crd = write(dir.path(), "crd.yaml", &crd());
    let new = write(
        dir.path(),
        "new.yaml",
        &format!(
            "{}---\n{}",
            widget("a", 3, 1, "fast"),
            widget("b", 1, 2, "slow")
        ),
    );
    let old = write(dir.path(), "old.yaml", &widget("b", 1, 2, "fast"));

    let (code, stdout) = run(&["--crd", &crd, &new]);
    assert_eq!(code, 1);
    assert_eq!(
        stdout,
        "Widget \"a\" is invalid:\nspec: Invalid value: minReplicas must not exceed maxReplicas\n"
    );
    // Up to Kubernetes 1.34 the server printed the type of an object.
    let (code, stdout) = run(&["--crd", &crd, "--kube-version", "1.34", &new]);
    assert_eq!(code, 1);
    assert_eq!(
        stdout,
        "Widget \"a\" is invalid:\nspec: Invalid value: \"object\": minReplicas must not exceed maxReplicas\n"
    );

    let (code, stdout) = run(&["--crd", &crd, "--old", &old, &new]);
    assert_eq!(code, 1);
    assert_eq!(
        stdout,
        "Widget \"a\" is invalid:\nspec: Invalid value: minReplicas must not exceed maxReplicas\n\
         Widget \"b\" is invalid:\nspec.storageClass: Invalid value: \"slow\": storageClass is immutable\n"
    );

    // An unchanged update is valid.
    let (code, stdout) = run(&["--crd", &crd, "--old", &old, &old]);
    assert_eq!((code, stdout.as_str()), (0, ""));
}

/// Validation ratcheting: errors on values an update leaves unchanged are dropped.
#[test]
fn updates_ratchet_unchanged_values() {
    let dir = scratch("ratchet");
    let crd = write(dir.path(), "crd.yaml", &crd());
    // Stored before `maximum: 10` and the min/max rule existed.
    let old = write(
        dir.path(),
        "old.yaml",
        &format!(
            "{}---\n{}",
            widget("c", 20, 30, "fast"),
            widget("d", 5, 3, "fast")
        ),
    );
    let unchanged_bad_values = write(
        dir.path(),
        "new.yaml",
        &format!(
            "{}---\n{}",
            widget("c", 20, 31, "fast"),
            widget("d", 5, 3, "fast").replace("namespace: ns}", "namespace: ns, labels: {a: b}}")
        ),
    );
    let (code, stdout) = run(&["--crd", &crd, "--old", &old, &unchanged_bad_values]);
    assert_eq!((code, stdout.as_str()), (0, ""));

    // Changed values are checked; a transition rule runs on unchanged values too.
    let changed = write(
        dir.path(),
        "changed.yaml",
        &format!(
            "{}---\n{}",
            widget("c", 21, 31, "fast"),
            widget("d", 5, 3, "slow")
        ),
    );
    let (code, stdout) = run(&["--crd", &crd, "--old", &old, &changed]);
    assert_eq!(code, 1);
    assert_eq!(
        stdout,
        "Widget \"c\" is invalid:\nspec.minReplicas: Invalid value: 21: spec.minReplicas in body should be less than or equal to 10\n\
         Widget \"d\" is invalid:\nspec: Invalid value: minReplicas must not exceed maxReplicas\n\
         spec.storageClass: Invalid value: \"slow\": storageClass is immutable\n"
    );

    // With the gate off (possible before 1.33), nothing ratchets.
    let off = [
        "--kube-version",
        "1.32",
        "--feature-gates",
        "CRDValidationRatcheting=false",
    ];
    let mut args = vec!["--crd", crd.as_str(), "--old", old.as_str()];
    args.extend(off);
    args.push(&unchanged_bad_values);
    let (code, stdout) = run(&args);
    assert_eq!(code, 1);
    assert!(
        stdout.contains("spec.minReplicas: Invalid value: 20: "),
        "{stdout}"
    );
    assert!(
        stdout.contains("spec: Invalid value: \"object\": minReplicas must not exceed"),
        "{stdout}"
    );
    let (code, _) = run(&[
        "--crd",
        &crd,
        "--kube-version",
        "1.33",
        "--feature-gates",
        "CRDValidationRatcheting=false",
        &unchanged_bad_values,
    ]);
    assert_eq!(code, 2);
    let (code, _) = run(&[
        "--crd",
        &crd,
        "--kube-version",
        "1.29",
        &unchanged_bad_values,
    ]);
    assert_eq!(code, 2);
}

#[test]
fn unreadable_old_file_exits_2() {
    let dir = scratch("bad-old");
    let crd = write(dir.path(), "crd.yaml", &crd());
    let new = write(dir.path(), "new.yaml", &widget("a", 1, 2, "x"));
    let old = write(dir.path(), "old.yaml", "kind: [unclosed\n");
    let (code, _) = run(&["--crd", &crd, "--old", &old, &new]);
    assert_eq!(code, 2);
}
