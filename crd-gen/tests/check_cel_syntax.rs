//! `crd-gen check` on docs/examples/cel-two-var.yaml: rules with two-variable
//! comprehensions, `sortBy` and optional types compile where the release's CEL
//! environment declares them and fail with the API server's message before.

use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_crd-gen");

fn example() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../docs/examples/cel-two-var.yaml")
        .to_str()
        .unwrap()
        .to_string()
}

fn check(version: &str) -> (i32, String) {
    let out = Command::new(BIN)
        .args(["check", "--kube-version", version, &example()])
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    (out.status.code().expect("exited normally"), stdout)
}

const RULE_0: &str =
    "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule";

#[test]
fn the_newest_release_accepts_every_rule() {
    let (code, stdout) = check("1.37");
    assert_eq!(code, 0, "{stdout}");
    assert_eq!(stdout, "checked 1 CRDs: 0 invalid\n");
}

#[test]
fn before_two_variable_comprehensions_the_macros_are_undeclared_functions() {
    // The 1.31 environment has no ext.TwoVarComprehensions: cel-go checks
    // `all(i, s, p)` as a call of an undeclared function `all`, located at its `(`.
    let (code, stdout) = check("1.31");
    assert_eq!(code, 1, "{stdout}");
    let first = format!(
        "{}: pipelines.example.com: {RULE_0}: Invalid value: \"self.steps.all(i, s, i == 0 || s != self.steps[i - 1])\": compilation failed: ERROR: <input>:1:15: undeclared reference to 'all' (in container '')\n | self.steps.all(i, s, i == 0 || s != self.steps[i - 1])\n | ..............^\nERROR: <input>:1:16: undeclared reference to 'i' (in container '')",
        example()
    );
    assert!(stdout.starts_with(&first), "{stdout}");
    for name in [
        "exists",
        "transformList",
        "transformMap",
        "transformMapEntry",
        "sortBy",
    ] {
        assert!(
            stdout.contains(&format!(
                "undeclared reference to '{name}' (in container '')"
            )),
            "{name}: {stdout}"
        );
    }
    // Optional types are in every supported release: kube-rs's rule compiles.
    assert!(!stdout.contains("optMap"), "{stdout}");
    assert!(stdout.ends_with("checked 1 CRDs: 1 invalid\n"), "{stdout}");
}

#[test]
fn sort_by_arrives_after_two_variable_comprehensions() {
    // 1.33 has two-variable comprehensions but not ext.Lists v3's sortBy.
    let (code, stdout) = check("1.33");
    assert_eq!(code, 1, "{stdout}");
    let lines: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("x-kubernetes-validations["))
        .collect();
    assert_eq!(lines.len(), 1, "{stdout}");
    assert!(
        lines[0].contains("x-kubernetes-validations[6].rule: Invalid value: \"self.steps.sortBy(s, s.size()).size() == self.steps.size()\": compilation failed: ERROR: <input>:1:18: undeclared reference to 'sortBy' (in container '')"),
        "{stdout}"
    );
}
