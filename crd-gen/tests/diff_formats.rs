//! `crd-gen diff` for pull requests: served-version findings (one revision, and
//! those a revision introduces), `--format markdown` (the report as a PR comment)
//! and `--format github` (workflow-command annotations), through the real binary.

use std::path::Path;

mod common;

fn shared(path: &str) -> String {
    common::shared().join(path).display().to_string()
}

fn repo(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(path)
        .display()
        .to_string()
}

fn write(dir: &Path, name: &str, content: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    p.display().to_string()
}

fn run(args: &[&str]) -> (i32, String, String) {
    common::cli::run_with_stdin(&[&["diff"], args].concat(), b"")
}

fn crontab() -> String {
    std::fs::read_to_string(shared("fixtures/crontab/crd-full.yaml")).unwrap()
}

/// The docs' two-version CronTab: v1beta1 and v1 served, v1alpha1 not.
fn two_versions() -> String {
    repo("docs/examples/crontab-crd-two-versions.yaml")
}

const CRD: &str = "crontabs.stable.example.com";

#[test]
fn one_revision_compares_its_served_versions() {
    let (code, stdout, stderr) = run(&[&two_versions()]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(
        stdout,
        format!(
            "{CRD}: v1beta1 -> v1: spec.host: served-version-field-removed: field-removed: field of type string removed [breaking]\n\
             {CRD}: v1beta1 -> v1: spec.mode: served-version-tightened: enum-value-removed: value \"Hourly\" removed [breaking]\n\
             {CRD}: v1beta1 -> v1: spec.replicas: served-version-tightened: maximum-tightened: maximum lowered from 10 to 5 [breaking]\n\
             checked the served versions of 1 CRDs: 3 breaking, 0 compatible, 0 informational\n"
        )
    );
    // Ratcheting tolerates the tightened constraints: without the removed field
    // (a policy ignoring it), only warnings are left and the exit status is 0.
    let dir = tempfile::tempdir().unwrap();
    let lenient = write(
        dir.path(),
        "lenient.yaml",
        "rules:\n  served-version-field-removed: ignore\n",
    );
    assert_eq!(run(&["--policy", &lenient, &two_versions()]).0, 0);
    // A cluster without ratcheting: the policy makes them errors.
    let strict = write(
        dir.path(),
        "strict.yaml",
        "rules:\n  served-version-field-removed: ignore\n  served-version-tightened: error\n",
    );
    let (code, stdout, _) = run(&["--policy", &strict, &two_versions()]);
    assert_eq!(code, 1);
    assert!(
        stdout.contains("served-version-tightened: maximum-tightened: maximum lowered from 10 to 5 [breaking, error by policy]"),
        "{stdout}"
    );
}

#[test]
fn conversion_ignore_skips_served_versions_of_webhook_crds() {
    let dir = tempfile::tempdir().unwrap();
    let webhook = std::fs::read_to_string(two_versions()).unwrap().replacen(
        "  scope: Namespaced\n",
        "  scope: Namespaced\n  conversion:\n    strategy: Webhook\n    webhook:\n      \
         conversionReviewVersions: [v1]\n      clientConfig:\n        url: https://conv.example.com/convert\n",
        1,
    );
    let webhook = write(dir.path(), "webhook.yaml", &webhook);
    let ignore = write(dir.path(), "ignore.yaml", "conversion: Ignore\n");
    // crdify's default (None) still compares them.
    assert_eq!(run(&[&webhook]).0, 1);
    let (code, stdout, _) = run(&["--policy", &ignore, &webhook]);
    assert_eq!(code, 0, "{stdout}");
    assert!(!stdout.contains("served-version-"), "{stdout}");
    // Between revisions too; a CRD without a webhook is still compared.
    let (code, stdout, _) = run(&["--policy", &ignore, &two_versions(), &webhook]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("conversion-changed"), "{stdout}");
    assert!(!stdout.contains("served-version-"), "{stdout}");
    assert_eq!(run(&["--policy", &ignore, &two_versions()]).0, 1);
}

#[test]
fn two_revisions_report_only_the_served_version_findings_the_new_one_introduces() {
    let (code, stdout, _) = run(&[&two_versions(), &two_versions()]);
    assert_eq!(code, 0, "{stdout}");
    assert_eq!(
        stdout,
        "compared 1 CRDs: 0 breaking, 0 compatible, 0 informational\n"
    );
    // A new revision whose v1 also drops cronSpec, still served in v1beta1.
    let text = std::fs::read_to_string(two_versions()).unwrap();
    let field = "              cronSpec:\n                type: string\n";
    let at = text.rfind(field).unwrap();
    let mut next = text.clone();
    next.replace_range(at..at + field.len(), "");
    let dir = tempfile::tempdir().unwrap();
    let new = write(dir.path(), "new.yaml", &next);
    let (code, stdout, _) = run(&[&two_versions(), &new]);
    assert_eq!(code, 1, "{stdout}");
    assert_eq!(
        stdout,
        format!(
            "{CRD}: v1: spec.cronSpec: field-removed: field of type string removed [breaking]\n\
             {CRD}: v1beta1 -> v1: spec.cronSpec: served-version-field-removed: field-removed: field of type string removed [breaking]\n\
             compared 1 CRDs: 2 breaking, 0 compatible, 0 informational\n"
        )
    );
}

#[test]
fn markdown_is_a_pull_request_comment() {
    let dir = tempfile::tempdir().unwrap();
    let old = write(dir.path(), "old.yaml", &crontab());
    let new = write(
        dir.path(),
        "new.yaml",
        &crontab()
            .replacen("maximum: 10", "maximum: 5", 1)
            .replacen(r"pattern: '^(\d+|\*)", r"pattern: '^(\d+|\*|`)", 1)
            .replacen(
                "              image:\n                type: string\n",
                "              image:\n                type: string\n              suspend:\n                type: boolean\n",
                1,
            ),
    );
    let (code, stdout, stderr) = run(&["--format", "markdown", &old, &new]);
    assert_eq!(code, 1, "{stderr}");
    // The detail as text prints it (Go-quoted), with `\`, `|`, `*` and the
    // backtick escaped for Markdown.
    let pattern = r#"pattern changed from "^(\\\\d+\|\\\\\*)(/\\\\d+)?(\\\\s+(\\\\d+\|\\\\\*)(/\\\\d+)?){4}$" to "^(\\\\d+\|\\\\\*\|\`)(/\\\\d+)?(\\\\s+(\\\\d+\|\\\\\*)(/\\\\d+)?){4}$""#;
    let expected = format!(
        "## crd-gen diff: failed\n\
         \n\
         Compared 1 CRDs: 2 breaking, 1 compatible, 0 informational; 2 at level error.\n\
         \n\
         | Level | CRD | Version | Field | Rule | Detail |\n\
         | --- | --- | --- | --- | --- | --- |\n\
         | **ERROR** | `{CRD}` | `v1` | `spec.cronSpec` | `pattern-changed` | {pattern} |\n\
         | **ERROR** | `{CRD}` | `v1` | `spec.replicas` | `maximum-tightened` | maximum lowered from 10 to 5 |\n\
         | WARNING | `{CRD}` | `v1` | `spec.suspend` | `field-added` | field of type boolean added |\n"
    );
    assert_eq!(stdout, expected, "got:\n{stdout}");
    // Every table row has the header's six cells: no `|` leaked from a detail.
    for row in stdout.lines().filter(|l| l.starts_with("| ")) {
        let cells = row.replace("\\|", "").matches('|').count();
        assert_eq!(cells, 7, "{row}");
    }

    let (code, stdout, _) = run(&["--format", "markdown", &old, &old]);
    assert_eq!(code, 0);
    assert_eq!(
        stdout,
        "## crd-gen diff: passed, no changes\n\n\
         Compared 1 CRDs: 0 breaking, 0 compatible, 0 informational.\n\n\
         No changes.\n"
    );
}

#[test]
fn markdown_names_unreadable_inputs_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let old = write(dir.path(), "old.yaml", &crontab());
    let missing = dir.path().join("missing.yaml").display().to_string();
    let (code, stdout, stderr) = run(&["--format", "markdown", &old, &missing]);
    assert_eq!(code, 2);
    assert!(stdout.starts_with("## crd-gen diff: errors\n"), "{stdout}");
    assert!(stdout.contains("\nErrors:\n\n- "), "{stdout}");
    assert!(stdout.contains("missing.yaml"), "{stdout}");
    assert!(stderr.contains("missing.yaml"), "{stderr}");
    // A CRD only in OLD is still reported.
    assert!(stdout.contains("`crd-removed`"), "{stdout}");
}

