//! Admission webhooks with the real kubectl: small HTTPS webhooks in the test
//! (tests/support/admission_webhook.rs) configured by Validating- and
//! MutatingWebhookConfigurations, and what kubectl shows — denials, patches,
//! warnings, selectors, subresources, `matchPolicy: Equivalent` across a CRD's
//! versions, failure policies, dry runs, reinvocation, DELETE, a patch that breaks
//! the schema, a webhook that speaks only `admission.k8s.io/v1beta1`, and
//! `matchConditions`.

#[path = "support/admission_env.rs"]
mod admission_env;
#[path = "support/admission_webhook.rs"]
mod admission_webhook;
mod support;

use std::time::{Duration, Instant};

use admission_env::{Env, add_label, configmap, name_of, rules};
use admission_webhook::{Reply, TestWebhook};
use base64::Engine as _;
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn validating_webhooks_deny_and_warn() {
    let env = Env::start().await;
    let webhook = TestWebhook::start(|path, request| {
        let name = name_of(request);
        match path {
            "/validate" if name.starts_with("bad") => {
                Reply::deny(&format!("configmap {name} is not allowed"), 403)
            }
            "/validate" if name.starts_with("mute") => Reply::Review(json!({"allowed": false})),
            "/validate" => {
                Reply::Review(json!({"allowed": true, "warnings": ["configmaps are watched"]}))
            }
            _ => Reply::allow(),
        }
    })
    .await;
    let hook = webhook.hook(
        "deny.example.com",
        "/validate",
        rules(&["configmaps"], &["CREATE"]),
    );
    env.configure("Validating", "deny", &webhook, vec![hook])
        .await;

    let (ok, _, err) = env.create(&configmap("bad-one", json!({})), &[]).await;
    assert!(!ok);
    assert!(
        err.contains(r#"admission webhook "deny.example.com" denied the request: configmap bad-one is not allowed"#),
        "{err}"
    );
    // Nothing refused is stored.
    let err = env.err(&["get", "configmap", "bad-one"]).await;
    assert!(err.contains("not found"), "{err}");
    let (ok, _, err) = env.create(&configmap("mute", json!({})), &[]).await;
    assert!(!ok);
    assert!(
        err.contains(
            r#"admission webhook "deny.example.com" denied the request without explanation"#
        ),
        "{err}"
    );
    // An allowed request's warnings are printed by kubectl.
    let (ok, out, err) = env.create(&configmap("good", json!({})), &[]).await;
    assert!(ok, "{out}{err}");
    assert!(err.contains("Warning: configmaps are watched"), "{err}");
    // The webhook got a v1 review of the request.
    let calls = webhook.calls("/validate");
    let good = calls.iter().find(|r| name_of(r) == "good").expect("called");
    assert_eq!(good["operation"], "CREATE");
    assert_eq!(
        good["kind"],
        json!({"group": "", "version": "v1", "kind": "ConfigMap"})
    );
    assert_eq!(good["namespace"], "default");
    assert_eq!(good["userInfo"]["username"], "system:admin");
    assert_eq!(good["dryRun"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutating_webhooks_patch_before_validating_ones_see_the_object() {
    let env = Env::start().await;
    let webhook = TestWebhook::start(|path, request| match path {
        "/mutate" => add_label(request, "added-by", "webhook"),
        "/validate" => {
            let label = request.pointer("/object/metadata/labels/added-by");
            if label == Some(&json!("webhook")) {
                Reply::allow()
            } else {
                Reply::deny("the label is missing", 400)
            }
        }
        _ => Reply::allow(),
    })
    .await;
    let m = webhook.hook(
        "label.example.com",
        "/mutate",
        rules(&["configmaps"], &["CREATE"]),
    );
    env.configure("Mutating", "label", &webhook, vec![m]).await;
    let v = webhook.hook(
        "check.example.com",
        "/validate",
        rules(&["configmaps"], &["CREATE"]),
    );
    env.configure("Validating", "check", &webhook, vec![v])
        .await;

    let (ok, out, err) = env
        .create(&configmap("patched", json!({"a": "b"})), &[])
        .await;
    assert!(ok, "{out}{err}");
    let labels = env
        .ok(&[
            "get",
            "configmap",
            "patched",
            "-o",
            "jsonpath={.metadata.labels}",
        ])
        .await;
    assert_eq!(
        serde_json::from_str::<Value>(&labels).unwrap(),
        json!({"a": "b", "added-by": "webhook"})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn namespace_and_object_selectors_choose_the_requests() {
    let env = Env::start().await;
    let webhook = TestWebhook::start(|_, _| Reply::deny("guarded", 403)).await;
    let mut hook = webhook.hook(
        "guard.example.com",
        "/guard",
        rules(&["configmaps"], &["CREATE"]),
    );
    hook["namespaceSelector"] = json!({"matchLabels": {"env": "guarded"}});
    hook["objectSelector"] =
        json!({"matchExpressions": [{"key": "guard", "operator": "NotIn", "values": ["off"]}]});
    env.configure("Validating", "guard", &webhook, vec![hook])
        .await;
    env.ok(&["create", "namespace", "open"]).await;
    env.ok(&["create", "namespace", "guarded"]).await;
    env.ok(&["label", "namespace", "guarded", "env=guarded"])
        .await;

    let in_ns = |ns: &str, name: &str, labels: Value| {
        let mut cm = configmap(name, labels);
        cm["metadata"]["namespace"] = json!(ns);
        cm
    };
    let (ok, out, err) = env.create(&in_ns("open", "a", json!({})), &[]).await;
    assert!(ok, "{out}{err}");
    let (ok, _, err) = env.create(&in_ns("guarded", "b", json!({})), &[]).await;
    assert!(
        !ok && err.contains(r#"admission webhook "guard.example.com" denied the request: guarded"#),
        "{err}"
    );
    let (ok, out, err) = env
        .create(&in_ns("guarded", "c", json!({"guard": "off"})), &[])
        .await;
    assert!(ok, "{out}{err}");
    assert_eq!(webhook.calls("/guard").len(), 1);
}

/// A CRD with two served versions (v1 stored), a status subresource, and an integer
/// `spec.replicas`.
fn widget_crd() -> Value {
    let schema = json!({"openAPIV3Schema": {"type": "object", "properties": {
        "spec": {"type": "object", "properties": {
            "replicas": {"type": "integer"}, "mode": {"type": "string"}}},
        "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}}}}});
    let version = |name: &str, storage: bool| {
        json!({"name": name, "served": true, "storage": storage, "schema": schema,
               "subresources": {"status": {}}})
    };
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": "widgets.hooks.example.com"},
           "spec": {"group": "hooks.example.com", "scope": "Namespaced",
                    "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
                    "versions": [version("v1", true), version("v2", false)]}})
}

fn widget(version: &str, name: &str, replicas: i64) -> Value {
    json!({"apiVersion": format!("hooks.example.com/{version}"), "kind": "Widget",
           "metadata": {"name": name, "namespace": "default"},
           "spec": {"replicas": replicas, "mode": "fast"}})
}

fn widget_rules(versions: &[&str], resources: &[&str], operations: &[&str]) -> Value {
    json!([{"operations": operations, "apiGroups": ["hooks.example.com"],
            "apiVersions": versions, "resources": resources}])
}

async fn with_widgets(env: &Env) {
    let (ok, out, err) = env.create(&widget_crd(), &[]).await;
    assert!(ok, "{out}{err}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !env.kubectl(&["get", "widgets"]).await.0 {
        assert!(Instant::now() < deadline, "widgets never served");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rules_with_a_subresource_match_only_it() {
    let env = Env::start().await;
    with_widgets(&env).await;
    let webhook = TestWebhook::start(|_, _| Reply::deny("status is frozen", 403)).await;
    let hook = webhook.hook(
        "status.example.com",
        "/status",
        widget_rules(&["*"], &["widgets/status"], &["UPDATE"]),
    );
    env.configure("Validating", "status", &webhook, vec![hook])
        .await;
    let (ok, out, err) = env.create(&widget("v1", "w", 1), &[]).await;
    assert!(ok, "{out}{err}");
    env.ok(&[
        "patch",
        "widget",
        "w",
        "--type=merge",
        "-p",
        r#"{"spec":{"replicas":2}}"#,
    ])
    .await;
    let err = env
        .err(&[
            "patch",
            "widget",
            "w",
            "--subresource=status",
            "--type=merge",
            "-p",
            r#"{"status":{"ready":true}}"#,
        ])
        .await;
    assert!(
        err.contains(
            r#"admission webhook "status.example.com" denied the request: status is frozen"#
        ),
        "{err}"
    );
    let calls = webhook.calls("/status");
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0]["subResource"], "status");
    assert_eq!(calls[0]["oldObject"]["spec"]["replicas"], 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn match_policy_equivalent_sends_the_webhooks_version() {
    let env = Env::start().await;
    with_widgets(&env).await;
    let webhook = TestWebhook::start(|_, request| add_label(request, "seen-as", "v2")).await;
    let equivalent = webhook.hook(
        "equivalent.example.com",
        "/equivalent",
        widget_rules(&["v2"], &["widgets"], &["CREATE"]),
    );
    let mut exact = webhook.hook(
        "exact.example.com",
        "/exact",
        widget_rules(&["v2"], &["widgets"], &["CREATE"]),
    );
    exact["matchPolicy"] = json!("Exact");
    env.configure("Mutating", "versions", &webhook, vec![equivalent, exact])
        .await;
    let (ok, out, err) = env.create(&widget("v1", "w1", 3), &[]).await;
    assert!(ok, "{out}{err}");
    // The webhook got the object in v2 and the request as made (v1).
    let calls = webhook.calls("/equivalent");
    assert_eq!(calls.len(), 1);
    let request = &calls[0];
    assert_eq!(request["kind"]["version"], "v2");
    assert_eq!(request["resource"]["version"], "v2");
    assert_eq!(request["requestKind"]["version"], "v1");
    assert_eq!(request["object"]["apiVersion"], "hooks.example.com/v2");
    assert!(webhook.calls("/exact").is_empty());
    // Its patch came back in v1.
    let stored = env.get(&["widgets.v1.hooks.example.com", "w1"]).await;
    assert_eq!(stored["apiVersion"], "hooks.example.com/v1");
    assert_eq!(stored["metadata"]["labels"]["seen-as"], "v2");
    assert_eq!(stored["spec"]["replicas"], 3);
    // A request in v2 matches exactly: both are called.
    let (ok, out, err) = env.create(&widget("v2", "w2", 1), &[]).await;
    assert!(ok, "{out}{err}");
    assert_eq!(webhook.calls("/exact").len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failure_policies_decide_what_a_broken_webhook_does() {
    let env = Env::start().await;
    let webhook = TestWebhook::start(|path, _| match path {
        "/timeout" => Reply::Slow(Duration::from_secs(3), Box::new(Reply::allow())),
        "/garbage" => Reply::Raw(200, "garbage".into()),
        "/uid" => Reply::Review(json!({"uid": "wrong", "allowed": true})),
        _ => Reply::allow(),
    })
    .await;
    let closed = support::free_port();
    let mut hooks = Vec::new();
    for mode in ["timeout", "refused", "garbage", "uid"] {
        for policy in ["Fail", "Ignore"] {
            let name = format!("{mode}-{}.example.com", policy.to_lowercase());
            let mut hook = webhook.hook(&name, mode, rules(&["configmaps"], &["CREATE"]));
            if mode == "refused" {
                hook["clientConfig"]["url"] = json!(format!("https://127.0.0.1:{closed}/refused"));
            }
            hook["failurePolicy"] = json!(policy);
            hook["timeoutSeconds"] = json!(1);
            hook["objectSelector"] = json!({"matchLabels": {"mode": mode, "policy": policy}});
            hooks.push(hook);
        }
    }
    env.configure("Validating", "broken", &webhook, hooks).await;
    let addr = webhook.url("");
    let expected = [
        ("timeout", format!(r#"failed to call webhook: Post "{addr}timeout?timeout=1s": context deadline exceeded"#)),
        ("refused", format!(r#"failed to call webhook: Post "https://127.0.0.1:{closed}/refused?timeout=1s": dial tcp 127.0.0.1:{closed}: connect: connection refused"#)),
        ("garbage", "failed to call webhook: couldn't get version/kind; json parse error: invalid character 'g' looking for beginning of value".to_string()),
        ("uid", r#"received invalid webhook response: expected response.uid=""#.to_string()),
    ];
    for (mode, message) in expected {
        let labels = json!({"mode": mode, "policy": "Fail"});
        let (ok, _, err) = env
            .create(&configmap(&format!("{mode}-fail"), labels), &[])
            .await;
        assert!(!ok, "{mode}: Fail lets nothing through");
        let prefix = format!(
            r#"Internal error occurred: failed calling webhook "{mode}-fail.example.com": {message}"#
        );
        assert!(err.contains(&prefix), "{mode}: {err}");
        let labels = json!({"mode": mode, "policy": "Ignore"});
        let (ok, out, err) = env
            .create(&configmap(&format!("{mode}-ignore"), labels), &[])
            .await;
        assert!(ok, "{mode}: Ignore lets it through: {out}{err}");
    }
    let (_, _, err) = env
        .create(
            &configmap("uid-again", json!({"mode": "uid", "policy": "Fail"})),
            &[],
        )
        .await;
    assert!(err.contains(r#"", got "wrong""#), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dry_runs_reach_only_webhooks_without_side_effects() {
    let env = Env::start().await;
    let webhook = TestWebhook::start(|_, _| Reply::allow()).await;
    let mut safe = webhook.hook(
        "safe.example.com",
        "/safe",
        rules(&["configmaps"], &["CREATE"]),
    );
    safe["sideEffects"] = json!("NoneOnDryRun");
    safe["objectSelector"] = json!({"matchLabels": {"to": "safe"}});
    env.configure("Validating", "safe", &webhook, vec![safe])
        .await;
    let (ok, out, err) = env
        .create(
            &configmap("dry", json!({"to": "safe"})),
            &["--dry-run=server"],
        )
        .await;
    assert!(ok, "{out}{err}");
    let calls = webhook.calls("/safe");
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0]["dryRun"], true);
    assert_eq!(calls[0]["options"]["dryRun"], json!(["All"]));

    // `sideEffects: Some` is refused by the API since v1: a configuration stored
    // before (as an upgraded cluster keeps it) is written to the store directly.
    let mut unsafe_hook = webhook.hook(
        "unsafe.example.com",
        "/unsafe",
        rules(&["configmaps"], &["CREATE"]),
    );
    unsafe_hook["sideEffects"] = json!("Some");
    unsafe_hook["failurePolicy"] = json!("Fail");
    unsafe_hook["matchPolicy"] = json!("Equivalent");
    unsafe_hook["timeoutSeconds"] = json!(10);
    unsafe_hook["objectSelector"] = json!({"matchLabels": {"to": "unsafe"}});
    unsafe_hook["namespaceSelector"] = json!({});
    let config = json!({"apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": "unsafe", "uid": uuid::Uuid::new_v4().to_string(),
                     "creationTimestamp": "2026-01-01T00:00:00Z", "generation": 1},
        "webhooks": [unsafe_hook]});
    env.server
        .server()
        .store()
        .create(
            "/registry/validatingwebhookconfigurations/unsafe",
            bytes::Bytes::from(config.to_string()),
        )
        .await
        .expect("stored");
    let unsafe_cm = configmap("wet", json!({"to": "unsafe"}));
    let deadline = Instant::now() + Duration::from_secs(10);
    let err = loop {
        let (ok, _, err) = env.create(&unsafe_cm, &["--dry-run=server"]).await;
        if !ok {
            break err;
        }
        assert!(
            Instant::now() < deadline,
            "the stored configuration never took effect"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(
        err.contains(r#"admission webhook "unsafe.example.com" does not support dry run"#),
        "{err}"
    );
    assert!(webhook.calls("/unsafe").is_empty());
    // Without dry run it is called.
    let (ok, out, err) = env.create(&unsafe_cm, &[]).await;
    assert!(ok, "{out}{err}");
    assert_eq!(webhook.calls("/unsafe").len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhooks_asking_for_it_are_reinvoked_after_a_later_change() {
    let env = Env::start().await;
    let webhook = TestWebhook::start(|path, request| {
        let has_b = request.pointer("/object/metadata/labels/b").is_some();
        match path {
            "/first" if has_b => add_label(request, "first-saw-b", "yes"),
            "/never" if has_b => add_label(request, "never-saw-b", "yes"),
            "/second" if !has_b => add_label(request, "b", "yes"),
            _ => Reply::allow(),
        }
    })
    .await;
    let selector = json!({"matchLabels": {"test": "reinvoke"}});
    let mut first = webhook.hook(
        "a-first.example.com",
        "/first",
        rules(&["configmaps"], &["CREATE"]),
    );
    first["reinvocationPolicy"] = json!("IfNeeded");
    first["objectSelector"] = selector.clone();
    let mut never = webhook.hook(
        "b-never.example.com",
        "/never",
        rules(&["configmaps"], &["CREATE"]),
    );
    never["objectSelector"] = selector.clone();
    let mut second = webhook.hook(
        "c-second.example.com",
        "/second",
        rules(&["configmaps"], &["CREATE"]),
    );
    second["objectSelector"] = selector;
    env.configure("Mutating", "reinvoke", &webhook, vec![first, never, second])
        .await;
    let (ok, out, err) = env
        .create(&configmap("again", json!({"test": "reinvoke"})), &[])
        .await;
    assert!(ok, "{out}{err}");
    let labels = env.get(&["configmap", "again"]).await["metadata"]["labels"].clone();
    assert_eq!(
        labels,
        json!({"test": "reinvoke", "b": "yes", "first-saw-b": "yes"})
    );
    assert_eq!(webhook.calls("/first").len(), 2);
    assert_eq!(webhook.calls("/never").len(), 1);
    assert_eq!(webhook.calls("/second").len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deletes_are_admitted_with_the_old_object() {
    let env = Env::start().await;
    let webhook = TestWebhook::start(|_, request| {
        if name_of(request) == "keep" {
            Reply::deny("keep stays", 403)
        } else {
            Reply::allow()
        }
    })
    .await;
    let hook = webhook.hook(
        "keep.example.com",
        "/delete",
        rules(&["configmaps"], &["DELETE"]),
    );
    env.configure("Validating", "keep", &webhook, vec![hook])
        .await;
    env.create(&configmap("keep", json!({})), &[]).await;
    env.create(&configmap("drop", json!({})), &[]).await;
    let err = env.err(&["delete", "configmap", "keep"]).await;
    assert!(
        err.contains(r#"admission webhook "keep.example.com" denied the request: keep stays"#),
        "{err}"
    );
    env.ok(&["get", "configmap", "keep"]).await;
    env.ok(&["delete", "configmap", "drop"]).await;
    let calls = webhook.calls("/delete");
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["operation"], "DELETE");
    assert!(calls[0].get("object").is_none_or(Value::is_null));
    assert_eq!(calls[0]["oldObject"]["metadata"]["name"], "keep");
    assert_eq!(calls[0]["options"]["kind"], "DeleteOptions");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_patch_breaking_the_schema_is_refused_by_validation() {
    let env = Env::start().await;
    with_widgets(&env).await;
    let webhook = TestWebhook::start(|_, _| {
        Reply::patch(json!([{"op": "replace", "path": "/spec/replicas", "value": "many"}]))
    })
    .await;
    let hook = webhook.hook(
        "break.example.com",
        "/break",
        widget_rules(&["v1"], &["widgets"], &["CREATE"]),
    );
    env.configure("Mutating", "break", &webhook, vec![hook])
        .await;
    let (ok, _, err) = env.create(&widget("v1", "broken", 1), &[]).await;
    assert!(!ok);
    assert!(err.contains(r#"The Widget "broken" is invalid: spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string""#), "{err}");
    assert!(
        env.err(&["get", "widget", "broken"])
            .await
            .contains("not found")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_v1beta1_only_webhook_gets_and_answers_v1beta1() {
    let env = Env::start().await;
    let webhook = TestWebhook::start(|_, _| {
        // v1beta1: no patchType needed, and the uid is not checked.
        let patch = json!([{"op": "add", "path": "/data/by", "value": "v1beta1"}]);
        Reply::Review(json!({"uid": "any", "allowed": true,
            "patch": base64::engine::general_purpose::STANDARD.encode(patch.to_string())}))
    })
    .await;
    let mut hook = webhook.hook(
        "beta.example.com",
        "/beta",
        rules(&["configmaps"], &["CREATE"]),
    );
    hook["admissionReviewVersions"] = json!(["v1beta1"]);
    env.configure("Mutating", "beta", &webhook, vec![hook])
        .await;
    let (ok, out, err) = env.create(&configmap("old-style", json!({})), &[]).await;
    assert!(ok, "{out}{err}");
    let data = env.get(&["configmap", "old-style"]).await["data"].clone();
    assert_eq!(data, json!({"k": "v", "by": "v1beta1"}));
    // (The probes of the configuration's readiness reach it too.)
    let versions = webhook.review_versions("/beta");
    assert!(!versions.is_empty());
    assert!(
        versions.iter().all(|v| v == "admission.k8s.io/v1beta1"),
        "{versions:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn match_conditions_decide_with_cel() {
    let env = Env::start().await;
    let webhook = TestWebhook::start(|_, _| Reply::deny("conditions held", 403)).await;
    let mut hooks = Vec::new();
    for policy in ["Fail", "Ignore"] {
        let name = format!("cel-{}.example.com", policy.to_lowercase());
        let mut hook = webhook.hook(&name, "/cel", rules(&["configmaps"], &["CREATE"]));
        hook["failurePolicy"] = json!(policy);
        hook["objectSelector"] = json!({"matchLabels": {"policy": policy}});
        hook["matchConditions"] = json!([
            {"name": "named-deny", "expression": "object.metadata.name.startsWith('deny-')"},
            // An error for objects without the `tier` label.
            {"name": "tier", "expression": "object.metadata.labels['tier'] != 'free'"},
        ]);
        hooks.push(hook);
    }
    env.configure("Validating", "cel", &webhook, hooks).await;
    let labelled =
        |name: &str, policy: &str| configmap(name, json!({"policy": policy, "tier": "paid"}));
    let (ok, _, err) = env.create(&labelled("deny-1", "Fail"), &[]).await;
    assert!(
        !ok && err.contains(
            r#"admission webhook "cel-fail.example.com" denied the request: conditions held"#
        ),
        "{err}"
    );
    // A false condition: the webhook is not called.
    let (ok, out, err) = env.create(&labelled("other", "Fail"), &[]).await;
    assert!(ok, "{out}{err}");
    assert_eq!(webhook.calls("/cel").len(), 1);
    // An error: Fail refuses the request, Ignore skips the webhook.
    let (ok, _, err) = env
        .create(&configmap("deny-2", json!({"policy": "Fail"})), &[])
        .await;
    assert!(
        !ok && err.contains(r#"configmaps "deny-2" is forbidden: "#),
        "{err}"
    );
    let (ok, out, err) = env
        .create(&configmap("deny-3", json!({"policy": "Ignore"})), &[])
        .await;
    assert!(ok, "{out}{err}");
    assert_eq!(webhook.calls("/cel").len(), 1);
}
