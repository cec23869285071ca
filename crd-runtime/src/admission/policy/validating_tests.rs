//! ValidatingAdmissionPolicy tests: policies as JSON, every message checked
//! against kube-apiserver's wording.

use serde_json::{Value, json};

use super::*;
use crate::admission::{GroupVersionKind, GroupVersionResource, Operation};

pub(super) fn deployment(replicas: i64) -> Attributes {
    Attributes {
        operation: Some(Operation::Create),
        kind: GroupVersionKind {
            group: "apps".into(),
            version: "v1".into(),
            kind: "Deployment".into(),
        },
        resource: GroupVersionResource {
            group: "apps".into(),
            version: "v1".into(),
            resource: "deployments".into(),
        },
        name: "web".into(),
        namespace: "default".into(),
        object: Some(json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
            "spec": {"replicas": replicas}})),
        ..Default::default()
    }
}

pub(super) fn constraints() -> Value {
    json!({"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"],
        "operations": ["CREATE", "UPDATE"], "resources": ["deployments"]}]})
}

fn policy(spec: Value) -> Value {
    let mut spec = spec;
    spec["matchConstraints"] = constraints();
    json!({"metadata": {"name": "p", "generation": 2}, "spec": spec})
}

fn binding(actions: &[&str], extra: Value) -> Value {
    let mut spec = json!({"policyName": "p", "validationActions": actions});
    if let Value::Object(m) = extra {
        for (k, v) in m {
            spec[k] = v;
        }
    }
    json!({"metadata": {"name": "b"}, "spec": spec})
}

fn no_params(_: &ParamQuery) -> Result<Vec<Value>, String> {
    Ok(Vec::new())
}

fn run(spec: Value, b: Value, a: &Attributes) -> Verdict {
    run_with(spec, b, a, &no_params)
}

fn run_with(
    spec: Value,
    b: Value,
    a: &Attributes,
    params: &dyn Fn(&ParamQuery) -> Result<Vec<Value>, String>,
) -> Verdict {
    let vp = ValidatingPolicies::new(&[policy(spec)], &[b], KubeVersion::NEWEST);
    let plan = vp.plan(a, None, &[]);
    vp.decide(&plan, a, None, params)
}

/// The message a policy of `spec`, bound with `Deny`, denies `a` with.
fn denied_with(spec: Value, a: &Attributes) -> String {
    let v = run(spec, binding(&["Deny"], json!({})), a);
    denial(&v).0.to_string()
}

fn denial(v: &Verdict) -> (&str, &str, u16) {
    let d = v.denied.as_ref().expect("denied");
    (d.message.as_str(), d.reason.as_str(), d.code)
}

#[test]
fn messages_fall_back_from_expression_to_message_to_expression() {
    let a = deployment(5);
    let v = run(
        json!({"validations": [{"expression": "object.spec.replicas <= 3"}]}),
        binding(&["Deny"], json!({})),
        &a,
    );
    assert_eq!(
        denial(&v),
        (
            "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed expression: object.spec.replicas <= 3",
            "Invalid",
            422
        )
    );
    let v = run(
        json!({"validations": [{"expression": "object.spec.replicas <= 3", "message": " too many ", "reason": "Forbidden"}]}),
        binding(&["Deny"], json!({})),
        &a,
    );
    assert_eq!(
        denial(&v),
        (
            "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: too many",
            "Forbidden",
            403
        )
    );
    let v = run(
        json!({"validations": [{"expression": "object.spec.replicas <= 3", "message": "m",
        "messageExpression": "'replicas ' + string(object.spec.replicas) + ' > 3'", "reason": "RequestEntityTooLarge"}]}),
        binding(&["Deny"], json!({})),
        &a,
    );
    assert_eq!(
        denial(&v),
        (
            "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: replicas 5 > 3",
            "RequestEntityTooLarge",
            413
        )
    );
    // A failing or multi-line messageExpression falls back to the message.
    assert_eq!(
        denied_with(
            json!({"validations": [{"expression": "false", "message": "m", "messageExpression": "object.nope"},
        {"expression": "false", "messageExpression": "'a\\nb'", "reason": "Unauthorized"}]}),
            &a
        ),
        "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: m"
    );
    let ok = run(
        json!({"validations": [{"expression": "object.spec.replicas <= 5"}]}),
        binding(&["Deny"], json!({})),
        &a,
    );
    assert_eq!(ok, Verdict::default());
}

