//! `crd-gen validate --policy` as a user runs it: ValidatingAdmissionPolicies with
//! their bindings and parameters applied to objects offline, with kube-apiserver's
//! messages, warnings, JSON lines and exit codes.

use std::path::Path;

mod common;

fn scratch(test: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("crd-gen-policy-{test}-"))
        .tempdir()
        .unwrap()
}

fn write(dir: &Path, name: &str, content: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    p.display().to_string()
}

fn run(args: &[&str], stdin: Option<&str>) -> (i32, String, String) {
    let stdin = stdin.unwrap_or_default().as_bytes();
    common::cli::run_with_stdin(&[&["validate"], args].concat(), stdin)
}

fn crontab_crd() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/fixtures/crontab/crd-full.yaml")
        .display()
        .to_string()
}

/// A policy on Deployments: `expression` must hold (`message` when it does not).
fn policy(name: &str, param_kind: &str, expression: &str, message: &str) -> String {
    format!(
        "apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {{name: {name}}}
spec:
  {param_kind}
  matchConstraints:
    resourceRules:
    - {{apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}}
  validations:
  - expression: {expression:?}
    message: {message:?}
"
    )
}

fn binding(name: &str, policy: &str, actions: &str, extra: &str) -> String {
    format!(
        "apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {{name: {name}}}
spec:
  policyName: {policy}
  validationActions: [{actions}]
  {extra}
"
    )
}

fn deployment(name: &str, namespace: &str, replicas: u32) -> String {
    format!(
        "apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}, namespace: {namespace}}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec: {{containers: [{{name: main, image: nginx}}]}}
"
    )
}

fn max_five() -> String {
    format!(
        "{}---\n{}",
        policy(
            "max-replicas",
            "",
            "object.spec.replicas <= 5",
            "too many replicas"
        ),
        binding("max-replicas-binding", "max-replicas", "Deny", "")
    )
}

const DENIED_FIVE: &str = "ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: too many replicas";

#[test]
fn a_denial_is_reported_with_the_servers_message() {
    let dir = scratch("deny");
    let policies = write(dir.path(), "policy.yaml", &max_five());
    let objects = write(
        dir.path(),
        "objects.yaml",
        &format!(
            "{}---\n{}",
            deployment("big", "default", 9),
            deployment("small", "default", 2)
        ),
    );
    let (code, stdout, stderr) = run(&["--policy", &policies, &objects], None);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert_eq!(
        stdout,
        format!("Deployment \"big\" is invalid:\n{DENIED_FIVE}\n")
    );
    assert!(
        stderr.ends_with("validated 2 objects: 1 invalid\n"),
        "{stderr}"
    );
}

#[test]
fn allowed_objects_pass() {
    let dir = scratch("allow");
    let policies = write(dir.path(), "policy.yaml", &max_five());
    let objects = write(
        dir.path(),
        "objects.yaml",
        &deployment("small", "default", 5),
    );
    let (code, stdout, stderr) = run(&["--policy", &policies, &objects], None);
    assert_eq!((code, stdout.as_str()), (0, ""), "{stderr}");
    assert_eq!(stderr, "validated 1 objects: 0 invalid\n");
}

#[test]
fn warn_actions_are_warnings() {
    let dir = scratch("warn");
    let policies = format!(
        "{}---\n{}",
        policy(
            "max-replicas",
            "",
            "object.spec.replicas <= 5",
            "too many replicas"
        ),
        binding("max-replicas-warn", "max-replicas", "Warn", "")
    );
    let policies = write(dir.path(), "policy.yaml", &policies);
    let objects = write(dir.path(), "objects.yaml", &deployment("big", "default", 9));
    let (code, stdout, stderr) = run(&["--policy", &policies, &objects], None);
    assert_eq!((code, stdout.as_str()), (0, ""), "{stderr}");
    assert_eq!(
        stderr,
        format!(
            "{objects}: document 1: Warning: Validation failed for ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-warn': too many replicas\nvalidated 1 objects: 0 invalid\n"
        )
    );
}

const CONFIGMAP_PARAMS: &str = "paramKind: {apiVersion: v1, kind: ConfigMap}";
const LIMIT: &str = "object.spec.replicas <= int(params.data.max)";

