//! `crd-gen diff OLD NEW`: what changed between two revisions of CRDs, and whether
//! it breaks stored objects or clients; with the served-version findings (crdify's
//! served-version check) NEW introduces. `crd-gen diff NEW`: the served-version
//! findings of one revision.
//!
//! OLD and NEW are files, directories (all CRDs under them) or `-` for stdin; CRDs
//! are matched by name. Output (text): one line per change,
//! `CRD-NAME: VERSION: FIELD-PATH: RULE: DETAIL [CLASS]` (`-` for a CRD-wide
//! version, `OLDER -> NEWER` between served versions), then
//! `compared N CRDs: B breaking, C compatible, I informational`. Other formats
//! (JSON lines, Markdown, GitHub annotations) are in [`super::diff_report`]. A policy
//! file (`--policy`) sets rules to error, warn or ignore.
//!
//! Exit status: 0 nothing at level error, 1 something is, 2 an input (or the policy)
//! cannot be read.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use crd_runtime::CustomResourceDefinition;
use crd_runtime::diff::{Policy, diff_all, served_versions};
use crd_runtime::load::load_crds_bytes;

use super::diff_report::{Format, Report, print_rules};
use super::inputs::read_inputs;

/// Arguments of `crd-gen diff`.
#[derive(clap::Args)]
pub struct Args {
    /// The old revision: a file, a directory (searched recursively), or `-` for stdin.
    /// Alone, the revision whose served versions are compared with each other.
    #[arg(value_name = "OLD", required_unless_present = "rules")]
    old: Option<PathBuf>,
    /// The new revision, like OLD.
    #[arg(value_name = "NEW")]
    new: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// A YAML file setting rules to error, warn or ignore (`rules: {RULE: LEVEL}`), and
    /// crdify's `conversion: Ignore` (served versions of webhook-converted CRDs skipped).
    #[arg(long, value_name = "FILE")]
    policy: Option<PathBuf>,
    /// List every rule with its class, default level and reason, and exit.
    #[arg(long)]
    rules: bool,
}

/// Runs the subcommand.
pub fn run(args: Args) -> ExitCode {
    if args.rules {
        print_rules(args.format);
        return ExitCode::SUCCESS;
    }
    let mut out = Report::new(args.format);
    let policy = match &args.policy {
        None => Policy::default(),
        Some(path) => match std::fs::read_to_string(path)
            .map_err(|e| format!("{}: {e}", path.display()))
            .and_then(|text| Policy::from_text(&path.display().to_string(), &text))
        {
            Ok(policy) => policy,
            Err(message) => {
                out.error(&message);
                out.abort();
                return ExitCode::from(2);
            }
        },
    };
    let Some(first) = &args.old else {
        unreachable!("clap requires OLD without --rules");
    };
    let mut unreadable = false;
    let Some(new_path) = &args.new else {
        // One revision: its served versions against each other.
        let crds = read_side(first, &mut out, &mut unreadable);
        for crd in crds.values().filter(|c| policy.compares_served_versions(c)) {
            served_versions(crd)
                .iter()
                .for_each(|c| out.change(c, &policy));
        }
        let what = format!("checked the served versions of {} CRDs", crds.len());
        out.finish(&what, crds.len());
        return exit(unreadable, out.failing());
    };
    if first.as_os_str() == "-" && new_path.as_os_str() == "-" {
        out.error("only one of OLD and NEW can be - (stdin)");
        out.abort();
        return ExitCode::from(2);
    }
    let old = read_side(first, &mut out, &mut unreadable);
    let new = read_side(new_path, &mut out, &mut unreadable);
    let (old_crds, new_crds): (Vec<_>, Vec<_>) = (
        old.values().cloned().collect(),
        new.values().cloned().collect(),
    );
    diff_all(&old_crds, &new_crds)
        .iter()
        // crdify's `conversion: Ignore` skips served versions of webhook-converted CRDs.
        .filter(|c| {
            !c.rule.is_served_version()
                || new
                    .get(&c.crd)
                    .is_none_or(|crd| policy.compares_served_versions(crd))
        })
        .for_each(|c| out.change(c, &policy));
    let compared = old.keys().filter(|name| new.contains_key(*name)).count();
    out.finish(&format!("compared {compared} CRDs"), compared);
    exit(unreadable, out.failing())
}

fn exit(unreadable: bool, failing: usize) -> ExitCode {
    if unreadable {
        ExitCode::from(2)
    } else if failing > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Every CRD under `path`, by name (a later file wins over an earlier one with the
/// same name, with a note). Read errors are printed and set `unreadable`.
fn read_side(
    path: &PathBuf,
    out: &mut Report,
    unreadable: &mut bool,
) -> BTreeMap<String, CustomResourceDefinition> {
    let mut crds = BTreeMap::new();
    let inputs = match read_inputs(std::slice::from_ref(path)) {
        Ok(inputs) => inputs,
        Err(message) => {
            *unreadable = true;
            out.error(&message);
            return crds;
        }
    };
    for input in inputs {
        match load_crds_bytes(&input.name, &input.bytes) {
            Ok(loaded) => {
                for doc in loaded.crds {
                    let name = doc.crd.name().to_string();
                    out.source(&name, &input.name);
                    if crds.insert(name.clone(), doc.crd).is_some() {
                        out.note(&format!(
                            "{}: {name} is defined twice; the later one is compared",
                            input.name
                        ));
                    }
                }
            }
            Err(e) => {
                *unreadable = true;
                out.error(&e.to_string());
            }
        }
    }
    crds
}
