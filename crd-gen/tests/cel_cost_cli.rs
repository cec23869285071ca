//! `crd-gen check` estimates rule costs as the API server of the chosen release
//! does: from 1.32 an `==` between two Kubernetes library values (quantities,
//! IPs, CIDRs, semvers) costs 1 (apiserver pkg/cel/library/cost.go), so such a
//! rule is accepted; servers of 1.30 and 1.31 compared them as values of
//! unknown size and refuse it.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_crd-gen");

/// A CRD whose `spec` has one rule, `rule`, over `a` (a string without
/// maxLength), `ip` and `net` (strings of at most 64 characters).
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
              a: {{type: string}}
              ip: {{type: string, maxLength: 64}}
              net: {{type: string, maxLength: 64}}
            x-kubernetes-validations:
            - rule: {rule:?}
"#
    )
}

/// `crd-gen check --kube-version VERSION` on a CRD with `rule`: exit code and stdout.
fn check(version: &str, rule: &str) -> (i32, String) {
    let dir = tempfile::Builder::new()
        .prefix("crd-gen-cel-cost-")
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

const VALID: &str = "checked 1 CRDs: 0 invalid\n";

/// The API server's refusal of a rule whose estimate is unbounded: the rule,
/// and the schema's total, which it alone exceeds.
fn too_costly() -> String {
    let rule = "crd.yaml: things.example.com: spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule";
    let hint = "(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)";
    format!(
        "{rule}: Forbidden: estimated rule cost exceeds budget by factor of more than 100x {hint}\n\
         {rule}: Forbidden: contributed to estimated rule & messageExpression cost total exceeding cost limit for entire OpenAPIv3 schema\n\
         crd.yaml: things.example.com: spec.versions[0].schema.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule & messageExpression cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x {hint}\n\
         checked 1 CRDs: 1 invalid\n"
    )
}

const RULES: [&str; 4] = [
    "quantity(self.a) == quantity('1Gi')",
    "ip(self.ip) == ip('10.0.0.1')",
    "cidr(self.net) == cidr('10.0.0.0/8')",
    "cidr(self.net).ip() == ip(self.ip) && cidr(self.net).masked() == cidr(self.net)",
];

#[test]
fn equality_of_library_values_is_accepted_from_1_32() {
    for rule in RULES {
        for version in ["1.32", "1.37"] {
            assert_eq!(
                check(version, rule),
                (0, VALID.into()),
                "{rule} at {version}"
            );
        }
    }
}

#[test]
fn servers_before_1_32_refuse_it_as_the_api_server_does() {
    for rule in RULES {
        assert_eq!(check("1.31", rule), (1, too_costly()), "{rule} at 1.31");
    }
}

#[test]
fn not_equal_keeps_cel_go_estimate() {
    // Upstream's library estimate is for `_==_` only: `!=` compares two values
    // of unknown size, and every release refuses the rule.
    let rule = "quantity(self.a) != quantity('1Gi')";
    assert_eq!(check("1.37", rule), (1, too_costly()));
}
