//! The CEL conformance table (`tests/data/cel-conformance/`): cases ported from
//! upstream's own tests, checked through crd-runtime's public CEL API at every
//! supported release.
//!
//! Two kinds of file:
//! - `<library>.yaml` / `<library>-cost.yaml`: standalone expressions
//!   (`k8s.io/apiserver` `pkg/cel/library/*_test.go`) with the value they evaluate
//!   to, their runtime error, their compile error or their costs;
//! - `<library>-rules.yaml`: CRD rule groups (`k8s.io/apiextensions-apiserver`
//!   `pkg/apiserver/schema/cel/*_test.go`): a schema, an object, and rules that
//!   must hold, fail with an error, or cost a given amount.
//!
//! `since` is the upstream `IntroducedVersion` of the library (base.go). A server
//! of release 1.N compiles new expressions in the 1.(N-1) environment, so a case
//! is expected to compile from release `since + 1` on and to fail to compile before.

use std::collections::BTreeMap;
use std::path::{Path as FsPath, PathBuf};

use crd_runtime::cel::{
    Budget, CelEnvironment, Declarations, Limits, Validator, compile_expression,
};
use crd_runtime::{JSONSchemaProps, KubeVersion, Path};
use serde_json::{Value, json};

/// The directory of the table.
pub fn data_dir() -> PathBuf {
    FsPath::new(env!("CARGO_MANIFEST_DIR")).join("data/cel-conformance")
}

/// One mismatch between the table and crd-runtime.
#[derive(Debug, Clone)]
pub struct Mismatch {
    /// The library the case belongs to (report grouping).
    pub library: String,
    /// `<library>/<case> <aspect>`: what `known-gaps.txt` lists.
    pub key: String,
    /// What differs.
    pub detail: String,
}

/// Counts per library.
#[derive(Debug, Default, Clone)]
pub struct Counts {
    /// Expressions and rules in the table.
    pub cases: usize,
    /// Of them, those with at least one mismatch.
    pub failing: usize,
    /// Cases with a mismatch, by aspect (`result`, `gating`, `estimated`, `runtime`).
    pub by_aspect: BTreeMap<String, usize>,
}

/// The outcome of running the whole table.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Every mismatch, in table order.
    pub mismatches: Vec<Mismatch>,
    /// Per library.
    pub counts: BTreeMap<String, Counts>,
}

/// The minor release a `since` such as `"1.30"` names.
fn minor_of(since: &str) -> u32 {
    since
        .strip_prefix("1.")
        .and_then(|m| m.parse().ok())
        .unwrap_or_else(|| panic!("bad since {since:?}: expected 1.<minor>"))
}

/// Whether a server of `release` accepts new expressions of a library introduced in `since`.
pub fn available(since: u32, release: KubeVersion) -> bool {
    release.minor() > since
}

/// What evaluating one rule gave.
struct RuleRun {
    /// Compile errors, rendered as the API server does.
    compile_errors: Vec<String>,
    /// Validation errors (full strings) and their details.
    errors: Vec<(String, String)>,
    /// Runtime cost charged to the budget.
    runtime: u64,
    /// The estimated cost of the rule.
    estimated: Option<u64>,
}

fn with_rule(schema: &Value, rule: &str) -> JSONSchemaProps {
    let mut s = schema.clone();
    s["x-kubernetes-validations"] = json!([{ "rule": rule }]);
    serde_json::from_value(s).unwrap_or_else(|e| panic!("schema {schema}: {e}"))
}

fn run_rule(schema: &Value, object: &Value, rule: &str, env: CelEnvironment) -> RuleRun {
    let props = with_rule(schema, rule);
    let (validator, problems) = Validator::new_in(&props, false, env);
    let root = Path::root();
    let compile_errors: Vec<String> = problems
        .iter()
        .map(|p| p.to_field_error(&root).to_string())
        .collect();
    let mut run = RuleRun {
        compile_errors,
        errors: Vec::new(),
        runtime: 0,
        estimated: None,
    };
    let Some(v) = validator else {
        return run;
    };
    if !run.compile_errors.is_empty() {
        return run;
    }
    run.estimated = v
        .estimated_costs(&root)
        .into_iter()
        .find(|c| !c.message_expression)
        .map(|c| c.cost);
    let mut budget = Budget::new(Limits::default());
    run.errors = v
        .validate_with(object, None, &root, &mut budget)
        .into_iter()
        .map(|e| (e.to_string(), e.detail.clone()))
        .collect();
    run.runtime = budget.spent();
    run
}

