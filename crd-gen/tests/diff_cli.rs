//! `crd-gen diff OLD NEW` as CI runs it: one line per change with its class, the
//! summary, exit codes 0/1/2, policy files, JSON lines, directories matched by CRD
//! name, stdin, and the whole corpus against itself.

use std::path::Path;

mod common;

fn shared(path: &str) -> String {
    common::shared().join(path).display().to_string()
}

fn crontab() -> String {
    std::fs::read_to_string(shared("fixtures/crontab/crd-full.yaml")).unwrap()
}

fn write(dir: &Path, name: &str, content: &str) -> String {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&p, content).unwrap();
    p.display().to_string()
}

fn run(args: &[&str], stdin: &str) -> (i32, String, String) {
    common::cli::run_with_stdin(&[&["diff"], args].concat(), stdin.as_bytes())
}

/// The CronTab CRD with one text replacement (which must apply).
fn edited(from: &str, to: &str) -> String {
    let text = crontab();
    assert!(text.contains(from), "{from:?} not in the fixture");
    text.replacen(from, to, 1)
}

const CRD: &str = "crontabs.stable.example.com";

#[test]
fn each_kind_of_edit_gives_its_line_class_and_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let old = write(dir.path(), "old.yaml", &crontab());
    let cases: [(&str, &str, &str, i32); 9] = [
        (
            "maximum: 10",
            "maximum: 5",
            "v1: spec.replicas: maximum-tightened: maximum lowered from 10 to 5 [breaking]",
            1,
        ),
        (
            "maximum: 10",
            "maximum: 20",
            "v1: spec.replicas: maximum-loosened: maximum raised from 10 to 20 [compatible]",
            0,
        ),
        (
            "              image:\n                type: string\n",
            "",
            "v1: spec.image: field-removed: field of type string removed [breaking]",
            1,
        ),
        (
            "              image:\n                type: string\n",
            "              image:\n                type: string\n              suspend:\n                type: boolean\n",
            "v1: spec.suspend: field-added: field of type boolean added [compatible]",
            0,
        ),
        (
            "default: 1\n",
            "default: 2\n",
            "v1: spec.replicas: default-changed: default changed from 1 to 2 [breaking]",
            1,
        ),
        (
            "scope: Namespaced",
            "scope: Cluster",
            "-: spec.scope: scope-changed: scope changed from Namespaced to Cluster [breaking]",
            1,
        ),
        (
            "    - ct\n",
            "    - ct\n    - cron\n",
            "-: spec.names.shortNames: short-name-added: cron added [compatible]",
            0,
        ),
        (
            "    served: true",
            "    served: false",
            "v1: served: version-unserved: version v1 is no longer served [breaking]",
            1,
        ),
        (
            "      jsonPath: .spec.cronSpec",
            "      jsonPath: .spec.image",
            "v1: additionalPrinterColumns[Spec]: printer-columns-changed: column Spec now shows .spec.image instead of .spec.cronSpec [informational]",
            0,
        ),
    ];
    for (from, to, line, code) in cases {
        let new = write(dir.path(), "new.yaml", &edited(from, to));
        let (got, stdout, stderr) = run(&[&old, &new], "");
        let want = format!("{CRD}: {line}");
        assert!(
            stdout.lines().any(|l| l == want),
            "{from:?} -> {to:?}: want {want}\ngot:\n{stdout}{stderr}"
        );
        assert_eq!(got, code, "{from:?} -> {to:?}\n{stdout}{stderr}");
        assert!(
            stdout
                .lines()
                .last()
                .unwrap()
                .starts_with("compared 1 CRDs: "),
            "{stdout}"
        );
    }
}

