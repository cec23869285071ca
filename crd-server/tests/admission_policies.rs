//! ValidatingAdmissionPolicy and MutatingAdmissionPolicy with the real kubectl: denials
//! printed as kubectl prints kube-apiserver's (`The crontabs "x" is invalid: : ...`,
//! `... is forbidden: ...`), `messageExpression`, `reason`, the `Warn` action as a
//! `Warning:` line, ConfigMap parameters by name and by selector with
//! `parameterNotFoundAction: Deny`, namespace and object selectors, match
//! conditions, variables, `failurePolicy` on a runtime error, a policy on DELETE,
//! `status.typeChecking` written for a bad field reference, and mutations
//! (ApplyConfiguration, JSONPatch). Nothing refused is stored.

mod support;

use std::process::Output;
use std::time::{Duration, Instant};

use serde_json::Value;
use support::test_crd::TestCrd;
use support::{kubectl, kubectl_err, kubectl_ok, write};

const SCHEMA: &str = r#"
type: object
properties:
  spec:
    type: object
    properties:
      replicas: {type: integer}
      color: {type: string}
      missing: {type: integer}
"#;

/// A server with the CronTab CRD, and a directory for manifests.
struct Cluster {
    _server: crd_server::TestServer,
    url: String,
    dir: tempfile::TempDir,
}

impl Cluster {
    async fn start(builder: crd_server::testing::TestServerBuilder) -> Cluster {
        let crd = TestCrd::new("stable.example.com", "CronTab").yaml(SCHEMA);
        let server = builder.crd_yaml(&crd).start().await.expect("server");
        Cluster {
            url: server.url(),
            _server: server,
            dir: tempfile::tempdir().expect("tempdir"),
        }
    }

    fn file(&self, name: &str, text: &str) -> String {
        write(self.dir.path(), name, text)
    }

    fn apply(&self, text: &str) {
        let f = self.file("apply.yaml", text);
        kubectl_ok(&self.url, &["apply", "-f", &f]);
    }

    /// `kubectl create -f` of `text` (saved as `name`): its output.
    fn create(&self, name: &str, text: &str) -> (Output, String) {
        let f = self.file(name, text);
        (kubectl(&self.url, &["create", "-f", &f]), f)
    }

    /// kubectl's error for creating `text`.
    fn create_err(&self, name: &str, text: &str) -> (String, String) {
        let f = self.file(name, text);
        (kubectl_err(&self.url, &["create", "-f", &f]), f)
    }

