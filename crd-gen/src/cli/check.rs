//! `crd-gen check PATH...`: validate every CRD like the API server would on create.
//!
//! Output (text): one line per violation, `FILE: CRD-NAME: FIELD-PATH: ERROR-TYPE: DETAIL`
//! (the field error rendered exactly like the API server), then
//! `checked N CRDs: M invalid`. Unreadable or unparsable input goes to stderr as
//! `FILE:LINE:COL: message`; documents that are not CRDs are noted on stderr.
//! With `--format json` every record is one JSON object per line on stdout,
//! tagged by `"kind"`: `violation`, `error`, `skipped`, `note`, `summary`.
//!
//! Exit status: 0 all valid, 1 some CRD invalid, 2 some input unreadable.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::ValueEnum;
use crd_runtime::check::{CheckOptions, validate_crd};
use crd_runtime::load::{LoadError, crds_from_documents, parse_documents_bytes};
use serde_json::json;

use super::inputs::{Input, read_inputs};

/// Arguments of `crd-gen check`.
#[derive(clap::Args)]
pub struct Args {
    /// Files or directories (searched recursively for *.yaml, *.yml, *.json); `-` reads stdin.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// How results are printed.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// Human-readable lines.
    Text,
    /// JSON lines, for tools.
    Json,
}

/// Totals over all inputs.
#[derive(Default)]
struct Totals {
    checked: usize,
    invalid: usize,
    unreadable: bool,
}

/// Runs the subcommand.
pub fn run(args: Args) -> ExitCode {
    let out = Printer(args.format);
    let opts = CheckOptions::v1_create();
    let mut totals = Totals::default();
    for path in &args.paths {
        match read_inputs(std::slice::from_ref(path)) {
            Ok(inputs) => {
                for input in inputs {
                    check_input(&input, &opts, &out, &mut totals);
                }
            }
            Err(message) => {
                totals.unreadable = true;
                out.error(&path.display().to_string(), 0, 0, &message);
            }
        }
    }
    out.summary(&totals);
    if totals.unreadable {
        ExitCode::from(2)
    } else if totals.invalid > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn check_input(input: &Input, opts: &CheckOptions, out: &Printer, totals: &mut Totals) {
    let file = input.name.as_str();
    let loaded = parse_documents_bytes(file, &input.bytes).and_then(|docs| {
        if docs.is_empty() {
            out.note(file, "empty file (no documents)");
        }
        crds_from_documents(file, docs)
    });
    let loaded = match loaded {
        Ok(l) => l,
        Err(e) => {
            totals.unreadable = true;
            match &e {
                LoadError::Syntax {
                    line,
                    column,
                    message,
                    ..
                } => out.error(file, *line, *column, message),
                LoadError::Field { .. } => out.error(file, 0, 0, &strip_source(&e, file)),
            }
            return;
        }
    };
    for s in &loaded.skipped {
        out.skipped(file, s.document + 1, &s.api_version, &s.kind);
    }
    for doc in &loaded.crds {
        totals.checked += 1;
        let errs = validate_crd(&doc.crd, opts);
        if errs.is_empty() {
            continue;
        }
        totals.invalid += 1;
        let name = match doc.crd.name() {
            "" => format!("document {}", doc.document + 1),
            n => n.to_string(),
        };
        for e in &errs {
            out.violation(file, &name, e);
        }
    }
}

/// A field error's message without the leading `FILE: ` (the printer adds it).
fn strip_source(e: &LoadError, file: &str) -> String {
    let s = e.to_string();
    s.strip_prefix(&format!("{file}: "))
        .map(String::from)
        .unwrap_or(s)
}

struct Printer(Format);

impl Printer {
    fn violation(&self, file: &str, crd: &str, e: &crd_runtime::FieldError) {
        match self.0 {
            Format::Text => println!("{file}: {crd}: {e}"),
            Format::Json => println!(
                "{}",
                json!({
                    "kind": "violation",
                    "file": file,
                    "crd": crd,
                    "field": e.field.as_str(),
                    "type": e.type_.label(),
                    "reason": e.type_.reason(),
                    "detail": e.detail,
                    "message": e.to_string(),
                })
            ),
        }
    }

    fn error(&self, file: &str, line: usize, column: usize, message: &str) {
        match self.0 {
            Format::Text if line > 0 => eprintln!("{file}:{line}:{column}: {message}"),
            Format::Text => eprintln!("{file}: {message}"),
            Format::Json => println!(
                "{}",
                json!({"kind": "error", "file": file, "line": line, "column": column, "message": message})
            ),
        }
    }

    fn skipped(&self, file: &str, document: usize, api_version: &str, kind: &str) {
        match self.0 {
            Format::Text => eprintln!(
                "{file}: document {document}: skipped: not a CustomResourceDefinition ({}/{})",
                or_none(api_version),
                or_none(kind)
            ),
            Format::Json => println!(
                "{}",
                json!({"kind": "skipped", "file": file, "document": document, "apiVersion": api_version, "objectKind": kind})
            ),
        }
    }

    fn note(&self, file: &str, message: &str) {
        match self.0 {
            Format::Text => eprintln!("{file}: note: {message}"),
            Format::Json => println!(
                "{}",
                json!({"kind": "note", "file": file, "message": message})
            ),
        }
    }

    fn summary(&self, t: &Totals) {
        match self.0 {
            Format::Text => println!("checked {} CRDs: {} invalid", t.checked, t.invalid),
            Format::Json => println!(
                "{}",
                json!({"kind": "summary", "checked": t.checked, "invalid": t.invalid, "inputErrors": t.unreadable})
            ),
        }
    }
}

fn or_none(s: &str) -> &str {
    if s.is_empty() { "<none>" } else { s }
}
