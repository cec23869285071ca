//! Reading manifests (feature `engine`): the documents of a YAML or JSON stream as JSON
//! values, and the CRDs among them typed.

use std::fmt;

use serde::de::DeserializeOwned;

use super::messages::{self, yaml_message};
use super::strict_json::{self, StrictValue, json_message};
use super::{tape, yaml_scan};
use serde_json::Value;

use crate::model::{
    API_VERSION_V1, API_VERSION_V1BETA1, CustomResourceDefinition, CustomResourceDefinitionV1Beta1,
    KIND,
};

/// Deepest nesting of mappings/sequences accepted in a YAML document.
///
/// JSON documents nest as deep as the API server reads them
/// ([`crate::depth::MAX_DEPTH`]); YAML stays at serde_json's old limit because
/// serde-saphyr's parser, which every YAML fast path is checked against, refuses
/// flow collections a few hundred levels deep (docs/limits.md).
pub const MAX_DEPTH: usize = 128;

/// Why a manifest could not be read.
#[derive(Debug, Clone, PartialEq)]
pub enum LoadError {
    /// Not valid YAML/JSON (or not UTF-8, or over a resource limit).
    Syntax {
        /// File name (or `-` for stdin).
        source: String,
        /// 1-based line, 0 when unknown.
        line: usize,
        /// 1-based column, 0 when unknown.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// Valid YAML, but a field has the wrong shape for its type.
    Field {
        /// File name.
        source: String,
        /// 0-based document index within the file.
        document: usize,
        /// JSON path of the field (`spec.versions[0].served`).
        path: String,
        /// What is wrong.
        message: String,
    },
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Syntax {
                source,
                line,
                column,
                message,
            } if *line > 0 => {
                write!(f, "{source}:{line}:{column}: {message}")
            }
            LoadError::Syntax {
                source, message, ..
            } => write!(f, "{source}: {message}"),
            LoadError::Field {
                source,
                document,
                path,
                message,
            } => {
                let at = if path.is_empty() || path == "." {
                    String::new()
                } else {
                    format!(" at {path}")
                };
                write!(f, "{source}: document {}{at}: {message}", document + 1)
            }
        }
    }
}

impl std::error::Error for LoadError {}

/// Parses every document of a YAML or JSON text into JSON values.
///
/// JSON is recognised by its first non-blank character (`{` or `[`); everything else
/// is read as (multi-document) YAML. Empty documents are skipped. A JSON text holds
/// one document.
pub fn parse_documents(source: &str, text: &str) -> Result<Vec<Value>, LoadError> {
    if is_json(text) {
        let depth = crate::depth::json_text_depth(text.as_bytes()).map_err(|e| {
            let before = &text.as_bytes()[..e.offset];
            let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
            let start = before
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |p| p + 1);
            LoadError::Syntax {
                source: source.to_string(),
                line,
                column: text[start..e.offset].chars().count() + 1,
                message: e.to_string(),
            }
        })?;
        return match strict_json::parse(text, depth) {
            Ok(StrictValue(v)) => Ok(vec![v]),
            Err(e) => Err(LoadError::Syntax {
                source: source.to_string(),
                line: e.line(),
                column: e.column(),
                message: json_message(&e),
            }),
        };
    }
    if let Some(docs) = yaml_scan::parse(text) {
        return Ok(docs);
    }
    parse_yaml_saphyr(source, text)
}

/// The readers one by one, for the differential fuzzer (`fuzz/`). Not an API.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing {
    use super::{LoadError, LoadedCrds, Value};

    /// The reader straight from plain-style text; `None` when it declines.
    pub fn scan(text: &str) -> Option<Vec<Value>> {
        super::yaml_scan::parse(text)
    }

    /// The general reader (serde-saphyr), which every fast path must agree with.
    pub fn saphyr(text: &str) -> Result<Vec<Value>, LoadError> {
        super::parse_yaml_saphyr("fuzz", text)
    }

    /// CRDs typed straight from event tapes; `None` when that path declines.
    pub fn crds_from_tapes(text: &str) -> Option<LoadedCrds> {
        super::tape::load_crds(text)
    }
}

/// Whether `text` is JSON: its first non-blank character opens an object or array.
pub(super) fn is_json(text: &str) -> bool {
    let trimmed = text.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']);
    trimmed.starts_with('{') || trimmed.starts_with('[')
}