#[test]
fn warn_and_audit_actions() {
    let a = deployment(5);
    let spec = json!({"validations": [{"expression": "object.spec.replicas <= 3", "message": "too many"}]});
    let v = run(spec.clone(), binding(&["Warn", "Audit"], json!({})), &a);
    assert!(v.denied.is_none());
    assert_eq!(
        v.warnings,
        ["Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': too many"]
    );
    assert_eq!(v.audit_annotations, [(
        "validation.policy.admission.k8s.io/validation_failure".to_string(),
        r#"[{"message":"too many","policy":"p","binding":"b","expressionIndex":0,"validationActions":["Warn","Audit"]}]"#.to_string()
    )]);
}

#[test]
fn errors_follow_the_failure_policy() {
    let a = deployment(5);
    let spec = json!({"validations": [{"expression": "object.spec.nope > 1"}]});
    let v = run(spec.clone(), binding(&["Deny"], json!({})), &a);
    assert_eq!(
        denial(&v),
        (
            "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: expression 'object.spec.nope > 1' resulted in error: no such key: nope",
            "Invalid",
            422
        )
    );
    let mut ignore = spec;
    ignore["failurePolicy"] = json!("Ignore");
    assert_eq!(
        run(ignore, binding(&["Deny"], json!({})), &a),
        Verdict::default()
    );
    assert_eq!(
        denied_with(
            json!({"validations": [{"expression": "undefined > 1"}]}),
            &a
        ),
        "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: compilation error: compilation failed: ERROR: <input>:1:1: undeclared reference to 'undefined' (in container '')\n | undefined > 1\n | ^"
    );
}

#[test]
fn variables_match_conditions_and_audit_annotations() {
    let a = deployment(5);
    let spec = json!({
        "variables": [{"name": "r", "expression": "object.spec.replicas"},
                      {"name": "big", "expression": "variables.r > 3"},
                      {"name": "bad", "expression": "object.spec.nope"}],
        "matchConditions": [{"name": "web", "expression": "object.metadata.name == 'web'"}],
        "validations": [{"expression": "!variables.big", "messageExpression": "'r=' + string(variables.r)"}],
        "auditAnnotations": [{"key": "replicas", "valueExpression": "string(variables.r)"},
                             {"key": "none", "valueExpression": "null"}],
    });
    let v = run(spec.clone(), binding(&["Deny"], json!({})), &a);
    assert_eq!(
        denial(&v).0,
        "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: r=5"
    );
    assert_eq!(
        v.audit_annotations,
        [("p/replicas".to_string(), "5".to_string())]
    );
    let mut other = deployment(5);
    other.name = "other".into();
    other.object.as_mut().unwrap()["metadata"]["name"] = json!("other");
    assert_eq!(
        run(spec, binding(&["Deny"], json!({})), &other),
        Verdict::default()
    );
    assert_eq!(
        denied_with(
            json!({"variables": [{"name": "bad", "expression": "object.spec.nope"}],
        "validations": [{"expression": "variables.bad == 1"}]}),
            &a
        ),
        "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: expression 'variables.bad == 1' resulted in error: composited variable \"bad\" fails to evaluate: no such key: nope"
    );
    let v = run(
        json!({"validations": [{"expression": "true"}],
        "auditAnnotations": [{"key": "k", "valueExpression": "object.spec.replicas"}]}),
        binding(&["Deny"], json!({})),
        &a,
    );
    assert!(
        denial(&v)
            .0
            .contains("must evaluate to one of [string null_type] but got"),
        "{v:?}"
    );
}