#[test]
fn policy_files_raise_lower_and_silence_rules() {
    let dir = tempfile::tempdir().unwrap();
    let old = write(dir.path(), "old.yaml", &crontab());
    let new = write(
        dir.path(),
        "new.yaml",
        &edited("maximum: 10", "maximum: 20").replacen("default: 1\n", "default: 2\n", 1),
    );
    let (code, stdout, _) = run(&[&old, &new], "");
    assert_eq!(code, 1, "{stdout}");
    assert_eq!(
        stdout.lines().last(),
        Some("compared 1 CRDs: 1 breaking, 1 compatible, 0 informational")
    );

    let policy = write(
        dir.path(),
        "policy.yaml",
        "rules:\n  default-changed: warn\n  maximum-loosened: ignore\n",
    );
    let (code, stdout, _) = run(&["--policy", &policy, &old, &new], "");
    assert_eq!(code, 0, "{stdout}");
    assert_eq!(
        stdout,
        format!(
            "{CRD}: v1: spec.replicas: default-changed: default changed from 1 to 2 [breaking, warn by policy]\n\
             compared 1 CRDs: 1 breaking, 0 compatible, 0 informational\n"
        )
    );

    let strict = write(
        dir.path(),
        "strict.yaml",
        "rules: {maximum-loosened: error, default-changed: warn}\n",
    );
    assert_eq!(run(&["--policy", &strict, &old, &new], "").0, 1);

    let bad = write(dir.path(), "bad.yaml", "rules:\n  no-such-rule: error\n");
    let (code, stdout, stderr) = run(&["--policy", &bad, &old, &new], "");
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert_eq!(
        stderr,
        format!("{bad}: rules.no-such-rule: unknown rule (crd-gen diff --rules lists them)\n")
    );
}

#[test]
fn json_lines_carry_every_field() {
    let dir = tempfile::tempdir().unwrap();
    let old = write(dir.path(), "old.yaml", &crontab());
    let new = write(dir.path(), "new.yaml", &edited("maximum: 10", "maximum: 5"));
    let (code, stdout, _) = run(&["--format", "json", &old, &new], "");
    assert_eq!(code, 1);
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        lines[0],
        serde_json::json!({
            "kind": "change", "crd": CRD, "version": "v1", "path": "spec.replicas",
            "rule": "maximum-tightened", "class": "breaking", "level": "error",
            "detail": "maximum lowered from 10 to 5",
            "message": format!("{CRD}: v1: spec.replicas: maximum-tightened: maximum lowered from 10 to 5"),
        })
    );
    assert_eq!(
        lines[1],
        serde_json::json!({"kind": "summary", "compared": 1, "breaking": 1, "compatible": 0, "informational": 0, "failing": 1})
    );
}

#[test]
fn directories_match_by_name_and_stdin_works() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "old/a/crontab.yaml", &crontab());
    let other = crontab()
        .replace("crontabs.stable.example.com", "widgets.stable.example.com")
        .replace("plural: crontabs", "plural: widgets");
    write(dir.path(), "old/b/widget.yaml", &other);
    // The new revision moves the CronTab to another file and drops the widget.
    write(
        dir.path(),
        "new/all.yaml",
        &edited("maximum: 10", "maximum: 11"),
    );
    let (old, new) = (
        dir.path().join("old").display().to_string(),
        dir.path().join("new").display().to_string(),
    );
    let (code, stdout, stderr) = run(&[&old, &new], "");
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert_eq!(
        stdout,
        format!(
            "{CRD}: v1: spec.replicas: maximum-loosened: maximum raised from 10 to 11 [compatible]\n\
             widgets.stable.example.com: -: <crd>: crd-removed: the CRD is gone from the new revision [breaking]\n\
             compared 1 CRDs: 1 breaking, 1 compatible, 0 informational\n"
        )
    );
    let (code, stdout, _) = run(&["-", &new], &crontab());
    assert_eq!(code, 0, "{stdout}");
    let (code, _, stderr) = run(&["-", "-"], "");
    assert_eq!(
        (code, stderr.as_str()),
        (2, "only one of OLD and NEW can be - (stdin)\n")
    );
}