/// The general YAML path: serde-saphyr with [`yaml_options`], on a big-stack thread.
/// Handles everything (anchors, tags, merge keys) and produces every error message.
pub(crate) fn parse_yaml_saphyr(source: &str, text: &str) -> Result<Vec<Value>, LoadError> {
    let parsed =
        on_big_stack(|| serde_saphyr::from_multiple_with_options::<Value>(text, yaml_options()))
            .map_err(|e| LoadError::Syntax {
                source: source.to_string(),
                line: 0,
                column: 0,
                message: format!("cannot start the parser thread: {e}"),
            })?;
    parsed.map_err(|e| {
        let (line, column) = e
            .location()
            .map(|l| (l.line() as usize, l.column() as usize))
            .unwrap_or((0, 0));
        LoadError::Syntax {
            source: source.to_string(),
            line,
            column,
            message: yaml_message(&e.to_string()),
        }
    })
}

/// Stack for YAML parsing and typing: both recurse once per nesting level, so
/// [`crate::depth::MAX_DEPTH`] levels (a JSON document) need the measured stack of that depth (far more than the
/// 2 MiB a test thread or any spawned thread gets by default). Reserved, not
/// committed: only the pages a deep document touches are used.
fn parser_stack() -> usize {
    crate::depth::stack_bytes(crate::depth::MAX_DEPTH)
}

/// Runs `f` on a thread with [`parser_stack`] bytes of stack.
pub(crate) fn on_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> std::io::Result<T> {
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("crd-runtime-parse".into())
            .stack_size(parser_stack())
            .spawn_scoped(scope, f)?;
        Ok(handle
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
    })
}

/// Parses raw bytes, reporting non-UTF-8 input with its position.
pub fn parse_documents_bytes(source: &str, bytes: &[u8]) -> Result<Vec<Value>, LoadError> {
    match std::str::from_utf8(bytes) {
        Ok(text) => parse_documents(source, text),
        Err(e) => {
            let valid = &bytes[..e.valid_up_to()];
            let line = valid.iter().filter(|&&b| b == b'\n').count() + 1;
            let column =
                valid.len() - valid.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1) + 1;
            Err(LoadError::Syntax {
                source: source.to_string(),
                line,
                column,
                message: format!(
                    "input is not valid UTF-8 (invalid byte at offset {})",
                    e.valid_up_to()
                ),
            })
        }
    }
}

/// Budgets sized for real manifests (a 50 MB multi-document file passes) while
/// keeping alias expansion and nesting bounded.
fn yaml_options() -> serde_saphyr::Options {
    serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_depth: MAX_DEPTH,
            max_reader_input_bytes: Some(1 << 30),
            max_events: 200_000_000,
            max_nodes: 100_000_000,
            max_total_scalar_bytes: 1 << 30,
            max_documents: 1_000_000,
        },
        with_snippet: false,
    }
}

/// Converts a JSON value into a typed model, naming the offending field on error.
///
/// Path tracking costs a wrapper per field, so it only runs once the plain
/// conversion has failed, to name the field.
pub fn from_value<T: DeserializeOwned + Send>(
    source: &str,
    document: usize,
    value: Value,
) -> Result<T, LoadError> {
    let deep = nests_deeper_than(&value, SHALLOW);
    on_stack_for(deep, source, document, || typed(source, document, value))
}

/// Runs a conversion on a big-stack thread when the document is `deep`: typing
/// recurses once per level with large frames (about 22 KiB in debug builds), so a
/// document near `MAX_DEPTH` would overflow a 2 MiB thread.
fn on_stack_for<T: Send>(
    deep: bool,
    source: &str,
    document: usize,
    convert: impl FnOnce() -> Result<T, LoadError> + Send,
) -> Result<T, LoadError> {
    if !deep {
        return convert();
    }
    on_big_stack(convert).unwrap_or_else(|e| {
        Err(LoadError::Field {
            source: source.to_string(),
            document,
            path: String::new(),
            message: format!("cannot start the conversion thread: {e}"),
        })
    })
}

/// Documents nesting at most this deep are typed on the caller's stack.
pub(super) const SHALLOW: usize = 40;