#[test]
fn request_namespace_and_authorizer_are_visible() {
    let mut a = deployment(1);
    a.user.username = "alice".into();
    a.dry_run = true;
    let spec = json!({"validations": [
        {"expression": "request.operation == 'CREATE' && request.kind.kind == 'Deployment' && request.resource.resource == 'deployments'"},
        {"expression": "request.userInfo.username == 'alice' && request.dryRun && request.name == 'web' && request.namespace == 'default'"},
        {"expression": "oldObject == null"},
        {"expression": "authorizer.group('apps').resource('deployments').check('create').allowed()"},
        {"expression": "namespaceObject.metadata.labels.env == 'prod'"},
    ]});
    let vp = ValidatingPolicies::new(
        &[policy(spec)],
        &[binding(&["Deny"], json!({}))],
        KubeVersion::NEWEST,
    );
    let ns =
        json!({"metadata": {"name": "default", "labels": {"env": "prod"}, "managedFields": []}});
    let plan = vp.plan(&a, Some(&ns), &[]);
    assert_eq!(
        vp.decide(&plan, &a, Some(&ns), &no_params),
        Verdict::default()
    );
}

#[test]
fn params_by_name_selector_and_not_found_action() {
    let a = deployment(5);
    let spec = json!({"paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
        "validations": [{"expression": "object.spec.replicas <= int(params.data.max)",
            "messageExpression": "'max is ' + params.data.max"}]});
    let by_name = binding(
        &["Deny"],
        json!({"paramRef": {"name": "limits", "parameterNotFoundAction": "Deny"}}),
    );
    let found = |q: &ParamQuery| -> Result<Vec<Value>, String> {
        assert_eq!(q.kind, "ConfigMap");
        assert_eq!(q.namespace.as_deref(), Some("default"));
        Ok(vec![json!({"data": {"max": "3"}})])
    };
    let v = run_with(spec.clone(), by_name.clone(), &a, &found);
    assert_eq!(
        denial(&v).0,
        "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: max is 3"
    );
    let v = run_with(spec.clone(), by_name, &a, &no_params);
    assert_eq!(
        denial(&v),
        (
            "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
            "Invalid",
            422
        )
    );
    let allow = binding(
        &["Deny"],
        json!({"paramRef": {"selector": {}, "parameterNotFoundAction": "Allow"}}),
    );
    assert_eq!(
        run_with(spec.clone(), allow.clone(), &a, &no_params),
        Verdict::default()
    );
    // Every selected param object is evaluated.
    let two = |_: &ParamQuery| {
        Ok(vec![
            json!({"data": {"max": "9"}}),
            json!({"data": {"max": "1"}}),
        ])
    };
    assert_eq!(
        denial(&run_with(spec.clone(), allow.clone(), &a, &two)).0,
        "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: max is 1"
    );
    let failing = |_: &ParamQuery| Err("boom".to_string());
    assert_eq!(
        denial(&run_with(spec, allow, &a, &failing)).0,
        "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed to configure binding: boom"
    );
}

#[test]
fn string_concatenation_with_dyn_is_a_string() {
    let scope = super::expression::Scope {
        authorizer: false,
        ..super::expression::Scope::policy(true, &[], crate::cel::CelEnvironment::NEWEST)
    };
    assert_eq!(
        super::expression::check(
            "'max is ' + params.data.max",
            super::expression::Returns::String,
            scope
        ),
        Ok(())
    );
}

