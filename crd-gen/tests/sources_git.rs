//! `git://REF?path=PATH`: files of a revision of the repository around the working
//! directory, read without a git binary. The scratch repository is made with the git
//! CLI (two commits on `main`, a tag `v1`, a branch `feature`); what crd-gen reads
//! from a revision must be what it reads from those files checked out.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

mod common;

use common::git::git;

const BIN: &str = env!("CARGO_BIN_EXE_crd-gen");

fn crontab() -> String {
    std::fs::read_to_string(common::shared().join("fixtures/crontab/crd-full.yaml")).unwrap()
}

fn appprojects() -> String {
    std::fs::read_to_string(
        common::shared().join("corpus/crds/argo-cd/appprojects.argoproj.io.yaml"),
    )
    .unwrap()
}

/// The CronTab CRD with one text replacement (which must apply).
fn edited(from: &str, to: &str) -> String {
    let text = crontab();
    assert!(text.contains(from), "{from:?} not in the fixture");
    text.replacen(from, to, 1)
}

const NOT_A_CRD: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n";

/// The files of each revision: (path, content).
fn revision_v1() -> Vec<(&'static str, String)> {
    vec![
        ("crds/crontab.yaml", crontab()),
        ("crds/sub/appprojects.yml", appprojects()),
        (
            "crds/sub/config.json",
            "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"c\"}}"
                .to_string(),
        ),
        ("crds/README.md", "not a manifest".to_string()),
        ("other/not-a-crd.yaml", NOT_A_CRD.to_string()),
    ]
}

fn revision_head() -> Vec<(&'static str, String)> {
    let mut files = revision_v1();
    // Dropping a property is breaking for `diff`.
    files[0].1 = edited("              image:\n                type: string\n", "");
    files
}

fn write_tree(dir: &Path, files: &[(&str, String)]) {
    for (path, content) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }
}

/// A scratch repository (`<tmp>/repo`) and each revision checked out on its own
/// (`<tmp>/v1`, `<tmp>/head`, `<tmp>/feature`) for comparison.
struct Scratch {
    tmp: tempfile::TempDir,
}

impl Scratch {
    fn new() -> Scratch {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        std::fs::create_dir(&repo).unwrap();
        git(&repo, &["init", "-q"]);
        write_tree(&repo, &revision_v1());
        git(&repo, &["add", "-A"]);
        git(&repo, &["commit", "-q", "-m", "v1"]);
        git(&repo, &["tag", "v1"]);
        git(&repo, &["branch", "feature"]);
        write_tree(&repo, &revision_head());
        git(&repo, &["commit", "-q", "-a", "-m", "drop image"]);
        // The branch gets a CRD of its own; the working tree stays at main.
        git(&repo, &["checkout", "-q", "feature"]);
        std::fs::write(repo.join("crds/feature.yaml"), appprojects()).unwrap();
        git(&repo, &["add", "-A"]);
        git(&repo, &["commit", "-q", "-m", "feature"]);
        git(&repo, &["checkout", "-q", "main"]);
        // Uncommitted changes are not part of any revision.
        std::fs::write(repo.join("crds/crontab.yaml"), "uncommitted: true\n").unwrap();
        write_tree(&tmp.path().join("v1"), &revision_v1());
        write_tree(&tmp.path().join("head"), &revision_head());
        Scratch { tmp }
    }

    fn repo(&self) -> PathBuf {
        self.tmp.path().join("repo")
    }

    fn checkout(&self, rev: &str, path: &str) -> String {
        self.tmp.path().join(rev).join(path).display().to_string()
    }