/// Whether `value` has containers nested more than `limit` deep. Recursion stops
/// at `limit + 1` levels, so it is safe on any stack, and it allocates nothing.
fn nests_deeper_than(value: &Value, limit: usize) -> bool {
    match value {
        Value::Array(_) | Value::Object(_) if limit == 0 => true,
        Value::Array(items) => items.iter().any(|v| nests_deeper_than(v, limit - 1)),
        Value::Object(map) => map.values().any(|v| nests_deeper_than(v, limit - 1)),
        _ => false,
    }
}

/// Gives back the value a conversion consumed (by parsing the text again), so a
/// failure can still be reported with its field path.
type Reload<'a> = &'a (dyn Fn() -> Option<Value> + Sync);

/// [`from_value`] that moves the value's strings into the model instead of copying
/// them; only a failed conversion asks `reload` for the value again, to name the
/// field the way [`from_value`] does.
pub(super) fn from_value_moving<T: DeserializeOwned + Send>(
    source: &str,
    document: usize,
    value: Value,
    reload: Reload<'_>,
) -> Result<T, LoadError> {
    let deep = nests_deeper_than(&value, SHALLOW);
    let convert = move || match T::deserialize(value) {
        Ok(typed) => Ok(typed),
        Err(e) => match reload() {
            Some(value) => typed(source, document, value),
            None => Err(LoadError::Field {
                source: source.to_string(),
                document,
                path: String::new(),
                message: messages::field_message(&e.to_string()),
            }),
        },
    };
    on_stack_for(deep, source, document, convert)
}

fn typed<T: DeserializeOwned>(source: &str, document: usize, value: Value) -> Result<T, LoadError> {
    if let Ok(typed) = T::deserialize(&value) {
        return Ok(typed);
    }
    serde_path_to_error::deserialize(value).map_err(|e| LoadError::Field {
        source: source.to_string(),
        document,
        path: e.path().to_string(),
        message: messages::field_message(&e.inner().to_string()),
    })
}

/// A CRD read from a manifest.
#[derive(Clone, Debug, PartialEq)]
pub struct CrdDocument {
    /// 0-based index of the document in its file.
    pub document: usize,
    /// The CRD, converted to v1 when it was written as v1beta1.
    pub crd: CustomResourceDefinition,
    /// The `apiVersion` it was written with.
    pub original_api_version: String,
}

/// A document that is not a CRD.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedDocument {
    /// 0-based index of the document in its file.
    pub document: usize,
    /// Its `apiVersion` (empty if none).
    pub api_version: String,
    /// Its `kind` (empty if none).
    pub kind: String,
}

/// Everything found in one manifest file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LoadedCrds {
    /// The CRDs, in file order.
    pub crds: Vec<CrdDocument>,
    /// Documents that are not CRDs.
    pub skipped: Vec<SkippedDocument>,
}

fn str_field<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// Reads every CRD of a manifest (v1 or v1beta1; `List` documents are expanded).
pub fn load_crds(source: &str, text: &str) -> Result<LoadedCrds, LoadError> {
    if let Some(loaded) = tape::load_crds(text) {
        return Ok(loaded);
    }
    let docs = parse_documents(source, text)?;
    crds_from(source, docs, Some(&|| parse_documents(source, text).ok()))
}

/// [`load_crds`] for raw bytes (see [`parse_documents_bytes`]).
pub fn load_crds_bytes(source: &str, bytes: &[u8]) -> Result<LoadedCrds, LoadError> {
    if let Some(loaded) = std::str::from_utf8(bytes).ok().and_then(tape::load_crds) {
        return Ok(loaded);
    }
    let docs = parse_documents_bytes(source, bytes)?;
    crds_from(
        source,
        docs,
        Some(&|| parse_documents_bytes(source, bytes).ok()),
    )
}

/// Types already parsed documents as CRDs (see [`load_crds`]).
pub fn crds_from_documents(source: &str, docs: Vec<Value>) -> Result<LoadedCrds, LoadError> {
    crds_from(source, docs, None)
}

/// Parses the whole input again (the same documents as the first time).
type Reparse<'a> = &'a (dyn Fn() -> Option<Vec<Value>> + Sync);