/// The runtime error message of a rule evaluation error detail.
fn runtime_message(detail: &str) -> &str {
    detail.split(" evaluating rule: ").next().unwrap_or(detail)
}

fn expr_schema() -> Value {
    json!({"type": "object"})
}

/// One case (an expression or a rule) and what differs, by aspect.
struct Case {
    id: String,
    problems: Vec<(String, String)>,
}

impl Case {
    fn fail(&mut self, aspect: &str, detail: String) {
        self.problems.push((aspect.to_string(), detail));
    }
}

/// Runs every file of `dir` and returns all mismatches.
pub fn run_all(dir: &FsPath) -> Outcome {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no tables in {}", dir.display());
    let mut out = Outcome::default();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let doc = crd_runtime::parse_documents(&name, &text)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .remove(0);
        let library = doc["library"].as_str().expect("library").to_string();
        let since = minor_of(doc["since"].as_str().expect("since"));
        let mut cases = Vec::new();
        for c in doc["cases"].as_array().into_iter().flatten() {
            cases.push(expression_case(since, c));
        }
        for g in doc["groups"].as_array().into_iter().flatten() {
            cases.extend(rule_group(since, g));
        }
        let counts = out.counts.entry(library.clone()).or_default();
        counts.cases += cases.len();
        for case in cases {
            if !case.problems.is_empty() {
                counts.failing += 1;
            }
            for (aspect, _) in &case.problems {
                *counts.by_aspect.entry(aspect.clone()).or_default() += 1;
            }
            for (aspect, detail) in case.problems {
                out.mismatches.push(Mismatch {
                    library: library.clone(),
                    key: format!("{}/{} {aspect}", library, case.id),
                    detail,
                });
            }
        }
    }
    out
}

fn since_of(v: &Value, default: u32) -> u32 {
    v.get("since")
        .and_then(Value::as_str)
        .map_or(default, minor_of)
}

/// Checks that `compiles` fails at the releases before `since + 1` and returns the
/// releases where the case is available.
fn gate(
    case: &mut Case,
    since: u32,
    compiles: impl Fn(CelEnvironment) -> bool,
) -> Vec<KubeVersion> {
    let mut open = Vec::new();
    let mut leaked = Vec::new();
    for release in KubeVersion::all() {
        if available(since, release) {
            open.push(release);
        } else if compiles(CelEnvironment::for_kube(release)) {
            leaked.push(format!("1.{}", release.minor()));
        }
    }
    if !leaked.is_empty() {
        case.fail(
            "gating",
            format!(
                "compiles for new expressions at {} (library since 1.{since}: available from 1.{})",
                leaked.join(", "),
                since + 1
            ),
        );
    }
    open
}

/// Puts the failing releases of one aspect into a single problem.
fn per_release(case: &mut Case, aspect: &str, results: Vec<(KubeVersion, Option<String>)>) {
    let failed: Vec<(KubeVersion, String)> = results
        .into_iter()
        .filter_map(|(r, e)| e.map(|e| (r, e)))
        .collect();
    if let Some((_, first)) = failed.first() {
        let releases: Vec<String> = failed
            .iter()
            .map(|(r, _)| format!("1.{}", r.minor()))
            .collect();
        case.fail(aspect, format!("at {}: {first}", releases.join(", ")));
    }
}

fn expression_case(default_since: u32, c: &Value) -> Case {
    let id = c["id"].as_str().expect("id").to_string();
    let expr = c["expr"].as_str().expect("expr").to_string();
    let since = since_of(c, default_since);
    let mut case = Case {
        id,
        problems: Vec::new(),
    };
    let decls = Declarations::new();
    let open = gate(&mut case, since, |env| {
        compile_expression(&expr, &decls, env).is_ok()
    });
    let mut results = Vec::new();
    for &release in &open {
        let env = CelEnvironment::for_kube(release);
        results.push((release, check_expression(c, &expr, &decls, env)));
    }
    per_release(&mut case, "result", results);
    if let (Some(cost), Some(&newest)) = (c.get("cost"), open.last()) {
        check_expression_cost(&mut case, &expr, cost, CelEnvironment::for_kube(newest));
    }
    case
}