fn limit(name: &str, namespace: &str, labels: &str, max: u32) -> String {
    format!(
        "apiVersion: v1
kind: ConfigMap
metadata: {{name: {name}, namespace: {namespace}, labels: {{{labels}}}}}
data: {{max: \"{max}\"}}
"
    )
}

#[test]
fn params_by_name_come_from_the_request_namespace() {
    let dir = scratch("param-name");
    let policies = [
        policy("limit", CONFIGMAP_PARAMS, LIMIT, "over the limit"),
        binding(
            "limit-b",
            "limit",
            "Deny",
            "paramRef: {name: limits, parameterNotFoundAction: Deny}",
        ),
        limit("limits", "team-a", "", 3),
        limit("limits", "team-b", "", 10),
    ]
    .join("---\n");
    let policies = write(dir.path(), "policy.yaml", &policies);
    let objects = write(
        dir.path(),
        "objects.yaml",
        &format!(
            "{}---\n{}",
            deployment("a", "team-a", 5),
            deployment("b", "team-b", 5)
        ),
    );
    let (code, stdout, stderr) = run(&["--policy", &policies, &objects], None);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert_eq!(
        stdout,
        "Deployment \"a\" is invalid:\nValidatingAdmissionPolicy 'limit' with binding 'limit-b' denied request: over the limit\n"
    );
}

#[test]
fn params_by_selector_must_all_pass() {
    let dir = scratch("param-selector");
    let policies = [
        policy("limit", CONFIGMAP_PARAMS, LIMIT, "over the limit"),
        binding(
            "limit-b",
            "limit",
            "Deny",
            "paramRef: {selector: {matchLabels: {kind: limit}}, parameterNotFoundAction: Allow}",
        ),
        limit("loose", "default", "kind: limit", 10),
        limit("strict", "default", "kind: limit", 4),
        limit("ignored", "default", "kind: other", 1),
    ]
    .join("---\n");
    let policies = write(dir.path(), "policy.yaml", &policies);
    let objects = [
        deployment("three", "default", 3),
        deployment("six", "default", 6),
        // No ConfigMap in this namespace: Allow.
        deployment("elsewhere", "other", 50),
    ]
    .join("---\n");
    let objects = write(dir.path(), "objects.yaml", &objects);
    let (code, stdout, stderr) = run(&["--policy", &policies, &objects], None);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert_eq!(
        stdout,
        "Deployment \"six\" is invalid:\nValidatingAdmissionPolicy 'limit' with binding 'limit-b' denied request: over the limit\n"
    );
}

#[test]
fn missing_params_with_deny_deny_the_request() {
    let dir = scratch("param-missing");
    let policies = [
        policy("limit", CONFIGMAP_PARAMS, LIMIT, "over the limit"),
        binding(
            "limit-b",
            "limit",
            "Deny",
            "paramRef: {name: absent, parameterNotFoundAction: Deny}",
        ),
    ]
    .join("---\n");
    let policies = write(dir.path(), "policy.yaml", &policies);
    let objects = write(dir.path(), "objects.yaml", &deployment("a", "default", 1));
    let (code, stdout, _) = run(&["--policy", &policies, &objects], None);
    assert_eq!(code, 1);
    assert_eq!(
        stdout,
        "Deployment \"a\" is invalid:\nValidatingAdmissionPolicy 'limit' with binding 'limit-b' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction\n"
    );
}

#[test]
fn policies_apply_only_where_they_match() {
    let dir = scratch("no-match");
    let policies = write(dir.path(), "policy.yaml", &max_five());
    // A ConfigMap, and a CronTab (with its CRD): neither is a Deployment.
    let objects = "apiVersion: v1
kind: ConfigMap
metadata: {name: c, namespace: default}
data: {replicas: \"9\"}
---
apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: t, namespace: default}
spec: {cronSpec: \"* * * * *\", image: x, replicas: 9}
";
    let objects = write(dir.path(), "objects.yaml", objects);
    let (code, stdout, stderr) = run(
        &["--crd", &crontab_crd(), "--policy", &policies, &objects],
        None,
    );
    assert_eq!((code, stdout.as_str()), (0, ""), "{stderr}");
    assert_eq!(stderr, "validated 2 objects: 0 invalid\n");
}

#[test]
fn namespace_labels_come_from_namespace_objects() {
    let dir = scratch("namespace");
    let policies = format!(
        "{}---\n{}",
        policy(
            "max-replicas",
            "",
            "object.spec.replicas <= 5",
            "too many replicas"
        ),
        binding(
            "prod-only",
            "max-replicas",
            "Deny",
            "matchResources: {namespaceSelector: {matchLabels: {env: prod}}}"
        )
    );
    let policies = write(dir.path(), "policy.yaml", &policies);
    let objects = [
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop, labels: {env: prod}}\n"
            .to_string(),
        deployment("in-prod", "shop", 9),
        // A namespace not given has no labels.
        deployment("in-dev", "dev", 9),
    ]
    .join("---\n");
    let objects = write(dir.path(), "objects.yaml", &objects);
    let (code, stdout, _) = run(&["--policy", &policies, &objects], None);
    assert_eq!(code, 1);
    assert_eq!(
        stdout,
        "Deployment \"in-prod\" is invalid:\nValidatingAdmissionPolicy 'max-replicas' with binding 'prod-only' denied request: too many replicas\n"
    );
}

#[test]
fn json_lines_carry_errors_and_warnings() {
    let dir = scratch("json");
    let policies = [
        policy(
            "max-replicas",
            "",
            "object.spec.replicas <= 5",
            "too many replicas",
        ),
        binding("deny", "max-replicas", "Deny", ""),
        policy("max-two", "", "object.spec.replicas <= 2", "more than two"),
        binding("warn", "max-two", "Warn", ""),
    ]
    .join("---\n");
    let policies = write(dir.path(), "policy.yaml", &policies);
    let objects = write(
        dir.path(),
        "objects.yaml",
        &format!(
            "{}---\n{}",
            deployment("big", "default", 9),
            deployment("mid", "default", 3)
        ),
    );
    let (code, stdout, _) = run(&["--policy", &policies, "--format", "json", &objects], None);
    assert_eq!(code, 1);
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert_eq!(lines[0]["name"], "big");
    assert_eq!(
        lines[0]["errors"],
        serde_json::json!([
            "ValidatingAdmissionPolicy 'max-replicas' with binding 'deny' denied request: too many replicas"
        ])
    );
    assert_eq!(lines[1]["index"], 1);
    assert_eq!(lines[1]["errors"], serde_json::json!([]));
    assert_eq!(
        lines[1]["warnings"],
        serde_json::json!([
            "Validation failed for ValidatingAdmissionPolicy 'max-two' with binding 'warn': more than two"
        ])
    );
}

#[test]
fn objects_and_policies_can_come_from_stdin() {
    let dir = scratch("stdin");
    let policies = write(dir.path(), "policy.yaml", &max_five());
    let (code, stdout, _) = run(
        &["--policy", &policies, "-"],
        Some(&deployment("big", "default", 9)),
    );
    assert_eq!(code, 1);
    assert_eq!(
        stdout,
        format!("Deployment \"big\" is invalid:\n{DENIED_FIVE}\n")
    );
    let objects = write(dir.path(), "objects.yaml", &deployment("big", "default", 9));
    let (code, stdout, _) = run(&["--policy", "-", &objects], Some(&max_five()));
    assert_eq!(code, 1);
    assert_eq!(
        stdout,
        format!("Deployment \"big\" is invalid:\n{DENIED_FIVE}\n")
    );
}

#[test]
fn bad_policy_files_are_named() {
    let dir = scratch("bad");
    let objects = write(dir.path(), "objects.yaml", &deployment("a", "default", 1));
    let broken = write(
        dir.path(),
        "broken.yaml",
        "kind: ValidatingAdmissionPolicy\nmetadata: {name: [\n",
    );
    let (code, stdout, stderr) = run(&["--policy", &broken, &objects], None);
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert!(stderr.starts_with(&format!("{broken}:")), "{stderr}");

    let bad_cel = format!(
        "{}---\n{}",
        policy("p", "", "object.spec.replicas <=", "m"),
        binding("b", "p", "Deny", "")
    );
    let bad_cel = write(dir.path(), "bad-cel.yaml", &bad_cel);
    let (code, _, stderr) = run(&["--policy", &bad_cel, &objects], None);
    assert_eq!(code, 2);
    let first = stderr.lines().next().unwrap();
    assert!(
        first.starts_with(&format!(
            "{bad_cel}: ValidatingAdmissionPolicy \"p\": spec.validations[0].expression: Invalid value: \"object.spec.replicas <=\": compilation failed: ERROR: <input>:1:"
        )),
        "{stderr}"
    );

    let no_actions = binding("b", "p", "", "");
    let no_actions = write(dir.path(), "no-actions.yaml", &no_actions);
    let (code, _, stderr) = run(&["--policy", &no_actions, &objects], None);
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        format!(
            "{no_actions}: ValidatingAdmissionPolicyBinding \"b\": spec.validationActions: Required value: at least one validation action is required\n"
        )
    );
}

#[test]
fn builtin_kinds_are_checked_against_their_schema() {
    let dir = scratch("builtin");
    let policies = write(dir.path(), "policy.yaml", &max_five());
    let objects = "apiVersion: apps/v1
kind: Deployment
metadata: {name: no-template, namespace: default}
spec: {replicas: 1, selector: {matchLabels: {app: x}}}
";
    let objects = write(dir.path(), "objects.yaml", objects);
    let (code, stdout, _) = run(&["--policy", &policies, &objects], None);
    assert_eq!(code, 1);
    assert_eq!(
        stdout,
        "Deployment \"no-template\" is invalid:\nspec.template: Required value\n"
    );
}

#[test]
fn old_objects_make_updates() {
    let dir = scratch("update");
    let no_scale_down = "apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: no-scale-down}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [UPDATE], resources: [deployments]}
  validations:
  - expression: \"object.spec.replicas >= oldObject.spec.replicas && request.operation == 'UPDATE'\"
    messageExpression: \"'cannot scale down from ' + string(oldObject.spec.replicas)\"
";
    let policies = format!(
        "{no_scale_down}---\n{}",
        binding("b", "no-scale-down", "Deny", "")
    );
    let policies = write(dir.path(), "policy.yaml", &policies);
    let old = write(dir.path(), "old.yaml", &deployment("web", "default", 4));
    let new = write(dir.path(), "new.yaml", &deployment("web", "default", 2));
    // A create: the policy matches only updates.
    let (code, _, stderr) = run(&["--policy", &policies, &new], None);
    assert_eq!(code, 0, "{stderr}");
    let (code, stdout, _) = run(&["--policy", &policies, "--old", &old, &new], None);
    assert_eq!(code, 1);
    assert_eq!(
        stdout,
        "Deployment \"web\" is invalid:\nValidatingAdmissionPolicy 'no-scale-down' with binding 'b' denied request: cannot scale down from 4\n"
    );
}

const ADD_LABEL: &str = "apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: add-owner}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: \"Object{metadata: Object.metadata{labels: {'owner': 'platform'}}}\"
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: add-owner}
spec: {policyName: add-owner}
";

