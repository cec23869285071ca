//! `crd-gen validate` as a user runs it: the server's messages, admitted output,
//! JSON lines, bare schemas, exit codes, and hostile input (bad syntax, duplicate
//! keys, non-UTF-8, 10,000 levels of nesting, huge values, invalid regexes).

use std::path::Path;

mod common;

fn crontab_crd() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/fixtures/crontab/crd-full.yaml")
        .display()
        .to_string()
}

/// A fresh scratch directory for one test, deleted when it goes out of scope.
fn scratch(test: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("crd-gen-validate-{test}-"))
        .tempdir()
        .unwrap()
}

fn write(dir: &Path, name: &str, content: impl AsRef<[u8]>) -> String {
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    p.display().to_string()
}

fn run(args: &[&str], stdin: Option<&[u8]>) -> (i32, String, String) {
    common::cli::run_with_stdin(&[&["validate"], args].concat(), stdin.unwrap_or_default())
}

const INVALID: &str = "apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: my-new-cron-object}
spec: {cronSpec: \"* * * *\", image: my-awesome-cron-image, replicas: 15}
";

const VALID: &str = "apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: ok, unknownMeta: 1}
spec: {image: my-awesome-cron-image, someRandomField: 42}
";

#[test]
fn invalid_objects_are_reported_like_the_server() {
    let dir = scratch("text");
    let file = write(dir.path(), "objects.yaml", format!("{INVALID}---\n{VALID}"));
    let (code, stdout, stderr) = run(&["--crd", &crontab_crd(), &file], None);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines,
        vec![
            r#"CronTab "my-new-cron-object" is invalid:"#,
            r#"spec.cronSpec: Invalid value: "* * * *": spec.cronSpec in body should match '^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$'"#,
            "spec.replicas: Invalid value: 15: spec.replicas in body should be less than or equal to 10",
        ]
    );
    assert!(
        stderr.contains("validated 2 objects: 1 invalid"),
        "{stderr}"
    );
}

#[test]
fn admitted_objects_are_printed() {
    let dir = scratch("output");
    let file = write(dir.path(), "ok.yaml", VALID);
    let (code, stdout, stderr) = run(&["--crd", &crontab_crd(), "--output", "json", &file], None);
    assert_eq!(code, 0, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(
        v,
        serde_json::json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
            "metadata": {"name": "ok"},
            "spec": {"cronSpec": "5 0 * * *", "image": "my-awesome-cron-image", "replicas": 1}})
    );
    let (code, stdout, _) = run(&["--crd", &crontab_crd(), "--output", "yaml", &file], None);
    assert_eq!(code, 0);
    assert!(
        stdout.starts_with("---\napiVersion: stable.example.com/v1\n"),
        "{stdout}"
    );
    assert!(stdout.contains("replicas: 1"), "{stdout}");
    assert!(!stdout.contains("someRandomField"), "{stdout}");
}

#[test]
fn json_lines_in_and_out_with_stdin() {
    let objs = [
        r#"{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"a"},"spec":{"replicas":3}}"#,
        r#"{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"b"},"spec":{"replicas":0}}"#,
        r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"c"}}"#,
    ]
    .join("\n");
    let (code, stdout, stderr) = run(
        &["--crd", &crontab_crd(), "--format", "json", "-"],
        Some(objs.as_bytes()),
    );
    assert_eq!(code, 1, "{stderr}");
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["file"], "-");
    assert_eq!(lines[0]["index"], 0);
    assert_eq!(lines[0]["kind"], "CronTab");
    assert_eq!(lines[0]["name"], "a");
    assert_eq!(lines[0]["errors"], serde_json::json!([]));
    assert_eq!(lines[0]["object"]["spec"]["cronSpec"], "5 0 * * *");
    assert_eq!(
        lines[1]["errors"],
        serde_json::json!([
            "spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1"
        ])
    );
    assert_eq!(lines[2]["index"], 2);
    assert!(
        lines[2]["errors"][0]
            .as_str()
            .unwrap()
            .contains(r#"no CustomResourceDefinition is loaded for apiVersion "v1", kind "Pod""#)
    );
}

