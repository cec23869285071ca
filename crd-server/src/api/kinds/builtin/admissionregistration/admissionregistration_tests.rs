use crate::api::kinds::builtin::admissionregistration::*;

#[test]
fn rules_follow_validate_rule_with_operations() {
    let mut errs = ErrorList::new();
    let rule = json!({
        "operations": ["PATCH"],
        "apiGroups": ["*", "apps"],
        "apiVersions": [""],
        "resources": ["pods/*", "pods/status", "*/scale", "deployments/scale", "*", "pods"],
        "scope": "Everywhere",
    });
    rule_with_operations(&rule, &Path::new("rules").index(0), &mut errs);
    assert_eq!(
        errs.strings(),
        [
            "rules[0].operations[0]: Unsupported value: \"PATCH\": supported values: \"*\", \"CONNECT\", \"CREATE\", \"DELETE\", \"UPDATE\"",
            "rules[0].apiGroups: Invalid value: [\"*\",\"apps\"]: if '*' is present, must not specify other API groups",
            "rules[0].apiVersions[0]: Required value",
            "rules[0].resources[1]: Invalid value: \"pods/status\": if 'pods/*' is present, must not specify pods/status",
            "rules[0].resources[3]: Invalid value: \"deployments/scale\": if '*/scale' is present, must not specify deployments/scale",
            "rules[0].resources: Invalid value: [\"pods/*\",\"pods/status\",\"*/scale\",\"deployments/scale\",\"*\",\"pods\"]: if '*' is present, must not specify other resources without subresources",
            "rules[0].scope: Unsupported value: \"Everywhere\": supported values: \"*\", \"Cluster\", \"Namespaced\"",
        ]
    );
    let mut errs = ErrorList::new();
    let ok = json!({"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*/*"]});
    rule_with_operations(&ok, &Path::new("r"), &mut errs);
    assert!(errs.is_empty(), "{:?}", errs.strings());
}

#[test]
fn param_kinds_and_refs_are_checked() {
    let mut errs = ErrorList::new();
    param_kind(
        &json!({"apiVersion": "a/b/c", "kind": "Bad_Kind"}),
        &Path::new("paramKind"),
        &mut errs,
    );
    let out = errs.strings();
    assert_eq!(
        out[0],
        "paramKind.apiVersion: Invalid value: \"a/b/c\": unexpected GroupVersion string: a/b/c"
    );
    assert!(out[1].starts_with("paramKind.kind: Invalid value: \"Bad_Kind\": may have mixed case, but should otherwise match: a DNS-1035 label"), "{out:?}");

    let mut errs = ErrorList::new();
    param_ref(
        &json!({"name": "p", "selector": {}, "parameterNotFoundAction": "Maybe"}),
        &Path::new("paramRef"),
        &mut errs,
    );
    assert_eq!(
        errs.strings(),
        [
            "paramRef.name: Forbidden: name and selector are mutually exclusive",
            "paramRef.selector: Forbidden: name and selector are mutually exclusive",
            "paramRef.parameterNotFoundAction: Unsupported value: \"Maybe\": supported values: \"Deny\", \"Allow\"",
        ]
    );
    assert!(
        is_cel_identifier("_x1") && !is_cel_identifier("namespace") && !is_cel_identifier("1x")
    );
}
