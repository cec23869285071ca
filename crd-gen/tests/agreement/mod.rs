//! The judges of the agreement table and the runner that compares their verdicts.
//!
//! Every disagreement is collected, and the test fails once with all of them.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use crd_runtime::{CustomResourceExt, KubeVersion};
use crd_server::TestServer;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_crd-gen");

/// The derived judge: `admit()` for a create, the type's engine for an update.
type AdmitFn = fn(&Value, Option<&Value>) -> Result<(), String>;

/// One object of a case: created, or updated from `old`, and admitted or denied.
pub struct Obj {
    object: Value,
    old: Option<Value>,
    /// The field path and the text of the expected error.
    denied: Option<(&'static str, &'static str)>,
    /// What `admit()` says instead, where it judges a value already in memory (no
    /// decoder to quote).
    admit_denied: Option<&'static str>,
}

impl Obj {
    /// An object with `spec` etc. as given (apiVersion, kind and metadata are added).
    pub fn new(body: Value) -> Obj {
        Obj {
            object: body,
            old: None,
            denied: None,
            admit_denied: None,
        }
    }

    /// Judged as an update of `old`.
    pub fn update_of(mut self, old: Value) -> Obj {
        self.old = Some(old);
        self
    }

    /// Denied with an error on `path` containing `text`.
    pub fn denied(mut self, path: &'static str, text: &'static str) -> Obj {
        self.denied = Some((path, text));
        self
    }

    /// `admit()`'s error text, where it differs from the decoders' (see the field).
    pub fn admit_denied(mut self, text: &'static str) -> Obj {
        self.admit_denied = Some(text);
        self
    }
}

/// One derived resource, the first release whose server accepts its rules in a new
/// CRD (0: every supported release), and its objects.
pub struct Case {
    kind: &'static str,
    crd_name: String,
    api_version: String,
    crd_yaml: String,
    since: u32,
    refusal: Option<&'static str>,
    objects: Vec<Obj>,
    admit: AdmitFn,
}

impl Case {
    pub fn new<T: CustomResourceExt + Serialize + DeserializeOwned>(since: u32) -> Case {
        Case {
            kind: T::KIND,
            crd_name: T::crd_name(),
            api_version: format!("{}/{}", T::GROUP, T::VERSION),
            crd_yaml: T::crd_yaml().expect("the derived CRD serializes"),
            since,
            refusal: None,
            objects: Vec::new(),
            admit: admit_with::<T>,
        }
    }

    /// Refused by releases before `since` with an error containing `text`.
    pub fn refused_before(mut self, text: &'static str) -> Case {
        self.refusal = Some(text);
        self
    }

    pub fn object(mut self, o: Obj) -> Case {
        self.objects.push(o);
        self
    }

    /// The releases this case is judged at: the one before `since`, `since`, newest.
    fn releases(&self) -> Vec<KubeVersion> {
        let mut minors = vec![KubeVersion::NEWEST.minor()];
        if self.since > 0 {
            minors.extend([self.since.saturating_sub(1), self.since]);
        }
        minors.sort_unstable();
        minors.dedup();
        minors
            .into_iter()
            .filter_map(|m| KubeVersion::new(m).ok())
            .collect()
    }

    fn accepted_at(&self, v: KubeVersion) -> bool {
        v.minor() >= self.since
    }

    fn full(&self, body: &Value, name: &str) -> Value {
        let mut o = json!({
            "apiVersion": self.api_version,
            "kind": self.kind,
            "metadata": {"name": name, "namespace": "default"},
        });
        if let (Some(o), Some(b)) = (o.as_object_mut(), body.as_object()) {
            o.extend(b.clone());
        }
        o
    }
}

fn admit_with<T: CustomResourceExt + Serialize + DeserializeOwned>(
    object: &Value,
    old: Option<&Value>,
) -> Result<(), String> {
    match old {
        None => {
            let mut typed: T = serde_json::from_value(object.clone()).map_err(|e| e.to_string())?;
            typed.admit().map_err(|e| e.to_string())
        }
        Some(old) => {
            let engine = T::engine().map_err(|e| e.to_string())?;
            let mut v = object.clone();
            engine.admit_update(&mut v, old).map_err(|e| e.to_string())
        }
    }
}

/// What one judge said: accepted, or the text of its refusal.
type Verdict = Result<(), String>;

struct Report {
    problems: Vec<String>,
}

impl Report {
    /// `verdict` must be `Ok` when `expected` is `None`, else an error mentioning
    /// every part of `expected`.
    fn expect(&mut self, what: &str, verdict: &Verdict, expected: Option<&[&str]>) {
        match (verdict, expected) {
            (Ok(()), None) => {}
            (Ok(()), Some(parts)) => self.problems.push(format!(
                "{what}: accepted, expected a refusal with {parts:?}"
            )),
            (Err(e), None) => self
                .problems
                .push(format!("{what}: refused, expected acceptance:\n    {e}")),
            (Err(e), Some(parts)) => {
                if let Some(p) = parts.iter().find(|p| !e.contains(**p)) {
                    self.problems
                        .push(format!("{what}: refused without {p:?}:\n    {e}"));
                }
            }
        }
    }
}

