//! Shared pieces of the fuzz targets: the real-world CRDs of `../shared/corpus`, and
//! generators that turn fuzzer bytes into JSON values shaped by a schema (so most
//! inputs get past the first type check and reach the deep code).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use arbitrary::{Result, Unstructured};
use crd_runtime::CustomResourceDefinition;
use serde_json::{Map, Value, json};

/// `../shared` beside the repository.
pub fn shared_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared")
}

/// Every CRD of the real-world corpus, read once.
pub fn corpus_crds() -> &'static [CustomResourceDefinition] {
    static CRDS: OnceLock<Vec<CustomResourceDefinition>> = OnceLock::new();
    CRDS.get_or_init(|| {
        let mut files = Vec::new();
        collect_files(&shared_dir().join("corpus/crds"), &mut files);
        files.sort();
        let mut crds = Vec::new();
        for file in files {
            let Ok(bytes) = std::fs::read(&file) else {
                continue;
            };
            if let Ok(loaded) = crd_runtime::load::load_crds_bytes(&file.to_string_lossy(), &bytes)
            {
                crds.extend(loaded.crds.into_iter().map(|d| d.crd));
            }
        }
        assert!(!crds.is_empty(), "no CRDs under {}", shared_dir().display());
        crds
    })
}

/// Every `.yaml`/`.yml`/`.json` file under `dir`.
pub fn collect_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_files(&path, out);
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml" | "json")
        ) {
            out.push(path);
        }
    }
}

/// The `openAPIV3Schema` of version `version` of `crd`, as JSON.
pub fn version_schema(crd: &CustomResourceDefinition, version: usize) -> Value {
    let crd = serde_json::to_value(crd).unwrap_or(Value::Null);
    crd["spec"]["versions"][version]["schema"]["openAPIV3Schema"].clone()
}

/// Strings that exercise formats, names, quantities and escapes.
const SAMPLE_STRINGS: &[&str] = &[
    "",
    "a",
    "x",
    "default",
    "my-object",
    "UPPER",
    "a.b.c",
    "10.0.0.1",
    "::1",
    "2001:db8::/32",
    "10.0.0.0/8",
    "2024-01-02T03:04:05Z",
    "2024-01-02",
    "1h30m",
    "-5s",
    "100m",
    "1Gi",
    "0.5",
    "1e3",
    "https://example.com/path?q=1",
    "user@example.com",
    "550e8400-e29b-41d4-a716-446655440000",
    "aGVsbG8=",
    "true",
    "null",
    "\u{0}",
    "\u{1F600}",
    "a\nb",
    "😀😀",
    "*",
    "-1",
    "9223372036854775808",
];

/// Numbers at the edges that schemas and parsers get wrong.
const SAMPLE_NUMBERS: &[f64] = &[
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    1e-300,
    1e300,
    9007199254740993.0,
    1.7976931348623157e308,
];

/// An arbitrary JSON value up to `depth` levels deep.
pub fn any_value(u: &mut Unstructured, depth: usize) -> Result<Value> {
    let choice = if depth == 0 {
        u.int_in_range(0..=4)?
    } else {
        u.int_in_range(0..=6)?
    };
    Ok(match choice {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => any_number(u)?,
        3 => Value::String(any_string(u)?),
        4 => Value::String(u.choose(SAMPLE_STRINGS)?.to_string()),
        5 => {
            let n = u.int_in_range(0..=4)?;
            Value::Array(
                (0..n)
                    .map(|_| any_value(u, depth - 1))
                    .collect::<Result<_>>()?,
            )
        }
        _ => {
            let n = u.int_in_range(0..=4)?;
            let mut map = Map::new();
            for _ in 0..n {
                map.insert(any_string(u)?, any_value(u, depth - 1)?);
            }
            Value::Object(map)
        }
    })
}

fn any_number(u: &mut Unstructured) -> Result<Value> {
    Ok(match u.int_in_range(0..=3)? {
        0 => json!(u.arbitrary::<i64>()?),
        1 => json!(u.arbitrary::<u64>()?),
        2 => json!(*u.choose(SAMPLE_NUMBERS)?),
        _ => {
            let f: f64 = u.arbitrary()?;
            if f.is_finite() { json!(f) } else { json!(0) }
        }
    })
}

/// A short arbitrary string (often a sample).
pub fn any_string(u: &mut Unstructured) -> Result<String> {
    if u.ratio(1, 2)? {
        return Ok(u.choose(SAMPLE_STRINGS)?.to_string());
    }
    let len = u.int_in_range(0..=24)?;
    let mut s = String::new();
    for _ in 0..len {
        s.push(u.arbitrary::<char>()?);
    }
    Ok(s)
}

