//! The `admission-webhook` example as a user runs it: a self-signed CA written with
//! `--self-signed-ca-out`, the configurations with `--configurations-out`, reviews
//! POSTed over HTTPS trusting only that CA (allow, deny with field errors, a JSON patch
//! that sets the defaults, v1beta1 answered as v1beta1, 400 for a body that is no
//! review), usage errors (exit 2), and kubectl against crd-server with both
//! configurations applied (needs the server's webhook dispatcher).

mod support;

use support::{example_binary, kubectl, kubectl_err, kubectl_ok, post, spawn_listening};

use std::path::PathBuf;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use base64::Engine as _;
use crd_runtime::CustomResourceExt as _;
use crd_toolkit_examples::crontab::CronTab;
use crd_toolkit_examples::crontab_admission::{
    self, ADMITTED_LABEL, ADMITTED_VALUE, DEFAULT_IMAGE, MUTATING_WEBHOOK, VALIDATING_WEBHOOK,
    check_cron_spec,
};
use serde_json::{Value, json};

struct Webhook {
    child: Child,
    url: String,
    ca: PathBuf,
    configurations: PathBuf,
    _dir: tempfile::TempDir,
}

impl Drop for Webhook {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start() -> Webhook {
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("ca.pem");
    let configurations = dir.path().join("webhooks.yaml");
    let (child, url) = spawn_listening(
        "admission-webhook",
        &[
            "--listen".as_ref(),
            "127.0.0.1:0".as_ref(),
            "--self-signed-ca-out".as_ref(),
            ca.as_os_str(),
            "--configurations-out".as_ref(),
            configurations.as_os_str(),
        ],
    );
    Webhook {
        child,
        url,
        ca,
        configurations,
        _dir: dir,
    }
}

fn crontab(name: &str, spec: Value) -> Value {
    json!({
        "apiVersion": "stable.example.com/v1", "kind": "CronTab",
        "metadata": {"name": name, "namespace": "default", "labels": {"team": "a"}},
        "spec": spec
    })
}

fn review(api_version: &str, uid: &str, object: Value) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "apiVersion": api_version, "kind": "AdmissionReview",
        "request": {
            "uid": uid,
            "kind": {"group": "stable.example.com", "version": "v1", "kind": "CronTab"},
            "resource": {"group": "stable.example.com", "version": "v1", "resource": "crontabs"},
            "name": object["metadata"]["name"], "namespace": "default", "operation": "CREATE",
            "userInfo": {"username": "system:admin"},
            "object": object
        }
    }))
    .unwrap()
}

