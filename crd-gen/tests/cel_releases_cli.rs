//! `crd-gen check --kube-version` at each release boundary of the CEL
//! libraries: a 1.N server compiles new rules in the 1.(N-1) environment, so a
//! library base.go introduces at 1.N is refused by `--kube-version 1.N` with
//! cel-go's `undeclared reference` and accepted by 1.(N+1).

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_crd-gen");

/// A CRD whose `spec` has one rule, `rule`, over `s` (string), `ips` (list of
/// strings) and `n` (integer).
fn crd(rule: &str) -> String {
    format!(
        r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {{name: things.example.com}}
spec:
  group: example.com
  scope: Namespaced
  names: {{plural: things, kind: Thing}}
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
            properties:
              s: {{type: string, maxLength: 64}}
              ips: {{type: array, maxItems: 8, items: {{type: string, maxLength: 64}}}}
              n: {{type: integer}}
            x-kubernetes-validations:
            - rule: {rule:?}
"#
    )
}

/// `crd-gen check --kube-version VERSION` on a CRD with `rule`: exit code and stdout.
fn check(version: &str, rule: &str) -> (i32, String) {
    let dir = tempfile::Builder::new()
        .prefix("crd-gen-cel-releases-")
        .tempdir()
        .unwrap();
    let file = dir.path().join("crd.yaml");
    std::fs::write(&file, crd(rule)).unwrap();
    let out = Command::new(BIN)
        .args(["check", "--kube-version", version])
        .arg(&file)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout)
        .unwrap()
        .replace(&file.display().to_string(), "crd.yaml");
    (out.status.code().unwrap(), stdout)
}

/// The refusal `crd-gen check` prints for the undeclared function `name`,
/// which cel-go locates at the `(` of its call.
fn refusal(rule: &str, name: &str) -> String {
    let last = name.rsplit('.').next().unwrap();
    let col = rule.find(&format!("{last}(")).unwrap() + last.len() + 1;
    format!(
        "crd.yaml: things.example.com: spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: \
         Invalid value: {rule:?}: compilation failed: ERROR: <input>:1:{col}: undeclared reference to '{name}' (in container '')\n \
         | {rule}\n | {}^\nchecked 1 CRDs: 1 invalid\n",
        ".".repeat(col - 1)
    )
}

const VALID: &str = "checked 1 CRDs: 0 invalid\n";

/// `rule` is refused at `before` (undeclared `name`) and accepted at `from`.
fn boundary(rule: &str, name: &str, before: &str, from: &str) {
    assert_eq!(
        check(before, rule),
        (1, refusal(rule, name)),
        "{rule} at {before}"
    );
    assert_eq!(check(from, rule), (0, VALID.into()), "{rule} at {from}");
}

#[test]
fn ip_and_cidr_from_1_31() {
    boundary("isIP(self.s)", "isIP", "1.30", "1.31");
    // cel-go locates the call at its `(`.
    assert!(refusal("isIP(self.s)", "isIP").contains("<input>:1:5:"));
}

#[test]
fn format_from_1_32() {
    boundary(
        "format.named('dns1123Label').hasValue()",
        "format.named",
        "1.31",
        "1.32",
    );
}

#[test]
fn first_and_last_from_the_1_33_binary() {
    boundary("self.ips.first().hasValue()", "first", "1.32", "1.33");
}

#[test]
fn semver_from_1_34() {
    boundary("isSemver(self.s)", "isSemver", "1.33", "1.34");
}

#[test]
fn ext_lists_from_1_35() {
    boundary("self.ips.sort() == self.ips", "sort", "1.34", "1.35");
    boundary("lists.range(3).size() == 3", "lists.range", "1.34", "1.35");
}

#[test]
fn includes_needs_a_newer_release_than_any_supported() {
    let rule = "self.ips.includes('a')";
    assert_eq!(check("1.37", rule), (1, refusal(rule, "includes")));
}

#[test]
fn functions_no_release_has_are_undeclared() {
    let rule = "math.abs(self.n) > 0";
    assert_eq!(check("1.37", rule), (1, refusal(rule, "math.abs")));
    let rule = "base64.encode(bytes(self.s)) != ''";
    assert_eq!(check("1.37", rule), (1, refusal(rule, "base64.encode")));
}

/// `crd-gen validate --crd CRD --kube-version VERSION` on one `Thing`.
fn validate(version: &str, rule: &str, spec: &str) -> (i32, String) {
    let dir = tempfile::Builder::new()
        .prefix("crd-gen-cel-releases-validate-")
        .tempdir()
        .unwrap();
    let crd_file = dir.path().join("crd.yaml");
    std::fs::write(&crd_file, crd(rule)).unwrap();
    let obj = dir.path().join("thing.yaml");
    std::fs::write(
        &obj,
        format!("apiVersion: example.com/v1\nkind: Thing\nmetadata: {{name: a, namespace: ns}}\nspec: {spec}\n"),
    )
    .unwrap();
    let out = Command::new(BIN)
        .args(["validate", "--kube-version", version, "--crd"])
        .arg(&crd_file)
        .arg(&obj)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
    )
}

#[test]
fn installed_rules_run_with_the_servers_own_libraries() {
    // `check --kube-version 1.34` refuses `sort` in a new rule, but a 1.34
    // server runs it in a CRD it has stored (StoredExpressions).
    let rule = "self.ips.sort() == self.ips";
    assert_eq!(check("1.34", rule).0, 1);
    assert_eq!(validate("1.34", rule, "{ips: [a, b]}"), (0, String::new()));
    assert_eq!(
        validate("1.34", rule, "{ips: [b, a]}"),
        (
            1,
            "Thing \"a\" is invalid:\nspec: Invalid value: \"object\": failed rule: self.ips.sort() == self.ips\n"
                .into()
        )
    );
    // A 1.33 server has no ext.Lists at all: the rule cannot compile.
    let (code, stdout) = validate("1.33", rule, "{ips: [a, b]}");
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("rule compile error: compilation failed: ERROR: <input>:1:14: undeclared reference to 'sort'"),
        "{stdout}"
    );
}
