//! `crd-gen check` as a user runs it: output lines, exit codes, JSON lines, and
//! hostile inputs (malformed YAML, non-CRDs, empty files, 50 MB, 10,000 levels).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

#[path = "../../tests/src/test_crd.rs"]
mod test_crd;
use test_crd::TestCrd;

const BIN: &str = env!("CARGO_BIN_EXE_crd-gen");

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared")
}

/// A fresh scratch directory for one test, deleted when it goes out of scope.
fn scratch(test: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("crd-gen-check-{test}-"))
        .tempdir()
        .unwrap()
}

fn check(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN).arg("check").args(args).output().unwrap();
    decode(out)
}

fn decode(out: Output) -> (i32, String, String) {
    (
        out.status.code().expect("exited normally, not by a signal"),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn crontab(file: &str) -> String {
    std::fs::read_to_string(shared().join("fixtures/crontab").join(file)).unwrap()
}

fn broken_crontab() -> String {
    crontab("crd-basic.yaml")
        .replace(
            "name: crontabs.stable.example.com",
            "name: crontabs.example.com",
        )
        .replace(
            "                cronSpec:\n                  type: string\n",
            "                cronSpec: {}\n",
        )
}

#[test]
fn fixtures_are_clean() {
    let dir = shared().join("fixtures/crontab");
    let (code, stdout, stderr) = check(&[dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_eq!(stdout, "checked 3 CRDs: 0 invalid\n");
    assert!(
        stderr.contains("non-structural.yaml: document 1: skipped: not a CustomResourceDefinition (<none>/<none>)"),
        "{stderr}"
    );
}

#[test]
fn violations_are_printed_one_per_line() {
    let dir = scratch("violations");
    let file = dir.path().join("broken.yaml");
    std::fs::write(&file, broken_crontab()).unwrap();
    let f = file.to_str().unwrap();
    let (code, stdout, _) = check(&[f]);
    assert_eq!(code, 1, "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines,
        [
            format!(
                r#"{f}: crontabs.example.com: metadata.name: Invalid value: "crontabs.example.com": must be spec.names.plural+"."+spec.group"#
            ),
            format!(
                "{f}: crontabs.example.com: spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[cronSpec].type: Required value: must not be empty for specified object fields"
            ),
            "checked 1 CRDs: 1 invalid".to_string(),
        ]
    );
}

#[test]
fn json_lines_for_tools() {
    let dir = scratch("json");
    let file = dir.path().join("broken.yaml");
    std::fs::write(&file, broken_crontab()).unwrap();
    let (code, stdout, _) = check(&["--format", "json", file.to_str().unwrap()]);
    assert_eq!(code, 1);
    let records: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 3, "{stdout}");
    assert_eq!(records[0]["kind"], "violation");
    assert_eq!(records[0]["crd"], "crontabs.example.com");
    assert_eq!(records[0]["field"], "metadata.name");
    assert_eq!(records[0]["type"], "Invalid value");
    assert_eq!(records[0]["reason"], "FieldValueInvalid");
    assert_eq!(records[1]["type"], "Required value");
    assert_eq!(
        records[2],
        serde_json::json!({"kind": "summary", "checked": 1, "invalid": 1, "inputErrors": false})
    );
}

#[test]
fn parse_errors_exit_2_but_other_files_are_checked() {
    let dir = scratch("parse");
    std::fs::write(
        dir.path().join("a-bad.yaml"),
        "apiVersion: v1\nkind: [unclosed\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("b-good.yaml"), crontab("crd-basic.yaml")).unwrap();
    let (code, stdout, stderr) = check(&[dir.path().to_str().unwrap()]);
    assert_eq!(code, 2);
    assert_eq!(stdout, "checked 1 CRDs: 0 invalid\n");
    let bad = dir.path().join("a-bad.yaml");
    let prefix = format!("{}:", bad.display());
    let line = stderr
        .lines()
        .find(|l| l.starts_with(&prefix))
        .expect(&stderr);
    let mut parts = line[prefix.len()..].splitn(3, ':');
    let (l, c) = (parts.next().unwrap(), parts.next().unwrap());
    assert!(
        l.parse::<usize>().unwrap() >= 2 && c.parse::<usize>().unwrap() > 0,
        "{line}"
    );
}

#[test]
fn output_follows_input_order_although_files_are_checked_in_parallel() {
    // Files are checked on every core, largest first; the report must still list
    // them in argument and directory order, errors and summary included.
    let dir = scratch("order");
    let mut args = Vec::new();
    let mut expected = Vec::new();
    for i in 0..12 {
        let file = dir.path().join(format!("f{i:02}.yaml"));
        // Uneven sizes, so the largest-first schedule differs from input order.
        let padding = "# padding\n".repeat((i * 7919) % 3000);
        std::fs::write(&file, format!("{padding}{}", broken_crontab())).unwrap();
        let f = file.to_str().unwrap().to_string();
        expected.push(format!("{f}: crontabs.example.com: metadata.name"));
        args.push(f);
    }
    args.insert(6, "/nonexistent/in-the-middle.yaml".to_string());
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, stdout, stderr) = check(&argv);
    assert_eq!(code, 2, "{stderr}");
    let names: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains(": metadata.name:"))
        .collect();
    assert_eq!(names.len(), expected.len(), "{stdout}");
    for (line, want) in names.iter().zip(&expected) {
        assert!(line.starts_with(want.as_str()), "{line} / {want}");
    }
    assert_eq!(stdout.lines().last(), Some("checked 12 CRDs: 12 invalid"));
    assert!(
        stderr.contains("/nonexistent/in-the-middle.yaml"),
        "{stderr}"
    );
}

#[test]
fn missing_path_exits_2() {
    let (code, stdout, stderr) = check(&["/nonexistent/crds.yaml"]);
    assert_eq!(code, 2);
    assert_eq!(stdout, "checked 0 CRDs: 0 invalid\n");
    assert!(stderr.contains("/nonexistent/crds.yaml"), "{stderr}");
}

#[test]
fn non_crds_are_skipped_and_empty_files_noted() {
    let dir = scratch("skip");
    std::fs::write(
        dir.path().join("ns.yaml"),
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("empty.yaml"), "").unwrap();
    let (code, stdout, stderr) = check(&[dir.path().to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, "checked 0 CRDs: 0 invalid\n");
    assert!(
        stderr.contains(
            "ns.yaml: document 1: skipped: not a CustomResourceDefinition (v1/Namespace)"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("empty.yaml: note: empty file"), "{stderr}");
}

#[test]
fn stdin_is_read_with_dash() {
    let mut child = Command::new(BIN)
        .args(["check", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(broken_crontab().as_bytes())
        .unwrap();
    let (code, stdout, _) = decode(child.wait_with_output().unwrap());
    assert_eq!(code, 1);
    assert!(
        stdout.starts_with("-: crontabs.example.com: metadata.name: "),
        "{stdout}"
    );
}

#[test]
fn a_50_mb_file_checks_clean() {
    let dir = scratch("big");
    let file = dir.path().join("big.yaml");
    let description = "x".repeat(50 << 20);
    let text = crontab("crd-basic.yaml").replace(
        "          type: object\n          properties:\n            spec:",
        &format!("          type: object\n          description: {description}\n          properties:\n            spec:"),
    );
    assert!(text.len() > 50 << 20);
    std::fs::write(&file, text).unwrap();
    let (code, stdout, stderr) = check(&[file.to_str().unwrap()]);
    assert_eq!(
        (code, stdout.as_str()),
        (0, "checked 1 CRDs: 0 invalid\n"),
        "{stderr}"
    );
}

#[test]
fn a_schema_10000_levels_deep_is_a_clear_error() {
    let dir = scratch("deep");
    let mut schema = String::from("{\"type\":\"string\"}");
    for _ in 0..10_000 {
        schema = format!("{{\"type\":\"object\",\"properties\":{{\"a\":{schema}}}}}");
    }
    let deep = TestCrd::new("example.com", "Deep");
    std::fs::write(dir.path().join("deep.json"), deep.json(&schema)).unwrap();
    // Block style grows quadratically with depth (indentation), so 1,000 levels
    // (3 MB) stand in for 10,000 (300 MB); the depth budget is 128 either way.
    let mut schema = String::new();
    for i in 0..1_000 {
        let pad = " ".repeat(2 * i);
        schema.push_str(&format!("{pad}type: object\n{pad}properties:\n{pad}  a:\n"));
    }
    let yaml = deep.yaml(&schema);
    std::fs::write(dir.path().join("deep.yaml"), &yaml).unwrap();
    let (code, stdout, stderr) = check(&[dir.path().to_str().unwrap()]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert_eq!(stdout, "checked 0 CRDs: 0 invalid\n");
    assert_eq!(stderr.lines().count(), 2, "{stderr}");
    for line in stderr.lines() {
        assert!(
            // JSON past the API server's 10,000 levels fails in Go's words; YAML past 128.
            line.contains("deep.")
                && (line.contains("exceeded max depth") || line.contains("deeper")),
            "{line}"
        );
    }
}

#[test]
fn a_json_schema_4990_levels_deep_is_accepted() {
    // 4,990 `properties` levels take ~9,990 of the CRD body's 10,000 JSON levels: the
    // API server has no schema depth limit of its own and accepts it, so check does
    // too (with a rule at the bottom, so CEL compilation walks all the way down).
    let dir = scratch("deep-ok");
    let levels = 4_990;
    let schema = format!(
        "{}{{\"type\":\"string\",\"maxLength\":3,\
         \"x-kubernetes-validations\":[{{\"rule\":\"self != 'no'\"}}]}}{}",
        "{\"type\":\"object\",\"properties\":{\"a\":".repeat(levels - 1),
        "}}".repeat(levels - 1)
    );
    let deep = TestCrd::new("example.com", "Deep");
    std::fs::write(dir.path().join("deep.json"), deep.json(&schema)).unwrap();
    let (code, stdout, stderr) = check(&[dir.path().to_str().unwrap()]);
    assert_eq!(
        (code, stdout.as_str(), stderr.as_str()),
        (0, "checked 1 CRDs: 0 invalid\n", "")
    );
}

#[test]
fn corpus_result() {
    let dir = shared().join("corpus/crds");
    let (code, stdout, stderr) = check(&[dir.to_str().unwrap()]);
    assert!(stderr.is_empty(), "{stderr}");
    // One corpus CRD is rejected by real API servers too (see the workspace test
    // `checker_corpus`); everything else is clean.
    assert_eq!(code, 1);
    assert!(
        stdout.ends_with("checked 306 CRDs: 1 invalid\n"),
        "{stdout}"
    );
    let violations: Vec<&str> = stdout
        .lines()
        .filter(|l| !l.starts_with("checked "))
        .collect();
    assert_eq!(violations.len(), 4, "{stdout}");
    assert!(
        violations.iter().all(|l| l.contains("/kopium-tests/clusterworkflowtemplates.argoproj.io.yaml: clusterworkflowtemplates.argoproj.io: ")),
        "{stdout}"
    );
}
