//! crd-gen: Kubernetes CRDs → typed Rust, as a library for `build.rs` and as a CLI.
//!
//! In a build script, one line generates a module per CRD into `OUT_DIR`:
//!
//! ```no_run
//! // build.rs
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     crd_gen::compile_crds(&["crds/"])?;
//!     Ok(())
//! }
//! ```
//!
//! and the crate includes them with
//! `include!(concat!(env!("OUT_DIR"), "/crds.rs"));`. Use [`Config`] for
//! everything else (versions, kinds, derives, map type, docs, layout).
//!
//! Entry points:
//! - [`compile_crds`] and [`Config`] (`&mut self` builder, [`Config::compile`]): Rust
//!   from CRD manifests, for build scripts;
//! - [`load_input`] / [`load_inputs`]: reading CRD manifests (YAML or JSON, v1beta1
//!   converted);
//! - [`codegen`]: the generator itself ([`codegen::generate`], [`codegen::Options`]);
//! - [`roundtrip`]: generate, compile, emit the CRDs again and compare with the input;
//! - [`json_stream::for_each_json_value`]: objects to validate, as one JSON document or
//!   JSON lines, each bad line costing only itself.
//! - [`policy::PolicySet`]: admission policies, bindings and parameters from files,
//!   evaluated on objects as the API server would (`crd-gen validate --policy`).
//! - [`rbac`]: least-privilege Roles from an audit log, and a check of given Roles
//!   against it (`crd-gen rbac`).
//!
//! The listing of every public item is `public-api.txt` beside this crate's manifest.
//!
//! The generated types use `#[derive(CustomResource, CrdSchema)]` from crd-derive
//! (through `crd_runtime` with its `derive` feature) with every attribute needed for
//! the derived CRD to equal the source CRD.
#![deny(missing_docs)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crd_runtime::CustomResourceDefinition;

pub mod codegen;
mod error;
pub mod json_stream;
// The crd-gen binary's thread pool (the binary is a crate of its own, so it must be
// `pub`); not an API.
#[doc(hidden)]
pub mod par;
pub mod policy;
pub mod rbac;
pub mod roundtrip;
pub mod source;
pub mod walk;

pub use error::Error;

use codegen::{GenError, GeneratedCrd, GeneratedFile, MapType, Options};

/// The bundled CronTab CRD from the Kubernetes documentation, used when the CLI
/// runs without arguments.
pub const BUNDLED_CRONTAB: &str = include_str!("../data/crontab.yaml");

/// Name of the include file [`Config::compile`] writes into the output directory.
pub const INCLUDE_FILE: &str = "crds.rs";

/// Generates Rust for every CRD found under `paths` (files or directories) into
/// `OUT_DIR`, with the include file [`INCLUDE_FILE`]. For build scripts.
pub fn compile_crds(paths: &[impl AsRef<Path>]) -> Result<(), Error> {
    Config::new().compile(paths)
}

/// Reads every CRD of one manifest (YAML or JSON, multi-document, `List`s, v1 and
/// v1beta1); other documents are ignored.
pub fn load_input(name: &str, bytes: &[u8]) -> Result<Vec<CustomResourceDefinition>, Error> {
    deep_safe(|| {
        Ok(crd_runtime::load::load_crds_bytes(name, bytes)?
            .crds
            .into_iter()
            .map(|d| d.crd)
            .collect())
    })
}

/// Reads many manifests at once (`(name, bytes)` pairs), parsing them in parallel;
/// the CRDs are in input order. The first unreadable input is the error.
pub fn load_inputs<S: AsRef<str> + Sync, B: AsRef<[u8]> + Sync>(
    inputs: &[(S, B)],
) -> Result<Vec<CustomResourceDefinition>, Error> {
    load_loaded(
        inputs,
        |(_, bytes)| bytes.as_ref().len(),
        |(name, bytes)| load_input(name.as_ref(), bytes.as_ref()),
    )
}

