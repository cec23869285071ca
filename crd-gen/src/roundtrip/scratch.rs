//! A scratch workspace that compiles generated modules against this workspace's crates.
//!
//! Used by `crd-gen roundtrip` and by the compile tests. It lives under the workspace
//! `target/` directory and holds one binary crate per *chunk* of CRDs, all sharing one
//! target directory and the workspace `Cargo.lock` (same dependency versions, no
//! resolution work). Chunks keep each rustc invocation to a bounded amount of generated
//! code (the largest corpus CRDs expand to megabytes of derive output), let cargo use
//! every core, and confine a compile failure to one chunk: `cargo build --keep-going`
//! still builds and runs all others. Files are rewritten only where content changed, so
//! a second run is an incremental build of the chunks that changed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::Value;

use crate::codegen::{GeneratedCrd, naming};
use crate::{Config, Error, walk, write_if_changed};

/// Generated source bytes per chunk; a CRD larger than this gets a chunk of its own.
pub const CHUNK_BYTES: usize = 1_500_000;

/// A scratch workspace directory.
pub struct Scratch {
    /// The scratch workspace directory.
    pub dir: PathBuf,
    /// The workspace root whose crates it depends on.
    pub workspace: PathBuf,
    /// Compile the chunks through `clippy-driver` (as `cargo clippy` does, but
    /// building the binaries too), so lints come with the same build.
    pub clippy: bool,
    /// The Kubernetes version of generated code that reuses k8s-openapi types: the
    /// chunks then depend on k8s-openapi with that version feature and enable
    /// crd-runtime's `kube`.
    pub k8s_version: Option<String>,
}

/// The CRD modules of one chunk crate.
#[derive(Clone, Debug)]
pub struct Chunk {
    /// Package (and binary) name, `crd-gen-scratch-<n>`.
    pub name: String,
    /// The generated CRDs compiled in it.
    pub crds: Vec<GeneratedCrd>,
}

/// A compiler or clippy warning in a chunk.
#[derive(Clone, Debug)]
pub struct Warning {
    /// The chunk (package) it was reported in.
    pub chunk: String,
    /// The generated module it points at (`None`: elsewhere, e.g. `main.rs`).
    pub module: Option<String>,
    /// The warning as rustc renders it.
    pub rendered: String,
}

/// The outcome of `cargo build` on the scratch workspace.
#[derive(Debug, Default)]
pub struct BuildOutcome {
    /// Chunks (package names) whose binary was built.
    pub built: BTreeSet<String>,
    /// Modules (CRD module names) with compile errors, and the first error of each.
    pub failing: Vec<(String, String)>,
    /// Per chunk, errors that point at no generated module (an error in `main.rs`).
    pub other_errors: BTreeMap<String, Vec<String>>,
    /// Per chunk that cargo reports as failed, the first lines of its stderr (a rustc
    /// crash or a linker error leave no diagnostics).
    pub crashed: BTreeMap<String, String>,
    /// Every error as rustc renders it, for humans.
    pub diagnostics: Vec<String>,
    /// Warnings (rustc's and, with [`Scratch::clippy`], clippy's): the module they
    /// point at (`None`: elsewhere, e.g. `main.rs`) and the rendered warning.
    pub warnings: Vec<Warning>,
    /// Cargo's own failure when it built nothing at all.
    pub cargo_error: Option<String>,
}