#[test]
fn plans_follow_constraints_and_binding_resources() {
    let a = deployment(1);
    let vp = ValidatingPolicies::new(
        &[policy(json!({"validations": [{"expression": "true"}]}))],
        &[binding(
            &["Deny"],
            json!({"matchResources": {"namespaceSelector": {"matchLabels": {"env": "prod"}}}}),
        )],
        KubeVersion::NEWEST,
    );
    assert!(!vp.is_empty());
    let prod = json!({"metadata": {"name": "default", "labels": {"env": "prod"}}});
    let dev = json!({"metadata": {"name": "default", "labels": {"env": "dev"}}});
    assert_eq!(vp.plan(&a, Some(&prod), &[]).steps.len(), 1);
    assert!(vp.plan(&a, Some(&dev), &[]).is_empty());
    let plan = vp.plan(&a, None, &[]);
    assert_eq!(
        plan.steps[0].error.as_deref(),
        Some("failed to configure binding: namespaces \"default\" not found")
    );
    let mut pod = a.clone();
    pod.resource.resource = "replicasets".into();
    assert!(vp.plan(&pod, Some(&prod), &[]).is_empty());
    assert!(ValidatingPolicies::new(&[policy(json!({}))], &[], KubeVersion::NEWEST).is_empty());
}

#[test]
fn type_checking_uses_the_schema_of_named_kinds() {
    let spec = json!({"validations": [{"expression": "object.spec.replicas > 1"}, {"expression": "object.spec.nope > 1"}]});
    let vp = ValidatingPolicies::new(&[policy(spec)], &[], KubeVersion::NEWEST);
    assert_eq!(vp.type_checking(), [("p".to_string(), 2, vec![])]);
    let schema: crate::model::JSONSchemaProps =
        serde_json::from_value(json!({"type": "object", "properties": {
        "spec": {"type": "object", "properties": {"replicas": {"type": "integer"}}}}}))
        .unwrap();
    let got = vp.type_checking_with(&|g, v, r| {
        (g == "apps" && v == "v1" && r == "deployments")
            .then(|| ("Deployment".to_string(), schema.clone()))
    });
    assert_eq!(got[0].2.len(), 1, "{got:?}");
    assert_eq!(got[0].2[0]["fieldRef"], "spec.validations[1].expression");
    let w = got[0].2[0]["warning"].as_str().unwrap();
    assert!(w.starts_with("apps/v1, Kind=Deployment: compilation failed: ERROR: <input>:1:12: undefined field 'nope'"), "{w}");
}

#[test]
fn the_shared_budget_runs_out() {
    let a = deployment(1);
    let costly = json!({"expression": "lists.range(100000).all(i, i >= 0)"});
    let validations: Vec<Value> = std::iter::repeat_n(costly, 20).collect();
    assert_eq!(
        denied_with(json!({"validations": validations}), &a),
        "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: validation failed due to running out of cost budget, no further validation rules will be run"
    );
    assert_eq!(
        denied_with(
            json!({"validations": [{"expression": "lists.range(1000).all(i, lists.range(1000).all(j, j >= 0))"}]}),
            &a
        ),
        "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: expression 'lists.range(1000).all(i, lists.range(1000).all(j, j >= 0))' resulted in error: operation cancelled: actual cost limit exceeded"
    );
}