/// [`load_inputs`] for inputs that `load` reads and parses on the workers (see
/// [`Config::generate_loaded`]); the first input that cannot be read
/// ([`Error::Io`]) is the error, else the first that does not load.
pub fn load_loaded<T: Sync>(
    inputs: &[T],
    cost: impl Fn(&T) -> usize,
    load: impl Fn(&T) -> Result<Vec<CustomResourceDefinition>, Error> + Sync,
) -> Result<Vec<CustomResourceDefinition>, Error> {
    // Moved, not cloned (`concat` clones every CRD, and a deep schema with it).
    deep_safe(|| {
        Ok(first_unreadable_first(par::map(inputs, cost, load))?
            .into_iter()
            .flatten()
            .collect())
    })
}

/// Runs `f`, which loads, walks and drops CRDs, on a stack big enough for schemas
/// as deep as a CRD body can carry (its JSON's 10,000 levels): a schema's drop and
/// several walks recurse once per level, and build scripts and test threads have
/// small stacks. Reserved, not committed: a shallow schema touches little of it.
pub(crate) fn deep_safe<R>(f: impl FnOnce() -> R) -> R {
    crd_runtime::__private::depth::with_stack_for(crd_runtime::__private::depth::MAX_DEPTH, f)
}

/// Runs `f`, which walks `crds`, on a stack sized for their deepest schema.
fn sized_for<R>(crds: &[CustomResourceDefinition], f: impl FnOnce() -> R) -> R {
    let depth = crds
        .iter()
        .map(crd_runtime::__private::depth::schema::crd_schema_depth)
        .max()
        .unwrap_or(0);
    crd_runtime::__private::depth::schema::with_schema_stack(depth, f)
}

/// Generator configuration (builder: every setter takes and returns `&mut Self`).
#[derive(Clone, Debug)]
pub struct Config {
    opts: Options,
    flat: bool,
    out_dir: Option<PathBuf>,
    include_file: String,
    emit_rerun: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config::new()
    }
}

impl Config {
    /// Defaults: all versions and kinds, `BTreeMap`, doc comments, nested modules,
    /// output to `OUT_DIR`, include file [`INCLUDE_FILE`].
    pub fn new() -> Config {
        Config {
            opts: Options::default(),
            flat: false,
            out_dir: None,
            include_file: INCLUDE_FILE.to_string(),
            emit_rerun: true,
        }
    }

    /// Only generate these versions (none given: all).
    pub fn versions(&mut self, versions: &[impl AsRef<str>]) -> &mut Self {
        self.opts.versions = to_set(versions);
        self
    }

    /// Only generate these kinds (none given: all).
    pub fn kinds(&mut self, kinds: &[impl AsRef<str>]) -> &mut Self {
        self.opts.kinds = to_set(kinds);
        self
    }

    /// Extra derives for every generated type (`"Default"`, `"Eq"`, `"::my::Trait"`).
    /// The std derives that need the trait of every field (`Eq`, `Hash`, `PartialOrd`,
    /// `Ord`, `Default`, `Copy`) go only on the types whose fields allow them; an enum
    /// deriving `Default` defaults to the schema's `default` value, else its first.
    pub fn derives(&mut self, derives: &[impl AsRef<str>]) -> &mut Self {
        self.opts.extra_derives = derives.iter().map(|d| d.as_ref().to_string()).collect();
        self
    }

    /// Map type for `additionalProperties`.
    pub fn map_type(&mut self, map_type: MapType) -> &mut Self {
        self.opts.map_type = map_type;
        self
    }

    /// Descriptions as doc comments (`true`, the default) or as `description`
    /// keywords only.
    pub fn docs(&mut self, docs: bool) -> &mut Self {
        self.opts.docs = docs;
        self
    }

    /// Share identical nested types (default `true`).
    pub fn dedup(&mut self, dedup: bool) -> &mut Self {
        self.opts.dedup = dedup;
        self
    }

    /// Flat layout: version modules named `<crd>_<version>` at the top level instead
    /// of a module per CRD holding a module per version.
    pub fn flat(&mut self, flat: bool) -> &mut Self {
        self.flat = flat;
        self
    }

