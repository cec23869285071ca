//! `crd-gen validate --crd PATH... OBJECT-FILE...` (or `--schema FILE`): admit objects
//! like the API server would (prune, default, validate) and report the result.
//!
//! Objects are multi-document YAML or JSON (one document, or JSON lines); `-` reads
//! stdin. With `--crd`, each object's CRD is picked by `apiVersion` and `kind`; an
//! object of an unknown kind is invalid. With `--schema`, every value is checked
//! against that bare `openAPIV3Schema` (not as a resource root).
//!
//! Output:
//! - text (default): for each invalid object `Kind "name" is invalid:` followed by
//!   one line per error in the API server's wording; a summary goes to stderr;
//! - `--output yaml|json`: the admitted (pruned and defaulted) valid objects on
//!   stdout (YAML documents, or one JSON object per line); errors go to stderr;
//! - `--format json`: one JSON line per object:
//!   `{"file","index","kind","name","errors":[...],"object":<admitted>}`.
//!
//! `x-kubernetes-validations` rules are evaluated (CEL) after the OpenAPI checks.
//! With `--old OLD-FILE`, an object whose kind, namespace and name match an old
//! object is validated as an update of it: transition rules (`oldSelf`) run, and
//! errors on values unchanged from the old object are dropped (ratcheting).
//! `--kube-version X.Y` picks the Kubernetes release to behave like.
//!
//! A bad JSON line or YAML document is reported (`file:line:column: message`) and
//! skipped; reading goes on with the next line or `---`.
//!
//! Exit status: 0 all objects valid, 1 some object invalid, 2 some input unreadable.
//! Input files are only read.

use std::collections::HashMap;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::ValueEnum;
use crd_runtime::KubeVersion;
use crd_runtime::engine::{Engine, EngineOptions, SchemaOptions};
use crd_runtime::load::{self, LoadError, crds_from_documents, parse_documents_bytes};
use crd_runtime::{ErrorList, JSONSchemaProps};
use serde_json::Value;

use super::inputs::{Input, read_inputs};
use super::json_stream::for_each_json_value;

/// Arguments of `crd-gen validate`.
#[derive(clap::Args)]
pub struct Args {
    /// CRD files or directories (repeat the flag, or separate with commas).
    #[arg(
        long = "crd",
        value_name = "PATH",
        value_delimiter = ',',
        required_unless_present = "schema",
        conflicts_with = "schema"
    )]
    crds: Vec<PathBuf>,
    /// A bare openAPIV3Schema (YAML or JSON) to validate values against instead.
    #[arg(long, value_name = "FILE")]
    schema: Option<PathBuf>,
    /// Previous versions of the objects (files or directories): objects matched by
    /// kind, namespace and name are validated as updates (transition rules run).
    #[arg(long = "old", value_name = "OLD-FILE", value_delimiter = ',')]
    old: Vec<PathBuf>,
    /// Objects to validate: files or directories; `-` reads stdin.
    #[arg(required = true, value_name = "OBJECT-FILE")]
    objects: Vec<PathBuf>,
    /// Print the admitted objects instead of a report.
    #[arg(long, value_enum)]
    output: Option<OutputFormat>,
    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// The Kubernetes release to behave like (1.30 to the newest): messages, known
    /// formats, CEL environment, ratcheting.
    #[arg(long, value_name = "X.Y", default_value_t = KubeVersion::NEWEST)]
    kube_version: KubeVersion,
    /// Feature gates, as kube-apiserver takes them; only `CRDValidationRatcheting`
    /// (before 1.33) is understood: `--feature-gates CRDValidationRatcheting=false`.
    #[arg(long, value_name = "GATE=BOOL", value_delimiter = ',')]
    feature_gates: Vec<String>,
}

/// How admitted objects are printed.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum OutputFormat {
    /// YAML documents.
    Yaml,
    /// One JSON object per line.
    Json,
}

/// How results are reported.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// The API server's messages.
    Text,
    /// One JSON object per line.
    Json,
}

/// Where objects find their engine.
enum Engines {
    /// By (apiVersion, kind).
    Crds(HashMap<(String, String), Engine>),
    /// One bare schema for everything.
    Schema(Engine),
}

#[derive(Default)]
struct Totals {
    objects: usize,
    invalid: usize,
    /// Documents (or whole inputs) that could not be read.
    unreadable: usize,
    write_failed: bool,
}

/// Old objects by (kind, namespace, name).
type OldObjects = HashMap<(String, String, String), Value>;

