//! `crd-gen roundtrip PATH...`: generate Rust (with `generate`'s type options), compile
//! it, emit the CRDs again and compare them with the input.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use crd_gen::roundtrip::{self, Outcome, Source};

use super::inputs::read_inputs;
use super::type_options::TypeOptions;

/// Arguments of `crd-gen roundtrip`.
#[derive(Args, Debug)]
pub struct RoundtripArgs {
    /// CRD manifests: files or directories (walked recursively).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Workspace whose crates the generated code is compiled against (default: the
    /// one this binary was built in). The scratch crate goes to its `target/`.
    #[arg(long)]
    workspace: Option<PathBuf>,
    /// How many differences to list per CRD.
    #[arg(long, default_value_t = 20)]
    max_diffs: usize,
    /// Compile through clippy: a CRD whose module has any warning (rustc's or
    /// clippy's default lints) does not count as identical.
    #[arg(long)]
    clippy: bool,
    #[command(flatten)]
    types: TypeOptions,
}

/// Exit 0 when every CRD round-trips identically, 1 otherwise, 2 on unreadable input.
pub fn run(args: RoundtripArgs) -> ExitCode {
    let inputs = match read_inputs(&args.paths) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let mut sources = Vec::new();
    for input in &inputs {
        match crd_gen::load_input(&input.name, &input.bytes) {
            Ok(crds) => sources.extend(crds.into_iter().map(|crd| Source {
                file: input.name.clone(),
                crd,
            })),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let workspace = args
        .workspace
        .unwrap_or_else(roundtrip::scratch::default_workspace);
    let mut scratch = roundtrip::scratch::Scratch::new(&workspace, "crd-gen-roundtrip");
    scratch.clippy = args.clippy;
    let mut config = crd_gen::Config::new();
    if let Err(e) = args.types.apply(&mut config) {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    let results = match roundtrip::roundtrip_with(&sources, &scratch, &config) {
        Ok(r) => r,
        Err(e) => {
            // A CRD that cannot be generated is named with its file, as `generate` does.
            let load = |s: &Source| Ok(vec![s.crd.clone()]);
            let e = config.naming_input(e, &sources, |s| s.file.clone(), load);
            for line in e.to_string().lines() {
                eprintln!("error: {line}");
            }
            return ExitCode::from(2);
        }
    };
    let identical = results
        .iter()
        .filter(|(_, o)| *o == Outcome::Identical)
        .count();
    for (name, outcome) in &results {
        println!("{}", roundtrip::report_line(name, outcome, args.max_diffs));
        if let Outcome::Warnings(w) = outcome {
            w.iter().for_each(|w| eprintln!("{w}"));
        }
    }
    println!("roundtrip: {identical}/{} identical", results.len());
    if identical == results.len() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
