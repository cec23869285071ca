//! A conversion webhook for the CronTab: `stable.example.com` v1 (`cronSpec`) ↔ v2
//! (`schedule`), serving `POST /convert` over HTTPS.
//!
//! ```sh
//! cargo run --features kube --example conversion-webhook -- \
//!     --listen 127.0.0.1:8443 --self-signed-ca-out ca.pem
//! # or: --tls-cert-file tls.crt --tls-private-key-file tls.key
//! ```
//!
//! With `--self-signed-ca-out FILE` it creates a CA and a serving certificate for
//! 127.0.0.1/localhost and writes the CA (PEM) to FILE, for the CRD's
//! `spec.conversion.webhook.clientConfig.caBundle` (base64 of the file). It prints
//! `listening on https://ADDR/convert` once it serves.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use crd_server::TlsFiles;
use crd_toolkit_examples::crontab_v2;
use crd_webhook::{WebhookConfig, WebhookTls, serve_conversion};

const USAGE: &str = "usage: conversion-webhook [--listen ADDR] \
(--tls-cert-file FILE --tls-private-key-file FILE | --self-signed-ca-out FILE)";

struct Args {
    listen: SocketAddr,
    cert: Option<PathBuf>,
    key: Option<PathBuf>,
    ca_out: Option<PathBuf>,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut out = Args {
        listen: SocketAddr::from(([127, 0, 0, 1], 8443)),
        cert: None,
        key: None,
        ca_out: None,
    };
    while let Some(flag) = args.next() {
        let (name, inline) = match flag.split_once('=') {
            Some((n, v)) => (n.to_string(), Some(v.to_string())),
            None => (flag.clone(), None),
        };
        let mut value = || {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match name.as_str() {
            "--listen" => {
                let v = value()?;
                out.listen = v
                    .parse()
                    .map_err(|e| format!("--listen {v:?}: not an address: {e}"))?;
            }
            "--tls-cert-file" => out.cert = Some(value()?.into()),
            "--tls-private-key-file" => out.key = Some(value()?.into()),
            "--self-signed-ca-out" => out.ca_out = Some(value()?.into()),
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(out)
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = match parse(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let tls = match (args.cert, args.key, &args.ca_out) {
        (Some(cert), Some(key), None) => WebhookTls::Files(TlsFiles { cert, key }),
        (None, None, Some(_)) => WebhookTls::SelfSigned,
        _ => {
            eprintln!(
                "error: give --tls-cert-file and --tls-private-key-file, or --self-signed-ca-out\n{USAGE}"
            );
            return ExitCode::from(2);
        }
    };
    let config = WebhookConfig {
        listen: args.listen,
        tls,
    };
    let webhook = match serve_conversion(crontab_v2::converter(), config).await {
        Ok(w) => w,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    if let (Some(path), Some(ca)) = (&args.ca_out, webhook.ca_pem())
        && let Err(e) = std::fs::write(path, ca)
    {
        eprintln!("error: cannot write {}: {e}", path.display());
        return ExitCode::from(1);
    }
    println!("listening on {}", webhook.url());
    webhook.wait().await;
    ExitCode::SUCCESS
}
