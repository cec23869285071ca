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
//! With `--policy FILE`, the ValidatingAdmissionPolicies, MutatingAdmissionPolicies,
//! bindings and parameter objects of those files are applied too ([`super::policy`]):
//! a denial is an error with kube-apiserver's message, `Warn` actions are warnings
//! (`FILE: document N: Warning: ...` on stderr, `"warnings"` with `--format json`),
//! and objects of built-in kinds (or of no known kind) need no CRD.
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
use crd_runtime::load::{
    self, LoadError, crds_from_documents, parse_documents_bytes, write_json, write_json_str,
    write_json_strs,
};
use crd_runtime::{CustomResourceDefinition, ErrorList, JSONSchemaProps};
use serde_json::Value;

use super::documents::{
    LineIndex, for_each_document, for_each_json_document, is_json, json_pieces,
};
use super::inputs::{Input, read_inputs};
use super::policy::Policies;

/// Arguments of `crd-gen validate`.
#[derive(clap::Args)]
pub struct Args {
    /// CRD files or directories (repeat the flag, or separate with commas).
    #[arg(
        long = "crd",
        value_name = "PATH",
        value_delimiter = ',',
        required_unless_present_any = ["schema", "policy"],
        conflicts_with = "schema"
    )]
    crds: Vec<PathBuf>,
    /// A bare openAPIV3Schema (YAML or JSON) to validate values against instead.
    #[arg(long, value_name = "FILE", conflicts_with = "policy")]
    schema: Option<PathBuf>,
    /// Admission policies, their bindings and parameter objects (files or
    /// directories; `-` reads stdin), applied to every object as the API server would.
    #[arg(long = "policy", value_name = "FILE", value_delimiter = ',')]
    policy: Vec<PathBuf>,
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
    /// apiVersion → kind → engine (looked up by `&str`, without allocating; foldhash,
    /// because SipHash of the two strings was 2 % of a run).
    Crds(foldhash::HashMap<String, foldhash::HashMap<String, Engine>>),
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
    let mut crds = Vec::new();
    let engines = match load_engines(&args, &mut crds) {
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
    if args.policy.is_empty() {
        for path in &args.objects {
            match read_inputs(std::slice::from_ref(path)) {
                Ok(inputs) => {
                    let run = Run {
                        args: &args,
                        engines: &engines,
                        olds: &olds,
                        policies: None,
                    };
                    for input in &inputs {
                        validate_input(&run, input, &mut out, &mut totals);
                    }
                }
                Err(msg) => {
                    totals.unreadable += 1;
                    eprintln!("{msg}");
                }
            }
        }
    } else {
        // Namespaces among the objects are known before any object is admitted.
        let mut inputs = Vec::new();
        for path in &args.objects {
            match read_inputs(std::slice::from_ref(path)) {
                Ok(i) => inputs.extend(i),
                Err(msg) => {
                    totals.unreadable += 1;
                    eprintln!("{msg}");
                }
            }
        }
        let options =
            engine_options(&args).unwrap_or_else(|_| EngineOptions::for_version(args.kube_version));
        let policies =
            match Policies::load(&args.policy, &crds, &inputs, options, args.kube_version) {
                Ok(p) => p,
                Err(msg) => {
                    eprintln!("{msg}");
                    return ExitCode::from(2);
                }
            };
        let run = Run {
            args: &args,
            engines: &engines,
            olds: &olds,
            policies: Some(&policies),
        };
        for input in &inputs {
            validate_input(&run, input, &mut out, &mut totals);
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
        options.set_feature_gate(gate)?;
    }
    Ok(options)
}

/// The engines of `--crd` (or `--schema`); the CRDs read are pushed to `crds`.
fn load_engines(args: &Args, crds: &mut Vec<CustomResourceDefinition>) -> Result<Engines, String> {
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
    let mut map = foldhash::HashMap::default();
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
                map.entry(api_version)
                    .or_insert_with(foldhash::HashMap::default)
                    .insert(crd.spec.names.kind.clone(), engine);
            }
            if !args.policy.is_empty() {
                crds.push(doc.crd);
            }
        }
    }
    // With policies, objects of built-in kinds need no CRD.
    if map.is_empty() && args.policy.is_empty() {
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
    /// Documents read, bad ones included (they take an index too).
    documents: usize,
    objects: usize,
    invalid: usize,
    unreadable: usize,
}

impl BatchReport {
    /// Adds a stderr piece after the stdout bytes gathered so far.
    fn after_output(&mut self, buf: &mut Vec<u8>, marks: &mut Vec<(usize, usize)>, piece: Piece) {
        if !buf.is_empty() {
            self.pieces
                .push(Piece::Out(std::mem::take(buf), std::mem::take(marks)));
        }
        self.pieces.push(piece);
    }
}

enum Piece {
    /// Bytes for stdout; at each `(offset, n)` the index of the batch's `n`-th
    /// document goes in (known only once earlier batches are counted).
    Out(Vec<u8>, Vec<(usize, usize)>),
    Err(String),
    /// A report for stderr about the batch's `n`-th document.
    DocErr(usize, String),
}