/// The workspace root this binary was built in (`crd-gen/..`).
pub fn default_workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// Splits `generated` into chunks of at most `budget` bytes of generated source
/// (`sizes[i]` for `generated[i]`), at least `min_chunks` when there are that many
/// CRDs. First-fit decreasing keeps the chunk count low; the result depends only on
/// the input, so a second run maps every CRD to the same chunk.
pub fn plan_chunks(
    generated: &[GeneratedCrd],
    sizes: &[usize],
    budget: usize,
    min_chunks: usize,
) -> Vec<Chunk> {
    let total: usize = sizes.iter().sum();
    let budget = budget.min(total.div_ceil(min_chunks.max(1))).max(1);
    let mut order: Vec<usize> = (0..generated.len()).collect();
    order.sort_by(|&a, &b| sizes[b].cmp(&sizes[a]).then(a.cmp(&b)));
    let mut bins: Vec<(usize, Vec<usize>)> = Vec::new();
    for i in order {
        match bins.iter_mut().find(|(used, _)| used + sizes[i] <= budget) {
            Some((used, members)) => {
                *used += sizes[i];
                members.push(i);
            }
            None => bins.push((sizes[i], vec![i])),
        }
    }
    bins.into_iter()
        .enumerate()
        .map(|(n, (_, mut members))| {
            members.sort_unstable();
            Chunk {
                name: format!("crd-gen-scratch-{n:03}"),
                crds: members.into_iter().map(|i| generated[i].clone()).collect(),
            }
        })
        .collect()
}

impl Scratch {
    /// A scratch workspace named `name` under `<workspace>/target/`.
    pub fn new(workspace: &Path, name: &str) -> Scratch {
        // The scratch crates name the workspace's crates by path from another
        // directory: a relative workspace (`--workspace .`) must be made absolute.
        let workspace = std::path::absolute(workspace).unwrap_or_else(|_| workspace.to_path_buf());
        Scratch {
            dir: workspace.join("target").join(name),
            workspace,
            clippy: false,
            k8s_version: None,
        }
    }

    fn chunk_dir(&self, chunk: &str) -> PathBuf {
        self.dir.join(chunk)
    }

