//! `crd-gen generate` as a user runs it: the summary line, files written only when
//! they change, stdin, and which error wins (and its exit code) when several inputs
//! are bad.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_crd-gen");

fn crontab() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/crontab.yaml")
}

fn generate(args: &[&Path]) -> (i32, String, String) {
    let out = Command::new(BIN)
        .arg("generate")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().expect("exited normally"),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// A directory of inputs: the CronTab CRD, a copy of it under another group, and
/// an unrelated file the walk skips.
fn inputs(dir: &Path) -> PathBuf {
    let crds = dir.join("crds");
    std::fs::create_dir_all(&crds).unwrap();
    let text = std::fs::read_to_string(crontab()).unwrap();
    std::fs::write(crds.join("a-crontab.yaml"), &text).unwrap();
    std::fs::write(
        crds.join("b-crontab.yml"),
        text.replace("stable.example.com", "other.example.com"),
    )
    .unwrap();
    std::fs::write(crds.join("notes.txt"), "not a manifest").unwrap();
    crds
}

#[test]
fn writes_modules_and_rewrites_only_what_changed() {
    let dir = tempfile::tempdir().unwrap();
    let crds = inputs(dir.path());
    let out = dir.path().join("out");
    let o: &Path = "-o".as_ref();

    let (code, stdout, stderr) = generate(&[&crds, o, &out]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.is_empty());
    let summary = format!(
        "generated 2 CRD module(s) into {} (3 file(s) changed)\n",
        out.display()
    );
    assert_eq!(stderr, summary);
    let mut modules: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    modules.sort();
    assert_eq!(modules.len(), 3, "{modules:?}");
    assert!(modules.contains(&"mod.rs".to_string()));

    // Same input: nothing written.
    let (code, _, stderr) = generate(&[&crds, o, &out]);
    assert_eq!(code, 0);
    assert!(stderr.ends_with("(0 file(s) changed)\n"), "{stderr}");

    // One module edited by hand, one shortened: both come back, nothing else.
    let first = out.join(&modules[0]);
    let text = std::fs::read_to_string(&first).unwrap();
    std::fs::write(&first, text.replacen("pub", "pab", 1)).unwrap();
    let second = out.join(&modules[1]);
    std::fs::write(&second, "// short").unwrap();
    let (code, _, stderr) = generate(&[&crds, o, &out]);
    assert_eq!(code, 0);
    assert!(stderr.ends_with("(2 file(s) changed)\n"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&first).unwrap(), text);
}

#[test]
fn stdin_and_stdout() {
    let mut child = Command::new(BIN)
        .args(["generate", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let text = std::fs::read(crontab()).unwrap();
    child.stdin.take().unwrap().write_all(&text).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let rust = String::from_utf8(out.stdout).unwrap();
    assert!(rust.starts_with("// @generated"), "{rust}");
    assert!(rust.contains("pub struct CronTabSpec"), "{rust}");
}

#[test]
fn an_unreadable_input_wins_over_one_that_does_not_load() {
    let dir = tempfile::tempdir().unwrap();
    let crds = inputs(dir.path());
    let broken = dir.path().join("broken.yaml");
    std::fs::write(&broken, "a: [1, 2\nb: c\n").unwrap();
    let missing = dir.path().join("missing.yaml");
    let out = dir.path().join("out");
    let o: &Path = "-o".as_ref();

    // Only a file that does not parse: exit 2, named.
    let (code, _, stderr) = generate(&[&crds, &broken, o, &out]);
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with(&format!("error: {}:", broken.display())),
        "{stderr}"
    );
    assert!(!out.exists(), "nothing is written when an input fails");

    // A missing file later in the list is still the one reported, in both modes.
    for extra in [vec![o, out.as_path()], vec![]] {
        let mut args: Vec<&Path> = vec![&broken, &crds, &missing];
        args.extend(extra);
        let (code, stdout, stderr) = generate(&args);
        assert_eq!(code, 2, "{stderr}");
        assert!(stdout.is_empty());
        assert!(
            stderr.starts_with(&format!("error: {}:", missing.display())),
            "{stderr}"
        );
    }
}

/// A CRD no API server accepts, whose names or types crd-derive would refuse: exit 1,
/// every problem in the server's words, naming the file and the field, in both
/// output modes; a valid CRD in another file changes nothing about that.
#[test]
fn a_crd_with_names_or_types_the_server_refuses_is_an_error_naming_file_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let crds = inputs(dir.path());
    let text = std::fs::read_to_string(crontab()).unwrap();
    let bad = dir.path().join("bad.yaml");
    let bad_text = text
        .replace("kind: CronTab\n", "kind: \"Cron\\aTab\"\n")
        .replacen("type: string", "type: strin", 1);
    assert_ne!(bad_text, text);
    std::fs::write(&bad, bad_text).unwrap();
    let out = dir.path().join("out");
    let o: &Path = "-o".as_ref();
    for extra in [vec![o, out.as_path()], vec![]] {
        let mut args: Vec<&Path> = vec![&crds, &bad];
        args.extend(extra);
        let (code, stdout, stderr) = generate(&args);
        assert_eq!(code, 1, "{stderr}");
        assert!(stdout.is_empty());
        let lines: Vec<&str> = stderr.lines().collect();
        let prefix = format!("error: {}: crontabs.stable.example.com: ", bad.display());
        assert_eq!(lines.len(), 1, "{stderr}");
        assert!(
            lines[0].starts_with(&format!(
                r#"{prefix}spec.names.kind: Invalid value: "Cron\aTab": may have mixed case"#
            )),
            "{stderr}"
        );
        // With the names fixed, the type is what is wrong.
        std::fs::write(&bad, text.replacen("type: string", "type: strin", 1)).unwrap();
        let (code, _, stderr) = generate(&args);
        assert_eq!(code, 1, "{stderr}");
        assert!(stderr.starts_with(&prefix), "{stderr}");
        assert!(
            stderr.contains(
                r#".type: Unsupported value: "strin": supported values: "array", "boolean""#
            ),
            "{stderr}"
        );
        std::fs::write(
            &bad,
            text.replace("kind: CronTab\n", "kind: \"Cron\\aTab\"\n"),
        )
        .unwrap();
    }
    assert!(!out.exists(), "nothing is written when a CRD fails");
}

/// `crd-gen generate ... | head`: the reader goes away early; the process ends on
/// SIGPIPE like any Unix tool, without a panic message.
#[cfg(unix)]
#[test]
fn a_closed_stdout_ends_the_process_quietly() {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    // Megabytes of Rust: far more than a pipe buffers.
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/crds/istio");
    let mut child = Command::new(BIN)
        .arg("generate")
        .arg(&corpus)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut head = [0u8; 1024];
    child.stdout.take().unwrap().read_exact(&mut head).unwrap();
    // The pipe's read end is dropped here.
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.signal(), Some(libc::SIGPIPE), "{:?}", out.status);
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN).args(args).output().unwrap();
    (
        out.status.code().expect("exited normally"),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// `--k8s-types` names k8s-openapi's types where a node is one; an unknown
/// `--k8s-version` is a usage error naming the supported versions.
#[test]
fn k8s_types_and_versions() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../../shared/corpus/crds/grafana-operator/grafanamanifests.grafana.integreatly.org.yaml",
    );
    let corpus = corpus.to_str().unwrap();
    let (code, plain, stderr) = run(&["generate", corpus]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!plain.contains("k8s_openapi"));
    let (code, rust, stderr) = run(&["generate", "--k8s-types", corpus]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        rust.contains("Vec<::k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition>"),
        "{rust}"
    );
    assert!(rust.len() < plain.len());
    let (code, older, _) = run(&["generate", "--k8s-types", "--k8s-version", "1.33", corpus]);
    assert_eq!(code, 0);
    assert!(older.contains("::k8s_openapi::"));

    let (code, stdout, stderr) = run(&["generate", "--k8s-types", "--k8s-version", "1.2", corpus]);
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert_eq!(
        stderr,
        "error: Kubernetes version \"1.2\" has no k8s-openapi schemas (supported: 1.33, 1.34, 1.35, 1.36, 1.37)\n"
    );
    // The version alone means nothing.
    let (code, _, stderr) = run(&["generate", "--k8s-version", "1.33", corpus]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--k8s-types"), "{stderr}");
}
