//! What `crd-gen` does with no arguments: describe the bundled CronTab CRD.

use std::process::ExitCode;

use crd_runtime::load::load_crds;

/// Prints a summary of the bundled CronTab CRD and a hint about the subcommands.
pub fn run() -> ExitCode {
    let loaded = match load_crds("bundled crontab.yaml", crd_gen::BUNDLED_CRONTAB) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    for doc in &loaded.crds {
        let crd = &doc.crd;
        println!(
            "{} ({}/{}, {})",
            crd.name(),
            crd.spec.group,
            crd.spec.names.kind,
            crd.spec.scope
        );
        for v in &crd.spec.versions {
            let fields = v.open_api_schema().map_or(0, count_nodes);
            println!(
                "  version {}: served={} storage={} schema nodes={fields} printer columns={}",
                v.name,
                v.served,
                v.storage,
                v.additional_printer_columns.as_ref().map_or(0, Vec::len)
            );
        }
    }
    eprintln!("hint: run `crd-gen --help` for the subcommands");
    ExitCode::SUCCESS
}

fn count_nodes(s: &crd_runtime::JSONSchemaProps) -> usize {
    let mut n = 1;
    s.for_each_child(&mut |_, c| n += count_nodes(c));
    n
}
