//! RBAC and admission registration with the real kubectl: the bootstrap ClusterRoles,
//! Roles and bindings applied (their defaults, the immutable `roleRef`), webhook
//! configurations refused as kube-apiserver refuses them (missing `sideEffects`, a
//! match condition that does not compile), a ValidatingAdmissionPolicy and its
//! binding read back with their defaults, the printers' columns, and
//! `kubectl auth can-i` / `kubectl auth whoami` answered for the single user.

mod support;

use serde_json::Value;
use support::{kubectl_err, kubectl_ok, write};

fn json(url: &str, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.extend(["-o", "json"]);
    serde_json::from_str(&kubectl_ok(url, &all)).expect("kubectl -o json")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rbac_and_admission_with_kubectl() {
    let server = crd_server::TestServer::builder()
        .start()
        .await
        .expect("server");
    let url = server.url();
    tokio::task::spawn_blocking(move || walk(&url))
        .await
        .expect("walk");
}

const RBAC: &str = r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: pod-reader
  namespace: default
rules:
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: read-pods
  namespace: default
roleRef:
  kind: Role
  name: pod-reader
subjects:
- kind: User
  name: jane
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: crontab-viewer
  labels:
    rbac.authorization.k8s.io/aggregate-to-view: "true"
rules:
- apiGroups: ["stable.example.com"]
  resources: ["crontabs"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: robots-view
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: view
subjects:
- kind: ServiceAccount
  name: robot
  namespace: default
"#;

fn rbac(url: &str, dir: &std::path::Path) {
    let admin = json(url, &["get", "clusterrole", "cluster-admin"]);
    assert_eq!(
        admin["rules"],
        serde_json::json!([
            {"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]},
            {"nonResourceURLs": ["*"], "verbs": ["*"]}
        ])
    );
    let view = json(url, &["get", "clusterrole", "view"]);
    assert_eq!(
        view["aggregationRule"]["clusterRoleSelectors"][0]["matchLabels"]["rbac.authorization.k8s.io/aggregate-to-view"],
        "true"
    );
    let binding = kubectl_ok(url, &["get", "clusterrolebinding", "cluster-admin"]);
    let mut lines = binding.lines();
    let header: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(header, ["NAME", "ROLE", "AGE"]);
    let row: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(row[..2], ["cluster-admin", "ClusterRole/cluster-admin"]);

    let out = kubectl_ok(url, &["apply", "-f", &write(dir, "rbac.yaml", RBAC)]);
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "role.rbac.authorization.k8s.io/pod-reader created",
            "rolebinding.rbac.authorization.k8s.io/read-pods created",
            "clusterrole.rbac.authorization.k8s.io/crontab-viewer created",
            "clusterrolebinding.rbac.authorization.k8s.io/robots-view created",
        ]
    );
    let rb = json(url, &["get", "rolebinding", "read-pods", "-n", "default"]);
    assert_eq!(rb["roleRef"]["apiGroup"], "rbac.authorization.k8s.io");
    assert_eq!(rb["subjects"][0]["apiGroup"], "rbac.authorization.k8s.io");
    let roles = kubectl_ok(url, &["get", "roles", "-n", "default"]);
    assert!(
        roles.starts_with("NAME         CREATED AT\npod-reader   "),
        "{roles}"
    );
    let wide = kubectl_ok(
        url,
        &["get", "clusterrolebinding", "robots-view", "-o", "wide"],
    );
    assert!(
        wide.contains("ClusterRole/view") && wide.contains("default/robot"),
        "{wide}"
    );

    let changed = RBAC.split("---").nth(1).unwrap().replace(
        "kind: Role\n  name: pod-reader",
        "kind: ClusterRole\n  name: view",
    );
    let err = kubectl_err(url, &["replace", "-f", &write(dir, "rb.yaml", &changed)]);
    assert!(
        err.contains(
            "The RoleBinding \"read-pods\" is invalid: roleRef: Invalid value: {\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\",\"name\":\"view\"}: cannot change roleRef"
        ),
        "{err}"
    );
    let bad = "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: bad\n  namespace: default\nrules:\n- nonResourceURLs: [\"/healthz\"]\n  verbs: [\"get\"]\n";
    let err = kubectl_err(url, &["apply", "-f", &write(dir, "bad.yaml", bad)]);
    assert!(
        err.contains("rules[0].nonResourceURLs: Invalid value: [\"/healthz\"]: namespaced rules cannot apply to non-resource URLs"),
        "{err}"
    );
}

fn webhook(name: &str, extra: &str) -> String {
    format!(
        r#"apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: {name}
webhooks:
- name: check.example.com
  admissionReviewVersions: ["v1"]
  clientConfig:
    service:
      namespace: default
      name: hook
  rules:
  - operations: ["CREATE"]
    apiGroups: [""]
    apiVersions: ["v1"]
    resources: ["configmaps"]
{extra}"#
    )
}

fn webhooks(url: &str, dir: &std::path::Path) {
    let err = kubectl_err(
        url,
        &[
            "apply",
            "-f",
            &write(dir, "w1.yaml", &webhook("no-side-effects", "")),
        ],
    );
    assert!(
        err.contains("The ValidatingWebhookConfiguration \"no-side-effects\" is invalid: webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun"),
        "{err}"
    );
    let bad_condition = webhook(
        "bad-condition",
        "  sideEffects: None\n  matchConditions:\n  - name: only-labelled\n    expression: nope == 1\n",
    );
    let err = kubectl_err(
        url,
        &["apply", "-f", &write(dir, "w2.yaml", &bad_condition)],
    );
    assert!(
        err.contains("webhooks[0].matchConditions[0].expression: Invalid value: \"nope == 1\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'nope' (in container '')"),
        "{err}"
    );
    let good = webhook(
        "demo-hook",
        "  sideEffects: None\n  matchConditions:\n  - name: not-a-dry-run\n    expression: \"!request.dryRun && has(object.metadata.labels)\"\n",
    );
    kubectl_ok(url, &["apply", "-f", &write(dir, "w3.yaml", &good)]);
    let got = json(url, &["get", "validatingwebhookconfiguration", "demo-hook"]);
    let hook = &got["webhooks"][0];
    assert_eq!(hook["failurePolicy"], "Fail");
    assert_eq!(hook["matchPolicy"], "Equivalent");
    assert_eq!(hook["timeoutSeconds"], 10);
    assert_eq!(hook["clientConfig"]["service"]["port"], 443);
    assert_eq!(hook["rules"][0]["scope"], "*");
    let table = kubectl_ok(url, &["get", "validatingwebhookconfigurations"]);
    let mut lines = table.lines();
    let header: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(header, ["NAME", "WEBHOOKS", "AGE"]);
    let row: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(row[..2], ["demo-hook", "1"]);
}

const POLICY: &str = r#"
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replica-limit.example.com
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
  variables:
  - name: replicas
    expression: "object.spec.replicas"
  validations:
  - expression: "variables.replicas <= 5"
    messageExpression: "'at most 5 replicas, got ' + string(variables.replicas)"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: replica-limit-binding
spec:
  policyName: replica-limit.example.com
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchLabels:
        env: test
"#;

fn policies(url: &str, dir: &std::path::Path) {
    kubectl_ok(url, &["apply", "-f", &write(dir, "vap.yaml", POLICY)]);
    let vap = json(
        url,
        &[
            "get",
            "validatingadmissionpolicy",
            "replica-limit.example.com",
        ],
    );
    assert_eq!(vap["spec"]["failurePolicy"], "Fail");
    let mc = &vap["spec"]["matchConstraints"];
    assert_eq!(mc["matchPolicy"], "Equivalent");
    assert_eq!(mc["namespaceSelector"], serde_json::json!({}));
    assert_eq!(mc["resourceRules"][0]["scope"], "*");
    let binding = json(
        url,
        &[
            "get",
            "validatingadmissionpolicybinding",
            "replica-limit-binding",
        ],
    );
    assert_eq!(
        binding["spec"]["matchResources"]["matchPolicy"],
        "Equivalent"
    );
    assert_eq!(
        binding["spec"]["matchResources"]["objectSelector"],
        serde_json::json!({})
    );
    let table = kubectl_ok(url, &["get", "validatingadmissionpolicies"]);
    let header: Vec<&str> = table.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(header, ["NAME", "VALIDATIONS", "PARAMKIND", "AGE"]);
    assert!(table.contains("<unset>"), "{table}");
    let broken = POLICY
        .split("---")
        .next()
        .unwrap()
        .replace(
            "name: replica-limit.example.com",
            "name: broken.example.com",
        )
        .replace(
            "variables.replicas <= 5",
            "params.max >= variables.replicas",
        );
    let err = kubectl_err(url, &["apply", "-f", &write(dir, "broken.yaml", &broken)]);
    assert!(
        err.contains("spec.validations[0].expression: Invalid value: \"params.max >= variables.replicas\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')"),
        "{err}"
    );
}

fn auth(url: &str) {
    assert_eq!(
        kubectl_ok(url, &["auth", "can-i", "create", "pods"]).trim(),
        "yes"
    );
    assert_eq!(
        kubectl_ok(url, &["auth", "can-i", "get", "/healthz"]).trim(),
        "yes"
    );
    let me = kubectl_ok(url, &["auth", "whoami"]);
    assert!(
        me.contains("system:admin") && me.contains("system:masters"),
        "{me}"
    );
    let err = kubectl_err(url, &["get", "selfsubjectaccessreviews"]);
    assert!(
        err.contains("MethodNotAllowed") || err.contains("not allowed"),
        "{err}"
    );
}

fn walk(url: &str) {
    let dir = tempfile::tempdir().unwrap();
    rbac(url, dir.path());
    webhooks(url, dir.path());
    policies(url, dir.path());
    auth(url);
}
