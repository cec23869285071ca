//! `kube://NAME` and `kube://` against a real client path: crd-server (in process, on a
//! free loopback port) as the cluster, CRDs created with kubectl, and the `crd-gen`
//! binary reaching it through a kubeconfig file with two contexts. A CRD read from the
//! cluster must give exactly what its file gives, for every command.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crd_server::TestServer;

mod common;

use common::git::git;

const BIN: &str = env!("CARGO_BIN_EXE_crd-gen");

/// Corpus CRDs created in the cluster (one through `kubectl apply`, whose
/// last-applied annotation must not leak into what crd-gen reads).
const CORPUS: [&str; 4] = [
    "prometheus-operator/prometheusrules.monitoring.coreos.com.yaml",
    "cert-manager/certificates.cert-manager.io.yaml",
    "keda/scaledobjects.keda.sh.yaml",
    "argo-cd/appprojects.argoproj.io.yaml",
];
const CRONTAB: &str = "crontabs.stable.example.com";

/// A running crd-server holding CRONTAB and the CORPUS, and a kubeconfig whose
/// current context (`dead`) points at a closed port, `live` at the server.
struct Cluster {
    _runtime: tokio::runtime::Runtime,
    _server: TestServer,
    dir: tempfile::TempDir,
    url: String,
}

impl Cluster {
    fn start() -> Cluster {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            // Deep schemas are validated on the server's workers: size their stacks as
            // crd-server's binary does.
            .thread_stack_size(crd_runtime::__private::depth::stack_bytes(
                crd_runtime::__private::depth::MAX_DEPTH,
            ))
            .enable_all()
            .build()
            .unwrap();
        let server = runtime
            .block_on(TestServer::builder().start())
            .expect("crd-server starts");
        let url = server.url();
        let dir = tempfile::tempdir().unwrap();
        let kubeconfig = format!(
            "apiVersion: v1\nkind: Config\n\
             clusters:\n\
             - name: live\n  cluster:\n    server: {url}\n\
             - name: dead\n  cluster:\n    server: https://127.0.0.1:1\n\
             users:\n- name: tester\n  user: {{}}\n\
             contexts:\n\
             - name: live\n  context:\n    cluster: live\n    user: tester\n\
             - name: dead\n  context:\n    cluster: dead\n    user: tester\n\
             current-context: dead\n"
        );
        std::fs::write(dir.path().join("kubeconfig"), kubeconfig).unwrap();
        let cluster = Cluster {
            _runtime: runtime,
            _server: server,
            dir,
            url,
        };
        cluster.kubectl(&["apply", "-f", &crontab_file()]);
        for file in CORPUS {
            // `create`: client-side apply cannot store the largest CRDs' annotation.
            cluster.kubectl(&["create", "-f", &corpus(file)]);
        }
        let mut names = vec![CRONTAB.to_string()];
        names.extend(CORPUS.iter().map(|f| crd_name(f)));
        for name in names {
            cluster.kubectl(&[
                "wait",
                "--for=condition=Established",
                "--timeout=20s",
                &format!("crd/{name}"),
            ]);
        }
        cluster
    }

    fn kubeconfig(&self) -> String {
        self.dir.path().join("kubeconfig").display().to_string()
    }