    /// crd-gen run inside the repository (or `dir`).
    fn run_in(&self, dir: &Path, args: &[&str]) -> Output {
        Command::new(BIN)
            .args(args)
            .current_dir(dir)
            .env("HOME", self.tmp.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .stdin(Stdio::null())
            .output()
            .expect("crd-gen runs")
    }

    fn run(&self, args: &[&str]) -> Output {
        self.run_in(&self.repo(), args)
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn code(out: &Output) -> i32 {
    out.status.code().expect("exited")
}

/// Same exit code, same stdout, and stderr the same once each name is mapped.
fn assert_same(from_git: &Output, from_files: &Output, names: &[(&str, &str)]) {
    assert_eq!(
        code(from_git),
        code(from_files),
        "{}",
        text(&from_git.stderr)
    );
    assert!(
        from_git.stdout == from_files.stdout,
        "stdout differs:\n{}\n---\n{}",
        text(&from_git.stdout),
        text(&from_files.stdout)
    );
    let mut stderr = text(&from_files.stderr);
    for (file, source) in names {
        stderr = stderr.replace(file, source);
    }
    assert_eq!(text(&from_git.stderr), stderr);
}

#[test]
fn a_revision_reads_like_its_files_checked_out() {
    let s = Scratch::new();
    let v1_crontab = s.checkout("v1", "crds/crontab.yaml");
    let head_crontab = s.checkout("head", "crds/crontab.yaml");
    for (source, file) in [
        ("git://HEAD~1?path=crds/crontab.yaml", &v1_crontab),
        ("git://v1?path=./crds/crontab.yaml", &v1_crontab),
        ("git://feature?path=crds/crontab.yaml", &v1_crontab),
        ("git://HEAD?path=crds/crontab.yaml", &head_crontab),
        ("git://main?path=crds/crontab.yaml", &head_crontab),
    ] {
        let from_git = s.run(&["generate", source]);
        assert_eq!(code(&from_git), 0, "{source}: {}", text(&from_git.stderr));
        assert_same(&from_git, &s.run(&["generate", file]), &[]);
    }

    // A directory: its manifests, recursively, in the file walker's order, each
    // named by its path in the tree.
    let v1_dir = s.checkout("v1", "crds");
    let check_git = s.run(&["check", "git://v1?path=crds/"]);
    let check_files = s.run(&["check", &v1_dir]);
    assert_same(
        &check_git,
        &check_files,
        &[(&format!("{v1_dir}/"), "git://v1?path=crds/")],
    );
    assert_eq!(text(&check_git.stdout), "checked 2 CRDs: 0 invalid\n");
    assert!(
        text(&check_git.stderr).contains("git://v1?path=crds/sub/config.json: document 1: skipped"),
        "{}",
        text(&check_git.stderr)
    );
    assert_same(
        &s.run(&["generate", "git://v1?path=crds"]),
        &s.run(&["generate", &v1_dir]),
        &[],
    );
    // The branch's own CRD, and the repository root (`path=`).
    let feature = s.run(&["check", "git://feature?path=crds"]);
    assert_eq!(text(&feature.stdout), "checked 3 CRDs: 0 invalid\n");
    let root = s.run(&["check", "git://v1?path="]);
    assert_eq!(text(&root.stdout), "checked 2 CRDs: 0 invalid\n");
    assert!(text(&root.stderr).contains("git://v1?path=other/not-a-crd.yaml: document 1: skipped"));

    // From a subdirectory the path is still relative to the repository root.
    let sub = s.repo().join("crds/sub");
    let from_sub = s.run_in(&sub, &["check", "git://HEAD?path=crds/crontab.yaml"]);
    assert_eq!(text(&from_sub.stdout), "checked 1 CRDs: 0 invalid\n");

    // diff between two revisions is diff between their checkouts.
    let head_dir = s.checkout("head", "crds");
    let diff_git = s.run(&["diff", "git://v1?path=crds", "git://HEAD?path=crds"]);
    let diff_files = s.run(&["diff", &v1_dir, &head_dir]);
    assert_eq!(code(&diff_git), 1, "a dropped property is breaking");
    assert_same(&diff_git, &diff_files, &[]);
    assert!(
        text(&diff_git.stdout).contains("spec.image"),
        "{}",
        text(&diff_git.stdout)
    );

    // validate --crd from a revision judges objects as the file does.
    let objects = s.tmp.path().join("objects.yaml");
    std::fs::write(
        &objects,
        "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: a\n\
         spec:\n  cronSpec: '* * * * */5'\n  image: 5\n",
    )
    .unwrap();
    let objects = objects.display().to_string();
    let by_git = s.run(&[
        "validate",
        "--crd",
        "git://v1?path=crds/crontab.yaml",
        &objects,
    ]);
    assert_eq!(code(&by_git), 1, "image must be a string at v1");
    assert_same(
        &by_git,
        &s.run(&["validate", "--crd", &v1_crontab, &objects]),
        &[],
    );
}

/// One line on stderr, exit 2, the good input still checked.
fn assert_bad(out: &Output, expected: &str) {
    let stderr = text(&out.stderr);
    assert_eq!(code(out), 2, "{stderr}");
    assert_eq!(stderr.lines().collect::<Vec<_>>(), [expected]);
    assert_eq!(text(&out.stdout), "checked 1 CRDs: 0 invalid\n");
}

#[test]
fn bad_git_sources_are_one_line_each_and_exit_2() {
    let s = Scratch::new();
    let good = s.checkout("v1", "crds/crontab.yaml");
    assert_bad(
        &s.run(&["check", "git://nope?path=crds", &good]),
        "git://nope?path=crds: unknown revision \"nope\": Reference \"nope\" could not be found",
    );
    assert_bad(
        &s.run(&["check", "git://v1?path=crds/absent.yaml", &good]),
        "git://v1?path=crds/absent.yaml: path \"crds/absent.yaml\" does not exist in revision \"v1\"",
    );
    // The branch's file is not in main.
    assert_bad(
        &s.run(&["check", "git://main?path=crds/feature.yaml", &good]),
        "git://main?path=crds/feature.yaml: path \"crds/feature.yaml\" does not exist in revision \"main\"",
    );
    assert_bad(
        &s.run(&["check", "git://v1", &good]),
        "git://v1: expected git://REF?path=PATH (missing `?path=`)",
    );
    // Outside any repository.
    let outside = s.tmp.path().join("v1");
    let out = s.run_in(&outside, &["check", "git://HEAD?path=crds", &good]);
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with("git://HEAD?path=crds: Could not find a git repository in"),
        "{stderr}"
    );
    assert_bad(&out, stderr.trim_end());

    for args in [
        &["generate", "git://nope?path=crds"][..],
        &["roundtrip", "git://nope?path=crds"],
        &["diff", "git://nope?path=crds", &good],
        &["validate", "--crd", "git://nope?path=crds", &good],
    ] {
        let out = s.run(args);
        assert_eq!(code(&out), 2, "{args:?}");
        assert!(
            text(&out.stderr).contains("git://nope?path=crds: unknown revision \"nope\""),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
}
