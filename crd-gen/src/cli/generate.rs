//! `crd-gen generate PATH... [-o DIR | --stdout]`: CRD manifests → Rust modules.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use crd_gen::Config;
use crd_gen::codegen::GenError;

use super::inputs::{Source, list_sources};
use super::type_options::TypeOptions;

/// Arguments of `crd-gen generate`.
#[derive(Args, Debug)]
pub struct GenerateArgs {
    /// CRD manifests: files, directories (walked recursively) or `-` for stdin.
    /// Multi-document YAML, JSON, `List`s, v1 and v1beta1 are accepted.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Write one `<module>.rs` per CRD and a `mod.rs` into this directory.
    #[arg(short = 'o', long = "out-dir", conflicts_with = "stdout")]
    out_dir: Option<PathBuf>,
    /// Print all modules to standard output (the default without `-o`).
    #[arg(long)]
    stdout: bool,
    /// Only generate these versions (repeatable or comma-separated).
    #[arg(long = "version", value_delimiter = ',')]
    versions: Vec<String>,
    /// Only generate these kinds (repeatable or comma-separated).
    #[arg(long = "kind", value_delimiter = ',')]
    kinds: Vec<String>,
    #[command(flatten)]
    types: TypeOptions,
    /// Module layout: `nested` (a module per CRD holding a module per version) or
    /// `flat` (with --stdout: the version modules of every CRD at top level, named
    /// `<crd>_<version>`).
    #[arg(long, value_enum, default_value_t = LayoutArg::Nested)]
    layout: LayoutArg,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum LayoutArg {
    Nested,
    Flat,
}

/// Runs `generate`: exit 0 on success, 1 when a CRD cannot be generated, 2 on
/// unreadable input.
pub fn run(args: GenerateArgs) -> ExitCode {
    let sources = match list_sources(&args.paths) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let mut config = Config::new();
    config
        .versions(&args.versions)
        .kinds(&args.kinds)
        .flat(matches!(args.layout, LayoutArg::Flat));
    if let Err(e) = args.types.apply(&mut config) {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    // Each worker reads the files it generates.
    let load = |source: &Source| crd_gen::load_input(&source.name(), &source.read()?);
    if let Some(dir) = &args.out_dir {
        return match config.write_loaded(&sources, Source::len, load, dir) {
            Ok((generated, written)) => {
                eprintln!(
                    "generated {generated} CRD module(s) into {} ({written} file(s) changed)",
                    dir.display()
                );
                ExitCode::SUCCESS
            }
            Err(crd_gen::Error::Generate(e)) => report(&sources, &config, e),
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(2)
            }
        };
    }
    let crds = match crd_gen::load_loaded(&sources, Source::len, load) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if crds.is_empty() {
        // An empty module would compile, and hide a wrong path or a typo in CI.
        let names: Vec<String> = sources.iter().map(Source::name).collect();
        eprintln!(
            "error: no CustomResourceDefinition found in {}",
            names.join(", ")
        );
        return ExitCode::from(2);
    }
    match config.generate_single_file(&crds) {
        Ok(code) => {
            print!("{code}");
            ExitCode::SUCCESS
        }
        Err(crd_gen::Error::Generate(e)) => report(&sources, &config, e),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

/// Prints a generation error line by line, each naming the input that defines the
/// CRD (`error: FILE: CRD: field: ...`); exit 1.
fn report(sources: &[Source], config: &Config, e: GenError) -> ExitCode {
    let load = |source: &Source| crd_gen::load_input(&source.name(), &source.read()?);
    let e = config.naming_input(crd_gen::Error::Generate(e), sources, Source::name, load);
    for line in e.to_string().lines() {
        eprintln!("error: {line}");
    }
    ExitCode::from(1)
}