    /// Output directory for [`Config::compile`] (default: `OUT_DIR`).
    pub fn out_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// Name of the include file written next to the modules.
    pub fn include_file(&mut self, name: impl Into<String>) -> &mut Self {
        self.include_file = name.into();
        self
    }

    /// Whether [`Config::compile`] prints `cargo:rerun-if-changed` lines (default
    /// `true`).
    pub fn emit_rerun_if_changed(&mut self, emit: bool) -> &mut Self {
        self.emit_rerun = emit;
        self
    }

    /// Path of the runtime crate in generated code (default `::crd_runtime`).
    pub fn runtime_crate(&mut self, path: &str) -> &mut Self {
        self.opts.runtime = match path.parse::<proc_macro2::TokenStream>() {
            Ok(_) => path.to_string(),
            Err(_) => "::crd_runtime".to_string(),
        };
        self
    }

    /// Reuse k8s-openapi types (`--k8s-types`): a nested schema node equal to what
    /// crd-derive emits for a k8s-openapi type (`Condition`, `LabelSelector`,
    /// `ResourceRequirements`, `PodTemplateSpec`, ...) in everything but descriptions
    /// becomes that type; differing nested descriptions are kept with
    /// `#[crd(descriptions = ...)]`, so the derived CRD is the input. Uses the newest
    /// Kubernetes version's schemas unless [`Config::k8s_version`] picks another. The
    /// crate compiling the code needs crd-runtime's `kube` feature and k8s-openapi
    /// with the same version feature (`v1_37`).
    pub fn k8s_types(&mut self, on: bool) -> &mut Self {
        self.opts.k8s_types = if on {
            let version = self
                .opts
                .k8s_types
                .map_or(crd_runtime::k8s_schemas::latest_version(), |t| t.version());
            codegen::k8s::K8sTypes::of(version)
        } else {
            None
        };
        self
    }

    /// Reuse k8s-openapi types with the schemas of this Kubernetes version (`"1.33"`,
    /// as k8s-openapi's `v1_33` feature); an error for a version without schemas
    /// ([`crd_runtime::k8s_schemas::VERSIONS`]).
    pub fn k8s_version(&mut self, version: &str) -> Result<&mut Self, Error> {
        let types = codegen::k8s::K8sTypes::of(version)
            .ok_or_else(|| Error::UnsupportedK8sVersion(version.to_string()))?;
        self.opts.k8s_types = Some(types);
        Ok(self)
    }

    /// The generator options.
    pub fn options(&self) -> &Options {
        &self.opts
    }

    /// Generates the modules for `crds`.
    pub fn generate(&self, crds: &[CustomResourceDefinition]) -> Result<Vec<GeneratedCrd>, Error> {
        sized_for(crds, || Ok(codegen::generate(crds, &self.opts)?))
    }

    /// Generates and formats one module file per CRD, on every core (the fast path
    /// of [`Config::write_crds`] and build scripts).
    pub fn generate_files(
        &self,
        crds: &[CustomResourceDefinition],
    ) -> Result<Vec<GeneratedFile>, Error> {
        sized_for(crds, || Ok(codegen::generate_files(crds, &self.opts)?))
    }

    /// Reads the manifests `inputs` (`(name, bytes)` pairs) and generates and formats
    /// one module file per CRD, in a single pass over every core: each worker loads a
    /// manifest and turns its CRDs into text right away, moving the schemas into the
    /// generator, so no schema is copied and the models do not pile up in memory.
    /// Same files as [`load_inputs`] then [`Config::generate_files`]; a manifest that
    /// cannot be read is reported before any generation error.
    pub fn generate_inputs<S: AsRef<str> + Sync, B: AsRef<[u8]> + Sync>(
        &self,
        inputs: &[(S, B)],
    ) -> Result<Vec<GeneratedFile>, Error> {
        self.generate_loaded(
            inputs,
            |(_, bytes)| bytes.as_ref().len(),
            |(name, bytes)| load_input(name.as_ref(), bytes.as_ref()),
        )
    }