    /// Waits (bounded) until a server-side dry run of `text` is refused: the policies
    /// just applied are followed by a watch.
    fn until_refused(&self, text: &str) {
        let f = self.file("probe.yaml", text);
        let deadline = Instant::now() + Duration::from_secs(10);
        for _ in 0..100 {
            let out = kubectl(&self.url, &["create", "--dry-run=server", "-f", &f]);
            if !out.status.success() {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{text} still admitted after 10 s"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("{text} still admitted after 100 tries");
    }

    fn not_stored(&self, kind: &str, name: &str, ns: &str) {
        let err = kubectl_err(&self.url, &["get", kind, name, "-n", ns]);
        assert!(err.contains("(NotFound)"), "{err}");
    }
}

fn crontab(name: &str, ns: &str, replicas: i64, labels: &str) -> String {
    format!(
        "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: {name}\n  namespace: {ns}\n  labels: {{{labels}}}\nspec:\n  replicas: {replicas}\n"
    )
}

async fn run<F: FnOnce(&Cluster) + Send + 'static>(cluster: Cluster, f: F) {
    tokio::task::spawn_blocking(move || f(&cluster))
        .await
        .expect("the kubectl walk");
}

fn policy(name: &str, resources: &str, extra: &str, validations: &str) -> String {
    format!(
        r#"apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: {name}
spec:
  matchConstraints:
    resourceRules:
{resources}
{extra}
  validations:
{validations}
"#
    )
}

const CRONTABS: &str = r#"    - apiGroups: ["stable.example.com"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["crontabs"]"#;

fn binding(name: &str, policy: &str, actions: &str, extra: &str) -> String {
    format!(
        r#"apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: {name}
spec:
  policyName: {policy}
  validationActions: [{actions}]
{extra}
"#
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deny_invalid_forbidden_and_warn() {
    let cluster = Cluster::start(crd_server::TestServer::builder()).await;
    run(cluster, |c| {
        // The default reason: Invalid, printed by kubectl from the cause.
        c.apply(&policy(
            "replica-limit",
            CRONTABS,
            "",
            "  - expression: \"object.spec.replicas <= 5\"",
        ));
        c.apply(&binding("replica-limit-binding", "replica-limit", "Deny", ""));
        c.until_refused(&crontab("probe", "default", 9, ""));
        let (err, _) = c.create_err("x.yaml", &crontab("x", "default", 10, ""));
        assert_eq!(
            err.trim_end(),
            "The crontabs \"x\" is invalid: : ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-binding' denied request: failed expression: object.spec.replicas <= 5"
        );
        c.not_stored("crontab", "x", "default");
        kubectl_ok(&c.url, &["create", "-f", &c.file("ok.yaml", &crontab("ok", "default", 5, ""))]);

        // messageExpression over a variable, reason Forbidden: a 403 naming the object.
        c.apply(&policy(
            "replica-limit",
            CRONTABS,
            "  variables:\n  - name: replicas\n    expression: \"object.spec.replicas\"",
            "  - expression: \"variables.replicas <= 3\"\n    messageExpression: \"'at most 3 replicas, got ' + string(variables.replicas)\"\n    reason: Forbidden",
        ));
        c.until_refused(&crontab("probe", "default", 4, ""));
        let (err, file) = c.create_err("y.yaml", &crontab("forbid", "default", 4, ""));
        assert_eq!(
            err.trim_end(),
            format!(
                "Error from server (Forbidden): error when creating \"{file}\": crontabs.stable.example.com \"forbid\" is forbidden: ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-binding' denied request: at most 3 replicas, got 4"
            )
        );
        c.not_stored("crontab", "forbid", "default");

        // Warn: admitted, kubectl prints the warning.
        c.apply(&binding("replica-limit-binding", "replica-limit", "Warn", ""));
        let deadline = Instant::now() + Duration::from_secs(10);
        let (out, _) = loop {
            let (out, f) = c.create("w.yaml", &crontab("w", "default", 4, ""));
            if out.status.success() || Instant::now() > deadline {
                break (out, f);
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(
            String::from_utf8_lossy(&out.stderr).trim_end(),
            "Warning: Validation failed for ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-binding': at most 3 replicas, got 4"
        );
        kubectl_ok(&c.url, &["get", "crontab", "w"]);

        // A Warn before a Deny: the refused request still carries the warning.
        c.apply(&policy(
            "replica-max",
            CRONTABS,
            "",
            "  - expression: \"object.spec.replicas <= 8\"",
        ));
        c.apply(&binding("replica-max-binding", "replica-max", "Deny", ""));
        c.until_refused(&crontab("probe", "default", 9, ""));
        let (err, _) = c.create_err("both.yaml", &crontab("both", "default", 9, ""));
        assert_eq!(
            err.trim_end(),
            "Warning: Validation failed for ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-binding': at most 3 replicas, got 9\nThe crontabs \"both\" is invalid: : ValidatingAdmissionPolicy 'replica-max' with binding 'replica-max-binding' denied request: failed expression: object.spec.replicas <= 8"
        );
        c.not_stored("crontab", "both", "default");
    })
    .await;
}

const DEPLOYMENT: &str = r#"apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: 7
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx}]
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deployments_and_type_checking() {
    let cluster = Cluster::start(crd_server::TestServer::builder()).await;
    run(cluster, |c| {
        let deployments = r#"    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]"#;
        c.apply(&policy(
            "deploy-limit",
            deployments,
            "",
            "  - expression: \"object.spec.replicas <= 5\"\n    message: too many replicas",
        ));
        c.apply(&binding("deploy-limit-binding", "deploy-limit", "Deny", ""));
        c.until_refused(DEPLOYMENT);
        let (err, _) = c.create_err("web.yaml", DEPLOYMENT);
        assert_eq!(
            err.trim_end(),
            "The deployments \"web\" is invalid: : ValidatingAdmissionPolicy 'deploy-limit' with binding 'deploy-limit-binding' denied request: too many replicas"
        );
        c.not_stored("deployment", "web", "default");

        // A field Deployments do not have: the status controller reports it.
        c.apply(&policy(
            "typo",
            deployments,
            "",
            "  - expression: \"object.spec.replicaz > 1\"",
        ));
        let deadline = Instant::now() + Duration::from_secs(10);
        let status = loop {
            let out = kubectl_ok(&c.url, &["get", "validatingadmissionpolicy", "typo", "-o", "json"]);
            let v: Value = serde_json::from_str(&out).expect("json");
            if v.pointer("/status/observedGeneration").is_some() || Instant::now() > deadline {
                break v["status"].clone();
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        assert_eq!(status["observedGeneration"], 1, "{status}");
        let warnings = status["typeChecking"]["expressionWarnings"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert_eq!(warnings.len(), 1, "{status}");
        assert_eq!(warnings[0]["fieldRef"], "spec.validations[0].expression");
        let text = warnings[0]["warning"].as_str().unwrap_or("");
        assert!(text.contains("undefined field 'replicaz'"), "{text}");
        // The well-typed policy gets its generation and no warning.
        let out = kubectl_ok(&c.url, &["get", "validatingadmissionpolicy", "deploy-limit", "-o", "json"]);
        let v: Value = serde_json::from_str(&out).expect("json");
        assert_eq!(v["status"]["observedGeneration"], 1, "{v}");
        assert!(v["status"]["typeChecking"].get("expressionWarnings").is_none(), "{v}");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_map_params() {
    let cluster = Cluster::start(crd_server::TestServer::builder()).await;
    run(cluster, |c| {
        kubectl_ok(&c.url, &["create", "namespace", "empty"]);
        c.apply(
            r#"apiVersion: v1
kind: ConfigMap
metadata: {name: limits, namespace: default, labels: {role: limit}}
data: {maxReplicas: "3"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: stricter, namespace: default, labels: {role: limit}}
data: {maxReplicas: "2"}
"#,
        );
        let p = policy(
            "param-limit",
            CRONTABS,
            "  paramKind: {apiVersion: v1, kind: ConfigMap}",
            "  - expression: \"object.spec.replicas <= int(params.data.maxReplicas)\"\n    messageExpression: \"'more than ' + string(params.data.maxReplicas)\"",
        );
        c.apply(&p);
        c.apply(&binding(
            "by-name",
            "param-limit",
            "Deny",
            "  paramRef: {name: limits, parameterNotFoundAction: Deny}",
        ));
        c.until_refused(&crontab("probe", "default", 4, ""));
        let (err, _) = c.create_err("a.yaml", &crontab("a", "default", 4, ""));
        assert!(
            err.ends_with("ValidatingAdmissionPolicy 'param-limit' with binding 'by-name' denied request: more than 3\n"),
            "{err}"
        );
        kubectl_ok(&c.url, &["create", "-f", &c.file("b.yaml", &crontab("b", "default", 3, ""))]);

        // No ConfigMap in the request's namespace: Deny refuses (the validating
        // plugin reports configuration errors as its own denials: Invalid).
        let (err, _) = c.create_err("e.yaml", &crontab("e", "empty", 1, ""));
        assert_eq!(
            err.trim_end(),
            "The crontabs \"e\" is invalid: : ValidatingAdmissionPolicy 'param-limit' with binding 'by-name' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction"
        );
        c.not_stored("crontab", "e", "empty");

        // By selector: every ConfigMap selected is checked.
        kubectl_ok(&c.url, &["delete", "validatingadmissionpolicybinding", "by-name"]);
        c.apply(&binding(
            "by-selector",
            "param-limit",
            "Deny",
            "  paramRef:\n    namespace: default\n    selector: {matchLabels: {role: limit}}\n    parameterNotFoundAction: Allow",
        ));
        c.until_refused(&crontab("probe", "default", 3, ""));
        let (err, _) = c.create_err("c.yaml", &crontab("c", "default", 3, ""));
        assert!(err.ends_with("with binding 'by-selector' denied request: more than 2\n"), "{err}");
        c.not_stored("crontab", "c", "default");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn selectors_and_match_conditions() {
    let cluster = Cluster::start(crd_server::TestServer::builder()).await;
    run(cluster, |c| {
        c.apply("apiVersion: v1\nkind: Namespace\nmetadata: {name: prod, labels: {env: prod}}\n");
        kubectl_ok(&c.url, &["create", "namespace", "dev"]);
        c.apply(&policy(
            "selected",
            CRONTABS,
            "    objectSelector: {matchLabels: {checked: \"true\"}}\n  matchConditions:\n  - name: not-exempt\n    expression: \"!('exempt' in object.metadata.labels)\"",
            "  - expression: \"object.spec.replicas <= 1\"",
        ));
        c.apply(&binding(
            "prod-only",
            "selected",
            "Deny",
            "  matchResources:\n    namespaceSelector: {matchLabels: {env: prod}}",
        ));
        c.until_refused(&crontab("probe", "prod", 2, "checked: \"true\""));
        let (err, _) = c.create_err("p.yaml", &crontab("p", "prod", 2, "checked: \"true\""));
        assert!(err.starts_with("The crontabs \"p\" is invalid: : ValidatingAdmissionPolicy 'selected' with binding 'prod-only' denied request"), "{err}");
        c.not_stored("crontab", "p", "prod");
        // Another namespace, an unlabelled object, an exempt one: not checked.
        for (name, ns, labels) in [
            ("d", "dev", "checked: \"true\""),
            ("u", "prod", ""),
            ("x", "prod", "checked: \"true\", exempt: \"yes\""),
        ] {
            let f = c.file(&format!("{name}.yaml"), &crontab(name, ns, 2, labels));
            kubectl_ok(&c.url, &["create", "-f", &f]);
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failure_policy_and_delete() {
    let cluster = Cluster::start(crd_server::TestServer::builder()).await;
    run(cluster, |c| {
        // `spec.missing` is in the schema but absent: evaluating it is an error.
        let broken = |fp: &str| {
            policy(
                "broken",
                CRONTABS,
                &format!("  failurePolicy: {fp}"),
                "  - expression: \"object.spec.missing > 1\"",
            )
        };
        c.apply(&broken("Fail"));
        c.apply(&binding("broken-binding", "broken", "Deny", ""));
        c.until_refused(&crontab("probe", "default", 1, ""));
        let (err, _) = c.create_err("f.yaml", &crontab("f", "default", 1, ""));
        assert!(
            err.starts_with("The crontabs \"f\" is invalid: : ValidatingAdmissionPolicy 'broken' with binding 'broken-binding' denied request: expression 'object.spec.missing > 1' resulted in error: "),
            "{err}"
        );
        c.not_stored("crontab", "f", "default");
        // Ignore: the same error admits the request.
        c.apply(&broken("Ignore"));
        let deadline = Instant::now() + Duration::from_secs(10);
        let out = loop {
            let (out, _) = c.create("i.yaml", &crontab("i", "default", 1, ""));
            if out.status.success() || Instant::now() > deadline {
                break out;
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        kubectl_ok(&c.url, &["delete", "validatingadmissionpolicybinding", "broken-binding"]);

        // A policy on DELETE sees the old object only.
        c.apply(&policy(
            "keep-protected",
            r#"    - apiGroups: ["stable.example.com"]
      apiVersions: ["v1"]
      operations: ["DELETE"]
      resources: ["crontabs"]"#,
            "",
            "  - expression: \"object == null && !(has(oldObject.metadata.labels) && 'protected' in oldObject.metadata.labels)\"\n    message: protected",
        ));
        c.apply(&binding("keep-protected-binding", "keep-protected", "Deny", ""));
        let f = c.file("k.yaml", &crontab("k", "default", 1, "protected: \"yes\""));
        kubectl_ok(&c.url, &["create", "-f", &f]);
        let deadline = Instant::now() + Duration::from_secs(10);
        let err = loop {
            let out = kubectl(&c.url, &["delete", "crontab", "k", "--dry-run=server"]);
            if !out.status.success() || Instant::now() > deadline {
                break String::from_utf8_lossy(&out.stderr).into_owned();
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        assert_eq!(
            err.trim_end(),
            "The crontabs \"k\" is invalid: : ValidatingAdmissionPolicy 'keep-protected' with binding 'keep-protected-binding' denied request: protected"
        );
        kubectl_ok(&c.url, &["get", "crontab", "k"]);
        kubectl_ok(&c.url, &["delete", "crontab", "i"]);
    })
    .await;
}

const MUTATING: &str = r#"apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: defaults
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["stable.example.com"]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["crontabs"]
  failurePolicy: Fail
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{metadata: Object.metadata{labels: {"mutated": "true"}}}
  - patchType: JSONPatch
    jsonPatch:
      expression: >
        [JSONPatch{op: "add", path: "/spec/color", value: "blue"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: defaults-binding
spec:
  policyName: defaults
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutating_policies() {
    let version = crd_runtime::KubeVersion::new(36).expect("1.36");
    let cluster = Cluster::start(crd_server::TestServer::builder().kube_version(version)).await;
    run(cluster, |c| {
        c.apply(MUTATING);
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut n = 0;
        let obj = loop {
            n += 1;
            let name = format!("m{n}");
            let f = c.file("m.yaml", &crontab(&name, "default", 1, "keep: \"me\""));
            kubectl_ok(&c.url, &["create", "-f", &f]);
            let out = kubectl_ok(&c.url, &["get", "crontab", &name, "-o", "json"]);
            let v: Value = serde_json::from_str(&out).expect("json");
            if v.pointer("/metadata/labels/mutated").is_some()
                || Instant::now() > deadline
                || n > 50
            {
                break v;
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        assert_eq!(obj["metadata"]["labels"]["mutated"], "true", "{obj}");
        assert_eq!(obj["metadata"]["labels"]["keep"], "me", "{obj}");
        assert_eq!(obj["spec"]["color"], "blue", "{obj}");
        assert_eq!(obj["spec"]["replicas"], 1, "{obj}");

        // A mutation that fails under failurePolicy Fail refuses the request (403 with
        // reason Invalid, as the generic policy dispatcher answers).
        c.apply(
            r#"apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: strict}
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["stable.example.com"]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["crontabs"]
    objectSelector: {matchLabels: {strict: "yes"}}
  failurePolicy: Fail
  reinvocationPolicy: Never
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: '[JSONPatch{op: "replace", path: "/spec/replicas", value: object.spec.missing}]'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: strict-binding}
spec:
  policyName: strict
"#,
        );
        c.until_refused(&crontab("probe", "default", 1, "strict: \"yes\""));
        let (err, _) = c.create_err("s.yaml", &crontab("strict", "default", 1, "strict: \"yes\""));
        assert!(
            err.starts_with("The crontabs \"strict\" is invalid: : policy 'strict' with binding 'strict-binding' denied request: "),
            "{err}"
        );
        c.not_stored("crontab", "strict", "default");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutating_policies_not_served_before_1_36() {
    let version = crd_runtime::KubeVersion::new(35).expect("1.35");
    let cluster = Cluster::start(crd_server::TestServer::builder().kube_version(version)).await;
    run(cluster, |c| {
        let f = c.file("mutating.yaml", MUTATING);
        // (kubectl's client-side validation is off: it would fetch the OpenAPI first.)
        let err = kubectl_err(&c.url, &["apply", "--validate=false", "-f", &f]);
        assert!(
            err.contains("no matches for kind \"MutatingAdmissionPolicy\""),
            "{err}"
        );
        kubectl_ok(
            &c.url,
            &[
                "create",
                "-f",
                &c.file("n.yaml", &crontab("plain", "default", 1, "")),
            ],
        );
        let out = kubectl_ok(&c.url, &["get", "crontab", "plain", "-o", "json"]);
        let v: Value = serde_json::from_str(&out).expect("json");
        assert!(v.pointer("/metadata/labels/mutated").is_none(), "{v}");
    })
    .await;
}

/// A CRD served as v1 and v2 (no conversion webhook: the versions share the schema).
const TWO_VERSIONS: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.stable.example.com}
spec:
  group: stable.example.com
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
          spec: {type: object, properties: {size: {type: integer}}}
  - name: v2
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {size: {type: integer}}}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn equivalent_versions() {
    let cluster = Cluster::start(crd_server::TestServer::builder().crd_yaml(TWO_VERSIONS)).await;
    run(cluster, |c| {
        // The policy names v1 only; `matchPolicy: Equivalent` (the default) also
        // catches a v2 request, with the object seen as v1.
        let v1_only = r#"    - apiGroups: ["stable.example.com"]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["widgets"]"#;
        c.apply(&policy(
            "small-widgets",
            v1_only,
            "",
            "  - expression: \"object.apiVersion == 'stable.example.com/v1' && object.spec.size <= 2\"\n    message: too big",
        ));
        c.apply(&binding("small-widgets-binding", "small-widgets", "Deny", ""));
        let widget = |name: &str, version: &str, size: i64| {
            format!(
                "apiVersion: stable.example.com/{version}\nkind: Widget\nmetadata: {{name: {name}, namespace: default}}\nspec: {{size: {size}}}\n"
            )
        };
        c.until_refused(&widget("probe", "v2", 3));
        let (err, _) = c.create_err("big.yaml", &widget("big", "v2", 3));
        assert_eq!(
            err.trim_end(),
            "The widgets \"big\" is invalid: : ValidatingAdmissionPolicy 'small-widgets' with binding 'small-widgets-binding' denied request: too big"
        );
        c.not_stored("widget", "big", "default");
        let f = c.file("small.yaml", &widget("small", "v2", 2));
        kubectl_ok(&c.url, &["create", "-f", &f]);
        // Exact: a v2 request no longer matches.
        c.apply(&policy(
            "small-widgets",
            v1_only,
            "    matchPolicy: Exact",
            "  - expression: \"object.spec.size <= 2\"\n    message: too big",
        ));
        let deadline = Instant::now() + Duration::from_secs(10);
        let out = loop {
            let (out, _) = c.create("huge.yaml", &widget("huge", "v2", 9));
            if out.status.success() || Instant::now() > deadline {
                break out;
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    })
    .await;
}