/// A value for `schema` (JSON): mostly of the right shape, sometimes not, with
/// unknown fields now and then, so pruning, defaulting and every check run.
pub fn value_for(u: &mut Unstructured, schema: &Value, depth: usize) -> Result<Value> {
    if depth == 0 || u.ratio(1, 24)? {
        return any_value(u, depth.min(2));
    }
    if let Some(options) = schema.get("enum").and_then(Value::as_array)
        && !options.is_empty()
        && u.ratio(3, 4)?
    {
        return Ok(u.choose(options)?.clone());
    }
    if schema.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true)) {
        return Ok(if u.arbitrary()? {
            any_number(u)?
        } else {
            Value::String(any_string(u)?)
        });
    }
    let ty = schema.get("type").and_then(Value::as_str).unwrap_or("");
    Ok(match ty {
        "object" => object_for(u, schema, depth)?,
        "array" => {
            let items = schema.get("items").cloned().unwrap_or(Value::Null);
            let n = u.int_in_range(0..=4)?;
            let mut out = Vec::with_capacity(n);
            for _ in 0..n {
                out.push(value_for(u, &items, depth - 1)?);
            }
            // Duplicates for sets and map keys.
            if !out.is_empty() && u.ratio(1, 8)? {
                out.push(out[0].clone());
            }
            Value::Array(out)
        }
        "string" => string_for(u, schema)?,
        "integer" => integer_for(u, schema)?,
        "number" => {
            if u.arbitrary()? {
                integer_for(u, schema)?
            } else {
                any_number(u)?
            }
        }
        "boolean" => Value::Bool(u.arbitrary()?),
        _ => {
            if schema.get("properties").is_some() {
                object_for(u, schema, depth)?
            } else {
                any_value(u, depth.min(3))?
            }
        }
    })
}

fn object_for(u: &mut Unstructured, schema: &Value, depth: usize) -> Result<Value> {
    let mut map = Map::new();
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (name, sub) in props {
            if u.ratio(1, 2)? {
                map.insert(name.clone(), value_for(u, sub, depth - 1)?);
            }
        }
    }
    if let Some(extra) = schema.get("additionalProperties").filter(|v| v.is_object()) {
        for _ in 0..u.int_in_range(0..=3)? {
            map.insert(any_string(u)?, value_for(u, extra, depth - 1)?);
        }
    }
    if u.ratio(1, 6)? {
        map.insert(any_string(u)?, any_value(u, 2)?);
    }
    if u.ratio(1, 16)? {
        // Explicit nulls: pruned where nullable is false, kept where true.
        if let Some(props) = schema.get("properties").and_then(Value::as_object)
            && let Some(name) = props.keys().next()
        {
            map.insert(name.clone(), Value::Null);
        }
    }
    Ok(Value::Object(map))
}

fn string_for(u: &mut Unstructured, schema: &Value) -> Result<Value> {
    let mut s = any_string(u)?;
    if let Some(max) = schema.get("maxLength").and_then(Value::as_u64)
        && u.ratio(1, 4)?
    {
        // Just at or over the limit; limits beyond 64 KiB stay unreached.
        s = "a".repeat(max.min(1 << 16) as usize + usize::from(u.arbitrary::<bool>()?));
    }
    Ok(Value::String(s))
}

fn integer_for(u: &mut Unstructured, schema: &Value) -> Result<Value> {
    let mut edges = vec![0i64, 1, -1, i64::MAX, i64::MIN];
    for key in ["minimum", "maximum", "multipleOf"] {
        if let Some(n) = schema.get(key).and_then(Value::as_i64) {
            edges.extend([n, n.saturating_sub(1), n.saturating_add(1)]);
        }
    }
    Ok(if u.arbitrary()? {
        json!(*u.choose(&edges)?)
    } else {
        json!(u.arbitrary::<i64>()?)
    })
}

/// A root object of `crd`'s kind: `apiVersion`, `kind` and `metadata` right most of
/// the time, the rest shaped by `schema`.
pub fn object_for_crd(
    u: &mut Unstructured,
    crd: &CustomResourceDefinition,
    version: usize,
    schema: &Value,
) -> Result<Value> {
    let mut obj = value_for(u, schema, 12)?;
    if let Value::Object(map) = &mut obj
        && u.ratio(7, 8)?
    {
        let version_name = crd
            .spec
            .versions
            .get(version)
            .map_or("v1", |v| v.name.as_str());
        map.insert(
            "apiVersion".into(),
            json!(format!("{}/{version_name}", crd.spec.group)),
        );
        map.insert("kind".into(), json!(crd.spec.names.kind));
        let name = if u.ratio(7, 8)? {
            "sample".to_string()
        } else {
            any_string(u)?
        };
        let mut meta = json!({"name": name, "namespace": "default"});
        if u.ratio(1, 4)? {
            meta["labels"] = json!({any_string(u)?: any_string(u)?});
        }
        map.insert("metadata".into(), meta);
    }
    Ok(obj)
}

