//! `crd-gen rbac AUDIT_LOG... --user NAME`: the least-privilege Roles for what one
//! user did (from kube-apiserver's or crd-server's audit log), or, with
//! `--check FILE...`, what given Roles and bindings miss and hold unused.
//!
//! Without `--check`: Role/ClusterRole YAML on stdout (exit 0; 1 when the user made
//! no request in the logs). With `--check`: one `missing:` line per request the
//! roles would refuse, one `unused:` line per rule no request used, then
//! `checked N requests of USER against R roles: M missing, U unused`; exit 1 when
//! something is missing. Unreadable input: exit 2, `FILE:LINE: message` on stderr.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use crd_gen::rbac::{RoleOptions, check, minimal_roles, read_audit_log, requests_of};
use crd_runtime::rbac::{Policy, service_account_username, split_service_account};
use serde_json::Value;

use super::inputs::read_inputs;

/// Arguments of `crd-gen rbac`.
#[derive(clap::Args)]
pub struct Args {
    /// Audit logs (audit.k8s.io/v1 Event JSON lines, as `--audit-log-path` writes
    /// them); `-` reads stdin.
    #[arg(required = true, value_name = "AUDIT_LOG")]
    logs: Vec<PathBuf>,
    /// The user whose requests count (a service account is
    /// `system:serviceaccount:NAMESPACE:NAME`).
    #[arg(long, value_name = "NAME", required_unless_present = "serviceaccount")]
    user: Option<String>,
    /// The service account whose requests count, as `NAMESPACE:NAME`.
    #[arg(long, value_name = "NAMESPACE:NAME", conflicts_with = "user")]
    serviceaccount: Option<String>,
    /// The name of the generated roles (default: the user, or the service account's
    /// name).
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    /// Limit get/update/patch/delete rules to the object names the requests named.
    #[arg(long)]
    resource_names: bool,
    /// Also print the RoleBindings and ClusterRoleBinding that give the roles to the
    /// user.
    #[arg(long)]
    bindings: bool,
    /// Instead of printing roles, compare these Roles, ClusterRoles and bindings
    /// (files or directories) with the requests: missing rules fail (exit 1).
    #[arg(long, value_name = "FILE", num_args = 1..)]
    check: Vec<PathBuf>,
}

pub fn run(args: Args) -> ExitCode {
    let user = match (&args.user, &args.serviceaccount) {
        (Some(user), _) => user.clone(),
        (None, Some(sa)) => match sa.split_once(':') {
            Some((ns, name)) if !ns.is_empty() && !name.is_empty() && !name.contains(':') => {
                service_account_username(ns, name)
            }
            _ => {
                eprintln!(
                    "error: --serviceaccount {sa:?}: expected NAMESPACE:NAME, e.g. demo:robot"
                );
                return ExitCode::from(2);
            }
        },
        (None, None) => unreachable!("clap requires --user or --serviceaccount"),
    };
    let mut events = Vec::new();
    for path in &args.logs {
        let (name, text) = match read_text(path) {
            Ok(read) => read,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        };
        match read_audit_log(&name, &text) {
            Ok(read) => events.extend(read),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let requests = requests_of(&events, &user);
    if args.check.is_empty() {
        return print_roles(&args, &user, &requests);
    }
    let policy = match read_policy(&args.check) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let report = check(&requests, &policy);
    for m in &report.missing {
        let seen = if m.request.forbidden {
            "forbidden in the log"
        } else {
            "allowed in the log"
        };
        println!(
            "missing: {} ({seen}, {} request{})",
            m.message,
            m.request.count,
            if m.request.count == 1 { "" } else { "s" }
        );
    }
    for u in &report.unused {
        println!("unused: {}: {}", u.role, u.rule.compact_string());
    }
    println!(
        "checked {} requests of {user} against {} roles: {} missing, {} unused",
        report.requests,
        report.roles,
        report.missing.len(),
        report.unused.len()
    );
    if requests.is_empty() {
        eprintln!("note: {user} made no request in the audit log");
    }
    if report.missing.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn print_roles(args: &Args, user: &str, requests: &[crd_gen::rbac::Request]) -> ExitCode {
    if requests.is_empty() {
        eprintln!("error: {user} made no request in the audit log: no roles to write");
        return ExitCode::from(1);
    }
    let name = args
        .name
        .clone()
        .unwrap_or_else(|| match split_service_account(user) {
            Some((_, sa)) => sa.to_string(),
            None => user.to_string(),
        });
    let options = RoleOptions {
        name,
        resource_names: args.resource_names,
        bindings_for: args.bindings.then(|| user.to_string()),
    };
    let roles = minimal_roles(requests, &options);
    match crd_runtime::load::to_yaml_documents(&roles) {
        Ok(yaml) => {
            print!("{yaml}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: cannot write YAML: {e}");
            ExitCode::from(2)
        }
    }
}

fn read_text(path: &PathBuf) -> Result<(String, String), String> {
    if path.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| format!("-: cannot read stdin: {e}"))?;
        return Ok(("-".into(), text));
    }
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| format!("{name}: {e}"))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        format!(
            "{name}: not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        )
    })?;
    Ok((name, text))
}

/// Every Role, ClusterRole, RoleBinding and ClusterRoleBinding of the files (`List`s
/// expanded); other documents are skipped.
fn read_policy(paths: &[PathBuf]) -> Result<Policy, String> {
    let mut policy = Policy::new();
    for input in read_inputs(paths)? {
        let docs = crd_runtime::load::parse_documents_bytes(&input.name, &input.bytes)
            .map_err(|e| e.to_string())?;
        for doc in docs {
            let items = match doc.get("items") {
                Some(Value::Array(items))
                    if doc
                        .get("kind")
                        .and_then(Value::as_str)
                        .is_some_and(|k| k.ends_with("List")) =>
                {
                    items.clone()
                }
                _ => vec![doc],
            };
            for item in items {
                policy
                    .add(&item)
                    .map_err(|e| format!("{}: {e}", input.name))?;
            }
        }
    }
    Ok(policy)
}