/// The rule that evaluates `expr` whatever its type, and the cost the wrapper adds:
/// `[E].size() == 1` costs a list literal (10), `size` (1) and `==` (1) more than `E`.
fn wrap(expr: &str, decls: &Declarations, env: CelEnvironment) -> (String, u64) {
    match compile_expression(expr, decls, env).as_deref() {
        Ok("bool") => (expr.to_string(), 0),
        _ => (format!("[{expr}].size() == 1"), 12),
    }
}

fn check_expression(
    c: &Value,
    expr: &str,
    decls: &Declarations,
    env: CelEnvironment,
) -> Option<String> {
    let schema = expr_schema();
    let object = json!({});
    if let Some(pattern) = c.get("compile_error").and_then(Value::as_str) {
        let re = regex::Regex::new(pattern).expect("compile_error pattern");
        return match compile_expression(expr, decls, env) {
            Ok(ty) => Some(format!(
                "compiled (type {ty}); expected a compile error matching /{pattern}/"
            )),
            Err(e) if re.is_match(&e) => None,
            Err(e) => Some(format!("compile error {e:?} does not match /{pattern}/")),
        };
    }
    if let Some(result) = c.get("result").and_then(Value::as_str) {
        let rule = format!("({expr}) == ({result})");
        let run = run_rule(&schema, &object, &rule, env);
        if !run.compile_errors.is_empty() {
            return Some(format!(
                "does not compile: {}",
                run.compile_errors.join("; ")
            ));
        }
        return match run.errors.first() {
            None => None,
            Some((_, d)) if d.starts_with("failed rule") => Some(format!("result is not {result}")),
            Some((_, d)) => Some(format!(
                "evaluation error {:?}; expected {result}",
                runtime_message(d)
            )),
        };
    }
    let exact = c.get("error").and_then(Value::as_str);
    let pattern = c.get("error_pattern").and_then(Value::as_str);
    if exact.is_some() || pattern.is_some() {
        let (rule, _) = wrap(expr, decls, env);
        let run = run_rule(&schema, &object, &rule, env);
        if !run.compile_errors.is_empty() {
            return Some(format!(
                "does not compile: {}",
                run.compile_errors.join("; ")
            ));
        }
        let Some((_, detail)) = run.errors.first() else {
            return Some("evaluated without error".into());
        };
        let got = runtime_message(detail);
        let ok = match (exact, pattern) {
            (Some(e), _) => got == e,
            (_, Some(p)) => regex::Regex::new(p).expect("error_pattern").is_match(got),
            _ => unreachable!("checked above"),
        };
        let want = exact.map_or_else(
            || format!("/{}/", pattern.unwrap_or("")),
            |e| format!("{e:?}"),
        );
        return (!ok).then(|| format!("error {got:?}; expected {want}"));
    }
    if c.get("cost").is_some() {
        // Cost-only cases: the expression must compile and evaluate; costs are checked once.
        let (rule, _) = wrap(expr, decls, env);
        let run = run_rule(&schema, &object, &rule, env);
        if !run.compile_errors.is_empty() {
            return Some(format!(
                "does not compile: {}",
                run.compile_errors.join("; ")
            ));
        }
        return run
            .errors
            .iter()
            .find(|(_, d)| !d.starts_with("failed rule"))
            .map(|(_, d)| format!("evaluation error {:?}", runtime_message(d)));
    }
    panic!("case {c}: needs result, error, error_pattern, compile_error or cost");
}