    /// Writes the workspace: its `Cargo.toml` listing the chunks, the lock file, and
    /// per chunk a crate with the generated modules under `src/crds/` and a
    /// `src/main.rs` printing one JSON line per CRD (its merged CRD or the merge
    /// error). Chunk crates of an earlier run that are not listed are removed.
    pub fn write(&self, chunks: &[Chunk]) -> Result<(), Error> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| Error::Io { path, source }
        };
        std::fs::create_dir_all(&self.dir).map_err(io(&self.dir))?;
        let members: Vec<String> = chunks.iter().map(|c| toml_string(&c.name)).collect();
        let manifest = format!(
            "# @generated by crd-gen (scratch workspace for compile checks and round trips)\n\
             [workspace]\nresolver = \"3\"\nmembers = [{}]\n\n\
             [profile.dev]\ndebug = 0\n\n[profile.dev.package.\"*\"]\nopt-level = 1\n",
            members.join(", "),
        );
        write_if_changed(&self.dir.join("Cargo.toml"), &manifest)?;
        if let Ok(lock) = std::fs::read_to_string(self.workspace.join("Cargo.lock")) {
            write_if_changed(&self.dir.join("Cargo.lock"), &lock)?;
        }
        let keep: BTreeSet<&str> = chunks.iter().map(|c| c.name.as_str()).collect();
        for path in walk::entries(&self.dir)? {
            let name = file_name(&path);
            let stale_chunk = name.starts_with("crd-gen-scratch") && !keep.contains(&*name);
            // `src` is the single-crate layout of older versions.
            if (stale_chunk || name == "src") && path.is_dir() {
                std::fs::remove_dir_all(&path).map_err(io(&path))?;
            }
        }
        let runtime = self.workspace.join("crd-runtime");
        let (runtime_features, k8s_openapi) = match &self.k8s_version {
            Some(version) => (
                "\"derive\", \"kube\"",
                format!(
                    "k8s-openapi = {{ version = {}, features = [{}] }}\n",
                    toml_string(crd_runtime::k8s_schemas::K8S_OPENAPI_VERSION),
                    toml_string(&format!("v{}", version.replace('.', "_"))),
                ),
            ),
            None => ("\"derive\"", String::new()),
        };
        for chunk in chunks {
            let dir = self.chunk_dir(&chunk.name);
            let crds_dir = dir.join("src/crds");
            std::fs::create_dir_all(&crds_dir).map_err(io(&crds_dir))?;
            let manifest = format!(
                "[package]\nname = {}\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
                 [dependencies]\ncrd-runtime = {{ path = {}, features = [{runtime_features}] }}\n\
                 serde = {{ version = \"1\", features = [\"derive\"] }}\nserde_json = \"1\"\n{k8s_openapi}",
                toml_string(&chunk.name),
                toml_string(&runtime.display().to_string()),
            );
            write_if_changed(&dir.join("Cargo.toml"), &manifest)?;
            let keep: BTreeSet<String> = chunk
                .crds
                .iter()
                .map(|g| format!("{}.rs", g.module))
                .chain(["mod.rs".to_string()])
                .collect();
            for path in walk::entries(&crds_dir)? {
                if !keep.contains(&*file_name(&path)) {
                    std::fs::remove_file(&path).map_err(io(&path))?;
                }
            }
            Config::new().write_modules(&chunk.crds, &crds_dir)?;
            let main = crate::codegen::format::format_file("scratch main", main_rs(&chunk.crds))?;
            write_if_changed(&dir.join("src/main.rs"), &main)?;
        }
        Ok(())
    }

    /// `cargo build --workspace --keep-going` of every chunk, with JSON diagnostics
    /// mapped to the generated modules and chunks.
    pub fn build(&self) -> Result<BuildOutcome, Error> {
        let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
        cmd.args(["build", "--workspace", "--keep-going", "--quiet"])
            .arg("--message-format=json")
            .current_dir(&self.dir)
            .env("CARGO_TARGET_DIR", self.dir.join("target"));
        if self.clippy {
            // Only workspace members (the chunks) go through clippy; `-D warnings`
            // is applied by the caller, which treats every warning as a failure.
            cmd.env(
                "RUSTC_WORKSPACE_WRAPPER",
                std::env::var_os("CLIPPY_DRIVER").unwrap_or_else(|| "clippy-driver".into()),
            );
        } else {
            cmd.env_remove("RUSTC_WORKSPACE_WRAPPER");
        }
        let output = cmd.output().map_err(|source| Error::Io {
            path: self.dir.clone(),
            source,
        })?;
        let mut out = parse_messages(&String::from_utf8_lossy(&output.stdout));
        // A chunk whose rustc died (signal, out of memory) has no diagnostics: the
        // reason is only on stderr, which names the package.
        let stderr = String::from_utf8_lossy(&output.stderr);
        let lines: Vec<&str> = stderr.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if let Some(rest) = line.strip_prefix("error: could not compile `")
                && let Some(package) = rest.split('`').next()
            {
                // `Caused by: process didn't exit successfully: <command> (signal: 9, …)`
                let cause = lines[i + 1..]
                    .iter()
                    .take(3)
                    .find_map(|l| l.rfind("(signal").map(|at| l[at..].to_string()));
                let detail = match cause {
                    Some(c) => format!("rustc failed {c}"),
                    None => line.trim_start_matches("error: ").to_string(),
                };
                out.crashed.entry(package.to_string()).or_insert(detail);
            }
        }
        if !output.status.success() && out.built.is_empty() && out.diagnostics.is_empty() {
            out.cargo_error = Some(stderr.trim().to_string());
        }
        Ok(out)
    }

    /// Runs the built binary of `chunk` and returns its standard output.
    pub fn run(&self, chunk: &str) -> Result<String, Error> {
        let exe = self
            .dir
            .join("target/debug")
            .join(format!("{chunk}{}", std::env::consts::EXE_SUFFIX));
        let output = Command::new(&exe).output().map_err(|source| Error::Io {
            path: exe.clone(),
            source,
        })?;
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }
}