#[test]
fn github_annotations_point_at_the_new_file_and_escape() {
    let dir = tempfile::tempdir().unwrap();
    let old = write(dir.path(), "old.yaml", &crontab());
    // A file name with `,` and `:` (property separators) and a detail with `%`.
    let new = write(
        dir.path(),
        "new,v2:x.yaml",
        &crontab()
            .replacen("maximum: 10", "maximum: 5", 1)
            .replacen(
                "              image:\n                type: string\n",
                "              \"load%\":\n                type: string\n              \"two\\nlines\":\n                type: string\n",
                1,
            )
            .replacen(
                "    - name: Age\n",
                "    - name: Age\n      description: \"Age\\nof the\\r\\nCronTab\"\n",
                1,
            ),
    );
    let (code, stdout, stderr) = run(&["--format", "github", &old, &new]);
    assert_eq!(code, 1, "{stderr}");
    let file = new.replace(':', "%3A").replace(',', "%2C");
    let expected = format!(
        "::notice file={file},title=printer-columns-changed::{CRD}: v1: additionalPrinterColumns[Age]: printer-columns-changed: column Age: type, format, priority or description changed\n\
         ::error file={file},title=field-removed::{CRD}: v1: spec.image: field-removed: field of type string removed\n\
         ::error file={file},title=maximum-tightened::{CRD}: v1: spec.replicas: maximum-tightened: maximum lowered from 10 to 5\n\
         ::warning file={file},title=field-added::{CRD}: v1: spec.load%25: field-added: field of type string added\n\
         ::warning file={file},title=field-added::{CRD}: v1: spec.two%0Alines: field-added: field of type string added\n\
         compared 1 CRDs: 2 breaking, 2 compatible, 1 informational\n"
    );
    assert_eq!(stdout, expected);

    // Served-version findings are annotations too; warn level is ::warning.
    let (code, stdout, _) = run(&["--format", "github", &two_versions()]);
    assert_eq!(code, 1);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{stdout}");
    assert!(lines[0].starts_with(&format!(
        "::error file={},title=served-version-field-removed::{CRD}: v1beta1 -> v1: spec.host:",
        two_versions().replace(':', "%3A").replace(',', "%2C")
    )));
    assert!(lines[1].starts_with("::warning file="), "{}", lines[1]);

    // An unreadable input is an ::error without a file; stdin has no file either.
    let missing = dir.path().join("missing.yaml").display().to_string();
    let (code, stdout, _) = run(&["--format", "github", &old, &missing]);
    assert_eq!(code, 2);
    assert!(stdout.starts_with("::error::"), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "::error file={},title=crd-removed::",
            old.replace(':', "%3A").replace(',', "%2C")
        )),
        "{stdout}"
    );
}

