//! An aggregated API server: `metrics.example.com/v1` NodeMetrics, one per Node of the
//! cluster (see `crd_toolkit_examples::metrics_api` and docs/aggregated-server.md).
//!
//! ```sh
//! # a crd-server running, KUBECONFIG naming it:
//! cargo run -p crd-toolkit-examples --example metrics-apiserver -- --register
//! kubectl get nodemetrics
//! ```
//!
//! It reads whom to trust from the ConfigMap `kube-system/extension-apiserver-authentication`
//! (or `--requestheader-client-ca-file`), serves on `--secure-port` (0: any free port)
//! with `--tls-cert-file`/`--tls-private-key-file` or a fresh CA and a certificate for
//! `NAME.NAMESPACE.svc` of `--service NAMESPACE/NAME`, prints
//! `serving on https://127.0.0.1:PORT`, and with `--register` applies the Service, the
//! Endpoints and the APIService that route the group to it. Ctrl-C stops it.

use std::path::PathBuf;
use std::process::ExitCode;

use crd_toolkit_examples::metrics_api::{self, register};
use crd_webhook::aggregated::RequestHeaderAuth;
use crd_webhook::{TlsFiles, WebhookConfig, WebhookTls};

const USAGE: &str = "usage: metrics-apiserver [--secure-port PORT] \
[--tls-cert-file FILE --tls-private-key-file FILE [--tls-ca-file FILE]] [--service NAMESPACE/NAME] \
[--requestheader-client-ca-file FILE [--requestheader-allowed-names A,B]] [--client-ca-file FILE] \
[--register]";

struct Args {
    port: u16,
    cert: Option<PathBuf>,
    key: Option<PathBuf>,
    tls_ca: Option<PathBuf>,
    namespace: String,
    name: String,
    requestheader_ca: Option<PathBuf>,
    allowed_names: Vec<String>,
    client_ca: Option<PathBuf>,
    register: bool,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut out = Args {
        port: 0,
        cert: None,
        key: None,
        tls_ca: None,
        namespace: "default".into(),
        name: "metrics".into(),
        requestheader_ca: None,
        allowed_names: Vec::new(),
        client_ca: None,
        register: false,
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
            "--secure-port" => {
                let v = value()?;
                out.port = v
                    .parse()
                    .map_err(|e| format!("--secure-port {v:?}: not a port: {e}"))?;
            }
            "--tls-cert-file" => out.cert = Some(value()?.into()),
            "--tls-private-key-file" => out.key = Some(value()?.into()),
            "--tls-ca-file" => out.tls_ca = Some(value()?.into()),
            "--service" => {
                let v = value()?;
                let (ns, n) = v
                    .split_once('/')
                    .filter(|(ns, n)| !ns.is_empty() && !n.is_empty())
                    .ok_or_else(|| format!("--service {v:?}: expected NAMESPACE/NAME"))?;
                out.namespace = ns.to_string();
                out.name = n.to_string();
            }
            "--requestheader-client-ca-file" => out.requestheader_ca = Some(value()?.into()),
            "--requestheader-allowed-names" => {
                out.allowed_names = value()?
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect();
            }
            "--client-ca-file" => out.client_ca = Some(value()?.into()),
            "--register" => {
                if inline.is_some() {
                    return Err("--register takes no value".into());
                }
                out.register = true;
            }
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if out.cert.is_some() != out.key.is_some() {
        return Err("give both --tls-cert-file and --tls-private-key-file, or neither".into());
    }
    Ok(out)
}

fn read(path: &PathBuf) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// Whom to trust: the flags when given, else what the cluster publishes.
async fn authentication(args: &Args, client: &kube::Client) -> Result<RequestHeaderAuth, String> {
    let mut auth = match &args.requestheader_ca {
        Some(path) => {
            RequestHeaderAuth::new(read(path)?).with_allowed_names(args.allowed_names.clone())
        }
        None if args.client_ca.is_some() => RequestHeaderAuth::default(),
        None => metrics_api::authentication_from_cluster(client).await?,
    };
    if let Some(path) = &args.client_ca {
        auth.client_ca_pem = Some(read(path)?);
    }
    auth.validate().map_err(|e| e.to_string())?;
    Ok(auth)
}

async fn run(args: Args) -> Result<(), String> {
    let client = kube::Client::try_default()
        .await
        .map_err(|e| format!("cannot reach the cluster (KUBECONFIG): {e}"))?;
    let auth = authentication(&args, &client).await?;
    let tls = match (&args.cert, &args.key) {
        (Some(cert), Some(key)) => WebhookTls::Files(TlsFiles {
            cert: cert.clone(),
            key: key.clone(),
        }),
        _ => WebhookTls::SelfSignedFor(vec![format!("{}.{}.svc", args.name, args.namespace)]),
    };
    let config = WebhookConfig {
        listen: ([127, 0, 0, 1], args.port).into(),
        tls,
    };
    let server = metrics_api::serve(client.clone(), auth, config)
        .await
        .map_err(|e| e.to_string())?;
    println!("serving on https://{}", server.addr());
    if args.register {
        let ca_pem = match (server.ca_pem(), &args.tls_ca) {
            (Some(ca), _) => ca.to_string(),
            (None, Some(path)) => read(path)?,
            (None, None) => {
                return Err(
                    "--register with your own certificate needs --tls-ca-file (the caBundle)"
                        .into(),
                );
            }
        };
        let registration = register::Registration {
            namespace: args.namespace.clone(),
            name: args.name.clone(),
            port: server.addr().port(),
            ca_pem,
        };
        register::register(&client, &registration)
            .await
            .map_err(|e| format!("cannot register: {e}"))?;
        println!(
            "registered APIService {} -> service {}/{}",
            register::api_service_name(),
            args.namespace,
            args.name
        );
    }
    tokio::signal::ctrl_c()
        .await
        .map_err(|e| format!("cannot wait for Ctrl-C: {e}"))?;
    Ok(())
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
    match run(args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}