    fn kubectl(&self, args: &[&str]) {
        let out = Command::new("kubectl")
            .args(["--kubeconfig", &self.kubeconfig(), "--context", "live"])
            .args(args)
            .env("HOME", self.dir.path())
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("cannot run kubectl ({e}); it must be on PATH"));
        assert!(
            out.status.success(),
            "kubectl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// `crd-gen ARGS --kubeconfig FILE --context live`.
    fn crd_gen(&self, args: &[&str]) -> Output {
        self.crd_gen_with(args, &["--context", "live"])
    }

    fn crd_gen_with(&self, args: &[&str], flags: &[&str]) -> Output {
        Command::new(BIN)
            .args(args)
            .args(["--kubeconfig", &self.kubeconfig()])
            .args(flags)
            .env("HOME", self.dir.path())
            .env_remove("KUBECONFIG")
            .stdin(Stdio::null())
            .output()
            .expect("crd-gen runs")
    }
}

fn corpus(file: &str) -> String {
    common::shared()
        .join("corpus/crds")
        .join(file)
        .display()
        .to_string()
}

fn crontab_file() -> String {
    common::shared()
        .join("fixtures/crontab/crd-full.yaml")
        .display()
        .to_string()
}

/// `prometheus-operator/prometheusrules.monitoring.coreos.com.yaml` → its CRD name.
fn crd_name(file: &str) -> String {
    let base = Path::new(file).file_name().unwrap().to_str().unwrap();
    base.trim_end_matches(".yaml").to_string()
}

fn crd_gen(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("crd-gen runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn code(out: &Output) -> i32 {
    out.status.code().expect("exited")
}

#[test]
fn a_crd_read_from_the_cluster_is_its_file_for_every_command() {
    let cluster = Cluster::start();
    let mut files: Vec<(String, String)> =
        CORPUS.iter().map(|f| (crd_name(f), corpus(f))).collect();
    files.push((CRONTAB.to_string(), crontab_file()));

    for (name, file) in &files {
        let source = format!("kube://{name}");
        let from_cluster = cluster.crd_gen(&["generate", &source]);
        let from_file = crd_gen(&["generate", file]);
        assert_eq!(code(&from_file), 0, "{}", text(&from_file.stderr));
        assert_eq!(code(&from_cluster), 0, "{}", text(&from_cluster.stderr));
        assert!(
            from_cluster.stdout == from_file.stdout,
            "generate {source} differs from generate {file}"
        );

        let checked = cluster.crd_gen(&["check", &source]);
        assert_eq!(code(&checked), 0, "{}", text(&checked.stderr));
        assert_eq!(text(&checked.stdout), "checked 1 CRDs: 0 invalid\n");

        let diff = cluster.crd_gen(&["diff", &source, file]);
        assert_eq!(code(&diff), 0, "{}", text(&diff.stderr));
        assert_eq!(
            text(&diff.stdout),
            "compared 1 CRDs: 0 breaking, 0 compatible, 0 informational\n",
            "the CRD in the cluster is its file"
        );
    }

    // kube:// is every CRD, by name: what generate gives for the files in that order.
    files.sort();
    let ordered: Vec<&str> = files.iter().map(|(_, f)| f.as_str()).collect();
    let all = cluster.crd_gen(&["generate", "kube://"]);
    let from_files = crd_gen(&[&["generate"], ordered.as_slice()].concat());
    assert_eq!(code(&all), 0, "{}", text(&all.stderr));
    assert!(all.stdout == from_files.stdout, "generate kube:// differs");
    let checked = cluster.crd_gen(&["check", "kube://"]);
    assert_eq!(text(&checked.stdout), "checked 5 CRDs: 0 invalid\n");

    // validate --crd kube://NAME judges objects as the file does.
    let objects = cluster.dir.path().join("crontabs.yaml");
    std::fs::write(
        &objects,
        "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: good\n\
         spec:\n  cronSpec: '* * * * */5'\n  image: nginx\n  replicas: 1\n---\n\
         apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: bad\n\
         spec:\n  cronSpec: 5\n  replicas: nope\n",
    )
    .unwrap();
    let objects = objects.display().to_string();
    let by_cluster =
        cluster.crd_gen(&["validate", "--crd", &format!("kube://{CRONTAB}"), &objects]);
    let by_file = crd_gen(&["validate", "--crd", &crontab_file(), &objects]);
    assert_eq!(code(&by_file), 1, "{}", text(&by_file.stderr));
    assert_eq!(code(&by_cluster), 1, "{}", text(&by_cluster.stderr));
    assert_eq!(text(&by_cluster.stdout), text(&by_file.stdout));
    assert_eq!(text(&by_cluster.stderr), text(&by_file.stderr));
}

/// One line on stderr naming the source, exit 2, and the other inputs still read.
fn assert_bad_source(out: &Output, expected_line: &str) {
    let stderr = text(&out.stderr);
    assert_eq!(code(out), 2, "{stderr}");
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [expected_line],
        "one line naming the source"
    );
    assert_eq!(
        text(&out.stdout),
        "checked 1 CRDs: 0 invalid\n",
        "the good input is still checked"
    );
}

#[test]
fn bad_sources_are_one_line_each_and_exit_2() {
    let cluster = Cluster::start();
    let good = crontab_file();

    let missing = cluster.crd_gen(&["check", "kube://nope.example.com", &good]);
    assert_bad_source(
        &missing,
        "kube://nope.example.com: customresourcedefinitions.apiextensions.k8s.io \
         \"nope.example.com\" not found",
    );

    // The current context (`dead`) points at a closed port.
    let dead = cluster.crd_gen_with(&["check", "kube://x.example.com", &good], &[]);
    let line = text(&dead.stderr);
    assert!(
        line.starts_with("kube://x.example.com: cannot reach the cluster at https://127.0.0.1:1: "),
        "{line}"
    );
    assert!(
        !line.contains("Error {") && !line.contains("kind:"),
        "no Debug text: {line}"
    );
    assert_bad_source(&dead, line.trim_end());

    let context = cluster.crd_gen_with(&["check", "kube://", &good], &["--context", "nope"]);
    assert_bad_source(&context, "kube://: context \"nope\" does not exist");

    let no_file = cluster.dir.path().join("absent");
    let out = Command::new(BIN)
        .args(["check", "kube://", &good, "--kubeconfig"])
        .arg(&no_file)
        .env_remove("KUBECONFIG")
        .output()
        .unwrap();
    let line = text(&out.stderr);
    assert!(
        line.starts_with(&format!(
            "kube://: cannot read kubeconfig {}: ",
            no_file.display()
        )),
        "{line}"
    );
    assert_bad_source(&out, line.trim_end());

    // No flags, no KUBECONFIG, an empty home: kubectl's lookup finds nothing.
    let out = Command::new(BIN)
        .args(["check", "kube://", &good])
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env("HOME", cluster.dir.path().join("empty-home"))
        .output()
        .unwrap();
    let line = text(&out.stderr);
    assert!(line.starts_with("kube://: no kubeconfig found"), "{line}");
    assert_bad_source(&out, line.trim_end());

    // KUBECONFIG is honoured like kubectl does.
    let out = Command::new(BIN)
        .args(["check", &format!("kube://{CRONTAB}"), "--context", "live"])
        .env("KUBECONFIG", cluster.kubeconfig())
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));

    let malformed = cluster.crd_gen(&["check", "kube://a/b", &good]);
    assert_bad_source(
        &malformed,
        "kube://a/b: expected kube://NAME (a CRD name such as crontabs.stable.example.com) or kube://",
    );

    // generate, diff and roundtrip report the same line, exit 2.
    for args in [
        &["generate", "kube://nope.example.com"][..],
        &["roundtrip", "kube://nope.example.com"],
        &["diff", "kube://nope.example.com", &good],
        &["validate", "--crd", "kube://nope.example.com", &good],
    ] {
        let out = cluster.crd_gen(args);
        assert_eq!(code(&out), 2, "{args:?}");
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains(
                "kube://nope.example.com: customresourcedefinitions.apiextensions.k8s.io \
                 \"nope.example.com\" not found"
            ),
            "{args:?}: {stderr}"
        );
    }
    let _ = PathBuf::from(&cluster.url);
}

