//! The three-version Gizmo (`crd_toolkit_examples::gizmo`, one `#[versioned]` module)
//! served by crd-server, twice: with the converter in process
//! (`TestServerBuilder::converter`) and with the generated converter behind an HTTPS
//! conversion webhook (`crd_webhook::serve_conversion`, self-signed CA in the CRD's
//! `caBundle`). Each run writes one Gizmo in each version with `kube::Api`, reads every
//! one back in every version, writes a v1-only value back through v1alpha1 without
//! losing it, lists them with kubectl (and sees v1alpha1's deprecation warning), and
//! runs the example's kube-runtime controller until its status write shows in every
//! version. A third test runs the `versioned-operator` example as a process against
//! crd-server, as docs/versions.md shows it.

mod support;

use std::future::Future;
use std::time::Duration;

use crd_runtime::model::WebhookClientConfig;
use crd_server::TestServer;
use crd_toolkit_examples::gizmo::{self, v1, v1alpha1, v1beta1};
use crd_toolkit_examples::gizmo_operator;
use crd_webhook::{WebhookConfig, WebhookTls, serve_conversion};
use kube::api::{Api, PostParams};
use serde_json::Value;

const DEPRECATION: &str =
    "Warning: devices.example.com/v1alpha1 Gizmo is deprecated; use devices.example.com/v1";

/// Fails the test when `step` takes longer than `secs`.
async fn within<T>(secs: u64, what: &str, step: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(secs), step)
        .await
        .unwrap_or_else(|_| panic!("{what}: no answer within {secs} s"))
}

/// kubectl (with a bounded request timeout) off the runtime's worker threads, which
/// serve the API server and the webhook it calls.
async fn kubectl(url: &str, args: &[&str]) -> std::process::Output {
    let url = url.to_string();
    let mut args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    args.push("--request-timeout=20s".into());
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        support::kubectl(&url, &args)
    })
    .await
    .expect("kubectl ran")
}

/// kubectl that must succeed: stdout and stderr.
async fn kubectl_ok(url: &str, args: &[&str]) -> (String, String) {
    let out = within(60, "kubectl", kubectl(url, args)).await;
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(
        out.status.success(),
        "kubectl {args:?} failed: {stdout}{stderr}"
    );
    (stdout, stderr)
}

fn alpha() -> v1alpha1::Gizmo {
    v1alpha1::Gizmo::new(
        "old-sign",
        v1alpha1::GizmoSpec {
            text: "open".into(),
            blink_millis: 500,
            color: Some("red".into()),
            mode: v1alpha1::Mode::Blink,
        },
    )
}

fn beta() -> v1beta1::Gizmo {
    v1beta1::Gizmo::new(
        "door-sign",
        v1beta1::GizmoSpec {
            message: "welcome".into(),
            lights: 3,
            blink_millis: 0,
            color: Some("green".into()),
            mode: v1beta1::Mode::Steady,
        },
    )
}

fn ticker_spec(message: &str) -> v1::GizmoSpec {
    v1::GizmoSpec {
        message: message.into(),
        lights: 12,
        // Does not fit v1alpha1's and v1beta1's `u16`.
        blink_millis: 100_000,
        palette: vec!["red".into(), "white".into()],
        mode: v1::Mode::Scroll,
    }
}

/// The Gizmo annotations that carry what a version cannot hold.
fn kept(meta: &kube::api::ObjectMeta) -> Vec<String> {
    meta.annotations
        .iter()
        .flatten()
        .filter(|(k, _)| k.starts_with("devices.example.com/conversion."))
        .map(|(k, _)| k.clone())
        .collect()
}

