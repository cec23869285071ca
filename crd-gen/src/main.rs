//! The `crd-gen` command line: a thin layer over crd-gen and crd-runtime.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cli;

// Generation allocates millions of small strings and token trees; mimalloc spends
// markedly less time in malloc/free than the system allocator (BENCHMARKS.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Check, validate and generate Rust from Kubernetes CustomResourceDefinitions.
#[derive(Parser)]
#[command(name = "crd-gen", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// The kubeconfig context `kube://` sources use (default: its current-context).
    #[arg(long, global = true, value_name = "NAME")]
    context: Option<String>,
    /// The kubeconfig file `kube://` sources use (default: KUBECONFIG, then ~/.kube/config).
    #[arg(long, global = true, value_name = "FILE")]
    kubeconfig: Option<PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    /// Check CRDs against the API server's structural-schema and CRD rules.
    Check(cli::check::Args),
    /// Prune, default and validate objects like the API server (by CRD or bare schema).
    Validate(cli::validate::Args),
    /// Generate typed Rust (crd-derive structs and enums) from CRD manifests.
    Generate(cli::generate::GenerateArgs),
    /// Generate Rust, compile it, emit the CRDs again and compare with the input.
    Roundtrip(cli::roundtrip::RoundtripArgs),
    /// Compare two revisions of CRDs (or the served versions of one): what changed, and what breaks stored objects or clients.
    Diff(cli::diff::Args),
    /// Least-privilege Roles from an audit log for one user, or check given Roles against it.
    Rbac(cli::rbac::Args),
}

fn main() -> ExitCode {
    // `crd-gen generate ... | head` closes the pipe early: end quietly, as Unix tools
    // do, instead of panicking in `print!` (Rust ignores SIGPIPE by default).
    #[cfg(unix)]
    // SAFETY: restoring the default action of one signal, before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    cli::inputs::set_source_options(crd_gen::source::Options {
        context: cli.context,
        kubeconfig: cli.kubeconfig,
    });
    // Every command may hold, walk and drop a CRD whose schema nests as deep as its
    // JSON allows (10,000 levels; drops and several walks recurse once per level):
    // run it on a stack sized for that, whatever stack the main thread has.
    crd_runtime::__private::depth::with_stack_for(crd_runtime::__private::depth::MAX_DEPTH, || {
        dispatch(cli.command)
    })
}

fn dispatch(command: Option<Command>) -> ExitCode {
    match command {
        None => cli::summary::run(),
        Some(Command::Check(args)) => cli::check::run(args),
        Some(Command::Validate(args)) => cli::validate::run(args),
        Some(Command::Generate(args)) => cli::generate::run(args),
        Some(Command::Roundtrip(args)) => cli::roundtrip::run(args),
        Some(Command::Diff(args)) => cli::diff::run(args),
        Some(Command::Rbac(args)) => cli::rbac::run(args),
    }
}