/// The pull-request workflow of docs/diff.md: the CRDs of a branch (read from git,
/// here through a clone's `origin/main`) against those of the cluster, as Markdown
/// and as GitHub annotations pointing at the file inside the repository.
#[test]
fn a_git_revision_diffs_against_the_cluster() {
    let cluster = Cluster::start();
    let tmp = tempfile::tempdir().unwrap();
    let origin = tmp.path().join("origin");
    std::fs::create_dir_all(origin.join("config/crd")).unwrap();
    // The branch's CronTab: `maximum` lowered to 5 and a field `suspend` added to what
    // the cluster serves (the fixture).
    let next = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/examples/crontab-crd-next.yaml");
    std::fs::copy(&next, origin.join("config/crd/crontab.yaml")).unwrap();
    git(&origin, &["init", "-q"]);
    git(&origin, &["add", "-A"]);
    git(&origin, &["commit", "-q", "-m", "next"]);
    git(tmp.path(), &["clone", "-q", "origin", "clone"]);
    let clone = tmp.path().join("clone");
    let run = |args: &[&str]| {
        Command::new(BIN)
            .args(args)
            .args(["--kubeconfig", &cluster.kubeconfig(), "--context", "live"])
            .current_dir(&clone)
            .env("HOME", tmp.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env_remove("KUBECONFIG")
            .stdin(Stdio::null())
            .output()
            .expect("crd-gen runs")
    };

    // git → cluster: the cluster lacks the branch's `suspend` and adds four CRDs.
    let report = run(&[
        "diff",
        "--format",
        "markdown",
        "git://main?path=config/crd",
        "kube://",
    ]);
    let markdown = text(&report.stdout);
    assert_eq!(code(&report), 1, "{markdown}{}", text(&report.stderr));
    assert!(
        markdown.starts_with("## crd-gen diff: failed\n"),
        "{markdown}"
    );
    let rows: Vec<&str> = markdown
        .lines()
        .filter(|l| l.starts_with("| **ERROR**"))
        .collect();
    assert_eq!(
        rows,
        [
            "| **ERROR** | `crontabs.stable.example.com` | `v1` | `spec.suspend` | `field-removed` | field of type boolean removed |"
        ],
        "{markdown}"
    );
    for name in CORPUS.iter().map(|f| crd_name(f)) {
        assert!(
            markdown.contains(&format!("| `{name}` | `-` | `<crd>` | `crd-added` |")),
            "{name} added: {markdown}"
        );
    }

    // cluster → the branch (a remote-tracking ref): annotations on the repository path.
    let annotations = run(&[
        "diff",
        "--format",
        "github",
        &format!("kube://{CRONTAB}"),
        "git://origin/main?path=config/crd",
    ]);
    assert_eq!(code(&annotations), 1, "{}", text(&annotations.stderr));
    assert_eq!(
        text(&annotations.stdout),
        "::error file=config/crd/crontab.yaml,title=maximum-tightened::crontabs.stable.example.com: v1: spec.replicas: maximum-tightened: maximum lowered from 10 to 5\n\
         ::warning file=config/crd/crontab.yaml,title=field-added::crontabs.stable.example.com: v1: spec.suspend: field-added: field of type boolean added\n\
         compared 1 CRDs: 1 breaking, 1 compatible, 0 informational\n"
    );
}

/// docs/diff.md, "Stored versions": CronTabs stored in v1, then the storage version
/// moved to v2, so the cluster's CRD lists both in `status.storedVersions`. Diffing it
/// (`kube://`) against a revision without v1 is breaking, and the API server indeed
/// refuses that revision with the words the finding quotes; after a
/// StorageVersionMigration it is the plain version-removed, and accepted.
#[test]
fn removing_a_version_the_cluster_still_stores_is_breaking() {
    let cluster = Cluster::start();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/examples");
    let live = examples.join("crontab-crd-live.yaml").display().to_string();
    let next = examples
        .join("crontab-crd-v2-only.yaml")
        .display()
        .to_string();
    let objects = cluster.dir.path().join("crontab-v1.yaml");
    std::fs::write(
        &objects,
        "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: stored-in-v1\n  \
         namespace: default\nspec:\n  cronSpec: '* * * * */5'\n  image: nginx\n  replicas: 1\n",
    )
    .unwrap();
    cluster.kubectl(&["create", "-f", &objects.display().to_string()]);
    // Storage moves to v2 (the status in the file is ignored: the server keeps its own).
    cluster.kubectl(&["replace", "-f", &live]);
    let kubectl = |args: &[&str]| {
        Command::new("kubectl")
            .args(["--kubeconfig", &cluster.kubeconfig(), "--context", "live"])
            .args(args)
            .env("HOME", cluster.dir.path())
            .stdin(Stdio::null())
            .output()
            .expect("kubectl runs")
    };
    let stored = kubectl(&[
        "get",
        "crd",
        CRONTAB,
        "-o",
        "jsonpath={.status.storedVersions}",
    ]);
    assert_eq!(
        text(&stored.stdout),
        r#"["v1","v2"]"#,
        "{}",
        text(&stored.stderr)
    );

    let refusal = "status.storedVersions[0]: Invalid value: \"v1\": missing from spec.versions; \
                   v1 was previously a storage version, and must remain in spec.versions until a \
                   storage migration ensures no data remains persisted in v1 and removes v1 from \
                   status.storedVersions";
    let diff = cluster.crd_gen(&["diff", &format!("kube://{CRONTAB}"), &next]);
    assert_eq!(code(&diff), 1, "{}", text(&diff.stderr));
    assert_eq!(
        text(&diff.stdout),
        format!(
            "{CRONTAB}: v1: spec.versions: stored-version-removed: version v1 removed while \
             status.storedVersions lists it: objects may still be stored in v1, and the API \
             server refuses the update ({refusal}); migrate the stored objects to the storage \
             version (e.g. with a StorageVersionMigration), then remove v1 from \
             status.storedVersions [breaking]\n\
             compared 1 CRDs: 1 breaking, 0 compatible, 0 informational\n"
        )
    );

    // The server agrees: the revision is refused, in the words the finding quotes.
    let applied = kubectl(&["replace", "-f", &next]);
    assert!(!applied.status.success(), "{}", text(&applied.stdout));
    assert!(
        text(&applied.stderr).contains(refusal),
        "{}",
        text(&applied.stderr)
    );

    // Migrated (the objects rewritten in v2, storedVersions trimmed to [v2]): the
    // removal is the plain version-removed, and the server takes the revision.
    let migration = examples
        .join("storage-version-migration.yaml")
        .display()
        .to_string();
    cluster.kubectl(&["apply", "-f", &migration]);
    cluster.kubectl(&[
        "wait",
        "storageversionmigration/crontabs-to-v2",
        "--for=condition=Succeeded",
        "--timeout=30s",
    ]);
    let diff = cluster.crd_gen(&["diff", &format!("kube://{CRONTAB}"), &next]);
    assert_eq!(code(&diff), 1, "{}", text(&diff.stderr));
    assert_eq!(
        text(&diff.stdout),
        format!(
            "{CRONTAB}: v1: spec.versions: version-removed: version v1 removed [breaking]\n\
             compared 1 CRDs: 1 breaking, 0 compatible, 0 informational\n"
        )
    );
    cluster.kubectl(&["replace", "-f", &next]);
}