    /// [`Config::generate_inputs`] for inputs that `load` reads and parses on the
    /// worker that generates them (for example file paths: reading then overlaps
    /// generating instead of coming first). `cost` estimates an input's size, so the
    /// largest start first. Errors come as if every input had been loaded first: the
    /// first input that cannot be read ([`Error::Io`]), else the first that does not
    /// load, else the first generation error.
    pub fn generate_loaded<T: Sync>(
        &self,
        inputs: &[T],
        cost: impl Fn(&T) -> usize,
        load: impl Fn(&T) -> Result<Vec<CustomResourceDefinition>, Error> + Sync,
    ) -> Result<Vec<GeneratedFile>, Error> {
        deep_safe(|| self.generate_loaded_here(inputs, cost, load))
    }

    /// [`Config::generate_loaded`] on the caller's stack.
    fn generate_loaded_here<T: Sync>(
        &self,
        inputs: &[T],
        cost: impl Fn(&T) -> usize,
        load: impl Fn(&T) -> Result<Vec<CustomResourceDefinition>, Error> + Sync,
    ) -> Result<Vec<GeneratedFile>, Error> {
        type Pending = (codegen::ModuleKey, Result<Option<String>, GenError>);
        let per_input = par::map(inputs, cost, |input| -> Result<Vec<Pending>, Error> {
            Ok(load(input)?
                .into_iter()
                .filter(|crd| codegen::kind_selected(crd, &self.opts))
                .map(|crd| {
                    let key = codegen::ModuleKey::of(&crd);
                    (key, codegen::crd_file_owned(crd, &self.opts))
                })
                .collect())
        });
        let (mut keys, mut contents) = (Vec::new(), Vec::new());
        for pending in first_unreadable_first(per_input)? {
            for (key, file) in pending {
                keys.push(key);
                contents.push(file);
            }
        }
        Ok(codegen::name_files(&keys, contents)?)
    }

    /// Reads the manifests `inputs`, generates, and writes the modules into `dir` like
    /// [`Config::write_crds`]; returns how many CRDs were generated and how many files
    /// changed.
    pub fn write_inputs<S: AsRef<str> + Sync, B: AsRef<[u8]> + Sync>(
        &self,
        inputs: &[(S, B)],
        dir: &Path,
    ) -> Result<(usize, usize), Error> {
        self.write_loaded(
            inputs,
            |(_, bytes)| bytes.as_ref().len(),
            |(name, bytes)| load_input(name.as_ref(), bytes.as_ref()),
            dir,
        )
    }

    /// [`Config::write_inputs`] for inputs loaded on the workers (see
    /// [`Config::generate_loaded`]).
    pub fn write_loaded<T: Sync>(
        &self,
        inputs: &[T],
        cost: impl Fn(&T) -> usize,
        load: impl Fn(&T) -> Result<Vec<CustomResourceDefinition>, Error> + Sync,
        dir: &Path,
    ) -> Result<(usize, usize), Error> {
        deep_safe(|| {
            if self.flat {
                return self.write_crds(&load_loaded(inputs, cost, load)?, dir);
            }
            let files = self.generate_loaded_here(inputs, cost, load)?;
            Ok((files.len(), write_modules_and_index(dir, &files)?))
        })
    }

    /// Generates `crds` and writes them into `dir` like [`Config::write_modules`]
    /// (the flat layout: one `mod.rs`); returns how many CRDs were generated and how
    /// many files changed.
    pub fn write_crds(
        &self,
        crds: &[CustomResourceDefinition],
        dir: &Path,
    ) -> Result<(usize, usize), Error> {
        sized_for(crds, || {
            if self.flat {
                let generated = self.generate(crds)?;
                return Ok((generated.len(), self.write_modules(&generated, dir)?));
            }
            let files = self.generate_files(crds)?;
            Ok((files.len(), write_modules_and_index(dir, &files)?))
        })
    }

