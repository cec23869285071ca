//! `crd-gen validate` with `x-kubernetes-validations`: CEL rules run after the
//! OpenAPI checks, and `--old` turns matching objects into updates so that
//! transition rules (`oldSelf`) run.

use std::path::Path;
use std::process::Command;

mod tempdir;
use tempdir::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_crd-gen");

const CRD: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: self.minReplicas <= self.maxReplicas
              message: minReplicas must not exceed maxReplicas
            properties:
              minReplicas: {type: integer}
              maxReplicas: {type: integer}
              storageClass:
                type: string
                x-kubernetes-validations:
                - {rule: self == oldSelf, message: storageClass is immutable}
"#;

/// A fresh scratch directory for one test, deleted when it goes out of scope.
fn scratch(test: &str) -> TempDir {
    TempDir::new("crd-gen-cel", test)
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
    let crd = write(&dir, "crd.yaml", CRD);
    let new = write(
        &dir,
        "new.yaml",
        &format!(
            "{}---\n{}",
            widget("a", 3, 1, "fast"),
            widget("b", 1, 2, "slow")
        ),
    );
    let old = write(&dir, "old.yaml", &widget("b", 1, 2, "fast"));

    let (code, stdout) = run(&["--crd", &crd, &new]);
    assert_eq!(code, 1);
    assert_eq!(
        stdout,
        "Widget \"a\" is invalid:\nspec: Invalid value: \"object\": minReplicas must not exceed maxReplicas\n"
    );

    let (code, stdout) = run(&["--crd", &crd, "--old", &old, &new]);
    assert_eq!(code, 1);
    assert_eq!(
        stdout,
        "Widget \"a\" is invalid:\nspec: Invalid value: \"object\": minReplicas must not exceed maxReplicas\n\
         Widget \"b\" is invalid:\nspec.storageClass: Invalid value: \"slow\": storageClass is immutable\n"
    );

    // An unchanged update is valid.
    let (code, stdout) = run(&["--crd", &crd, "--old", &old, &old]);
    assert_eq!((code, stdout.as_str()), (0, ""));
}

#[test]
fn unreadable_old_file_exits_2() {
    let dir = scratch("bad-old");
    let crd = write(&dir, "crd.yaml", CRD);
    let new = write(&dir, "new.yaml", &widget("a", 1, 2, "x"));
    let old = write(&dir, "old.yaml", "kind: [unclosed\n");
    let (code, _) = run(&["--crd", &crd, "--old", &old, &new]);
    assert_eq!(code, 2);
}
