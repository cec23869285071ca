//! Admission webhooks for the CronTab over HTTPS: `POST /validate` refuses a cron field
//! out of range or more than 5 replicas, `POST /mutate` sets a default image and a
//! label (see `crd_toolkit_examples::crontab_admission`).
//!
//! ```sh
//! cargo run --features kube --example admission-webhook -- \
//!     --listen 127.0.0.1:8443 --self-signed-ca-out ca.pem \
//!     --configurations-out webhooks.yaml
//! kubectl apply -f webhooks.yaml
//! # or: --tls-cert-file tls.crt --tls-private-key-file tls.key [--ca-bundle-file ca.crt]
//! ```
//!
//! With `--self-signed-ca-out FILE` it creates a CA and a serving certificate for
//! 127.0.0.1/localhost and writes the CA (PEM) to FILE. `--configurations-out FILE`
//! writes the `MutatingWebhookConfiguration` and `ValidatingWebhookConfiguration`
//! (YAML) with this webhook's URLs and the CA as `caBundle`. It prints
//! `listening on https://ADDR` once it serves.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use base64::Engine as _;
use crd_server::TlsFiles;
use crd_toolkit_examples::crontab_admission;
use crd_webhook::{WebhookConfig, WebhookTls, serve_router};

const USAGE: &str = "usage: admission-webhook [--listen ADDR] \
(--tls-cert-file FILE --tls-private-key-file FILE [--ca-bundle-file FILE] | --self-signed-ca-out FILE) \
[--configurations-out FILE]";

struct Args {
    listen: SocketAddr,
    cert: Option<PathBuf>,
    key: Option<PathBuf>,
    ca_bundle: Option<PathBuf>,
    ca_out: Option<PathBuf>,
    configurations_out: Option<PathBuf>,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut out = Args {
        listen: SocketAddr::from(([127, 0, 0, 1], 8443)),
        cert: None,
        key: None,
        ca_bundle: None,
        ca_out: None,
        configurations_out: None,
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
            "--ca-bundle-file" => out.ca_bundle = Some(value()?.into()),
            "--self-signed-ca-out" => out.ca_out = Some(value()?.into()),
            "--configurations-out" => out.configurations_out = Some(value()?.into()),
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
    let tls = match (args.cert, args.key, &args.ca_out, &args.ca_bundle) {
        (Some(cert), Some(key), None, _) => WebhookTls::Files(TlsFiles { cert, key }),
        (None, None, Some(_), None) => WebhookTls::SelfSigned,
        _ => {
            eprintln!(
                "error: give --tls-cert-file and --tls-private-key-file (and maybe --ca-bundle-file), or --self-signed-ca-out\n{USAGE}"
            );
            return ExitCode::from(2);
        }
    };
    let config = WebhookConfig {
        listen: args.listen,
        tls,
    };
    let webhook = match serve_router(crontab_admission::routes().into_router(), config).await {
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
    // The API server dials the URL: an unspecified listen address is reached on
    // loopback, which the self-signed certificate covers.
    let mut addr = webhook.addr();
    if addr.ip().is_unspecified() {
        addr.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
    }
    let base_url = format!("https://{addr}");
    if let Some(path) = &args.configurations_out {
        let ca_bundle = match (&args.ca_bundle, webhook.ca_bundle()) {
            (Some(file), _) => match std::fs::read(file) {
                Ok(pem) => Some(base64::engine::general_purpose::STANDARD.encode(pem)),
                Err(e) => {
                    eprintln!("error: cannot read {}: {e}", file.display());
                    return ExitCode::from(1);
                }
            },
            (None, generated) => generated,
        };
        let configurations = crontab_admission::configurations(&base_url, ca_bundle.as_deref());
        let yaml = match crd_runtime::load::to_yaml_documents(&configurations) {
            Ok(y) => y,
            Err(e) => {
                eprintln!("error: cannot render the configurations: {e}");
                return ExitCode::from(1);
            }
        };
        if let Err(e) = std::fs::write(path, yaml) {
            eprintln!("error: cannot write {}: {e}", path.display());
            return ExitCode::from(1);
        }
    }
    println!("listening on {base_url}");
    webhook.wait().await;
    ExitCode::SUCCESS
}
