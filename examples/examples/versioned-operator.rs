//! The Gizmo operator (`crd_toolkit_examples::gizmo_operator`): one binary that serves
//! the conversion webhook of the three-version Gizmo (`crd_toolkit_examples::gizmo`,
//! one `#[crd_runtime::versioned]` module), installs the CRD pointing at it, and runs a
//! kube-runtime controller over the storage version `v1`.
//!
//! ```sh
//! cargo run -p crd-server -- --in-memory --listen 127.0.0.1:8080 &
//! cargo run -p crd-toolkit-examples --features kube --example versioned-operator -- \
//!   run --server http://127.0.0.1:8080 --webhook-listen 127.0.0.1:8443 &
//! kubectl -s http://127.0.0.1:8080 apply -f docs/examples/gizmos.yaml
//! kubectl -s http://127.0.0.1:8080 get gizmos.v1alpha1.devices.example.com
//! ```
//!
//! The workspace builds kube without a TLS stack, so `--server` takes a plain-HTTP URL
//! (crd-server on loopback, or `kubectl proxy` in front of a cluster). The webhook
//! serves HTTPS with a fresh self-signed CA, which goes into the CRD's `caBundle`.

use std::net::SocketAddr;

use crd_runtime::model::WebhookClientConfig;
use crd_toolkit_examples::{gizmo, gizmo_operator};
use crd_webhook::{WebhookConfig, WebhookTls, serve_conversion};
use kube::{Client, Config};

const USAGE: &str = "usage: versioned-operator crd [--webhook-url URL]
       versioned-operator run [--server URL] [--namespace NS] [--webhook-listen ADDR]

  crd  print the Gizmo CRD (v1alpha1, v1beta1, v1 stored; conversion strategy Webhook)
       as YAML
       --webhook-url URL      the webhook's clientConfig.url
                              [default: https://127.0.0.1:8443/convert]
  run  serve the conversion webhook over HTTPS (self-signed CA), install the CRD with
       that URL and CA, and reconcile Gizmos (in v1) until Ctrl-C
       --server URL           API server (plain HTTP) [default: http://127.0.0.1:8080]
       --namespace NS         watch one namespace [default: all]
       --webhook-listen ADDR  where the webhook listens [default: 127.0.0.1:8443]";

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Err(e) = run(&args).await {
        eprintln!("error: {e}");
        std::process::exit(if e.starts_with("usage") { 2 } else { 1 });
    }
}

async fn run(args: &[String]) -> Result<(), String> {
    match args.first().map(String::as_str) {
        Some("crd") => {
            let flags = flags(&args[1..], &["--webhook-url"])?;
            let url = flag(&flags, "--webhook-url").unwrap_or("https://127.0.0.1:8443/convert");
            let crd = gizmo::crd_with_webhook(WebhookClientConfig {
                url: Some(url.into()),
                ..Default::default()
            })
            .map_err(|e| e.to_string())?;
            print!("{}", crd_runtime::to_yaml(&crd).map_err(|e| e.to_string())?);
            Ok(())
        }
        Some("run") => operate(&args[1..]).await,
        Some("-h" | "--help") => {
            println!("{USAGE}");
            Ok(())
        }
        _ => Err(USAGE.into()),
    }
}

/// `--flag value` pairs, each flag one of `known`.
fn flags(args: &[String], known: &[&str]) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        if !known.contains(&flag.as_str()) {
            return Err(format!("usage: unknown flag {flag}\n{USAGE}"));
        }
        let value = it
            .next()
            .ok_or_else(|| format!("usage: {flag} needs a value\n{USAGE}"))?;
        out.push((flag.clone(), value.clone()));
    }
    Ok(out)
}

fn flag<'a>(flags: &'a [(String, String)], name: &str) -> Option<&'a str> {
    flags
        .iter()
        .rev()
        .find(|(f, _)| f == name)
        .map(|(_, v)| v.as_str())
}

async fn operate(args: &[String]) -> Result<(), String> {
    let flags = flags(args, &["--server", "--namespace", "--webhook-listen"])?;
    let server = flag(&flags, "--server").unwrap_or("http://127.0.0.1:8080");
    let namespace = flag(&flags, "--namespace");
    let listen = flag(&flags, "--webhook-listen").unwrap_or("127.0.0.1:8443");
    let listen: SocketAddr = listen
        .parse()
        .map_err(|e| format!("usage: --webhook-listen {listen}: {e}\n{USAGE}"))?;
    let uri = server
        .parse()
        .map_err(|e| format!("--server {server}: {e}"))?;
    let client = Client::try_from(Config::new(uri)).map_err(|e| e.to_string())?;

    let webhook = serve_conversion(
        gizmo::converter(),
        WebhookConfig {
            listen,
            tls: WebhookTls::SelfSigned,
        },
    )
    .await
    .map_err(|e| e.to_string())?;
    let client_config = WebhookClientConfig {
        url: Some(webhook.url()),
        service: None,
        ca_bundle: webhook.ca_bundle(),
    };
    gizmo_operator::install_crd(client.clone(), client_config)
        .await
        .map_err(|e| format!("installing the CRD at {server}: {e}"))?;
    println!("conversion webhook on {}", webhook.url());
    println!(
        "reconciling gizmos.{} in {}",
        gizmo::STORAGE_VERSION,
        namespace.unwrap_or("every namespace")
    );
    let shutdown = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    gizmo_operator::run(client, namespace.map(str::to_string), shutdown).await;
    // The webhook serves until the controller has stopped.
    drop(webhook);
    Ok(())
}
