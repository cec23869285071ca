//! Hostile inputs through every door of the CLI: `check FILE`, `generate FILE`,
//! `validate --crd FILE OBJ` (the file read as CRDs) and `validate --crd CRD FILE`
//! (the file read as objects).
//!
//! Every run must end by itself with exit 0, 1 or 2 within [`TIME_LIMIT`] and
//! [`MEMORY_LIMIT_MB`] (measured with `wait4`), print each error on one line naming
//! the file and a position or field path, and never print Rust `Debug` text or a
//! panic. Each case also states what the user should see.

#![cfg(unix)]

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod tempdir;
use tempdir::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_crd-gen");
/// Generous for a debug build on a loaded 2-core CI machine: the whole suite (each
/// case through all four doors) takes about 11 s there (FUZZING.md).
const TIME_LIMIT: Duration = Duration::from_secs(30);
const MEMORY_LIMIT_MB: i64 = 1536;

/// The four ways a file enters the CLI.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Door {
    Check,
    Generate,
    ValidateAsCrd,
    ValidateAsObjects,
}

const DOORS: [Door; 4] = [
    Door::Check,
    Door::Generate,
    Door::ValidateAsCrd,
    Door::ValidateAsObjects,
];

/// What one run printed and cost.
struct Run {
    door: Door,
    code: i32,
    stdout: String,
    stderr: String,
    elapsed: Duration,
    max_rss_mb: i64,
}

impl Run {
    fn all(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }
}

/// A scratch directory holding a plain CRD and object beside the hostile files.
struct Bench {
    dir: TempDir,
}

const CRD_HEAD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: crontabs.stable.example.com}
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
";

/// A CRD whose schema is `schema` (JSON text, as a flow mapping).
fn crd(schema: &str) -> String {
    format!("{CRD_HEAD}        {schema}\n")
}

/// A CronTab object with `spec` (JSON text).
fn object(spec: &str) -> String {
    format!(
        r#"{{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{{"name":"x"}},"spec":{spec}}}"#
    )
}

/// A CRD with a `spec` of the given properties and rules (JSON texts).
fn spec_crd(properties: &str, rules: &str) -> String {
    crd(&format!(
        r#"{{"type":"object","properties":{{"spec":{{"type":"object","properties":{properties},"x-kubernetes-validations":{rules}}}}}}}"#
    ))
}

