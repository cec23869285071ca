//! What `crd-gen` does with no arguments: generate Rust for the bundled CronTab CRD.

use std::process::ExitCode;

use crd_gen::Config;

/// Prints the Rust generated for the bundled CronTab CRD (stdout) and a hint about
/// the subcommands (stderr), so that piping the output gives a compilable module.
pub fn run() -> ExitCode {
    let config = Config::new();
    let code = crd_gen::load_input("bundled crontab.yaml", crd_gen::BUNDLED_CRONTAB.as_bytes())
        .and_then(|crds| config.generate(&crds))
        .and_then(|generated| config.single_file(&generated));
    match code {
        Ok(code) => {
            print!("{code}");
            eprintln!(
                "hint: this is the Rust crd-gen generates for the bundled CronTab CRD; \
                 run `crd-gen generate PATH...` for your CRDs, `crd-gen check`, \
                 `crd-gen validate`, `crd-gen diff OLD NEW`, or `crd-gen --help` for all subcommands"
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}