#[test]
fn rules_list_the_served_version_rules_and_markdown_makes_a_table() {
    let (code, stdout, _) = run(&["--rules"]);
    assert_eq!(code, 0);
    let level = |name: &str| {
        let line = stdout
            .lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("{name} not listed"));
        line.split_whitespace().nth(2).unwrap().to_string()
    };
    assert_eq!(level("served-version-field-removed"), "error");
    assert_eq!(level("served-version-type-changed"), "error");
    assert_eq!(level("served-version-required-added"), "error");
    assert_eq!(level("served-version-incompatible"), "error");
    assert_eq!(level("served-version-tightened"), "warn");
    let (_, table, _) = run(&["--rules", "--format", "markdown"]);
    assert!(table.starts_with("| Rule | Class | Default level | Why |\n| --- |"));
    assert!(table.contains("| `served-version-tightened` | breaking | warn | "));
    assert_eq!(table.lines().count(), stdout.lines().count() + 2);
}

#[test]
fn the_corpus_against_itself_has_no_change_and_its_served_versions_some() {
    let corpus = shared("corpus/crds");
    for format in ["markdown", "github"] {
        let (code, stdout, stderr) = run(&["--format", format, &corpus, &corpus]);
        assert_eq!(code, 0, "{format}: {stderr}");
        match format {
            "markdown" => {
                assert!(
                    stdout.starts_with("## crd-gen diff: passed, no changes\n"),
                    "{stdout}"
                );
                assert!(stdout.ends_with("\nNo changes.\n"), "{stdout}");
            }
            _ => {
                // Notes about CRDs defined twice in the corpus, then the summary.
                let last = stdout.lines().last().unwrap();
                assert!(
                    last.ends_with(" CRDs: 0 breaking, 0 compatible, 0 informational"),
                    "{stdout}"
                );
                assert!(
                    stdout
                        .lines()
                        .all(|l| l == last || l.starts_with("::notice::")),
                    "{stdout}"
                );
            }
        }
    }
    // One revision: the corpus's own served versions.
    let (code, stdout, stderr) = run(&["--format", "github", &corpus]);
    assert_eq!(code, 1, "{stderr}");
    let annotations: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("::error file=") || l.starts_with("::warning file="))
        .collect();
    let crds: std::collections::BTreeSet<&str> = annotations
        .iter()
        .map(|l| l.split("::").nth(2).unwrap().split(':').next().unwrap())
        .collect();
    println!(
        "{} corpus CRDs have {} served-version findings",
        crds.len(),
        annotations.len()
    );
    assert!(crds.len() >= 10, "{stdout}");
    // Spot checks, read off the corpus files: prometheus-operator's v1beta1
    // AlertmanagerConfig matches with matchType where v1alpha1 has a regex flag;
    // Tekton's v1 Task dropped PipelineResources (spec.resources); MetalLB's v1beta2
    // BGPPeer defaults peerPort to 179, v1beta1 does not.
    for want in [
        "alertmanagerconfigs.monitoring.coreos.com: v1alpha1 -> v1beta1: spec.inhibitRules[*].sourceMatch[*].regex: served-version-field-removed",
        "tasks.tekton.dev: v1beta1 -> v1: spec.resources: served-version-field-removed: field-removed: field of type object removed",
        "bgppeers.metallb.io: v1beta1 -> v1beta2: spec.peerPort: served-version-incompatible: default-added: default 179 added",
    ] {
        assert!(
            annotations.iter().any(|l| l.contains(want)),
            "{want}\n{stdout}"
        );
    }
    assert!(
        annotations
            .iter()
            .all(|l| l.contains(" -> ") && l.contains(": served-version-")),
        "{stdout}"
    );
}