/// Reads cargo's JSON messages: built binaries and errors, mapped to modules.
fn parse_messages(stdout: &str) -> BuildOutcome {
    let mut out = BuildOutcome::default();
    for line in stdout.lines() {
        let Ok(msg) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let package = package_name(msg["package_id"].as_str().unwrap_or(""));
        if msg["reason"] == "compiler-artifact" && msg["target"]["kind"][0] == "bin" {
            out.built.insert(package);
            continue;
        }
        if msg["reason"] != "compiler-message" {
            continue;
        }
        let message = &msg["message"];
        if message["level"] == "warning" {
            let text = message["message"].as_str().unwrap_or("");
            if text.ends_with("emitted") {
                continue; // `N warnings emitted`
            }
            let mut files = Vec::new();
            file_names(&message["spans"], &mut files);
            let module = files.iter().find_map(|f| module_of(f));
            let rendered = message["rendered"].as_str().unwrap_or(text).trim_end();
            out.warnings.push(Warning {
                chunk: package,
                module,
                rendered: rendered.to_string(),
            });
            continue;
        }
        if message["level"] != "error" {
            continue;
        }
        let text = message["message"].as_str().unwrap_or("").to_string();
        if text.starts_with("aborting due to") {
            continue;
        }
        if let Some(rendered) = message["rendered"].as_str() {
            out.diagnostics
                .push(format!("{package}: {}", rendered.trim_end()));
        }
        // The primary span may be inside a macro; the generated file is then
        // named in the expansion chain.
        let mut files = Vec::new();
        file_names(&message["spans"], &mut files);
        let at = message["spans"]
            .as_array()
            .and_then(|s| s.iter().find(|s| s["is_primary"] == true))
            .map(|s| {
                format!(
                    " at {}:{}",
                    s["file_name"].as_str().unwrap_or("?"),
                    s["line_start"]
                )
            })
            .unwrap_or_default();
        match files.iter().find_map(|f| module_of(f)) {
            Some(m) => {
                if !out.failing.iter().any(|(f, _)| *f == m) {
                    out.failing.push((m, format!("{text}{at}")));
                }
            }
            None => out
                .other_errors
                .entry(package)
                .or_default()
                .push(format!("{text}{at}")),
        }
    }
    out
}

/// The package name in a cargo package id: `path+file:///…/chunk#name@0.0.0`,
/// `registry+…#name@1.0`, or the older `name 0.0.0 (path+file://…)`.
fn package_name(id: &str) -> String {
    if let Some((_, rest)) = id.rsplit_once('#') {
        let name_ver = rest.split('@').next().unwrap_or(rest);
        // `…/crd-gen-scratch-001#0.0.0`: the name is the last path segment.
        if name_ver.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            let path = id.rsplit_once('#').map(|(p, _)| p).unwrap_or(id);
            return path.rsplit('/').next().unwrap_or(path).to_string();
        }
        return name_ver.to_string();
    }
    id.split(' ').next().unwrap_or(id).to_string()
}
/// Every `file_name` anywhere below `v` (spans and their macro expansions).
fn file_names(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            for (k, v) in map {
                match (k.as_str(), v) {
                    ("file_name", Value::String(f)) => out.push(f.clone()),
                    _ => file_names(v, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|i| file_names(i, out)),
        _ => {}
    }
}

/// `src/crds/<module>.rs` → `<module>`.
fn module_of(file: &str) -> Option<String> {
    let file = file.replace('\\', "/");
    let rest = file.split("src/crds/").nth(1)?;
    let name = rest.strip_suffix(".rs")?;
    (name != "mod").then(|| name.to_string())
}

fn file_name(path: &Path) -> std::borrow::Cow<'_, str> {
    path.file_name().unwrap_or_default().to_string_lossy()
}