/// Property names that have broken code generators: keywords, case collisions,
/// digits first, punctuation, non-ASCII, empty.
const HOSTILE_NAMES: &[&str] = &[
    "type",
    "self",
    "Self",
    "super",
    "crate",
    "fn",
    "match",
    "r#type",
    "async",
    "await",
    "dyn",
    "union",
    "default",
    "spec",
    "status",
    "metadata",
    "apiVersion",
    "kind",
    "fooBar",
    "foo_bar",
    "FooBar",
    "foo-bar",
    "foo.bar",
    "foo bar",
    "1st",
    "_",
    "__",
    "$ref",
    "@type",
    "ünïcödé",
    "日本",
    "",
    "a",
    "A",
    "items",
    "Option",
    "String",
    "Vec",
    "BTreeMap",
    "serde",
    "core",
    "std",
    "None",
    "Some",
];

/// An arbitrary (mostly structural) schema, for the code generator.
pub fn any_schema(u: &mut Unstructured, depth: usize) -> Result<Value> {
    let kind = if depth == 0 {
        u.int_in_range(0..=4)?
    } else {
        u.int_in_range(0..=8)?
    };
    let mut s = match kind {
        0 => json!({"type": "string"}),
        1 => json!({"type": "integer", "format": *u.choose(&["int32", "int64", ""])?}),
        2 => json!({"type": "number"}),
        3 => json!({"type": "boolean"}),
        4 => {
            let n = u.int_in_range(1..=4)?;
            let options: Vec<Value> = (0..n)
                .map(|_| any_string(u).map(Value::String))
                .collect::<Result<_>>()?;
            json!({"type": "string", "enum": options})
        }
        5 | 6 => {
            let mut props = Map::new();
            for _ in 0..u.int_in_range(0..=5)? {
                let name = if u.arbitrary()? {
                    u.choose(HOSTILE_NAMES)?.to_string()
                } else {
                    any_string(u)?
                };
                props.insert(name, any_schema(u, depth - 1)?);
            }
            let mut s = json!({"type": "object", "properties": props});
            if u.ratio(1, 4)?
                && let Some(first) = props_first(&s)
            {
                s["required"] = json!([first]);
            }
            s
        }
        7 => json!({"type": "array", "items": any_schema(u, depth - 1)?}),
        _ => json!({"type": "object", "additionalProperties": any_schema(u, depth - 1)?}),
    };
    if u.ratio(1, 8)? {
        s["description"] = Value::String(any_string(u)?);
    }
    if u.ratio(1, 10)? {
        s["nullable"] = json!(true);
    }
    if u.ratio(1, 12)? {
        s = json!({"x-kubernetes-int-or-string": true});
    }
    if u.ratio(1, 12)? {
        s["x-kubernetes-preserve-unknown-fields"] = json!(true);
    }
    Ok(s)
}

fn props_first(s: &Value) -> Option<String> {
    s["properties"].as_object()?.keys().next().cloned()
}

/// A CRD around `schema` (JSON) with a kind from the fuzzer.
pub fn crd_with_schema(u: &mut Unstructured, schema: Value) -> Result<Value> {
    let kind = if u.arbitrary()? {
        "Widget".to_string()
    } else {
        any_string(u)?
    };
    Ok(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": kind},
            "versions": [{
                "name": if u.arbitrary()? { "v1" } else { "v1alpha1" },
                "served": true,
                "storage": true,
                "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "properties": {"spec": schema}
                }}
            }]
        }
    }))
}

/// Text only Rust's `Debug` formatting or a panic prints: no user-facing message
/// may contain it.
const DEBUG_MARKERS: &[&str] = &[
    "Some(",
    "None,",
    "Ok(",
    "Err(",
    " { kind: ",
    "Error {",
    "\\u{",
    "Location {",
];

/// Checks messages about one input for Debug text. Messages quote keys and values
/// from the input, so markers the input itself holds are allowed; which ones is
/// found once per input (scanning a large input per message made the targets
/// hundreds of times slower).
pub struct MessageCheck {
    echoed: Vec<&'static str>,
}

impl MessageCheck {
    /// The check for messages about `input`.
    pub fn new(input: &[u8]) -> MessageCheck {
        let echoed = DEBUG_MARKERS
            .iter()
            .copied()
            .filter(|marker| input.windows(marker.len()).any(|w| w == marker.as_bytes()))
            .collect();
        MessageCheck { echoed }
    }

    /// Asserts `message` holds no Debug text the input does not hold.
    pub fn assert_clean(&self, message: &str) {
        for marker in DEBUG_MARKERS {
            assert!(
                self.echoed.contains(marker) || !message.contains(marker),
                "Debug text {marker:?} in {message:?}"
            );
        }
    }
}