/// Types `docs`; with `reparse`, values are moved into the models (see
/// [`from_value_moving`]), else converted by reference ([`from_value`]).
fn crds_from(
    source: &str,
    docs: Vec<Value>,
    reparse: Option<Reparse<'_>>,
) -> Result<LoadedCrds, LoadError> {
    let mut out = LoadedCrds::default();
    for (document, doc) in docs.into_iter().enumerate() {
        match doc {
            // `kind: List` (or `CustomResourceDefinitionList`): each item is a document.
            Value::Object(mut map) if is_list(&map) => {
                if let Some(Value::Array(items)) = map.remove("items") {
                    for (k, item) in items.into_iter().enumerate() {
                        let at = At {
                            document,
                            item: Some(k),
                            reparse,
                        };
                        push_document(source, at, item, &mut out)?;
                    }
                }
            }
            doc => {
                let at = At {
                    document,
                    item: None,
                    reparse,
                };
                push_document(source, at, doc, &mut out)?;
            }
        }
    }
    Ok(out)
}

/// Where a CRD document came from, and how to read it again.
#[derive(Clone, Copy)]
struct At<'a> {
    document: usize,
    /// Its index in a `List` document's `items`.
    item: Option<usize>,
    reparse: Option<Reparse<'a>>,
}

impl At<'_> {
    /// The document (or `List` item) parsed again.
    fn reload(&self) -> Option<Value> {
        let doc = (self.reparse?)()?.into_iter().nth(self.document)?;
        match self.item {
            None => Some(doc),
            Some(k) => match doc {
                Value::Object(mut map) => match map.remove("items")? {
                    Value::Array(items) => items.into_iter().nth(k),
                    _ => None,
                },
                _ => None,
            },
        }
    }

    fn typed<T: DeserializeOwned + Send>(&self, source: &str, doc: Value) -> Result<T, LoadError> {
        match self.reparse {
            Some(_) => from_value_moving(source, self.document, doc, &|| self.reload()),
            None => from_value(source, self.document, doc),
        }
    }
}

/// Whether a document is a CRD this crate reads (v1 or v1beta1); any other document
/// is recorded in `out` as skipped.
pub(super) fn is_crd_or_skip(
    out: &mut LoadedCrds,
    document: usize,
    api_version: &str,
    kind: &str,
) -> bool {
    let crd = kind == KIND && (api_version == API_VERSION_V1 || api_version == API_VERSION_V1BETA1);
    if !crd {
        out.skipped.push(SkippedDocument {
            document,
            api_version: api_version.to_string(),
            kind: kind.to_string(),
        });
    }
    crd
}

fn is_list(map: &serde_json::Map<String, Value>) -> bool {
    let kind = map.get("kind").and_then(Value::as_str).unwrap_or("");
    kind.ends_with("List") && map.get("items").is_some_and(Value::is_array)
}

