//! Prints the CronTab CRD as YAML: `cargo run -q --example crontab | kubectl apply -f -`.

use crd_runtime::CustomResourceExt;
use crd_toolkit_examples::crontab::CronTab;

fn main() -> std::process::ExitCode {
    match CronTab::crd_yaml() {
        Ok(yaml) => {
            print!("{yaml}");
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: cannot render the CronTab CRD: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