/// The names of the Gizmos whose status is what the controller writes, once `count` are,
/// polling for at most 15 s.
async fn showing(v1s: &Api<v1::Gizmo>, count: usize) -> Vec<String> {
    let mut showing = Vec::new();
    for _ in 0..150 {
        let list = within(20, "list in v1", v1s.list(&Default::default()))
            .await
            .expect("list");
        showing = list
            .items
            .iter()
            .filter(|g| g.status.as_ref() == Some(&gizmo_operator::desired_status(g)))
            .map(|g| g.metadata.name.clone().unwrap_or_default())
            .collect();
        if showing.len() == count {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    showing
}

/// Everything the test does to a server that serves the Gizmo CRD, in namespace `ns`.
async fn exercise(server: &TestServer, ns: &str) {
    let client = server.client();
    let alphas: Api<v1alpha1::Gizmo> = Api::namespaced(client.clone(), ns);
    let betas: Api<v1beta1::Gizmo> = Api::namespaced(client.clone(), ns);
    let v1s: Api<v1::Gizmo> = Api::namespaced(client.clone(), ns);
    let pp = PostParams::default();

    // One Gizmo written in each version.
    within(20, "create in v1alpha1", alphas.create(&pp, &alpha()))
        .await
        .expect("created in v1alpha1");
    within(20, "create in v1beta1", betas.create(&pp, &beta()))
        .await
        .expect("created in v1beta1");
    let ticker = v1::Gizmo::new("ticker", ticker_spec("news"));
    within(20, "create in v1", v1s.create(&pp, &ticker))
        .await
        .expect("created in v1");

    // Each one read in every version.
    for name in ["old-sign", "door-sign", "ticker"] {
        let a = within(20, "get", alphas.get(name)).await.expect("v1alpha1");
        let b = within(20, "get", betas.get(name)).await.expect("v1beta1");
        let c = within(20, "get", v1s.get(name)).await.expect("v1");
        assert_eq!(a.metadata.uid, c.metadata.uid, "{name}");
        assert_eq!(b.metadata.uid, c.metadata.uid, "{name}");
        assert_eq!(a.metadata.resource_version, c.metadata.resource_version);
        let (a, b, c) = (a.spec, b.spec, c.spec);
        match name {
            "old-sign" => {
                assert_eq!(a, alpha().spec);
                assert_eq!(
                    b,
                    v1beta1::GizmoSpec {
                        message: "open".into(),
                        lights: 1,
                        blink_millis: 500,
                        color: Some("red".into()),
                        mode: v1beta1::Mode::Blink,
                    }
                );
                assert_eq!(
                    c,
                    v1::GizmoSpec {
                        message: "open".into(),
                        lights: 1,
                        blink_millis: 500,
                        palette: vec![],
                        mode: v1::Mode::Blink,
                    }
                );
            }
            "door-sign" => {
                assert_eq!(
                    a,
                    v1alpha1::GizmoSpec {
                        text: "welcome".into(),
                        blink_millis: 0,
                        color: Some("green".into()),
                        mode: v1alpha1::Mode::Steady,
                    }
                );
                assert_eq!(b, beta().spec);
                assert_eq!(c.lights, 3);
                assert_eq!(c.message, "welcome");
            }
            _ => {
                // What v1alpha1 cannot hold: its type's default, the value kept aside.
                assert_eq!(
                    a,
                    v1alpha1::GizmoSpec {
                        text: "news".into(),
                        blink_millis: 0,
                        color: None,
                        mode: v1alpha1::Mode::Steady,
                    }
                );
                assert_eq!((b.lights, b.blink_millis), (12, 0));
                assert_eq!(c, ticker_spec("news"));
            }
        }
    }

    // The v1-only values survive a read and a write through v1alpha1.
    let mut old = within(20, "get", alphas.get("ticker"))
        .await
        .expect("v1alpha1");
    assert!(!kept(&old.metadata).is_empty(), "{:?}", old.metadata);
    old.spec.text = "breaking news".into();
    within(
        20,
        "replace in v1alpha1",
        alphas.replace("ticker", &pp, &old),
    )
    .await
    .expect("replaced through v1alpha1");
    let now = within(20, "get", v1s.get("ticker")).await.expect("v1");
    assert_eq!(now.spec, ticker_spec("breaking news"));
    assert_eq!(kept(&now.metadata), Vec::<String>::new());
    assert_eq!(now.metadata.generation, Some(2));
    // The removed `color` of a v1alpha1 object comes back after a trip through v1.
    let stored = within(20, "get", v1s.get("old-sign")).await.expect("v1");
    within(20, "replace in v1", v1s.replace("old-sign", &pp, &stored))
        .await
        .expect("replaced in v1");
    let back = within(20, "get", alphas.get("old-sign"))
        .await
        .expect("v1alpha1");
    assert_eq!(back.spec.color.as_deref(), Some("red"));

    // kubectl lists them in every version; v1alpha1 warns.
    let url = server.url();
    let (list, _) = kubectl_ok(
        &url,
        &[
            "get",
            "gizmos.v1beta1.devices.example.com",
            "-n",
            ns,
            "-o",
            "json",
        ],
    )
    .await;
    let list: Value = serde_json::from_str(&list).unwrap();
    let items = list["items"].as_array().expect("items");
    let listed: Vec<(&str, &str, i64)> = items
        .iter()
        .map(|i| {
            (
                i["apiVersion"].as_str().unwrap_or_default(),
                i["metadata"]["name"].as_str().unwrap_or_default(),
                i["spec"]["lights"].as_i64().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        listed,
        [
            ("devices.example.com/v1beta1", "door-sign", 3),
            ("devices.example.com/v1beta1", "old-sign", 1),
            ("devices.example.com/v1beta1", "ticker", 12),
        ]
    );
    let (list, stderr) = kubectl_ok(
        &url,
        &[
            "get",
            "gizmos.v1alpha1.devices.example.com",
            "-n",
            ns,
            "-o",
            "jsonpath={.items[*].spec.text}",
        ],
    )
    .await;
    assert_eq!(list, "welcome open breaking news");
    assert!(stderr.contains(DEPRECATION), "{stderr}");
    let (_, stderr) = kubectl_ok(&url, &["get", "gizmos", "-n", ns]).await;
    assert!(
        !stderr.contains("Warning:"),
        "v1 is not deprecated: {stderr}"
    );

    // The example's controller reconciles every Gizmo in v1, for a bounded time.
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let controller = tokio::spawn(gizmo_operator::run(
        client.clone(),
        Some(ns.to_string()),
        async {
            let _ = stopped.await;
        },
    ));
    assert_eq!(showing(&v1s, 3).await, ["door-sign", "old-sign", "ticker"]);
    let _ = stop.send(());
    within(20, "controller shutdown", controller)
        .await
        .expect("the controller stopped");

    // Its status write reads in every version.
    let ticker = within(20, "get", alphas.get("ticker")).await.expect("get");
    let status = ticker.status.expect("status in v1alpha1");
    assert_eq!(status.phase.as_deref(), Some(gizmo_operator::SHOWING));
    assert_eq!(
        status.shown.as_deref(),
        Some("\"breaking news\" on 12 lights, scrolling in red/white")
    );
    assert_eq!(status.observed_generation, Some(2));
    let (table, stderr) = kubectl_ok(
        &url,
        &["get", "gizmos.v1alpha1.devices.example.com", "-n", ns],
    )
    .await;
    assert!(stderr.contains(DEPRECATION), "{stderr}");
    // Columns are separated by at least two spaces; the Shown column holds single ones.
    let rows: Vec<Vec<&str>> = table
        .lines()
        .map(|l| {
            l.split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .collect()
        })
        .collect();
    assert_eq!(rows[0], ["NAME", "SHOWN", "PHASE"], "{table}");
    assert!(
        rows.contains(&vec![
            "old-sign",
            "\"open\" on 1 light, blinking every 500 ms",
            "Showing"
        ]),
        "{table}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_versions_with_the_converter_in_process() {
    // `strategy: Webhook` as in a cluster; the URL is never dialed.
    let crd = gizmo::crd_with_webhook(WebhookClientConfig {
        url: Some("https://127.0.0.1:1/convert".into()),
        ..Default::default()
    })
    .expect("the versions merge");
    let server = within(
        30,
        "server start",
        TestServer::builder()
            .crd(crd)
            .converter(gizmo::converter())
            .start(),
    )
    .await
    .expect("server");
    let ns = server.namespace().await.expect("namespace");
    within(180, "the in-process run", exercise(&server, &ns)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_versions_through_an_https_webhook() {
    let webhook = serve_conversion(
        gizmo::converter(),
        WebhookConfig {
            listen: "127.0.0.1:0".parse().unwrap(),
            tls: WebhookTls::SelfSigned,
        },
    )
    .await
    .expect("webhook");
    assert!(webhook.url().starts_with("https://127.0.0.1:"));
    // No converter in the server: every conversion is a ConversionReview over HTTPS,
    // trusting only the webhook's self-signed CA.
    let server = within(30, "server start", TestServer::builder().start())
        .await
        .expect("server");
    let client = server.client();
    let client_config = WebhookClientConfig {
        url: Some(webhook.url()),
        service: None,
        ca_bundle: webhook.ca_bundle(),
    };
    let crd = within(
        30,
        "install",
        gizmo_operator::install_crd(client.clone(), client_config),
    )
    .await
    .expect("CRD installed and Established");
    let conversion = crd.spec.conversion.expect("conversion");
    assert_eq!(conversion.strategy, "Webhook");
    let ns = server.namespace().await.expect("namespace");
    within(180, "the HTTPS run", exercise(&server, &ns)).await;

    // The webhook gone, reads in another version than the stored one fail: the
    // conversions above went through it.
    drop(webhook);
    let alphas: Api<v1alpha1::Gizmo> = Api::namespaced(client, &ns);
    match within(30, "get", alphas.get("ticker")).await {
        Err(kube::Error::Api(status)) => {
            assert_eq!(status.code, 500);
            assert!(
                status.message.starts_with(
                    "conversion webhook for devices.example.com/v1, Kind=Gizmo failed: Post \"https://127.0.0.1:"
                ),
                "{}",
                status.message
            );
        }
        other => panic!("expected the webhook's failure, got {other:?}"),
    }
}

/// A child process killed when the test ends, however it ends.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The `versioned-operator` example as a user runs it against crd-server (docs/versions.md,
/// "Serving it"): it serves the webhook on a free port, installs the CRD pointing at it,
/// and reconciles the Gizmos of docs/examples/gizmos.yaml, applied with kubectl in their
/// three versions; the server has no converter of its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_example_operator_serves_the_webhook_and_reconciles() {
    use std::io::BufRead as _;

    let out = std::process::Command::new(support::example_binary("versioned-operator"))
        .arg("bogus")
        .output()
        .expect("ran");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("usage: versioned-operator"));

    let server = within(30, "server start", TestServer::builder().start())
        .await
        .expect("server");
    let ns = server.namespace().await.expect("namespace");
    let url = server.url();
    let mut child = std::process::Command::new(support::example_binary("versioned-operator"))
        .args(["run", "--server", &url, "--namespace", &ns])
        .args(["--webhook-listen", "127.0.0.1:0"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("started");
    let stdout = child.stdout.take().expect("stdout");
    let _operator = Killed(child);
    // The CRD is installed and Established (the operator waits at most 20 s) before the
    // first line; the second says the controller starts.
    let lines = within(
        40,
        "the operator's first lines",
        tokio::task::spawn_blocking(move || {
            let mut lines = std::io::BufReader::new(stdout).lines();
            let mut first = Vec::new();
            for _ in 0..2 {
                first.push(lines.next().and_then(Result::ok).unwrap_or_default());
            }
            first
        }),
    )
    .await
    .expect("read");
    let webhook = lines[0]
        .strip_prefix("conversion webhook on ")
        .unwrap_or_else(|| panic!("{lines:?}"));
    assert!(webhook.starts_with("https://127.0.0.1:"), "{webhook}");
    assert_eq!(lines[1], format!("reconciling gizmos.v1 in {ns}"));

    let gizmos = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/examples/gizmos.yaml");
    let (created, stderr) = kubectl_ok(&url, &["apply", "-n", &ns, "-f", gizmos]).await;
    assert_eq!(created.lines().count(), 3, "{created}");
    assert!(stderr.contains(DEPRECATION), "{stderr}");
    let v1s: Api<v1::Gizmo> = Api::namespaced(server.client(), &ns);
    assert_eq!(showing(&v1s, 3).await, ["door-sign", "old-sign", "ticker"]);
    let (spec, _) = kubectl_ok(
        &url,
        &[
            "get",
            "gizmos.v1beta1.devices.example.com",
            "ticker",
            "-n",
            &ns,
            "-o",
            "jsonpath={.spec}",
        ],
    )
    .await;
    assert_eq!(
        spec,
        r#"{"blinkMillis":0,"lights":12,"message":"news","mode":"steady"}"#
    );
    let crd: Value = serde_json::from_str(
        &kubectl_ok(
            &url,
            &["get", "crd", "gizmos.devices.example.com", "-o", "json"],
        )
        .await
        .0,
    )
    .unwrap();
    assert_eq!(
        crd["spec"]["conversion"]["webhook"]["clientConfig"]["url"],
        webhook
    );
}