#[test]
fn unreadable_input_exits_2_naming_file_and_position() {
    let dir = tempfile::tempdir().unwrap();
    let old = write(dir.path(), "old.yaml", &crontab());
    let bad = write(
        dir.path(),
        "bad.yaml",
        "apiVersion: apiextensions.k8s.io/v1\nkind: [\n",
    );
    let (code, _, stderr) = run(&[&old, &bad], "");
    assert_eq!(code, 2);
    assert!(stderr.starts_with(&format!("{bad}:")), "{stderr}");
    let missing = dir.path().join("missing.yaml").display().to_string();
    let (code, _, stderr) = run(&[&old, &missing], "");
    assert_eq!(code, 2);
    assert!(stderr.contains("missing.yaml"), "{stderr}");
}

#[test]
fn the_corpus_against_itself_has_no_change() {
    let corpus = shared("corpus/crds");
    let (code, stdout, stderr) = run(&[&corpus, &corpus], "");
    assert_eq!(code, 0, "{stderr}");
    let summary = stdout.lines().last().unwrap();
    assert!(
        summary.starts_with("compared ")
            && summary.ends_with(" CRDs: 0 breaking, 0 compatible, 0 informational"),
        "{stdout}"
    );
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
}

#[test]
fn rules_are_listed_with_class_level_and_reason() {
    let (code, stdout, _) = run(&["--rules"], "");
    assert_eq!(code, 0);
    let line = stdout
        .lines()
        .find(|l| l.starts_with("field-removed "))
        .expect("field-removed listed");
    assert!(
        line.contains(" breaking ") && line.contains(" error "),
        "{line}"
    );
    assert!(stdout.lines().count() > 80, "{stdout}");
}

/// A live CRD (one carrying `status.storedVersions`, as `kubectl get -o yaml` or
/// `kube://` gives it) against a revision that drops a stored version: breaking, at
/// level error, exit 1, in every format; once storedVersions is trimmed, the plain
/// `version-removed`.
#[test]
fn removing_a_stored_version_of_a_live_crd_is_breaking() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/examples");
    let live = examples.join("crontab-crd-live.yaml").display().to_string();
    let next = examples
        .join("crontab-crd-v2-only.yaml")
        .display()
        .to_string();
    let expected = format!(
        "{CRD}: v1: spec.versions: stored-version-removed: version v1 removed while \
         status.storedVersions lists it: objects may still be stored in v1, and the API server \
         refuses the update (status.storedVersions[0]: Invalid value: \"v1\": missing from \
         spec.versions; v1 was previously a storage version, and must remain in spec.versions \
         until a storage migration ensures no data remains persisted in v1 and removes v1 from \
         status.storedVersions); migrate the stored objects to the storage version (e.g. with a \
         StorageVersionMigration), then remove v1 from status.storedVersions"
    );
    let (code, out, err) = run(&[&live, &next], "");
    assert_eq!(code, 1, "{err}");
    assert_eq!(
        out,
        format!(
            "{expected} [breaking]\ncompared 1 CRDs: 1 breaking, 0 compatible, 0 informational\n"
        )
    );

    let (code, out, _) = run(&["--format", "json", &live, &next], "");
    assert_eq!(code, 1);
    let first: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(first["rule"], "stored-version-removed");
    assert_eq!(first["class"], "breaking");
    assert_eq!(first["level"], "error");
    assert_eq!(first["version"], "v1");
    assert_eq!(first["message"], expected.as_str());

    // Migrated: storedVersions is [v2], and removing v1 is what it is without a status.
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(&live).unwrap();
    assert!(text.contains("  - v1\n  - v2\n"));
    let migrated = write(
        dir.path(),
        "migrated.yaml",
        &text.replace("  - v1\n  - v2\n", "  - v2\n"),
    );
    let (code, out, err) = run(&[&migrated, &next], "");
    assert_eq!(code, 1, "{err}");
    assert_eq!(
        out,
        format!(
            "{CRD}: v1: spec.versions: version-removed: version v1 removed [breaking]\n\
             compared 1 CRDs: 1 breaking, 0 compatible, 0 informational\n"
        )
    );
}