/// A batch of work: documents read by the reading thread, or a piece of JSON input
/// a worker reads itself.
enum Batch<'i> {
    Documents(Vec<Result<Value, String>>),
    Json {
        /// Where the piece starts in the input.
        start: usize,
        bytes: &'i [u8],
    },
}

/// Bytes of JSON input per worker job.
const JSON_PIECE: usize = 256 * 1024;

/// YAML documents per worker job: large enough that hand-offs cost nothing next to
/// the work, small enough to keep every core busy and memory flat.
const DOC_BATCH: usize = 256;

/// Validates the documents of one input on every core; reports come out in
/// document order, as a one-by-one run would print them. JSON input is cut into
/// pieces read by the workers themselves; YAML documents are read first.
fn validate_input<'i>(run: &Run<'_>, input: &'i Input, out: &mut impl Write, totals: &mut Totals) {
    let mut next_index = 0;
    let mut write_failed = false;
    let json_in_pieces = is_json(&input.bytes);
    let lines = LineIndex::new(&input.bytes);
    let produce = |feed: &mut dyn FnMut(Batch<'i>)| {
        if json_in_pieces {
            for (start, bytes) in json_pieces(&input.bytes, JSON_PIECE) {
                feed(Batch::Json { start, bytes });
            }
        } else {
            let mut docs = Vec::with_capacity(DOC_BATCH);
            for_each_document(input, |doc| {
                docs.push(doc);
                if docs.len() == DOC_BATCH {
                    feed(Batch::Documents(std::mem::take(&mut docs)));
                }
            });
            if !docs.is_empty() {
                feed(Batch::Documents(docs));
            }
        }
    };
    crd_gen::par::ordered(
        1,
        produce,
        |mut jobs: Vec<Batch<'_>>| {
            let job = jobs.pop().expect("one job per batch");
            validate_batch(run, input, &lines, job)
        },
        |report| {
            totals.objects += report.objects;
            totals.invalid += report.invalid;
            totals.unreadable += report.unreadable;
            let base = next_index;
            next_index += report.documents;
            for piece in report.pieces {
                if write_failed {
                    break;
                }
                let written = match piece {
                    Piece::Out(bytes, marks) => write_marked(out, &bytes, &marks, base),
                    Piece::Err(msg) => out.flush().map(|()| eprintln!("{msg}")),
                    Piece::DocErr(n, msg) => out
                        .flush()
                        .map(|()| eprintln!("{}: document {}: {msg}", input.name, base + n + 1)),
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

/// Writes `bytes` with the document index `base + n` put in at each mark.
fn write_marked(
    out: &mut impl Write,
    bytes: &[u8],
    marks: &[(usize, usize)],
    base: usize,
) -> std::io::Result<()> {
    let mut from = 0;
    for &(at, n) in marks {
        out.write_all(&bytes[from..at])?;
        write!(out, "{}", base + n)?;
        from = at;
    }
    out.write_all(&bytes[from..])
}

/// What every object of a run is checked with.
struct Run<'a> {
    args: &'a Args,
    engines: &'a Engines,
    olds: &'a OldObjects,
    policies: Option<&'a Policies>,
}

fn validate_batch(
    run: &Run<'_>,
    input: &Input,
    lines: &LineIndex<'_>,
    batch: Batch<'_>,
) -> BatchReport {
    let (args, olds) = (run.args, run.olds);
    let mut r = BatchReport::default();
    // When every object is printed, sized for the whole batch up front (about the
    // input's size plus the per-line header of `--format json`): growing it by
    // doubling cost 2 % of a run in `realloc` copies.
    let every_object = args.format == Format::Json || args.output.is_some();
    let mut buf = Vec::with_capacity(match &batch {
        _ if !every_object => 0,
        Batch::Json { bytes, .. } => bytes.len() + bytes.len() / 2,
        Batch::Documents(docs) => docs.len() * 512,
    });
    let mut marks = Vec::new();
    // `{"file":<name>,"index":` — where the index goes in a `--format json` line.
    let index_at = args.format == Format::Json;
    // The file name as a JSON string, escaped once for every report of the batch.
    let mut file_json = Vec::new();
    write_json_str(&mut file_json, &input.name);
    let head = if index_at {
        file_json.len() + "{\"file\":,\"index\":".len()
    } else {
        0
    };
    let mut one = |doc: Result<&mut Value, String>| {
        let n = r.documents;
        r.documents += 1;
        let doc = match doc {
            Ok(doc) => doc,
            Err(msg) => {
                r.unreadable += 1;
                r.after_output(&mut buf, &mut marks, Piece::Err(msg));
                return;
            }
        };
        r.objects += 1;
        let old = if olds.is_empty() || !doc.is_object() {
            None
        } else {
            olds.get(&identity(doc))
        };
        let (result, warnings) = admit(run, doc, old);
        if result.is_err() {
            r.invalid += 1;
        }
        if args.format == Format::Text {
            for w in &warnings {
                r.after_output(
                    &mut buf,
                    &mut marks,
                    Piece::DocErr(n, format!("Warning: {w}")),
                );
            }
        }
        if index_at {
            marks.push((buf.len() + head, n));
        }
        let policy_warnings = run.policies.map(|_| warnings.as_slice());
        // Writing to a Vec only fails on a value serde_json cannot print.
        match report(args, &file_json, doc, &result, policy_warnings, &mut buf) {
            Ok(None) => {}
            Ok(Some(msg)) => {
                r.after_output(&mut buf, &mut marks, Piece::DocErr(n, msg));
            }
            Err(e) => r
                .pieces
                .push(Piece::DocErr(n, format!("cannot print it: {e}"))),
        }
    };
    match batch {
        Batch::Documents(docs) => {
            for doc in docs {
                match doc {
                    Ok(mut doc) => one(Ok(&mut doc)),
                    Err(e) => one(Err(e)),
                }
            }
        }
        Batch::Json { start, bytes } => {
            for_each_json_document(&input.name, bytes, || lines.lines_before(start), &mut one)
        }
    }
    if !buf.is_empty() {
        r.pieces.push(Piece::Out(buf, marks));
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
            let (api_version, kind) = (str_at(doc, "apiVersion"), str_at(doc, "kind"));
            match map.get(api_version).and_then(|kinds| kinds.get(kind)) {
                Some(e) => e,
                None => {
                    return Err(vec![format!(
                        "no CustomResourceDefinition is loaded for apiVersion {api_version:?}, kind {kind:?}"
                    )]);
                }
            }
        }
    })
}