fn push_document(
    source: &str,
    at: At<'_>,
    doc: Value,
    out: &mut LoadedCrds,
) -> Result<(), LoadError> {
    let document = at.document;
    let api_version = str_field(&doc, "apiVersion").to_string();
    if !is_crd_or_skip(out, document, &api_version, str_field(&doc, "kind")) {
        return Ok(());
    }
    let crd = if api_version == API_VERSION_V1BETA1 {
        at.typed::<CustomResourceDefinitionV1Beta1>(source, doc)?
            .into_v1()
    } else {
        at.typed::<CustomResourceDefinition>(source, doc)?
    };
    out.crds.push(CrdDocument {
        document,
        crd,
        original_api_version: api_version,
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::to_yaml;

    const CRONTAB: &str = include_str!("../../tests/data/crontab-full.yaml");

    #[test]
    fn reads_yaml_and_json() {
        let loaded = load_crds("crontab.yaml", CRONTAB).unwrap();
        assert_eq!(loaded.crds.len(), 1);
        let crd = &loaded.crds[0].crd;
        assert_eq!(crd.name(), "crontabs.stable.example.com");
        let json = serde_json::to_string(crd).unwrap();
        let again = load_crds("crontab.json", &json).unwrap();
        assert_eq!(&again.crds[0].crd, crd);
    }

    #[test]
    fn multi_document_and_lists() {
        let text = format!(
            "{CRONTAB}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {{name: x}}\n---\n"
        );
        let loaded = load_crds("f.yaml", &text).unwrap();
        assert_eq!(loaded.crds.len(), 1);
        assert_eq!(
            loaded.skipped,
            vec![SkippedDocument {
                document: 1,
                api_version: "v1".into(),
                kind: "Namespace".into()
            }]
        );
        let crd = serde_json::to_value(&loaded.crds[0].crd).unwrap();
        let list =
            serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [crd.clone(), crd]});
        let loaded = load_crds("l.json", &list.to_string()).unwrap();
        assert_eq!(loaded.crds.len(), 2);
    }

    #[test]
    fn yaml_round_trip() {
        let crd = load_crds("c.yaml", CRONTAB).unwrap().crds.remove(0).crd;
        let yaml = to_yaml(&crd).unwrap();
        let again = load_crds("c2.yaml", &yaml).unwrap().crds.remove(0).crd;
        assert_eq!(crd, again);
    }

    #[test]
    fn syntax_errors_have_positions() {
        let err = load_crds("bad.yaml", "a: [1, 2\nb: c\n").unwrap_err();
        match err {
            LoadError::Syntax { line, .. } => assert!(line > 0, "{err}"),
            other => panic!("unexpected {other}"),
        }
        let err = load_crds("bad.json", "{\"a\": }").unwrap_err();
        assert!(
            matches!(
                err,
                LoadError::Syntax {
                    line: 1,
                    column: 7,
                    ..
                }
            ),
            "{err:?}"
        );
    }

    #[test]
    fn field_errors_name_the_path() {
        let text = CRONTAB.replace("served: true", "served: maybe");
        let err = load_crds("c.yaml", &text).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("spec.versions[0].served"), "{msg}");
        let text = CRONTAB.replace("minimum: 1", "minimun: 1");
        let msg = load_crds("c.yaml", &text).unwrap_err().to_string();
        assert!(msg.contains("unknown field `minimun`"), "{msg}");
        assert!(
            msg.contains("openAPIV3Schema.properties.spec.properties.replicas"),
            "{msg}"
        );
    }

    /// A CRD whose schema nests `items` until the document is `containers` deep.
    fn nested_items(containers: usize) -> String {
        // The document, spec, versions, the version, schema and openAPIV3Schema.
        let levels = containers - 6;
        format!(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n\
             metadata: {{name: deeps.example.com}}\n\
             spec: {{group: example.com, scope: Namespaced,\n\
             names: {{plural: deeps, singular: deep, kind: Deep}},\n\
             versions: [{{name: v1, served: true, storage: true, schema: {{openAPIV3Schema: \
             {}{{type: string}}{}}}}}]}}\n",
            "{type: array, items: ".repeat(levels - 1),
            "}".repeat(levels - 1)
        )
    }

    #[test]
    fn documents_at_the_depth_limit_load_on_a_small_stack() {
        // A 2 MiB thread, as tests and many callers have: typing this document
        // recursively needs more than that in a debug build.
        let text = nested_items(MAX_DEPTH);
        let loaded = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || load_crds("deep.yaml", &text).map(|l| l.crds.len()))
            .unwrap()
            .join()
            .expect("no stack overflow");
        assert_eq!(loaded, Ok(1));
        let value: Value = serde_json::from_str("[[[1]], {\"a\": [2]}]").unwrap();
        assert!(nests_deeper_than(&value, 2));
        assert!(!nests_deeper_than(&value, 3));
        assert!(!nests_deeper_than(&Value::Null, 0));
    }

    #[test]
    fn hostile_input_is_an_error() {
        let n = crate::depth::MAX_DEPTH + 1;
        let deep = format!("{}1{}", "[".repeat(n), "]".repeat(n));
        assert!(matches!(
            parse_documents("d.json", &deep),
            Err(LoadError::Syntax { .. })
        ));
        let deep_yaml: String = (0..10_000)
            .map(|i| format!("{}a:\n", " ".repeat(i)))
            .collect();
        assert!(matches!(
            parse_documents("d.yaml", &deep_yaml),
            Err(LoadError::Syntax { .. })
        ));
        let flow = format!("{}1{}", "[".repeat(10_000), "]".repeat(10_000));
        assert!(parse_documents("f.yaml", &format!("a: {flow}")).is_err());
        let laughs = "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n\
                      c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n\
                      e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n\
                      g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\nh: [*g, *g, *g, *g, *g, *g, *g, *g, *g]\n";
        assert!(parse_documents("laughs.yaml", laughs).is_err());
        assert!(parse_documents_bytes("bin", b"a: \xff\xfe").is_err());
        assert_eq!(
            parse_documents("empty.yaml", "").unwrap(),
            Vec::<Value>::new()
        );
        assert!(parse_documents("dup.yaml", "a: 1\na: 2\n").is_err());
    }
}