fn patch_of(response: &Value) -> json_patch::Patch {
    assert_eq!(response["patchType"], "JSONPatch", "{response}");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(response["patch"].as_str().expect("a patch"))
        .unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn answers_reviews_over_https_with_the_written_ca() {
    let webhook = start();
    assert!(
        webhook.url.starts_with("https://127.0.0.1:"),
        "{}",
        webhook.url
    );
    let validate = format!("{}/validate", webhook.url);
    let mutate = format!("{}/mutate", webhook.url);
    let v1 = "admission.k8s.io/v1";

    let good = crontab("good", json!({"cronSpec": "*/5 * * * *", "replicas": 2}));
    let (code, answer) = post(&validate, &webhook.ca, review(v1, "u-1", good.clone())).await;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(
        answer,
        json!({"apiVersion": v1, "kind": "AdmissionReview",
               "response": {"uid": "u-1", "allowed": true}})
    );

    let bad = crontab("bad", json!({"cronSpec": "61 * * * *", "replicas": 8}));
    let (_, answer) = post(&validate, &webhook.ca, review(v1, "u-2", bad)).await;
    assert_eq!(
        answer["response"],
        json!({"uid": "u-2", "allowed": false, "status": {"code": 403, "message":
            "[spec.cronSpec: Invalid value: \"61 * * * *\": minute 61 is out of range 0-59, spec.replicas: Invalid value: 8: must be less than or equal to 5]"}})
    );

    // The mutation sets the image and adds the label, keeping the others.
    let (_, answer) = post(&mutate, &webhook.ca, review(v1, "u-3", good.clone())).await;
    assert_eq!(answer["response"]["uid"], "u-3");
    assert_eq!(answer["response"]["allowed"], true);
    let mut mutated = good.clone();
    json_patch::patch(&mut mutated, &patch_of(&answer["response"])).unwrap();
    assert_eq!(mutated["spec"]["image"], DEFAULT_IMAGE);
    assert_eq!(
        mutated["metadata"]["labels"],
        json!({"team": "a", ADMITTED_LABEL: ADMITTED_VALUE})
    );

    // Already mutated: nothing to patch. A given image is kept.
    let (_, answer) = post(&mutate, &webhook.ca, review(v1, "u-4", mutated)).await;
    assert_eq!(
        answer["response"],
        json!({"uid": "u-4", "allowed": true}),
        "{answer}"
    );
    let imaged = crontab(
        "imaged",
        json!({"cronSpec": "0 1 * * *", "replicas": 1, "image": "mine:2"}),
    );
    let (_, answer) = post(&mutate, &webhook.ca, review(v1, "u-5", imaged.clone())).await;
    let mut mutated = imaged;
    json_patch::patch(&mut mutated, &patch_of(&answer["response"])).unwrap();
    assert_eq!(mutated["spec"]["image"], "mine:2");

    // v1beta1 is answered as v1beta1.
    let beta = "admission.k8s.io/v1beta1";
    let (_, answer) = post(&validate, &webhook.ca, review(beta, "u-6", good.clone())).await;
    assert_eq!(
        (&answer["apiVersion"], &answer["response"]["uid"]),
        (&json!(beta), &json!("u-6"))
    );

    // An object that is no CronTab is denied with the field that does not fit.
    let odd = crontab("odd", json!({"cronSpec": "* * * * *", "replicas": "two"}));
    let (_, answer) = post(&validate, &webhook.ca, review(v1, "u-7", odd)).await;
    assert_eq!(answer["response"]["allowed"], false);
    assert_eq!(answer["response"]["status"]["code"], 400);
    let message = answer["response"]["status"]["message"].as_str().unwrap();
    assert!(message.contains("spec.replicas: invalid type"), "{message}");

    let (code, answer) = post(&validate, &webhook.ca, b"{\"kind\":\"Pod\"}".to_vec()).await;
    assert_eq!(code, 400);
    assert_eq!(
        (answer["kind"].as_str(), answer["code"].as_u64()),
        (Some("Status"), Some(400))
    );
    assert!(
        answer["message"]
            .as_str()
            .unwrap()
            .contains("AdmissionReview"),
        "{answer}"
    );
    let elsewhere = format!("{}/other", webhook.url);
    let (code, _) = post(&elsewhere, &webhook.ca, review(v1, "u", good)).await;
    assert_eq!(code, 404);

    // The written configurations point at this webhook and trust the written CA.
    let text = std::fs::read_to_string(&webhook.configurations).unwrap();
    let docs = crd_runtime::load::parse_documents("webhooks.yaml", &text).unwrap();
    let ca = std::fs::read_to_string(&webhook.ca).unwrap();
    let bundle = base64::engine::general_purpose::STANDARD.encode(ca);
    let found: Vec<(String, String, String, String)> = docs
        .iter()
        .map(|d| {
            let hook = &d["webhooks"][0];
            (
                d["kind"].as_str().unwrap().to_string(),
                hook["name"].as_str().unwrap().to_string(),
                hook["clientConfig"]["url"].as_str().unwrap().to_string(),
                hook["clientConfig"]["caBundle"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            (
                "MutatingWebhookConfiguration".to_string(),
                MUTATING_WEBHOOK.to_string(),
                mutate.clone(),
                bundle.clone()
            ),
            (
                "ValidatingWebhookConfiguration".to_string(),
                VALIDATING_WEBHOOK.to_string(),
                validate.clone(),
                bundle
            ),
        ]
    );
}

#[test]
fn cron_specs_are_checked_field_by_field() {
    for ok in [
        "* * * * *",
        "*/5 0 1 12 6",
        "59 23 31 1 0",
        "0/15 */2 * * *",
    ] {
        assert_eq!(check_cron_spec(ok), Ok(()), "{ok}");
    }
    for (bad, why) in [
        (
            "* * * *",
            "must have 5 fields (minute hour day-of-month month day-of-week), got 4",
        ),
        ("60 * * * *", "minute 60 is out of range 0-59"),
        ("* 24 * * *", "hour 24 is out of range 0-23"),
        ("* * 0 * *", "day of month 0 is out of range 1-31"),
        ("* * * 13 *", "month 13 is out of range 1-12"),
        ("* * * * 7", "day of week 7 is out of range 0-6"),
        (
            "*/0 * * * *",
            "minute step \"0\" is not a number of at least 1",
        ),
        ("a * * * *", "minute \"a\" is not a number or *"),
    ] {
        assert_eq!(check_cron_spec(bad), Err(why.to_string()), "{bad}");
    }
}

#[test]
fn configurations_without_a_ca_rely_on_the_servers_trust() {
    let [mutating, validating] = crontab_admission::configurations("https://h:1", None);
    assert_eq!(
        mutating["webhooks"][0]["clientConfig"],
        json!({"url": "https://h:1/mutate"})
    );
    assert_eq!(
        validating["webhooks"][0]["rules"][0]["operations"],
        json!(["CREATE", "UPDATE"])
    );
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["--listen", "nowhere"][..],
        &["--listen", "127.0.0.1:0"],
        &["--self-signed-ca-out", "x", "--ca-bundle-file", "y"],
        &["--bogus"],
    ] {
        let out = Command::new(example_binary("admission-webhook"))
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(
            stderr.starts_with("error: ") && stderr.contains("usage: admission-webhook"),
            "{stderr}"
        );
    }
}

/// kubectl against crd-server with both configurations applied: a bad CronTab is
/// denied with kube-apiserver's wording, a good one is stored mutated, an update over
/// the replica limit is denied too. Needs crd-server's webhook dispatcher.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_is_denied_and_mutated_through_the_webhooks() {
    let webhook = start();
    let server = crd_server::TestServer::builder()
        .crd(CronTab::crd())
        .start()
        .await
        .expect("server");
    let url = server.url();
    kubectl_ok(
        &url,
        &[
            "wait",
            "--for=condition=Established",
            "--timeout=20s",
            "crd/crontabs.stable.example.com",
        ],
    );
    let configurations = webhook.configurations.to_str().unwrap();
    let out = kubectl_ok(&url, &["apply", "-f", configurations]);
    assert!(
        out.contains(
            "mutatingwebhookconfiguration.admissionregistration.k8s.io/crontab-admission created"
        ) && out.contains(
            "validatingwebhookconfiguration.admissionregistration.k8s.io/crontab-admission created"
        ),
        "{out}"
    );
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, spec: &str| {
        let file = dir.path().join(format!("{name}.yaml"));
        std::fs::write(
            &file,
            format!("apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: {name}\n  namespace: default\nspec:\n{spec}"),
        )
        .unwrap();
        file.to_str().unwrap().to_string()
    };

    // As in kube-apiserver, configurations take effect shortly after they are written:
    // wait (bounded) until a probe comes back mutated.
    let probe = write("probe", "  cronSpec: \"* * * * *\"\n");
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        kubectl_ok(&url, &["apply", "-f", &probe]);
        let got = get(&url, "probe");
        if got["metadata"]["labels"][ADMITTED_LABEL] == ADMITTED_VALUE {
            break;
        }
        kubectl_ok(&url, &["delete", "-f", &probe, "--wait=false"]);
        assert!(
            Instant::now() < deadline,
            "the mutating webhook was not called within 15 s: {got}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }

    let bad = write("bad", "  cronSpec: \"61 * * * *\"\n  replicas: 2\n");
    let err = kubectl_err(&url, &["apply", "-f", &bad]);
    // The denial's Status has no reason (the webhook gave none): kubectl prints none.
    assert!(
        err.starts_with("Error from server: error when creating"),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "admission webhook \"{VALIDATING_WEBHOOK}\" denied the request: spec.cronSpec: Invalid value: \"61 * * * *\": minute 61 is out of range 0-59"
        )),
        "{err}"
    );
    let missing = kubectl(&url, &["get", "crontab", "bad", "-n", "default"]);
    assert!(!missing.status.success(), "the denied CronTab was stored");

    let good = write("nightly", "  cronSpec: \"0 2 * * *\"\n  replicas: 2\n");
    let out = kubectl_ok(&url, &["apply", "-f", &good]);
    assert!(
        out.contains("crontab.stable.example.com/nightly created"),
        "{out}"
    );
    let stored = get(&url, "nightly");
    assert_eq!(stored["spec"]["image"], DEFAULT_IMAGE, "{stored}");
    assert_eq!(stored["spec"]["cronSpec"], "0 2 * * *");
    assert_eq!(
        stored["metadata"]["labels"][ADMITTED_LABEL], ADMITTED_VALUE,
        "{stored}"
    );

    // An update over the webhook's replica limit (the schema allows it).
    let more = write("nightly", "  cronSpec: \"0 2 * * *\"\n  replicas: 8\n");
    let err = kubectl_err(&url, &["apply", "-f", &more]);
    assert!(
        err.contains(&format!(
            "admission webhook \"{VALIDATING_WEBHOOK}\" denied the request: spec.replicas: Invalid value: 8: must be less than or equal to 5"
        )),
        "{err}"
    );
    assert_eq!(get(&url, "nightly")["spec"]["replicas"], 2);
}

fn get(url: &str, name: &str) -> Value {
    let out = kubectl_ok(
        url,
        &["get", "crontab", name, "-n", "default", "-o", "json"],
    );
    serde_json::from_str(&out).unwrap()
}