impl Bench {
    fn new(test: &str) -> Bench {
        let dir = TempDir::new("crd-gen-hostile", test);
        let open = r#"{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}"#;
        std::fs::write(dir.join("plain-crd.yaml"), crd(open)).unwrap();
        std::fs::write(dir.join("plain-object.json"), object(r#"{"a":"x"}"#)).unwrap();
        Bench { dir }
    }

    fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let path = self.dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    /// Runs `file` through `door`, bounded in time, and checks the universal rules.
    fn run(&self, door: Door, file: &Path) -> Run {
        let file = file.to_str().unwrap();
        let plain_crd = self.dir.join("plain-crd.yaml");
        let plain_object = self.dir.join("plain-object.json");
        let (plain_crd, plain_object) =
            (plain_crd.to_str().unwrap(), plain_object.to_str().unwrap());
        let args: Vec<&str> = match door {
            Door::Check => vec!["check", file],
            Door::Generate => vec!["generate", file],
            Door::ValidateAsCrd => vec!["validate", "--crd", file, plain_object],
            Door::ValidateAsObjects => vec!["validate", "--crd", plain_crd, file],
        };
        let run = spawn_bounded(&self.dir, door, &args);
        check_universal_rules(&run, file);
        run
    }

    /// Runs `file` through every door.
    fn run_all(&self, file: &Path) -> Vec<Run> {
        DOORS.iter().map(|&door| self.run(door, file)).collect()
    }
}

/// Runs the CLI with output in files (no pipe can fill up), polling `wait4` until it
/// exits or [`TIME_LIMIT`] passes (then it is killed and the test fails).
fn spawn_bounded(dir: &Path, door: Door, args: &[&str]) -> Run {
    let out_path = dir.join(format!("{door:?}.stdout"));
    let err_path = dir.join(format!("{door:?}.stderr"));
    let start = Instant::now();
    // Reaped below by `wait4`, which also gives the peak memory `Child::wait` cannot.
    #[allow(clippy::zombie_processes)]
    let child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(File::create(&out_path).unwrap())
        .stderr(File::create(&err_path).unwrap())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: rusage is plain data; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: waits for our own child, with valid pointers.
        let done = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if done == pid {
            break;
        }
        assert!(done == 0, "wait4 failed for {args:?}");
        if start.elapsed() > TIME_LIMIT {
            // SAFETY: kills our own child, then reaps it.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::wait4(pid, &mut status, 0, &mut usage);
            }
            panic!("{args:?} ran longer than {TIME_LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let elapsed = start.elapsed();
    assert!(
        libc::WIFEXITED(status),
        "{args:?} was killed by signal {} (a crash or stack overflow); stderr:\n{}",
        libc::WTERMSIG(status),
        read_lossy(&err_path, 2000)
    );
    Run {
        door,
        code: libc::WEXITSTATUS(status),
        stdout: read_lossy(&out_path, 8 << 20),
        stderr: read_lossy(&err_path, 200_000),
        elapsed,
        max_rss_mb: usage.ru_maxrss / 1024,
    }
}

/// The start of a file as text (outputs can be 50 MB; the rules need the start).
fn read_lossy(path: &Path, limit: usize) -> String {
    let bytes = std::fs::read(path).unwrap();
    String::from_utf8_lossy(&bytes[..bytes.len().min(limit)]).into_owned()
}

/// Text that only Rust's `Debug` formatting or a panic prints.
const DEBUG_MARKERS: [&str; 10] = [
    "panicked",
    "RUST_BACKTRACE",
    "Some(",
    "None,",
    "Ok(",
    "Err(",
    " { kind: ",
    "Error {",
    "\\u{",
    "Location {",
];

fn check_universal_rules(run: &Run, file: &str) {
    let context = format!(
        "{:?} on {file}: exit {}\nstdout: {}\nstderr: {}",
        run.door,
        run.code,
        head(&run.stdout),
        head(&run.stderr)
    );
    assert!((0..=2).contains(&run.code), "{context}");
    assert!(run.elapsed < TIME_LIMIT, "{context}");
    assert!(
        run.max_rss_mb < MEMORY_LIMIT_MB,
        "{} MB: {context}",
        run.max_rss_mb
    );
    // Generated Rust may quote anything in its doc comments; reports may not.
    let report = if run.door == Door::Generate {
        run.stderr.clone()
    } else {
        run.all()
    };
    for marker in DEBUG_MARKERS {
        assert!(!report.contains(marker), "Debug text {marker:?}: {context}");
    }
    // Every error line on stderr names the file it is about (or, for validate, its
    // --crd inputs as a whole).
    for line in run.stderr.lines() {
        let about_file = line.contains(file)
            || line.contains("--crd inputs")
            || line.starts_with("validated ")
            || line.starts_with("checked ");
        assert!(about_file, "a line not naming {file}: {line:?}\n{context}");
    }
}

fn head(s: &str) -> String {
    s.chars().take(600).collect()
}

/// The file cannot be read at all: every door exits 2 with `FILE:AT: MESSAGE`.
fn assert_unreadable(bench: &Bench, file: &Path, at_and_message: &str) {
    let expected = format!("{}:{at_and_message}", file.display());
    for run in bench.run_all(file) {
        assert_eq!(run.code, 2, "{:?}: {}", run.door, head(&run.all()));
        assert!(
            run.stderr.lines().any(|l| l.ends_with(&expected)),
            "{:?}: expected {expected:?}, got:\n{}",
            run.door,
            head(&run.stderr)
        );
        if run.door == Door::ValidateAsObjects {
            assert!(
                run.stderr.contains("1 document unreadable"),
                "{}",
                run.stderr
            );
        }
    }
}

/// The file holds objects, not CRDs: `check` skips it, `generate` and `validate
/// --crd` find no CRD, and the objects validate with `expected` as the summary.
fn assert_objects(bench: &Bench, file: &Path, expected_code: i32, expected_summary: &str) {
    let runs = bench.run_all(file);
    let name = file.display().to_string();
    assert_eq!(runs[0].code, 0, "{}", head(&runs[0].all()));
    assert!(
        runs[0]
            .stderr
            .contains("skipped: not a CustomResourceDefinition")
            || runs[0].stderr.contains("no documents")
    );
    assert_eq!(runs[1].code, 2);
    assert_eq!(
        runs[1].stderr.trim(),
        format!("error: no CustomResourceDefinition found in {name}")
    );
    assert_eq!(runs[2].code, 2);
    assert_eq!(
        runs[2].stderr.trim(),
        "no CustomResourceDefinition found in the --crd inputs"
    );
    assert_eq!(runs[3].code, expected_code, "{}", head(&runs[3].all()));
    assert!(
        runs[3].stderr.contains(expected_summary),
        "{}",
        head(&runs[3].all())
    );
}

/// The file is a CRD: `check` and `validate --crd` give `check_code`, `generate`
/// gives `generate_code`; `expected` appears in check's report.
fn assert_crd(
    bench: &Bench,
    file: &Path,
    check_code: i32,
    generate_code: i32,
    expected: &str,
) -> Vec<Run> {
    let runs = bench.run_all(file);
    assert_eq!(runs[0].code, check_code, "{}", head(&runs[0].all()));
    assert!(
        runs[0].all().contains(expected),
        "expected {expected:?} in\n{}",
        head(&runs[0].all())
    );
    assert_eq!(runs[1].code, generate_code, "{}", head(&runs[1].all()));
    // Read as objects, a CRD is an object of a kind no CRD defines here.
    assert_eq!(runs[3].code, 1, "{}", head(&runs[3].all()));
    assert!(
        runs[3]
            .stdout
            .contains("no CustomResourceDefinition is loaded")
    );
    runs
}

fn alias_bomb() -> String {
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..12 {
        let refs = vec![format!("*a{}", i - 1); 10].join(", ");
        text.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
    }
    text
}

#[test]
fn alias_bombs_are_refused() {
    let bench = Bench::new("alias");
    let file = bench.write("bomb.yaml", alias_bomb());
    assert_unreadable(
        &bench,
        &file,
        "6:45: the YAML cannot be read safely: aliases expand to too much data (an alias bomb?)",
    );
}

#[test]
fn nesting_200000_deep_is_refused_at_128_levels() {
    let bench = Bench::new("deep");
    let n = 200_000;
    let cases = [
        (
            "array.json",
            format!("{}{}", "[".repeat(n), "]".repeat(n)),
            "1:128",
        ),
        (
            "object.json",
            format!("{}1{}", r#"{"a":"#.repeat(n), "}".repeat(n)),
            "1:636",
        ),
        ("unclosed.json", "[".repeat(n), "1:128"),
        (
            "flow.yaml",
            format!("x: {}1{}\n", "[".repeat(n), "]".repeat(n)),
            "1:259",
        ),
        (
            "flow-map.yaml",
            format!("x: {}1{}\n", "{a: ".repeat(n), "}".repeat(n)),
            "1:512",
        ),
        ("block.yaml", format!("{}x\n", "- ".repeat(n)), "1:257"),
    ];
    for (name, text, at) in cases {
        let file = bench.write(name, text);
        assert_unreadable(
            &bench,
            &file,
            &format!("{at}: document nests deeper than 128 levels"),
        );
    }
    // Block mappings nest by indentation: 2,000 levels is already 2 MB.
    let mut block = String::new();
    for level in 0..2_000 {
        block.push_str(&" ".repeat(level));
        block.push_str("a:\n");
    }
    let file = bench.write("block-map.yaml", block);
    assert_unreadable(
        &bench,
        &file,
        "129:129: document nests deeper than 128 levels",
    );
}

#[test]
fn fifty_megabyte_strings() {
    let bench = Bench::new("big");
    let big = "x".repeat(50 << 20);
    let yaml = format!(
        "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {{name: x}}\nspec: {{s: {big}}}\n"
    );
    let file = bench.write("string.yaml", yaml);
    assert_objects(&bench, &file, 0, "validated 1 objects: 0 invalid");
    let file = bench.write("string.json", object(&format!(r#"{{"s":"{big}"}}"#)));
    assert_objects(&bench, &file, 0, "validated 1 objects: 0 invalid");
    // A 50 MB implicit key is longer than YAML allows (1024 characters).
    let file = bench.write("key.yaml", format!("{big}: 1\n"));
    assert_unreadable(
        &bench,
        &file,
        "1:52428801: mapping values are not allowed in this context",
    );
    // A 50 MB description is a valid CRD; generate carries it into a doc comment.
    let file = bench.write(
        "description.yaml",
        crd(&format!(r#"{{"type":"object","description":"{big}"}}"#)),
    );
    let runs = assert_crd(&bench, &file, 0, 0, "checked 1 CRDs: 0 invalid");
    assert_eq!(runs[2].code, 0);
}

#[test]
fn bytes_that_are_not_text() {
    let bench = Bench::new("bytes");
    let file = bench.write("utf8.yaml", b"apiVersion: v1\nkind: \xff\xfe\n");
    assert_unreadable(
        &bench,
        &file,
        "2:7: input is not valid UTF-8 (invalid byte at offset 21)",
    );
    // NUL: a raw one in YAML, a raw one inside a JSON string, and a raw one between
    // JSON tokens.
    let file = bench.write("nul.yaml", "apiVersion: v1\nkind: Cron\0Tab\n");
    assert_unreadable(&bench, &file, "2:11: unexpected character: `U+0000'");
    let file = bench.write("nul-string.json", "{\"kind\":\"Cron\0Tab\"}");
    assert_unreadable(
        &bench,
        &file,
        "1:14: control character (\\u0000-\\u001F) found while parsing a string",
    );
    let file = bench.write("nul-token.json", "{\"kind\":\"CronTab\",\0}");
    assert_unreadable(&bench, &file, "1:19: key must be a string");
    // An escaped NUL is valid JSON; the name then fails the API server's rules.
    let file = bench.write(
        "nul-escaped.json",
        r#"{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"a\u0000b"}}"#,
    );
    let runs = bench.run_all(&file);
    assert_eq!(runs[3].code, 1);
    assert!(
        runs[3]
            .stdout
            .contains("metadata.name: Invalid value: \"a\\x00b\""),
        "{}",
        runs[3].stdout
    );
    // Invalid UTF-8 inside a JSON string, read as objects.
    let file = bench.write("utf8.json", b"{\"a\": \"\xc3\x28\"}");
    for run in bench.run_all(&file) {
        assert_eq!(run.code, 2);
        assert!(
            run.stderr.contains(&format!("{}:1:", file.display())),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn duplicate_keys_are_errors_in_yaml_and_json() {
    let bench = Bench::new("dup");
    let file = bench.write(
        "dup.yaml",
        "apiVersion: stable.example.com/v1\nkind: CronTab\nkind: CronTab\nmetadata: {name: x}\n",
    );
    assert_unreadable(&bench, &file, "3:1: key \"kind\" already set in map");
    let file = bench.write(
        "dup.json",
        r#"{"apiVersion":"stable.example.com/v1","kind":"CronTab","kind":"CronTab"}"#,
    );
    assert_unreadable(&bench, &file, "1:72: duplicate field \"kind\"");
    // Inside a CRD's schema, too: the later `type` must not silently win.
    let file = bench.write("dup-crd.json", r#"{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","spec":{"type":"a","type":"b"}}"#);
    assert_unreadable(&bench, &file, "1:104: duplicate field \"type\"");
}

#[test]
fn five_thousand_digit_numbers() {
    let bench = Bench::new("digits");
    let digits = "9".repeat(5_000);
    let file = bench.write(
        "int.yaml",
        format!("apiVersion: v1\nkind: X\nn: {digits}\n"),
    );
    assert_unreadable(
        &bench,
        &file,
        &format!(
            "3:4: `{}... (5000 characters)` is not a finite number (too large, or .inf/.nan), which JSON cannot hold",
            &digits[..32]
        ),
    );
    let file = bench.write("int.json", format!(r#"{{"n": {digits}}}"#));
    assert_unreadable(&bench, &file, "1:5006: number out of range");
    // A long fraction is a fine float.
    let file = bench.write("fraction.json", object(&format!(r#"{{"f": 0.{digits}}}"#)));
    assert_objects(&bench, &file, 0, "validated 1 objects: 0 invalid");
}

#[test]
fn two_hundred_thousand_empty_documents() {
    let bench = Bench::new("empty");
    for (name, text) in [
        ("dashes.yaml", "---\n".repeat(200_000)),
        ("ends.yaml", "---\n...\n".repeat(200_000)),
    ] {
        let file = bench.write(name, text);
        let runs = bench.run_all(&file);
        assert_eq!(runs[0].code, 0);
        assert!(runs[0].stderr.contains("note: empty file (no documents)"));
        assert_eq!(runs[1].code, 2);
        assert_eq!(runs[2].code, 2);
        assert_eq!(runs[3].code, 0);
        assert!(runs[3].stderr.contains("validated 0 objects: 0 invalid"));
    }
}

#[test]
fn odd_yaml_tags() {
    let bench = Bench::new("tags");
    // Tags a manifest can carry: core tags are applied, unknown local tags ignored.
    let text = "apiVersion: !!str stable.example.com/v1\nkind: !CronTab CronTab\nmetadata: !!map {name: !!str x}\nspec: {a: !!binary aGVsbG8=, b: !!set {a, b}, c: !<tag:yaml.org,2002:int> 3, d: !!float 1, e: !!python/object:os.system x}\n";
    let file = bench.write("tags.yaml", text);
    assert_objects(&bench, &file, 0, "validated 1 objects: 0 invalid");
    let out = Command::new(BIN)
        .args(["validate", "--output", "json", "--crd"])
        .arg(bench.dir.join("plain-crd.yaml"))
        .arg(&file)
        .output()
        .unwrap();
    let admitted: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        admitted["spec"],
        serde_json::json!({"a": "hello", "b": {"a": null, "b": null}, "c": 3, "d": 1.0, "e": "x"})
    );
    let file = bench.write(
        "timestamp.yaml",
        "apiVersion: v1\nkind: X\nt: !!timestamp 2001-12-14\n",
    );
    assert_unreadable(
        &bench,
        &file,
        "3:16: this tagged value (such as !!timestamp) cannot be read as JSON: quote it as a plain string",
    );
}

#[test]
fn crlf_line_ends() {
    let bench = Bench::new("crlf");
    let schema = r#"{"type":"object","properties":{"spec":{"type":"object","properties":{"text":{"type":"string"}}}}}"#;
    let file = bench.write("crd.yaml", crd(schema).replace('\n', "\r\n"));
    let runs = assert_crd(&bench, &file, 0, 0, "checked 1 CRDs: 0 invalid");
    assert!(!runs[1].stdout.contains('\r'));
    let obj = "apiVersion: stable.example.com/v1\r\nkind: CronTab\r\nmetadata:\r\n  name: x\r\nspec:\r\n  text: |\r\n    two\r\n    lines\r\n";
    let objects = bench.write("object.yaml", obj);
    let out = Command::new(BIN)
        .args(["validate", "--output", "json", "--crd"])
        .arg(&file)
        .arg(&objects)
        .output()
        .unwrap();
    let admitted: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(admitted["spec"]["text"], "two\nlines\n");
}

#[test]
fn huge_and_deep_schemas() {
    let bench = Bench::new("schemas");
    let props: Vec<String> = (0..20_000)
        .map(|i| format!(r#""p{i}":{{"type":"string"}}"#))
        .collect();
    let file = bench.write(
        "wide.yaml",
        spec_crd(&format!("{{{}}}", props.join(",")), "[]"),
    );
    let runs = assert_crd(&bench, &file, 0, 0, "checked 1 CRDs: 0 invalid");
    assert_eq!(runs[2].code, 0);
    assert!(runs[1].stdout.contains("pub p19999: Option<String>"));
    // 2,000 levels of schema are 4,000 levels of YAML: refused where reading stops.
    let deep = format!(
        "{}{{\"type\":\"string\"}}{}",
        r#"{"type":"object","properties":{"a":"#.repeat(2_000),
        "}}".repeat(2_000)
    );
    let file = bench.write("deep.yaml", crd(&deep));
    assert_unreadable(
        &bench,
        &file,
        "14:2174: document nests deeper than 128 levels",
    );
    // 60 levels (120 of YAML) are read, checked, generated and validated.
    let deep = format!(
        "{}{{\"type\":\"string\"}}{}",
        r#"{"type":"object","properties":{"a":"#.repeat(60),
        "}}".repeat(60)
    );
    let file = bench.write("deep-60.yaml", crd(&deep));
    let runs = assert_crd(&bench, &file, 0, 0, "checked 1 CRDs: 0 invalid");
    assert_eq!(runs[2].code, 0);
}

#[test]
fn catastrophic_and_unsupported_regular_expressions() {
    let bench = Bench::new("regex");
    let props =
        r#"{"a":{"type":"string","pattern":"^(a+)+$"},"b":{"type":"string","pattern":"^(a|a)*$"}}"#;
    let file = bench.write("catastrophic.yaml", spec_crd(props, "[]"));
    assert_crd(&bench, &file, 0, 0, "checked 1 CRDs: 0 invalid");
    // Backtracking engines take exponential time here; RE2 semantics take linear time.
    let long = format!("{}b", "a".repeat(100_000));
    let objects = bench.write(
        "evil.json",
        object(&format!(r#"{{"a":"{long}","b":"{long}"}}"#)),
    );
    let report = invalid_objects_report(&file, &objects);
    assert!(
        report.contains("spec.a in body should match '^(a+)+$'"),
        "{}",
        head(&report)
    );
    let cases = [
        (
            "lookahead",
            "^(?=a)a$",
            "error parsing regexp: invalid or unsupported Perl syntax: `(?=`",
        ),
        (
            "backreference",
            "(a)\\\\1",
            "error parsing regexp: invalid or unsupported Perl syntax: `\\1`",
        ),
        (
            "open-groups",
            &"(".repeat(5_000),
            "error parsing regexp: missing closing )",
        ),
        (
            "nested-groups",
            &format!("{}a{}", "(".repeat(5_000), ")".repeat(5_000)),
            "error parsing regexp: expression nests too deeply",
        ),
        (
            "repeats",
            "((a{1000}){1000}){1000}",
            "error parsing regexp: expression too large",
        ),
    ];
    for (name, pattern, message) in cases {
        let props = format!(r#"{{"a":{{"type":"string","pattern":"{pattern}"}}}}"#);
        let file = bench.write(&format!("{name}.yaml"), spec_crd(&props, "[]"));
        let runs = assert_crd(&bench, &file, 1, 0, message);
        assert!(
            runs[0]
                .stdout
                .contains(".properties[spec].properties[a].pattern: Invalid value: ")
        );
        // validate reports the bad pattern on the object's field.
        assert_eq!(runs[2].code, 1, "{}", head(&runs[2].all()));
        assert!(
            runs[2]
                .stdout
                .contains(&format!("but pattern is invalid: {message}"))
        );
    }
}

#[test]
fn cel_cost_bombs_and_deep_rules() {
    let bench = Bench::new("cel");
    let list = r#"{"l":{"type":"array","items":{"type":"string"}}}"#;
    let bomb = r#"[{"rule":"self.l.all(a, self.l.all(b, self.l.all(c, self.l.all(d, a + b + c + d != ''))))"}]"#;
    let file = bench.write("bomb.yaml", spec_crd(list, bomb));
    assert_crd(
        &bench,
        &file,
        1,
        0,
        "Forbidden: estimated rule cost exceeds budget by factor of more than 100x",
    );
    // Run anyway (validate does not refuse CRDs), the runtime limit stops it.
    let items: Vec<String> = (0..1_000).map(|i| format!("\"{i}\"")).collect();
    let objects = bench.write(
        "big-list.json",
        object(&format!(r#"{{"l":[{}]}}"#, items.join(","))),
    );
    let report = invalid_objects_report(&file, &objects);
    assert!(
        report.contains("'operation cancelled: actual cost limit exceeded'"),
        "{}",
        head(&report)
    );

    let recursion =
        "compilation failed: ERROR: <input>:-1:0: expression recursion limit exceeded: 250";
    let deep_rules = [
        format!("{} > 0", vec!["1"; 20_000].join(" + ")),
        format!("self{} == ''", ".a".repeat(20_000)),
        format!("{}true{}", "(".repeat(5_000), ")".repeat(5_000)),
        format!("{}{} == []", "[".repeat(5_000), "]".repeat(5_000)),
        format!("{}true", "true ? true : ".repeat(5_000)),
    ];
    for (i, rule) in deep_rules.iter().enumerate() {
        let file = bench.write(
            &format!("deep-{i}.yaml"),
            spec_crd(list, &format!(r#"[{{"rule":"{rule}"}}]"#)),
        );
        let runs = assert_crd(&bench, &file, 1, 0, recursion);
        assert_eq!(runs[2].code, 1);
        assert!(
            runs[2].stdout.contains(recursion),
            "{}",
            head(&runs[2].stdout)
        );
    }
    let huge = format!("'{}' != ''", "a".repeat(1 << 20));
    let file = bench.write(
        "huge.yaml",
        spec_crd(list, &format!(r#"[{{"rule":"{huge}"}}]"#)),
    );
    let runs = assert_crd(
        &bench,
        &file,
        1,
        0,
        "compilation failed: ERROR: <input>:-1:0: expression code point size exceeds limit: size: ",
    );
    assert!(runs[0].stdout.contains(", limit 100000\n"));
    // 5,000 negations are one flat operator in CEL's grammar: accepted.
    let file = bench.write(
        "nots.yaml",
        spec_crd(
            list,
            &format!(r#"[{{"rule":"{}true"}}]"#, "!".repeat(5_000)),
        ),
    );
    assert_crd(&bench, &file, 0, 0, "checked 1 CRDs: 0 invalid");
}

/// `crd-gen validate --crd CRD OBJECTS` on objects it must find invalid (exit 1):
/// its report.
fn invalid_objects_report(crd: &Path, objects: &Path) -> String {
    let out = Command::new(BIN)
        .arg("validate")
        .arg("--crd")
        .arg(crd)
        .arg(objects)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    String::from_utf8(out.stdout).unwrap()
}