    /// All generated modules as one formatted file (`--stdout`).
    pub fn single_file(&self, generated: &[GeneratedCrd]) -> Result<String, Error> {
        Ok(codegen::single_file(generated, self.flat)?)
    }

    /// [`Config::generate`] then [`Config::single_file`] in one step; with the
    /// nested layout the CRDs are generated and formatted on every core (same text).
    pub fn generate_single_file(&self, crds: &[CustomResourceDefinition]) -> Result<String, Error> {
        sized_for(crds, || {
            if self.flat {
                return self.single_file(&self.generate(crds)?);
            }
            Ok(codegen::single_file_nested(crds, &self.opts)?)
        })
    }

    /// Reads `paths`, generates, and writes the modules plus the include file into
    /// the output directory. Files are rewritten only when their content changed.
    pub fn compile(&self, paths: &[impl AsRef<Path>]) -> Result<(), Error> {
        deep_safe(|| self.compile_here(paths))
    }

    /// [`Config::compile`] on the caller's stack.
    fn compile_here(&self, paths: &[impl AsRef<Path>]) -> Result<(), Error> {
        let files = collect_files(paths)?;
        if self.emit_rerun {
            for p in paths {
                println!("cargo:rerun-if-changed={}", p.as_ref().display());
            }
            for f in &files {
                println!("cargo:rerun-if-changed={}", f.display());
            }
        }
        let mut inputs = Vec::new();
        for f in &files {
            let bytes = std::fs::read(f).map_err(|source| Error::Io {
                path: f.clone(),
                source,
            })?;
            inputs.push((f.display().to_string(), bytes));
        }
        let out_dir = match &self.out_dir {
            Some(d) => d.clone(),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or(Error::NoOutDir)?,
        };
        let naming_input = |e| {
            self.naming_input(
                e,
                &inputs,
                |(name, _)| name.clone(),
                |(name, bytes)| load_input(name, bytes),
            )
        };
        if self.flat {
            let generated = self
                .generate(&load_inputs(&inputs)?)
                .map_err(naming_input)?;
            let file = self.single_file(&generated)?;
            write_all(&out_dir, &[], (&self.include_file, file))?;
            return Ok(());
        }
        let files = self.generate_inputs(&inputs).map_err(naming_input)?;
        let mut include = String::from(
            "// @generated by crd-gen: includes the generated CRD modules. Do not edit.\n",
        );
        for f in &files {
            // In `OUT_DIR` the path is spelled through it (the include file may be
            // copied); elsewhere it is relative to the include file, beside it.
            let path = if self.out_dir.is_none() {
                format!("concat!(env!(\"OUT_DIR\"), \"/{}.rs\")", f.module)
            } else {
                format!("\"{}.rs\"", f.module)
            };
            include.push_str(&format!(
                "#[doc = \" The CustomResourceDefinition `{}`.\"]\npub mod {} {{\n    include!({path});\n}}\n",
                f.crd_name.escape_default(),
                f.module,
            ));
        }
        write_all(&out_dir, &files, (&self.include_file, include))?;
        Ok(())
    }

    /// Writes `<module>.rs` per CRD and a `mod.rs` declaring them into `dir` (flat
    /// layout: everything in `mod.rs`); returns how many files changed.
    pub fn write_modules(&self, generated: &[GeneratedCrd], dir: &Path) -> Result<usize, Error> {
        if self.flat {
            let file = self.single_file(generated)?;
            return write_all(dir, &[], ("mod.rs", file));
        }
        let files = generated
            .iter()
            .map(|g| {
                Ok(GeneratedFile {
                    crd_name: g.crd_name.clone(),
                    module: g.module.clone(),
                    contents: g.to_file()?,
                })
            })
            .collect::<Result<Vec<_>, GenError>>()?;
        write_modules_and_index(dir, &files)
    }
}