#[test]
fn bare_schema_mode() {
    let dir = scratch("schema");
    let schema = write(
        dir.path(),
        "schema.yaml",
        "type: object\nproperties:\n  mode: {type: string, enum: [a, b]}\n  n: {type: integer, default: 3}\n",
    );
    let values = write(
        dir.path(),
        "values.json",
        "{\"mode\":\"c\"}\n{\"mode\":\"a\",\"x\":1}\n",
    );
    let (code, stdout, _) = run(&["--schema", &schema, "--format", "json", &values], None);
    assert_eq!(code, 1);
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        lines[0]["errors"],
        serde_json::json!([r#"mode: Unsupported value: "c": supported values: "a", "b""#])
    );
    assert_eq!(lines[1]["object"], serde_json::json!({"mode": "a", "n": 3}));
    let (code, stdout, _) = run(&["--schema", &schema, &values], None);
    assert_eq!(code, 1);
    assert!(stdout.starts_with("object \"\" is invalid:\n"), "{stdout}");
}

#[test]
fn invalid_regex_in_schema_is_reported_per_value() {
    let dir = scratch("regex");
    let schema = write(
        dir.path(),
        "schema.yaml",
        "type: object\nproperties:\n  f: {type: string, pattern: '+'}\n",
    );
    let values = write(dir.path(), "v.json", "{\"f\":\"foo\"}");
    let (code, stdout, _) = run(&["--schema", &schema, &values], None);
    assert_eq!(code, 1);
    assert!(
        stdout.contains("f: Invalid value: \"foo\": f in body should match '+, but pattern is invalid: error parsing regexp: missing argument to repetition operator: `+`'"),
        "{stdout}"
    );
}

/// One object as a JSON line.
fn json_line(name: &str, cron: &str) -> String {
    format!(
        r#"{{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{{"name":"{name}"}},"spec":{{"cronSpec":"{cron}","image":"i"}}}}"#
    )
}

#[test]
fn bad_lines_and_documents_lose_nothing_else() {
    let dir = scratch("nothing-lost");
    let crd = crontab_crd();
    let lines = [
        json_line("a", "* * * * */5"),
        r#"{"apiVersion":"#.to_string(),
        json_line("b", "bad"),
        r#"{"kind":"CronTab","kind":"CronTab"}"#.to_string(),
        json_line("c", "* * * * */5"),
        "not json at all".to_string(),
        json_line("d", "* * * * */5"),
    ];
    let file = write(dir.path(), "objects.jsonl", lines.join("\n") + "\n");
    let (code, stdout, stderr) = run(&["--crd", &crd, "--format", "json", &file], None);
    assert_eq!(code, 2, "{stdout}{stderr}");
    let reported: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let names: Vec<(&str, u64)> = reported
        .iter()
        .map(|r| (r["name"].as_str().unwrap(), r["index"].as_u64().unwrap()))
        .collect();
    // Every good line is validated, and keeps its place in the file.
    assert_eq!(names, vec![("a", 0), ("b", 2), ("c", 4), ("d", 6)]);
    assert_eq!(reported[1]["errors"].as_array().unwrap().len(), 1);
    let bad: Vec<&str> = stderr.lines().collect();
    assert_eq!(bad.len(), 3, "{stderr}");
    assert!(bad[0].starts_with(&format!("{file}:2:1: ")), "{stderr}");
    assert!(bad[1].starts_with(&format!("{file}:4:")), "{stderr}");
    assert!(bad[1].contains("duplicate field \"kind\""), "{stderr}");
    assert!(bad[2].starts_with(&format!("{file}:6:")), "{stderr}");

    let (code, _, stderr) = run(&["--crd", &crd, &file], None);
    assert_eq!(code, 2);
    assert!(
        stderr.ends_with("validated 4 objects: 1 invalid, 3 documents unreadable\n"),
        "{stderr}"
    );

    // YAML: reading resumes at the next `---`.
    let yaml = format!(
        "{VALID}---\napiVersion: stable.example.com/v1\nmetadata: {{name: [b}}\n---\n{INVALID}"
    );
    let file = write(dir.path(), "objects.yaml", &yaml);
    let (code, stdout, stderr) = run(&["--crd", &crd, &file], None);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(
        stdout.contains("CronTab \"my-new-cron-object\" is invalid"),
        "{stdout}"
    );
    assert!(stderr.starts_with(&format!("{file}:7:")), "{stderr}");
    assert!(
        stderr.ends_with("validated 2 objects: 1 invalid, 1 document unreadable\n"),
        "{stderr}"
    );
}

#[test]
fn unreadable_input_exits_2_and_is_never_modified() {
    let dir = scratch("bad");
    let crd = crontab_crd();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "dup.json",
            br#"{"a":1,"a":2}"#.to_vec(),
            "duplicate field \"a\"",
        ),
        ("dup.yaml", b"a: 1\na: 2\n".to_vec(), "dup.yaml"),
        (
            "deep.json",
            "[".repeat(10_001).into_bytes(),
            "deep.json:1:10001: invalid character '[' exceeded max depth",
        ),
        (
            "deep.yaml",
            format!("{}1{}", "[".repeat(10_001), "]".repeat(10_001)).into_bytes(),
            "deep.yaml",
        ),
        ("bad.yaml", b"a: [1, 2\n".to_vec(), "bad.yaml"),
        ("latin1.yaml", b"name: caf\xe9\n".to_vec(), "UTF-8"),
        (
            "latin1.json",
            b"{\"name\": \"caf\xe9\"}".to_vec(),
            "latin1.json",
        ),
    ];
    for (name, bytes, needle) in cases {
        let file = write(dir.path(), name, &bytes);
        let (code, stdout, stderr) = run(&["--crd", &crd, &file], None);
        assert_eq!(code, 2, "{name}: {stdout}{stderr}");
        assert!(stderr.contains(needle), "{name}: {stderr}");
        assert_eq!(std::fs::read(&file).unwrap(), bytes, "{name} was modified");
    }
    let (code, _, stderr) = run(&["--crd", &crd, "/nonexistent/objects.yaml"], None);
    assert_eq!(code, 2);
    assert!(stderr.contains("/nonexistent/objects.yaml"), "{stderr}");
    let (code, _, stderr) = run(&["--crd", "/nonexistent/crd.yaml", "-"], Some(b"{}"));
    assert_eq!(code, 2);
    assert!(stderr.contains("/nonexistent/crd.yaml"), "{stderr}");
}