#[test]
fn deletes_and_namespaces() {
    let mut a = deployment(1);
    a.operation = Some(Operation::Delete);
    a.old_object = a.object.take();
    let spec = json!({"matchConstraints": {"resourceRules": [{"apiGroups": ["*"], "apiVersions": ["*"],
        "operations": ["*"], "resources": ["*"]}]},
        "validations": [{"expression": "object == null && oldObject.spec.replicas == 1 && request.operation == 'DELETE'"},
                        {"expression": "namespaceObject == null || namespaceObject.metadata.name == request.namespace"}]});
    let p = json!({"metadata": {"name": "p"}, "spec": spec});
    let vp = ValidatingPolicies::new(&[p], &[binding(&["Deny"], json!({}))], KubeVersion::NEWEST);
    let ns = json!({"metadata": {"name": "default"}});
    assert_eq!(
        vp.decide(&vp.plan(&a, Some(&ns), &[]), &a, Some(&ns), &no_params),
        Verdict::default()
    );
    // A Namespace's own request has no namespaceObject.
    let nsreq = Attributes {
        operation: Some(Operation::Create),
        kind: GroupVersionKind {
            group: String::new(),
            version: "v1".into(),
            kind: "Namespace".into(),
        },
        resource: GroupVersionResource {
            group: String::new(),
            version: "v1".into(),
            resource: "namespaces".into(),
        },
        name: "dev".into(),
        namespace: "dev".into(),
        object: Some(json!({"metadata": {"name": "dev"}})),
        ..Default::default()
    };
    let spec = json!({"matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
        "operations": ["CREATE"], "resources": ["namespaces"]}]},
        "validations": [{"expression": "namespaceObject == null", "message": "has a namespaceObject"}]});
    let p = json!({"metadata": {"name": "p"}, "spec": spec});
    let vp = ValidatingPolicies::new(&[p], &[binding(&["Deny"], json!({}))], KubeVersion::NEWEST);
    let own = json!({"metadata": {"name": "dev"}});
    assert_eq!(
        vp.decide(
            &vp.plan(&nsreq, Some(&own), &[]),
            &nsreq,
            Some(&own),
            &no_params
        ),
        Verdict::default()
    );
}

#[test]
fn policies_of_one_request_share_its_activation() {
    // Policies naming different values (one neither `request` nor `params`, one
    // both, one with match conditions and variables) in one request, twice with
    // two parameter objects: each sees its own params and the same request.
    let named = |name: &str, spec: Value| {
        let mut spec = spec;
        spec["matchConstraints"] = constraints();
        json!({"metadata": {"name": name}, "spec": spec})
    };
    let bound = |name: &str, extra: Value| {
        let mut spec = json!({"policyName": name, "validationActions": ["Warn"]});
        if let Value::Object(m) = extra {
            for (k, v) in m {
                spec[k] = v;
            }
        }
        json!({"metadata": {"name": name}, "spec": spec})
    };
    let policies = [
        named(
            "plain",
            json!({"validations": [{"expression": "object.spec.replicas < 3"}]}),
        ),
        named(
            "both",
            json!({"paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
            "validations": [{"expression": "request.name + '/' + params.data.x == 'web/a'",
                "messageExpression": "'saw ' + request.name + '/' + params.data.x"}]}),
        ),
        named(
            "conditioned",
            json!({
            "matchConditions": [{"name": "no-ns", "expression": "namespaceObject == null && variables.r > 1"}],
            "variables": [{"name": "r", "expression": "object.spec.replicas"}],
            "validations": [{"expression": "variables.r < 4 && namespaceObject.metadata.name == 'default'",
                "message": "r too big"}]}),
        ),
    ];
    let bindings = [
        bound("plain", json!({})),
        bound(
            "both",
            json!({"paramRef": {"selector": {}, "parameterNotFoundAction": "Deny"}}),
        ),
        bound("conditioned", json!({})),
    ];
    let vp = ValidatingPolicies::new(&policies, &bindings, KubeVersion::NEWEST);
    let a = deployment(5);
    let ns = json!({"metadata": {"name": "default"}});
    let plan = vp.plan(&a, Some(&ns), &[]);
    let params = |_: &ParamQuery| -> Result<Vec<Value>, String> {
        Ok(vec![
            json!({"data": {"x": "a"}}),
            json!({"data": {"x": "b"}}),
        ])
    };
    let v = vp.decide(&plan, &a, Some(&ns), &params);
    // Policies run in the order of their names.
    assert_eq!(
        v.warnings,
        [
            "Validation failed for ValidatingAdmissionPolicy 'both' with binding 'both': saw web/b",
            "Validation failed for ValidatingAdmissionPolicy 'conditioned' with binding 'conditioned': r too big",
            "Validation failed for ValidatingAdmissionPolicy 'plain' with binding 'plain': failed expression: object.spec.replicas < 3",
        ]
    );
}