fn toml_string(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

/// The root type of a generated version module, as crd-derive names it.
pub fn root_type(kind: &str) -> String {
    naming::type_name(&[kind])
}

/// `main()`: for each CRD, merge the `crd()` of every version and print
/// `{"name": <module>, "crd": ...}` or `{"name": <module>, "error": ...}` as one JSON
/// line (the module, unlike the CRD name, is unique within a run).
fn main_rs(generated: &[GeneratedCrd]) -> TokenStream {
    let entries = generated.iter().map(|g| {
        let name = &g.module;
        let module = format_ident!("{}", g.module);
        let versions = g.versions.iter().map(|v| {
            let vmod = crate::codegen::emit_ident(&v.module);
            let root = format_ident!("{}", root_type(&g.kind));
            quote!(<crds::#module::#vmod::#root as ::crd_runtime::CustomResourceExt>::crd())
        });
        quote! {
            emit(#name, ::crd_runtime::merge_versions(&[#(#versions),*]).map_err(|e| e.to_string()));
        }
    });
    quote! {
        #![allow(dead_code)]
        mod crds;

        fn emit(name: &str, crd: ::std::result::Result<::crd_runtime::CustomResourceDefinition, ::std::string::String>) {
            let line = match crd {
                Ok(crd) => ::serde_json::json!({"name": name, "crd": crd}),
                Err(e) => ::serde_json::json!({"name": name, "error": e}),
            };
            println!("{line}");
        }

        fn main() {
            #(#entries)*
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scratch_workspace_needs_no_patch() {
        // crd-runtime's dependencies (the CEL forks) come by name, as for any dependent:
        // the scratch manifest is a user's, with no `[patch]` copied in.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Cargo.toml"), "[workspace]\nmembers = []\n").unwrap();
        let scratch = Scratch::new(dir.path(), "s");
        scratch.write(&[]).unwrap();
        let manifest = std::fs::read_to_string(scratch.dir.join("Cargo.toml")).unwrap();
        assert!(manifest.contains("[workspace]"), "{manifest}");
        assert!(!manifest.contains("[patch"), "{manifest}");
    }

    #[test]
    fn a_relative_workspace_is_made_absolute() {
        // The scratch crates name the workspace's crates by path from their own
        // directory (`--workspace .` failed before).
        let scratch = Scratch::new(Path::new("."), "t");
        assert!(
            scratch.workspace.is_absolute(),
            "{}",
            scratch.workspace.display()
        );
        assert!(scratch.dir.starts_with(&scratch.workspace));
    }

    #[test]
    fn modules_from_diagnostic_paths() {
        assert_eq!(module_of("src/crds/crontab.rs").as_deref(), Some("crontab"));
        assert_eq!(
            module_of("/x/target/s/src/crds/a_b.rs").as_deref(),
            Some("a_b")
        );
        assert_eq!(module_of("src/crds/mod.rs"), None);
        assert_eq!(module_of("src/main.rs"), None);
    }

    #[test]
    fn package_names_from_ids() {
        assert_eq!(
            package_name("path+file:///t/s/crd-gen-scratch-001#0.0.0"),
            "crd-gen-scratch-001"
        );
        assert_eq!(
            package_name("path+file:///t/s/chunk#crd-gen-scratch-002@0.0.0"),
            "crd-gen-scratch-002"
        );
        assert_eq!(
            package_name("registry+https://github.com/rust-lang/crates.io-index#serde@1.0.0"),
            "serde"
        );
        assert_eq!(package_name("serde 1.0.0 (registry+https://x)"), "serde");
    }

    fn crd(module: &str) -> GeneratedCrd {
        GeneratedCrd {
            crd_name: format!("{module}.example.com"),
            module: module.to_string(),
            kind: "X".to_string(),
            versions: Vec::new(),
        }
    }

    #[test]
    fn chunks_respect_the_budget_and_are_deterministic() {
        let generated: Vec<GeneratedCrd> = ["a", "b", "c", "d", "e"].map(crd).to_vec();
        let sizes = [50, 400, 30, 200, 60];
        let chunks = plan_chunks(&generated, &sizes, 250, 1);
        let modules: Vec<Vec<&str>> = chunks
            .iter()
            .map(|c| c.crds.iter().map(|g| g.module.as_str()).collect())
            .collect();
        // The oversized CRD is alone; the others are packed largest first.
        assert_eq!(modules, [vec!["b"], vec!["a", "d"], vec!["c", "e"]]);
        assert_eq!(chunks[2].name, "crd-gen-scratch-002");
        // At least two chunks when asked, even under the budget.
        assert_eq!(plan_chunks(&generated, &sizes, 10_000, 2).len(), 2);
        assert!(plan_chunks(&[], &[], 10, 2).is_empty());
    }
}
