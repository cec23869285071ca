//! Subcommands of the `crd-gen` binary. Each module owns its arguments and its run function.

pub mod check;
pub mod diff;
pub mod diff_report;
pub mod documents;
pub mod generate;
pub mod inputs;
pub mod policy;
pub mod rbac;
pub mod roundtrip;
pub mod summary;
pub mod type_options;
pub mod validate;