#[test]
fn mutating_policies_change_the_admitted_object_before_validation() {
    let dir = scratch("mutate");
    // The validating policy needs the label the mutating one adds.
    let policies = [
        ADD_LABEL.to_string(),
        policy(
            "owned",
            "",
            "has(object.metadata.labels) && object.metadata.labels['owner'] == 'platform'",
            "no owner",
        ),
        binding("owned", "owned", "Deny", ""),
    ]
    .join("---\n");
    let policies = write(dir.path(), "policy.yaml", &policies);
    let objects = write(dir.path(), "objects.yaml", &deployment("web", "default", 1));
    let (code, stdout, stderr) = run(&["--policy", &policies, "--output", "json", &objects], None);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let admitted: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(
        admitted["metadata"]["labels"],
        serde_json::json!({"owner": "platform"})
    );
}

#[test]
fn mutated_custom_objects_are_defaulted_again() {
    let dir = scratch("mutate-crd");
    let drop_replicas = "apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: drop-replicas}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [stable.example.com], apiVersions: [v1], operations: [CREATE], resources: [crontabs]}
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: \"[JSONPatch{op: 'remove', path: '/spec/replicas'}]\"
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: drop-replicas}
spec: {policyName: drop-replicas}
";
    let policies = write(dir.path(), "policy.yaml", drop_replicas);
    let objects = "apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: t, namespace: default}
spec: {cronSpec: \"* * * * *\", image: x, replicas: 7}
";
    let objects = write(dir.path(), "objects.yaml", objects);
    let args = [
        "--crd",
        &crontab_crd(),
        "--policy",
        &policies,
        "--output",
        "json",
        &objects,
    ];
    let (code, stdout, stderr) = run(&args, None);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let admitted: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    // Removed by the patch, then defaulted by the CRD's schema as the server re-decodes.
    assert_eq!(admitted["spec"]["replicas"], 1);
}
