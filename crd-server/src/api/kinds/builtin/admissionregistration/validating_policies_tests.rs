use super::*;

fn policy(spec: Value) -> Value {
    let mut p = json!({"metadata": {"name": "demo.example.com"}, "spec": spec});
    ValidatingPolicies.decode(&mut p).unwrap();
    p
}

fn errors(obj: &Value) -> Vec<String> {
    let mut errs = ErrorList::new();
    ValidatingPolicies.validate_with(obj, &Validation::main(None), &mut errs);
    errs.strings()
}

const RULES: &str = r#"{"resourceRules": [{"operations": ["CREATE"], "apiGroups": ["apps"], "apiVersions": ["v1"], "resources": ["deployments"]}]}"#;

#[test]
fn policies_default_and_compile_their_expressions() {
    let rules: Value = serde_json::from_str(RULES).unwrap();
    let p = policy(json!({
        "matchConstraints": rules,
        "variables": [{"name": "replicas", "expression": "object.spec.replicas"}],
        "validations": [
            {"expression": "variables.replicas <= 5", "messageExpression": "'too many: ' + string(variables.replicas)"},
            {"expression": "params.max > 1", "reason": "Teapot"},
        ],
        "auditAnnotations": [{"key": "high", "valueExpression": "1"}],
    }));
    assert_eq!(p["spec"]["failurePolicy"], "Fail");
    assert_eq!(p["spec"]["matchConstraints"]["matchPolicy"], "Equivalent");
    assert_eq!(
        p["spec"]["matchConstraints"]["namespaceSelector"],
        json!({})
    );
    assert_eq!(p["spec"]["matchConstraints"]["objectSelector"], json!({}));
    assert_eq!(
        p["spec"]["matchConstraints"]["resourceRules"][0]["scope"],
        "*"
    );
    let out = errors(&p);
    assert_eq!(out.len(), 3, "{out:?}");
    assert!(out[0].starts_with("spec.validations[1].expression: Invalid value: \"params.max > 1\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params'"));
    assert_eq!(
        out[1],
        "spec.validations[1].reason: Unsupported value: \"Teapot\": supported values: \"Forbidden\", \"Invalid\", \"RequestEntityTooLarge\""
    );
    assert_eq!(
        out[2],
        "spec.auditAnnotations[0].valueExpression: Invalid value: \"1\": must evaluate to one of [string null_type] but got int"
    );
}

#[test]
fn a_policy_needs_constraints_and_validations() {
    let mut p = json!({"metadata": {"name": "p"}, "spec": {"failurePolicy": "Never"}});
    ValidatingPolicies.decode(&mut p).unwrap();
    assert_eq!(
        errors(&p),
        [
            "spec.failurePolicy: Unsupported value: \"Never\": supported values: \"Fail\", \"Ignore\"",
            "spec.matchConstraints: Required value",
            "spec.validations: Required value: validations or auditAnnotations must contain at least one item",
            "spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item",
        ]
    );
}

#[test]
fn an_update_compiles_kept_expressions_in_the_stored_environment() {
    // `includes` is 1.37's: a 1.37 server refuses it in a new expression
    // (compatibility version 1.36) but keeps compiling it where the old policy
    // already had it.
    let rules: Value = serde_json::from_str(RULES).unwrap();
    let with = |validations: Value| {
        policy(json!({"matchConstraints": rules.clone(), "validations": validations}))
    };
    let kept = "object.spec.tags.includes('a')";
    let old = with(json!([{"expression": kept}]));
    assert_eq!(errors(&old).len(), 1, "a create compiles it as new");
    let new = with(json!([
        {"expression": kept},
        {"expression": "object.spec.tags.includes('b')"},
    ]));
    let mut errs = ErrorList::new();
    ValidatingPolicies.validate_with(&new, &Validation::main(Some(&old)), &mut errs);
    let out = errs.strings();
    assert_eq!(out.len(), 1, "{out:?}");
    assert!(
        out[0].starts_with("spec.validations[1].expression: Invalid value: \"object.spec.tags.includes('b')\": compilation failed: ERROR: <input>:1:26: undeclared reference to 'includes'"),
        "{out:?}"
    );
}
