//! What admission costs a create: latency (p50, p99) of ConfigMap creates POSTed one
//! after the other over HTTP to an in-memory server, with no admission configured,
//! one validating webhook, one mutating and one validating webhook, and one
//! ValidatingAdmissionPolicy. The webhooks are
//! HTTPS on loopback (tests/support/admission_webhook.rs). Bounded loops only.
//! `cargo bench -p crd-server --bench admission --profile load [-- N]`.

use std::time::{Duration, Instant};

use bytes::Bytes;
use serde_json::{Value, json};
use support::{http, percentile, request};

#[path = "../tests/support/admission_webhook.rs"]
mod admission_webhook;
#[path = "support/mod.rs"]
mod support;

use admission_webhook::{PROBE_PATH, Reply, TestWebhook};

/// Creates timed per scenario (after a warm-up of a tenth as many).
const CREATES: usize = 2_000;
const PATH: &str = "/api/v1/namespaces/default/configmaps";

fn configmap(name: &str, labels: Value) -> Bytes {
    Bytes::from(
        json!({"apiVersion": "v1", "kind": "ConfigMap",
               "metadata": {"name": name, "labels": labels}, "data": {"k": "v"}})
        .to_string(),
    )
}

fn rules() -> Value {
    json!([{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"]}])
}

/// What a scenario configures on a fresh server.
enum Setup {
    Nothing,
    Validating,
    MutatingAndValidating,
    Policy,
}

/// POSTs `body` to `path` under `base`; the status code.
async fn post(client: &support::Http, base: &str, path: &str, body: Value) -> u16 {
    let (code, answer) = request(
        client,
        "POST",
        &format!("{base}{path}"),
        Bytes::from(body.to_string()),
    )
    .await;
    assert!(
        code < 300 || code == 409,
        "{path}: {code} {}",
        String::from_utf8_lossy(&answer)
    );
    code
}

/// Waits until a dry-run create labelled `probe=NAME` is refused (the configuration is
/// in effect); false after five seconds.
async fn in_effect(client: &support::Http, base: &str, name: &str) -> bool {
    let url = format!("{base}{PATH}?dryRun=All");
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        let (code, _) = request(
            client,
            "POST",
            &url,
            configmap("probe", json!({"probe": name})),
        )
        .await;
        if code >= 400 {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

fn probe_hook(webhook: &TestWebhook, name: &str) -> Value {
    let mut probe = webhook.hook(&format!("probe.{name}.example.com"), PROBE_PATH, rules());
    probe["objectSelector"] = json!({"matchLabels": {"probe": name}});
    probe
}

/// Configures `setup`; false when the build cannot run it.
async fn configure(
    setup: &Setup,
    client: &support::Http,
    base: &str,
    webhook: &TestWebhook,
) -> bool {
    let config = |kind: &str, name: &str, hook: Value| {
        json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind,
               "metadata": {"name": name}, "webhooks": [hook, probe_hook(webhook, name)]})
    };
    let registration = "/apis/admissionregistration.k8s.io/v1";
    match setup {
        Setup::Nothing => true,
        Setup::Validating => {
            let hook = webhook.hook("check.example.com", "/validate", rules());
            post(
                client,
                base,
                &format!("{registration}/validatingwebhookconfigurations"),
                config("ValidatingWebhookConfiguration", "check", hook),
            )
            .await;
            in_effect(client, base, "check").await
        }
        Setup::MutatingAndValidating => {
            let hook = webhook.hook("label.example.com", "/mutate", rules());
            post(
                client,
                base,
                &format!("{registration}/mutatingwebhookconfigurations"),
                config("MutatingWebhookConfiguration", "label", hook),
            )
            .await;
            let hook = webhook.hook("check.example.com", "/validate", rules());
            post(
                client,
                base,
                &format!("{registration}/validatingwebhookconfigurations"),
                config("ValidatingWebhookConfiguration", "check", hook),
            )
            .await;
            in_effect(client, base, "label").await && in_effect(client, base, "check").await
        }
        Setup::Policy => {
            // The policy refuses the probe only: a build that evaluates policies shows it.
            let policy = json!({"apiVersion": "admissionregistration.k8s.io/v1",
                "kind": "ValidatingAdmissionPolicy", "metadata": {"name": "check"},
                "spec": {"failurePolicy": "Fail",
                         "matchConstraints": {"resourceRules": [{"operations": ["CREATE"], "apiGroups": [""],
                                                                 "apiVersions": ["v1"], "resources": ["configmaps"]}]},
                         "validations": [{"expression": "!has(object.metadata.labels) || !('probe' in object.metadata.labels)"},
                                         {"expression": "object.data.size() < 10"}]}});
            let binding = json!({"apiVersion": "admissionregistration.k8s.io/v1",
                "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": "check"},
                "spec": {"policyName": "check", "validationActions": ["Deny"]}});
            post(
                client,
                base,
                &format!("{registration}/validatingadmissionpolicies"),
                policy,
            )
            .await;
            post(
                client,
                base,
                &format!("{registration}/validatingadmissionpolicybindings"),
                binding,
            )
            .await;
            in_effect(client, base, "check").await
        }
    }
}

async fn scenario(label: &str, setup: Setup, creates: usize) {
    let server = crd_server::TestServer::builder()
        .start()
        .await
        .expect("server");
    let base = server.url();
    let client = http();
    let webhook = TestWebhook::start(|path, request| match path {
        "/mutate" => {
            let op = if request
                .pointer("/object/metadata/labels")
                .is_some_and(Value::is_object)
            {
                json!({"op": "add", "path": "/metadata/labels/admitted", "value": "yes"})
            } else {
                json!({"op": "add", "path": "/metadata/labels", "value": {"admitted": "yes"}})
            };
            Reply::patch(json!([op]))
        }
        _ => Reply::allow(),
    })
    .await;
    assert!(
        configure(&setup, &client, &base, &webhook).await,
        "{label}: the configuration never took effect"
    );
    let url = format!("{base}{PATH}");
    let warmup = creates / 10;
    let mut latencies = Vec::with_capacity(creates);
    let t0 = Instant::now();
    for i in 0..warmup + creates {
        let body = configmap(&format!("cm-{i:06}"), json!({"bench": "admission"}));
        let start = Instant::now();
        let (code, answer) = request(&client, "POST", &url, body).await;
        let took = start.elapsed();
        assert_eq!(code, 201, "{}", String::from_utf8_lossy(&answer));
        if i >= warmup {
            latencies.push(took.as_secs_f64() * 1e3);
        }
    }
    let total = t0.elapsed();
    latencies.sort_by(|a, b| a.total_cmp(b));
    println!(
        "{label}: create latency p50 {:.3} ms, p99 {:.3} ms ({creates} sequential creates, {:.0}/s)",
        percentile(&latencies, 0.50),
        percentile(&latencies, 0.99),
        (warmup + creates) as f64 / total.as_secs_f64(),
    );
}

fn main() {
    let creates = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(CREATES);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        scenario("no admission", Setup::Nothing, creates).await;
        scenario("one validating webhook", Setup::Validating, creates).await;
        scenario(
            "one mutating + one validating webhook",
            Setup::MutatingAndValidating,
            creates,
        )
        .await;
        scenario("one ValidatingAdmissionPolicy", Setup::Policy, creates).await;
    });
}