#[test]
fn huge_values_are_validated_not_crashed_on() {
    let dir = scratch("huge");
    let schema = write(
        dir.path(),
        "schema.yaml",
        "type: object\nproperties:\n  s: {type: string, maxLength: 10}\n  l: {type: array, maxItems: 5, items: {type: integer}}\n",
    );
    let big = format!(
        "{{\"s\":\"{}\",\"l\":[{}]}}",
        "x".repeat(5_000_000),
        vec!["1"; 200_000].join(",")
    );
    let values = write(dir.path(), "big.json", &big);
    let (code, stdout, _) = run(&["--schema", &schema, &values], None);
    assert_eq!(code, 1);
    assert!(
        stdout.contains("s: Too long: may not be more than 10 bytes"),
        "{}",
        &stdout[..200.min(stdout.len())]
    );
    assert!(stdout.contains("l: Too many: 200000: must have at most 5 items"));
}

/// The Workload example's CRD (a derived spec embedding k8s-openapi's `PodTemplateSpec`,
/// written by `crd-toolkit-examples`' golden test): the pod template's metadata keeps
/// its labels and annotations, as the API server keeps them (kubernetes#103739).
#[test]
fn embedded_pod_template_metadata_is_kept() {
    let crd = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/workload-crd.yaml")
        .display()
        .to_string();
    let dir = scratch("embedded-metadata");
    let file = write(
        dir.path(),
        "web.yaml",
        "apiVersion: apps.example.com/v1
kind: Workload
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}, annotations: {team: a}, bogus: 1}
    spec: {containers: [{name: main, image: nginx}]}
",
    );
    let (code, stdout, stderr) = run(&["--crd", &crd, "--output", "json", &file], None);
    assert_eq!(code, 0, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(
        v["spec"]["template"]["metadata"],
        serde_json::json!({"labels": {"app": "web"}, "annotations": {"team": "a"}})
    );
    assert_eq!(v["spec"]["replicas"], 1);
}