/// Writes the module files and the `mod.rs` declaring them (nested layout); returns
/// how many files changed.
/// The results, or the error to report: the first [`Error::Io`] (an input that
/// could not be read), else the first error.
fn first_unreadable_first<R>(results: Vec<Result<R, Error>>) -> Result<Vec<R>, Error> {
    let mut first_error = None;
    let mut ok = Vec::with_capacity(results.len());
    for result in results {
        match result {
            Ok(r) => ok.push(r),
            Err(e @ Error::Io { .. }) => {
                if !matches!(first_error, Some(Error::Io { .. })) {
                    first_error = Some(e);
                }
            }
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(ok),
    }
}

fn write_modules_and_index(dir: &Path, files: &[GeneratedFile]) -> Result<usize, Error> {
    let index = mod_rs(
        files
            .iter()
            .map(|f| (f.crd_name.as_str(), f.module.as_str())),
    );
    write_all(dir, files, ("mod.rs", index))
}

/// The `mod.rs` declaring one module per `(crd name, module)`.
fn mod_rs<'a>(modules: impl Iterator<Item = (&'a str, &'a str)>) -> String {
    let mut out = String::from("// @generated by crd-gen. Do not edit.\n");
    for (crd_name, module) in modules {
        out.push_str(&format!(
            "#[doc = \" The CustomResourceDefinition `{}`.\"]\npub mod {module};\n",
            crd_name.escape_default(),
        ));
    }
    out
}

/// Writes `<module>.rs` per file and the index file into `dir` (created if needed);
/// returns how many files changed.
fn write_all(
    dir: &Path,
    files: &[GeneratedFile],
    (index_name, index): (&str, String),
) -> Result<usize, Error> {
    std::fs::create_dir_all(dir).map_err(|source| Error::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    // Comparing with what is there reads every old file: do that on every core.
    // Writes stay on one thread (creating files in one directory from several
    // threads only contends on it).
    let paths: Vec<PathBuf> = files
        .iter()
        .map(|f| dir.join(format!("{}.rs", f.module)))
        .collect();
    let unchanged = par::map(
        &paths.iter().zip(files).collect::<Vec<_>>(),
        |(_, f)| f.contents.len(),
        |(path, f)| holds(path, &f.contents),
    );
    let mut changed = 0;
    for ((path, f), unchanged) in paths.iter().zip(files).zip(unchanged) {
        if !unchanged {
            write(path, &f.contents)?;
            changed += 1;
        }
    }
    changed += usize::from(write_if_changed(&dir.join(index_name), &index)?);
    Ok(changed)
}

fn to_set(items: &[impl AsRef<str>]) -> BTreeSet<String> {
    items.iter().map(|s| s.as_ref().to_string()).collect()
}

/// Writes `content` unless the file already holds exactly that; returns whether it
/// wrote (an unchanged file keeps its mtime, so cargo does not rebuild).
pub fn write_if_changed(path: &Path, content: &str) -> Result<bool, Error> {
    if holds(path, content) {
        return Ok(false);
    }
    write(path, content)?;
    Ok(true)
}

/// Whether the file at `path` holds exactly `content` (a missing or unreadable file
/// does not).
fn holds(path: &Path, content: &str) -> bool {
    use std::io::Read;
    let Ok(mut file) = std::fs::File::open(path) else {
        return false;
    };
    // A different length needs no read.
    if !file
        .metadata()
        .is_ok_and(|m| m.len() == content.len() as u64)
    {
        return false;
    }
    // Compared chunk by chunk through one small buffer: reading whole files into
    // fresh memory costs more in page faults than the comparison itself.
    let mut buf = [0u8; 16 * 1024];
    let mut rest = content.as_bytes();
    loop {
        match file.read(&mut buf) {
            Ok(0) => return rest.is_empty(),
            Ok(n) if n <= rest.len() && buf[..n] == rest[..n] => rest = &rest[n..],
            Ok(_) => return false,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
}

fn write(path: &Path, content: &str) -> Result<(), Error> {
    std::fs::write(path, content).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Expands directories (recursively, `*.yaml`, `*.yml`, `*.json`, in path order;
/// see [`walk`]).
pub fn collect_files(paths: &[impl AsRef<Path>]) -> Result<Vec<PathBuf>, Error> {
    walk::expand(paths)
}