fn check_expression_cost(case: &mut Case, expr: &str, cost: &Value, env: CelEnvironment) {
    let decls = Declarations::new();
    let (rule, offset) = wrap(expr, &decls, env);
    let run = run_rule(&expr_schema(), &json!({}), &rule, env);
    if !run.compile_errors.is_empty() {
        return; // reported as `result`
    }
    if let (Some(max), Some(est)) = (cost.get("max").and_then(Value::as_u64), run.estimated) {
        let got = est.saturating_sub(offset);
        if got != max {
            let min = cost.get("min").and_then(Value::as_u64).unwrap_or(max);
            case.fail(
                "estimated",
                format!(
                    "estimated cost {got}; expected {min}..{max} (the public API gives the maximum)"
                ),
            );
        }
    }
    if let Some(want) = cost.get("runtime").and_then(Value::as_u64) {
        let got = run.runtime.saturating_sub(offset);
        if got != want {
            case.fail("runtime", format!("runtime cost {got}; expected {want}"));
        }
    }
}

fn rule_group(default_since: u32, g: &Value) -> Vec<Case> {
    let gid = g["id"].as_str().expect("group id");
    let schema = &g["schema"];
    let object = &g["object"];
    let mut out = Vec::new();
    for (i, r) in g["rules"].as_array().expect("rules").iter().enumerate() {
        let rule = r["rule"].as_str().expect("rule");
        let since = since_of(r, default_since);
        let mut case = Case {
            id: format!("{gid}[{i}]"),
            problems: Vec::new(),
        };
        let open = gate(&mut case, since, |env| {
            run_rule(schema, object, rule, env)
                .compile_errors
                .is_empty()
        });
        let mut results = Vec::new();
        for &release in &open {
            let run = run_rule(schema, object, rule, CelEnvironment::for_kube(release));
            results.push((release, check_rule(r, rule, &run)));
        }
        per_release(&mut case, "result", results);
        if let Some(&newest) = open.last() {
            let run = run_rule(schema, object, rule, CelEnvironment::for_kube(newest));
            if run.compile_errors.is_empty() {
                if let Some(want) = r.get("runtime").and_then(Value::as_u64)
                    && run.runtime != want
                {
                    case.fail(
                        "runtime",
                        format!("{rule}: runtime cost {}; expected {want}", run.runtime),
                    );
                }
                if let (Some(want), Some(got)) =
                    (r.get("estimated").and_then(Value::as_u64), run.estimated)
                    && got != want
                {
                    case.fail(
                        "estimated",
                        format!("{rule}: estimated cost {got}; expected {want}"),
                    );
                }
            }
        }
        out.push(case);
    }
    out
}

fn check_rule(r: &Value, rule: &str, run: &RuleRun) -> Option<String> {
    match r.get("error").and_then(Value::as_str) {
        None if !run.compile_errors.is_empty() => Some(format!(
            "{rule}: does not compile: {}",
            run.compile_errors.join("; ")
        )),
        None => (!run.errors.is_empty()).then(|| {
            let errs: Vec<&str> = run.errors.iter().map(|(s, _)| s.as_str()).collect();
            format!("{rule}: unexpected errors: {}", errs.join("; "))
        }),
        Some(want) => {
            let got: Vec<&str> = if run.compile_errors.is_empty() {
                run.errors.iter().map(|(s, _)| s.as_str()).collect()
            } else {
                run.compile_errors.iter().map(String::as_str).collect()
            };
            if got.is_empty() {
                Some(format!(
                    "{rule}: no error; expected one containing {want:?}"
                ))
            } else if got.iter().all(|e| e.contains(want)) {
                None
            } else {
                Some(format!(
                    "{rule}: errors {got:?}; expected each to contain {want:?}"
                ))
            }
        }
    }
}

/// `known-gaps.txt`: `<library>/<case> <aspect> -- <reason>` per line, `#` comments.
pub fn known_gaps(dir: &FsPath) -> BTreeMap<String, String> {
    let path = dir.join("known-gaps.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, reason) = line
            .split_once(" -- ")
            .unwrap_or_else(|| panic!("known-gaps.txt:{}: expected `<key> -- <reason>`", n + 1));
        assert!(
            !reason.trim().is_empty(),
            "known-gaps.txt:{}: no reason",
            n + 1
        );
        let prev = out.insert(key.trim().to_string(), reason.trim().to_string());
        assert!(
            prev.is_none(),
            "known-gaps.txt:{}: {key} listed twice",
            n + 1
        );
    }
    out
}
