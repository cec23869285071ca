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
use crd_runtime::KubeVersion;
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
    /// The Kubernetes release to check like (1.30 to the newest): its CEL environment.
    #[arg(long, value_name = "X.Y", default_value_t = KubeVersion::NEWEST)]
    kube_version: KubeVersion,
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
    let opts = CheckOptions {
        // A 1.N server checks new rules at compatibility version 1.(N-1).
        cel_environment_version: Some((1, args.kube_version.minor().saturating_sub(1))),
        ..CheckOptions::v1_create()
    };
    let mut totals = Totals::default();
    // Read everything first (in argument order), check the files on every core, then
    // print in input order: the output is the same as a one-by-one run.
    let mut jobs: Vec<Result<Input, (String, String)>> = Vec::new();
    for path in &args.paths {
        match read_inputs(std::slice::from_ref(path)) {
            Ok(inputs) => jobs.extend(inputs.into_iter().map(Ok)),
            Err(message) => {
                // The message names its input already (`FILE: reason`, `kube://NAME: reason`).
                let path = path.display().to_string();
                let message = match message.strip_prefix(&format!("{path}: ")) {
                    Some(reason) => reason.to_string(),
                    None => message,
                };
                jobs.push(Err((path, message)));
            }
        }
    }
    let reports = crd_gen::par::map(
        &jobs,
        |job| job.as_ref().map_or(0, |input| input.bytes.len()),
        |job| match job {
            Ok(input) => check_input(input, &opts),
            Err(_) => Vec::new(),
        },
    );
    for (job, records) in jobs.iter().zip(reports) {
        match job {
            Ok(input) => report(&input.name, records, &out, &mut totals),
            Err((path, message)) => {
                totals.unreadable = true;
                out.error(path, 0, 0, message);
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

/// What checking one file found, in output order.
enum Record {
    Note(&'static str),
    Error {
        line: usize,
        column: usize,
        message: String,
    },
    Skipped {
        document: usize,
        api_version: String,
        kind: String,
    },
    /// One checked CRD and its violations (none: valid).
    Checked {
        crd: String,
        violations: crd_runtime::ErrorList,
    },
}

fn check_input(input: &Input, opts: &CheckOptions) -> Vec<Record> {
    let file = input.name.as_str();
    let mut records = Vec::new();
    let loaded = parse_documents_bytes(file, &input.bytes).and_then(|docs| {
        if docs.is_empty() {
            records.push(Record::Note("empty file (no documents)"));
        }
        crds_from_documents(file, docs)
    });
    let loaded = match loaded {
        Ok(l) => l,
        Err(e) => {
            let (line, column, message) = match &e {
                LoadError::Syntax {
                    line,
                    column,
                    message,
                    ..
                } => (*line, *column, message.clone()),
                LoadError::Field { .. } => (0, 0, strip_source(&e, file)),
            };
            records.push(Record::Error {
                line,
                column,
                message,
            });
            return records;
        }
    };
    for s in loaded.skipped {
        records.push(Record::Skipped {
            document: s.document + 1,
            api_version: s.api_version,
            kind: s.kind,
        });
    }
    for doc in &loaded.crds {
        let crd = match doc.crd.name() {
            "" => format!("document {}", doc.document + 1),
            n => n.to_string(),
        };
        records.push(Record::Checked {
            crd,
            violations: validate_crd(&doc.crd, opts),
        });
    }
    // A schema's drop recurses once per level: deep ones on a stack sized for them.
    for doc in loaded.crds {
        crd_runtime::__private::depth::schema::drop_crd(doc.crd);
    }
    records
}

fn report(file: &str, records: Vec<Record>, out: &Printer, totals: &mut Totals) {
    for record in records {
        match record {
            Record::Note(message) => out.note(file, message),
            Record::Error {
                line,
                column,
                message,
            } => {
                totals.unreadable = true;
                out.error(file, line, column, &message);
            }
            Record::Skipped {
                document,
                api_version,
                kind,
            } => out.skipped(file, document, &api_version, &kind),
            Record::Checked { crd, violations } => {
                totals.checked += 1;
                if !violations.is_empty() {
                    totals.invalid += 1;
                }
                for e in &violations {
                    out.violation(file, &crd, e);
                }
            }
        }
    }
}

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