/// Runs the subcommand.
pub fn run(args: Args) -> ExitCode {
    let engines = match load_engines(&args) {
        Ok(e) => e,
        Err(msg) => {
            eprintln!("{msg}");
            return ExitCode::from(2);
        }
    };
    let olds = match load_old_objects(&args.old, &engines) {
        Ok(o) => o,
        Err(msg) => {
            eprintln!("{msg}");
            return ExitCode::from(2);
        }
    };
    let stdout = std::io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut totals = Totals::default();
    for path in &args.objects {
        match read_inputs(std::slice::from_ref(path)) {
            Ok(inputs) => {
                for input in &inputs {
                    validate_input(&args, &engines, &olds, input, &mut out, &mut totals);
                }
            }
            Err(msg) => {
                totals.unreadable += 1;
                eprintln!("{msg}");
            }
        }
    }
    if let Err(e) = out.flush() {
        eprintln!("cannot write the output: {e}");
        return ExitCode::from(2);
    }
    if args.format == Format::Text && args.output.is_none() {
        let unreadable = match totals.unreadable {
            0 => String::new(),
            1 => ", 1 document unreadable".to_string(),
            n => format!(", {n} documents unreadable"),
        };
        eprintln!(
            "validated {} objects: {} invalid{unreadable}",
            totals.objects, totals.invalid
        );
    }
    if totals.unreadable > 0 || totals.write_failed {
        ExitCode::from(2)
    } else if totals.invalid > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn load_error(e: &LoadError) -> String {
    e.to_string()
}

/// The engine options of `--kube-version` and `--feature-gates`.
fn engine_options(args: &Args) -> Result<EngineOptions, String> {
    let mut options = EngineOptions::for_version(args.kube_version);
    for gate in &args.feature_gates {
        let value = match gate.split_once('=') {
            Some(("CRDValidationRatcheting", v)) => v.parse::<bool>().ok(),
            _ => {
                return Err(format!(
                    "unknown feature gate {gate:?}: only CRDValidationRatcheting=true|false is supported"
                ));
            }
        };
        options.ratcheting = value.ok_or_else(|| {
            format!("invalid value in --feature-gates {gate:?}: use true or false")
        })?;
    }
    Ok(options)
}

fn load_engines(args: &Args) -> Result<Engines, String> {
    let options = engine_options(args)?;
    if let Some(path) = &args.schema {
        let input = read_inputs(std::slice::from_ref(path))?
            .into_iter()
            .next()
            .ok_or_else(|| format!("{}: no schema file found", path.display()))?;
        let docs = parse_documents_bytes(&input.name, &input.bytes).map_err(|e| load_error(&e))?;
        let doc = docs
            .into_iter()
            .next()
            .ok_or_else(|| format!("{}: the file holds no schema", input.name))?;
        let schema: JSONSchemaProps =
            load::from_value(&input.name, 0, doc).map_err(|e| load_error(&e))?;
        // Rules that do not compile report `rule compile error` when evaluated;
        // `crd-gen check` reports them with their schema path.
        let engine = Engine::for_schema_with(Some(&schema), SchemaOptions::default(), options)
            .map_err(|e| format!("{}: {e}", input.name))?;
        return Ok(Engines::Schema(engine));
    }
    let mut map = HashMap::new();
    for input in read_inputs(&args.crds)? {
        let docs = parse_documents_bytes(&input.name, &input.bytes).map_err(|e| load_error(&e))?;
        let loaded = crds_from_documents(&input.name, docs).map_err(|e| load_error(&e))?;
        for doc in loaded.crds {
            let crd = &doc.crd;
            for v in &crd.spec.versions {
                let engine = Engine::for_crd_with(crd, &v.name, options)
                    .map_err(|e| format!("{}: {e}", input.name))?;
                let api_version = engine
                    .resource()
                    .map(|r| r.api_version())
                    .unwrap_or_default();
                map.insert((api_version, crd.spec.names.kind.clone()), engine);
            }
        }
    }
    if map.is_empty() {
        return Err("no CustomResourceDefinition found in the --crd inputs".to_string());
    }
    Ok(Engines::Crds(map))
}

/// Reads the `--old` objects; each is pruned and defaulted by its engine, as the
/// stored object the API server would compare with.
fn load_old_objects(paths: &[PathBuf], engines: &Engines) -> Result<OldObjects, String> {
    let mut olds = HashMap::new();
    if paths.is_empty() {
        return Ok(olds);
    }
    for input in read_inputs(paths)? {
        let mut docs = Vec::new();
        let mut errors = Vec::new();
        for_each_document(&input, |d| match d {
            Ok(d) => docs.push(d),
            Err(e) => errors.push(e),
        });
        if !errors.is_empty() {
            return Err(errors.join("\n"));
        }
        for mut doc in docs {
            if let Ok(engine) = engine_for(engines, &doc) {
                engine.prune(&mut doc);
                engine.default(&mut doc);
            }
            olds.insert(identity(&doc), doc);
        }
    }
    Ok(olds)
}

/// (kind, namespace, name) of an object.
fn identity(v: &Value) -> (String, String, String) {
    let meta = v.get("metadata");
    let at = |k: &str| meta.map(|m| str_at(m, k)).unwrap_or("").to_string();
    (str_at(v, "kind").to_string(), at("namespace"), at("name"))
}

/// Calls `f` with each document of an input (YAML documents, or JSON values /
/// JSON lines, streamed), or with `Err("file:line:column: message")` for each one
/// that cannot be read. Reading goes on after a bad JSON value (at the next
/// line that starts a value) and after a bad YAML document (at the next `---`).
fn for_each_document(input: &Input, mut f: impl FnMut(Result<Value, String>)) {
    let first = input
        .bytes
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .copied();
    if matches!(first, Some(b'{') | Some(b'[')) {
        for_each_json_value(&input.bytes, |r| {
            f(r.map_err(|e| format!("{}:{}:{}: {}", input.name, e.line, e.column, e.message)))
        });
        return;
    }
    match parse_documents_bytes(&input.name, &input.bytes) {
        Ok(docs) => docs.into_iter().map(Ok).for_each(f),
        Err(e) => {
            let chunks = yaml_document_chunks(&input.bytes);
            if chunks.len() < 2 {
                return f(Err(load_error(&e)));
            }
            for (first_line, chunk) in chunks {
                match parse_documents_bytes(&input.name, chunk) {
                    Ok(docs) => docs.into_iter().map(Ok).for_each(&mut f),
                    Err(e) => f(Err(load_error(&shift_lines(e, first_line)))),
                }
            }
        }
    }
}

/// A YAML stream cut before each `---` line, with the number of lines before each
/// piece. A document marker in column 1 ends any block scalar, so each piece holds
/// whole documents.
fn yaml_document_chunks(bytes: &[u8]) -> Vec<(usize, &[u8])> {
    let mut chunks = Vec::new();
    let (mut start, mut start_line, mut line, mut at) = (0, 0, 0, 0);
    while at < bytes.len() {
        let rest = &bytes[at..];
        let is_marker = rest.starts_with(b"---")
            && matches!(rest.get(3), None | Some(b' ' | b'\t' | b'\r' | b'\n'));
        if is_marker && at > start {
            chunks.push((start_line, &bytes[start..at]));
            (start, start_line) = (at, line);
        }
        match memchr::memchr(b'\n', rest) {
            Some(nl) => {
                at += nl + 1;
                line += 1;
            }
            None => break,
        }
    }
    chunks.push((start_line, &bytes[start..]));
    chunks
}

/// Makes a piece's syntax error point into the whole file.
fn shift_lines(e: LoadError, lines_before: usize) -> LoadError {
    match e {
        LoadError::Syntax {
            source,
            line,
            column,
            message,
        } if line > 0 => LoadError::Syntax {
            source,
            line: line + lines_before,
            column,
            message,
        },
        e => e,
    }
}

fn str_at<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn object_name(v: &Value) -> &str {
    let meta = v.get("metadata");
    let name = meta.map(|m| str_at(m, "name")).unwrap_or("");
    if name.is_empty() {
        meta.map(|m| str_at(m, "generateName")).unwrap_or("")
    } else {
        name
    }
}

/// What validating a batch of documents produced, in document order.
#[derive(Default)]
struct BatchReport {
    /// Report bytes for stdout, and messages for stderr between them.
    pieces: Vec<Piece>,
    objects: usize,
    invalid: usize,
    unreadable: usize,
}

enum Piece {
    Out(Vec<u8>),
    Err(String),
}

/// Validates the documents of one input on every core; reports come out in
/// document order, as a one-by-one run would print them.
fn validate_input(
    args: &Args,
    engines: &Engines,
    olds: &OldObjects,
    input: &Input,
    out: &mut impl Write,
    totals: &mut Totals,
) {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut next_index = 0;
    let mut write_failed = false;
    super::ordered::run(
        threads,
        // JSON (one document or JSON lines) is streamed: parsed in batches while
        // earlier batches are admitted.
        |feed| {
            for_each_document(input, |doc| {
                feed((next_index, doc));
                next_index += 1;
            })
        },
        |batch: Vec<(usize, Result<Value, String>)>| {
            validate_batch(args, engines, olds, input, batch)
        },
        |report| {
            totals.objects += report.objects;
            totals.invalid += report.invalid;
            totals.unreadable += report.unreadable;
            for piece in report.pieces {
                if write_failed {
                    break;
                }
                let written = match piece {
                    Piece::Out(bytes) => out.write_all(&bytes),
                    Piece::Err(msg) => out.flush().map(|()| eprintln!("{msg}")),
                };
                if let Err(e) = written {
                    eprintln!("cannot write the output: {e}");
                    write_failed = true;
                }
            }
        },
    );
    if write_failed {
        totals.write_failed = true;
    }
}

fn validate_batch(
    args: &Args,
    engines: &Engines,
    olds: &OldObjects,
    input: &Input,
    batch: Vec<(usize, Result<Value, String>)>,
) -> BatchReport {
    let mut r = BatchReport::default();
    let mut buf = Vec::with_capacity(batch.len() * 64);
    for (index, doc) in batch {
        let mut doc = match doc {
            Ok(doc) => doc,
            Err(msg) => {
                // The bad document keeps its index, so later ones keep theirs.
                r.unreadable += 1;
                if !buf.is_empty() {
                    r.pieces.push(Piece::Out(std::mem::take(&mut buf)));
                }
                r.pieces.push(Piece::Err(msg));
                continue;
            }
        };
        r.objects += 1;
        let old = if olds.is_empty() || !doc.is_object() {
            None
        } else {
            olds.get(&identity(&doc))
        };
        let result = admit(engines, &mut doc, old);
        if result.is_err() {
            r.invalid += 1;
        }
        // Writing to a Vec only fails on a value serde_json cannot print.
        if let Err(e) = report(args, &input.name, index, &doc, &result, &mut buf) {
            r.pieces.push(Piece::Err(format!(
                "{}: document {index}: cannot print it: {e}",
                input.name
            )));
        }
    }
    if !buf.is_empty() {
        r.pieces.push(Piece::Out(buf));
    }
    r
}

/// The engine for an object; an object no engine handles gets a single message.
fn engine_for<'e>(engines: &'e Engines, doc: &Value) -> Result<&'e Engine, Vec<String>> {
    Ok(match engines {
        Engines::Schema(e) => e,
        Engines::Crds(map) => {
            if !doc.is_object() {
                return Err(vec!["the document is not an object".to_string()]);
            }
            let key = (
                str_at(doc, "apiVersion").to_string(),
                str_at(doc, "kind").to_string(),
            );
            match map.get(&key) {
                Some(e) => e,
                None => {
                    return Err(vec![format!(
                        "no CustomResourceDefinition is loaded for apiVersion {:?}, kind {:?}",
                        key.0, key.1
                    )]);
                }
            }
        }
    })
}