fn output(out: Output) -> (bool, String) {
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

fn verdict(out: Output) -> Verdict {
    match output(out) {
        (true, _) => Ok(()),
        (false, text) => Err(text),
    }
}

fn kubectl(url: &str, home: &Path, args: &[&str]) -> Output {
    Command::new("kubectl")
        .arg("-s")
        .arg(url)
        .args(args)
        .env("KUBECONFIG", home.join("config"))
        .env("HOME", home)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run kubectl ({e}); it must be installed and on PATH"))
}

fn crd_gen(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("crd-gen runs")
}

fn write(dir: &Path, name: &str, v: &Value) -> String {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_vec(v).unwrap()).unwrap();
    path.to_string_lossy().into_owned()
}

/// Runs every case through every judge at its releases; fails once, listing every
/// disagreement.
pub fn run_table(table: &[Case]) {
    let dir = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        // An embedded server's deep requests run on its caller's workers
        // (docs/limits.md): size them as crd-server's own binary does.
        .thread_stack_size(crd_runtime::__private::depth::stack_bytes(
            crd_runtime::__private::depth::MAX_DEPTH,
        ))
        .enable_all()
        .build()
        .unwrap();
    let mut servers: BTreeMap<u32, TestServer> = BTreeMap::new();
    let mut report = Report {
        problems: Vec::new(),
    };
    for (ci, case) in table.iter().enumerate() {
        let crd_path = dir.path().join(format!("{}.crd.yaml", case.kind));
        std::fs::write(&crd_path, &case.crd_yaml).unwrap();
        let crd_file = crd_path.to_string_lossy().into_owned();
        for v in case.releases() {
            let version = format!("1.{}", v.minor());
            let at = format!("{} at {version}", case.kind);
            let refusal = (!case.accepted_at(v)).then(|| vec![case.refusal.unwrap_or("")]);
            let check = verdict(crd_gen(&["check", "--kube-version", &version, &crd_file]));
            report.expect(&format!("{at}: crd-gen check"), &check, refusal.as_deref());

            let server = servers.entry(v.minor()).or_insert_with(|| {
                rt.block_on(TestServer::builder().kube_version(v).start())
                    .expect("crd-server starts")
            });
            let url = server.url();
            let home = dir.path().join(format!("home-{}", v.minor()));
            std::fs::create_dir_all(&home).unwrap();
            let installed = verdict(kubectl(&url, &home, &["create", "-f", &crd_file]));
            report.expect(&format!("{at}: crd-server"), &installed, refusal.as_deref());
            if refusal.is_some() || installed.is_err() {
                continue;
            }
            let established = kubectl(
                &url,
                &home,
                &[
                    "wait",
                    "--for=condition=Established",
                    "--timeout=10s",
                    &format!("crd/{}", case.crd_name),
                ],
            );
            assert!(established.status.success(), "{at}: not established");
            for (oi, o) in case.objects.iter().enumerate() {
                judge_object(&mut report, dir.path(), &url, &home, case, ci, oi, o, v);
            }
        }
    }
    if !report.problems.is_empty() {
        let mut msg = format!("{} disagreement(s):\n", report.problems.len());
        for p in &report.problems {
            let _ = writeln!(msg, "- {p}");
        }
        panic!("{msg}");
    }
}

#[allow(clippy::too_many_arguments)]
fn judge_object(
    report: &mut Report,
    dir: &Path,
    url: &str,
    home: &Path,
    case: &Case,
    ci: usize,
    oi: usize,
    o: &Obj,
    v: KubeVersion,
) {
    let name = format!("o{ci}-{oi}");
    let version = format!("1.{}", v.minor());
    let what = format!(
        "{} object {oi} ({}) at {version}",
        case.kind,
        if o.old.is_some() { "update" } else { "create" }
    );
    let object = case.full(&o.object, &name);
    let old = o.old.as_ref().map(|old| case.full(old, &name));
    let expected: Option<Vec<&str>> = o.denied.map(|(path, text)| vec![path, text]);
    let obj_file = write(dir, &format!("{name}-{}.json", v.minor()), &object);
    let crd_file = dir
        .join(format!("{}.crd.yaml", case.kind))
        .to_string_lossy()
        .into_owned();

    // crd-gen validate (with --old for an update).
    let mut args = vec!["validate", "--kube-version", &version, "--crd", &crd_file];
    let old_file = old
        .as_ref()
        .map(|old| write(dir, &format!("{name}-{}.old.json", v.minor()), old));
    if let Some(f) = &old_file {
        args.extend(["--old", f]);
    }
    args.push(&obj_file);
    let validated = verdict(crd_gen(&args));
    report.expect(
        &format!("{what}: crd-gen validate"),
        &validated,
        expected.as_deref(),
    );

    // crd-server through kubectl: create, or create the old object and replace it.
    let served = match &old_file {
        None => verdict(kubectl(url, home, &["create", "-f", &obj_file])),
        Some(f) => match verdict(kubectl(url, home, &["create", "-f", f])) {
            Err(e) => Err(format!("the old object was refused: {e}")),
            Ok(()) => verdict(kubectl(url, home, &["replace", "-f", &obj_file])),
        },
    };
    report.expect(&format!("{what}: crd-server"), &served, expected.as_deref());

    // The derived type's engine is built for the newest release.
    if v == KubeVersion::NEWEST {
        let admitted = (case.admit)(&object, old.as_ref());
        let expected = match o.admit_denied {
            Some(text) => Some(vec![text]),
            None => expected,
        };
        report.expect(&format!("{what}: admit()"), &admitted, expected.as_deref());
    }
}
