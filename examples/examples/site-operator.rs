//! The StaticSite operator (`crd_toolkit_examples::operator`) as a program.
//!
//! ```sh
//! cargo run -p crd-server -- --in-memory --listen 127.0.0.1:8080 &
//! cargo run -q -p crd-toolkit-examples --features kube --example site-operator -- crd \
//!   | kubectl -s http://127.0.0.1:8080 apply -f -
//! cargo run -p crd-toolkit-examples --features kube --example site-operator -- \
//!   run --server http://127.0.0.1:8080 &
//! kubectl -s http://127.0.0.1:8080 apply -f docs/examples/site.yaml
//! kubectl -s http://127.0.0.1:8080 get sites,deployments,configmaps,events
//! ```
//!
//! The workspace builds kube without a TLS stack, so `--server` takes a plain-HTTP URL
//! (crd-server on loopback, or `kubectl proxy` in front of a cluster).

use std::sync::Arc;

use crd_runtime::CustomResourceExt;
use crd_toolkit_examples::operator::leader::{self, run_elected};
use crd_toolkit_examples::operator::{Context, StaticSite};
use kube::{Client, Config};

const USAGE: &str = "usage: site-operator crd
       site-operator run [--server URL] [--namespace NS] [--lease-namespace NS] [--identity ID]

  crd   print the StaticSite CRD as YAML (pipe it to `kubectl apply -f -`)
  run   run the operator while it holds the Lease `site-operator`
        --server URL          API server (plain HTTP) [default: http://127.0.0.1:8080]
        --namespace NS        watch one namespace [default: all]
        --lease-namespace NS  where the Lease lives [default: default]
        --identity ID         this replica's name in the Lease [default: site-operator-PID]";

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
        Some("crd") if args.len() == 1 => {
            print!("{}", crd_runtime::to_yaml(&StaticSite::crd())?);
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

async fn operate(args: &[String]) -> Result<(), String> {
    let mut server = "http://127.0.0.1:8080".to_string();
    let mut namespace = None;
    let mut lease_namespace = "default".to_string();
    let mut identity = format!("site-operator-{}", std::process::id());
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let value = it
            .next()
            .ok_or_else(|| format!("usage: {flag} needs a value\n{USAGE}"))?
            .clone();
        match flag.as_str() {
            "--server" => server = value,
            "--namespace" => namespace = Some(value),
            "--lease-namespace" => lease_namespace = value,
            "--identity" => identity = value,
            other => return Err(format!("usage: unknown flag {other}\n{USAGE}")),
        }
    }
    let uri = server
        .parse()
        .map_err(|e| format!("--server {server}: {e}"))?;
    let client = Client::try_from(Config::new(uri)).map_err(|e| e.to_string())?;
    if !leader::reachable(&client).await {
        return Err(format!("no API server answers at {server}"));
    }
    let ctx = Arc::new(Context::new(client, &identity));
    eprintln!(
        "{identity}: waiting for the Lease {lease_namespace}/{}",
        leader::LEASE_NAME
    );
    let shutdown = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    run_elected(ctx, &lease_namespace, &identity, namespace, shutdown)
        .await
        .map_err(|e| e.to_string())
}