/// Admits one object, as an update of `old` when given; with `--policy`, through the
/// admission policies too. Returns the result and the warnings.
fn admit(
    run: &Run<'_>,
    doc: &mut Value,
    old: Option<&Value>,
) -> (Result<(), Vec<String>>, Vec<String>) {
    if let Some(policies) = run.policies {
        return policies.admit(engine_for(run.engines, doc).ok(), doc, old);
    }
    let engine = match engine_for(run.engines, doc) {
        Ok(e) => e,
        Err(errors) => return (Err(errors), Vec::new()),
    };
    let result = match old {
        Some(old) => engine.admit_update(doc, old),
        None => engine.admit(doc),
    };
    (result.map_err(|errs: ErrorList| errs.strings()), Vec::new())
}

/// Writes the report of one document (`file_json`: the file name as a JSON string);
/// with `--format json` the `index` value is
/// left out (the caller puts it in, see [`write_marked`]).
/// A report for stderr (an invalid object while stdout carries `--output`) is
/// returned instead, to be printed as `FILE: document N: REPORT`.
fn report(
    args: &Args,
    file_json: &[u8],
    doc: &Value,
    result: &Result<(), Vec<String>>,
    warnings: Option<&[String]>,
    out: &mut Vec<u8>,
) -> std::io::Result<Option<String>> {
    let kind = str_at(doc, "kind");
    let name = object_name(doc);
    if args.format == Format::Json {
        let errors: &[String] = match result {
            Ok(()) => &[],
            Err(e) => e,
        };
        out.extend_from_slice(b"{\"file\":");
        out.extend_from_slice(file_json);
        out.extend_from_slice(b",\"index\":,\"kind\":");
        write_json_str(out, kind);
        out.extend_from_slice(b",\"name\":");
        write_json_str(out, name);
        out.extend_from_slice(b",\"errors\":");
        write_json_strs(out, errors);
        if let Some(warnings) = warnings {
            out.extend_from_slice(b",\"warnings\":");
            write_json_strs(out, warnings);
        }
        out.extend_from_slice(b",\"object\":");
        write_json(out, doc);
        out.extend_from_slice(b"}\n");
        return Ok(None);
    }
    let shown_kind = if kind.is_empty() { "object" } else { kind };
    match (result, args.output) {
        (Ok(()), None) => Ok(None),
        (Ok(()), Some(OutputFormat::Json)) => {
            write_json(out, doc);
            out.push(b'\n');
            Ok(None)
        }
        (Ok(()), Some(OutputFormat::Yaml)) => {
            let yaml = load::to_yaml(doc).map_err(std::io::Error::other)?;
            out.write_all(b"---\n")?;
            out.write_all(yaml.as_bytes())?;
            if !yaml.ends_with('\n') {
                out.write_all(b"\n")?;
            }
            Ok(None)
        }
        (Err(errors), None) => {
            writeln!(
                out,
                "{shown_kind} {} is invalid:",
                crd_runtime::__private::go::quote(name)
            )?;
            for e in errors {
                writeln!(out, "{e}")?;
            }
            Ok(None)
        }
        (Err(errors), Some(_)) => {
            // Keep stdout a clean stream of objects: the report goes to stderr.
            let mut msg = format!(
                "{shown_kind} {} is invalid:",
                crd_runtime::__private::go::quote(name)
            );
            for e in errors {
                msg.push('\n');
                msg.push_str(e);
            }
            Ok(Some(msg))
        }
    }
}
