//! `crd-gen diff OLD NEW`: what changed between two revisions of CRDs, and whether
//! it breaks stored objects or clients.
//!
//! OLD and NEW are files, directories (all CRDs under them) or `-` for stdin; CRDs
//! are matched by name. Output (text): one line per change,
//! `CRD-NAME: VERSION: FIELD-PATH: RULE: DETAIL [CLASS]` (`-` for a CRD-wide
//! version), then `compared N CRDs: B breaking, C compatible, I informational`.
//! With `--format json`, one JSON object per line tagged by `"kind"`: `change`,
//! `error`, `summary`. A policy file (`--policy`) sets rules to error, warn or ignore.
//!
//! Exit status: 0 nothing at level error, 1 something is, 2 an input (or the policy)
//! cannot be read.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::ValueEnum;
use crd_runtime::CustomResourceDefinition;
use crd_runtime::diff::{Change, Class, Level, Policy, Rule, diff_all};
use crd_runtime::load::load_crds_bytes;
use serde_json::json;

use super::inputs::read_inputs;

/// Arguments of `crd-gen diff`.
#[derive(clap::Args)]
pub struct Args {
    /// The old revision: a file, a directory (searched recursively), or `-` for stdin.
    #[arg(value_name = "OLD", required_unless_present = "rules")]
    old: Option<PathBuf>,
    /// The new revision, like OLD.
    #[arg(value_name = "NEW", required_unless_present = "rules")]
    new: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// A YAML file setting rules to error, warn or ignore (`rules: {RULE: LEVEL}`).
    #[arg(long, value_name = "FILE")]
    policy: Option<PathBuf>,
    /// List every rule with its class, default level and reason, and exit.
    #[arg(long)]
    rules: bool,
}

/// How results are printed.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// Human-readable lines.
    Text,
    /// JSON lines, for tools.
    Json,
}

/// Runs the subcommand.
pub fn run(args: Args) -> ExitCode {
    if args.rules {
        print_rules(args.format);
        return ExitCode::SUCCESS;
    }
    let out = Printer(args.format);
    let policy = match &args.policy {
        None => Policy::default(),
        Some(path) => match std::fs::read_to_string(path)
            .map_err(|e| format!("{}: {e}", path.display()))
            .and_then(|text| Policy::from_text(&path.display().to_string(), &text))
        {
            Ok(policy) => policy,
            Err(message) => {
                out.error(&message);
                return ExitCode::from(2);
            }
        },
    };
    let (Some(old_path), Some(new_path)) = (&args.old, &args.new) else {
        unreachable!("clap requires OLD and NEW without --rules");
    };
    if old_path.as_os_str() == "-" && new_path.as_os_str() == "-" {
        out.error("only one of OLD and NEW can be - (stdin)");
        return ExitCode::from(2);
    }
    let mut unreadable = false;
    let old = read_side(old_path, &out, &mut unreadable);
    let new = read_side(new_path, &out, &mut unreadable);
    let mut counts: BTreeMap<Class, usize> = BTreeMap::new();
    let mut failing = 0;
    let mut report = |change: &Change| {
        let level = policy.level(change.rule);
        if level == Level::Ignore {
            return;
        }
        *counts.entry(change.class()).or_default() += 1;
        failing += usize::from(level == Level::Error);
        out.change(change, level);
    };
    let (old_crds, new_crds): (Vec<_>, Vec<_>) = (
        old.values().cloned().collect(),
        new.values().cloned().collect(),
    );
    diff_all(&old_crds, &new_crds).iter().for_each(&mut report);
    let compared = old.keys().filter(|name| new.contains_key(*name)).count();
    out.summary(compared, &counts, failing);
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
    out: &Printer,
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

fn print_rules(format: Format) {
    for rule in Rule::ALL {
        let level = Policy::default_level(*rule);
        match format {
            Format::Text => println!(
                "{:<34} {:<13} {:<6} {}",
                rule.name(),
                rule.class(),
                level,
                rule.why()
            ),
            Format::Json => println!(
                "{}",
                json!({"rule": rule.name(), "class": rule.class().name(), "defaultLevel": level.name(), "why": rule.why()})
            ),
        }
    }
}

struct Printer(Format);

impl Printer {
    fn change(&self, change: &Change, level: Level) {
        let default = Policy::default_level(change.rule);
        match self.0 {
            Format::Text if level == default => println!("{change} [{}]", change.class()),
            Format::Text => println!("{change} [{}, {level} by policy]", change.class()),
            Format::Json => println!(
                "{}",
                json!({
                    "kind": "change",
                    "crd": change.crd,
                    "version": change.version,
                    "path": change.path,
                    "rule": change.rule.name(),
                    "class": change.class().name(),
                    "level": level.name(),
                    "detail": change.detail,
                    "message": change.to_string(),
                })
            ),
        }
    }

    fn error(&self, message: &str) {
        match self.0 {
            Format::Text => eprintln!("{message}"),
            Format::Json => println!("{}", json!({"kind": "error", "message": message})),
        }
    }

    fn note(&self, message: &str) {
        match self.0 {
            Format::Text => eprintln!("note: {message}"),
            Format::Json => println!("{}", json!({"kind": "note", "message": message})),
        }
    }

    fn summary(&self, compared: usize, counts: &BTreeMap<Class, usize>, failing: usize) {
        let count = |class| counts.get(&class).copied().unwrap_or(0);
        let (breaking, compatible, informational) = (
            count(Class::Breaking),
            count(Class::Compatible),
            count(Class::Informational),
        );
        match self.0 {
            Format::Text => println!(
                "compared {compared} CRDs: {breaking} breaking, {compatible} compatible, {informational} informational"
            ),
            Format::Json => println!(
                "{}",
                json!({"kind": "summary", "compared": compared, "breaking": breaking, "compatible": compatible,
                       "informational": informational, "failing": failing})
            ),
        }
    }
}