/// Admits one object, as an update of `old` when given.
fn admit(engines: &Engines, doc: &mut Value, old: Option<&Value>) -> Result<(), Vec<String>> {
    let engine = engine_for(engines, doc)?;
    let result = match old {
        Some(old) => engine.admit_update(doc, old),
        None => engine.admit(doc),
    };
    result.map_err(|errs: ErrorList| errs.strings())
}

fn report(
    args: &Args,
    file: &str,
    index: usize,
    doc: &Value,
    result: &Result<(), Vec<String>>,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let kind = str_at(doc, "kind");
    let name = object_name(doc);
    if args.format == Format::Json {
        let errors: &[String] = match result {
            Ok(()) => &[],
            Err(e) => e,
        };
        out.write_all(b"{\"file\":")?;
        serde_json::to_writer(&mut *out, file)?;
        write!(out, ",\"index\":{index},\"kind\":")?;
        serde_json::to_writer(&mut *out, kind)?;
        out.write_all(b",\"name\":")?;
        serde_json::to_writer(&mut *out, name)?;
        out.write_all(b",\"errors\":")?;
        serde_json::to_writer(&mut *out, errors)?;
        out.write_all(b",\"object\":")?;
        serde_json::to_writer(&mut *out, doc)?;
        return out.write_all(b"}\n");
    }
    let shown_kind = if kind.is_empty() { "object" } else { kind };
    match (result, args.output) {
        (Ok(()), None) => Ok(()),
        (Ok(()), Some(OutputFormat::Json)) => {
            serde_json::to_writer(&mut *out, doc)?;
            out.write_all(b"\n")
        }
        (Ok(()), Some(OutputFormat::Yaml)) => {
            let yaml = load::to_yaml(doc).map_err(std::io::Error::other)?;
            out.write_all(b"---\n")?;
            out.write_all(yaml.as_bytes())?;
            if !yaml.ends_with('\n') {
                out.write_all(b"\n")?;
            }
            Ok(())
        }
        (Err(errors), None) => {
            writeln!(out, "{shown_kind} {} is invalid:", go_quoted(name))?;
            for e in errors {
                writeln!(out, "{e}")?;
            }
            Ok(())
        }
        (Err(errors), Some(_)) => {
            // Keep stdout a clean stream of objects.
            out.flush()?;
            let mut err = std::io::stderr().lock();
            writeln!(
                err,
                "{file}: document {}: {shown_kind} {} is invalid:",
                index + 1,
                go_quoted(name)
            )?;
            for e in errors {
                writeln!(err, "{e}")?;
            }
            Ok(())
        }
    }
}

fn go_quoted(s: &str) -> String {
    crd_runtime::field::go_quote(s)
}
