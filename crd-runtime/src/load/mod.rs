//! Reading manifests: multi-document YAML or JSON → JSON values → typed CRDs.
//!
//! YAML is read with `serde-saphyr`. Of the maintained serde YAML crates it is the
//! only one that is not built on a C-to-Rust translation of libyaml (`serde_yaml_ng`
//! and `serde_norway` wrap `unsafe-libyaml`), it forbids `unsafe`, is fuzzed for
//! panics, rejects duplicate keys by default, and enforces a resource [`Budget`]
//! (nesting depth, node count, alias expansion) so hostile input such as
//! "billion laughs" or 10,000-deep nesting fails with an error instead of
//! exhausting memory or the stack. Its errors carry line and column.
//!
//! Manifests in the common subset of YAML (no anchors, tags or merge keys) take a
//! faster route with the same results: a reader straight from the text for the
//! plain style manifests are written in (module `yaml_scan`; it reads every file of
//! the 306-CRD corpus, about 4.5× faster than serde-saphyr, BENCHMARKS.md).
//! [`load_crds`] types what it reads straight from its event tapes, without JSON
//! values in between (module `tape`); everything else, and every error, goes
//! through serde-saphyr and the values.
//!
//! [`Budget`]: serde_saphyr::Budget

#[cfg(feature = "engine")]
mod json_in_place;
mod json_write;
#[cfg(feature = "engine")]
mod messages;
#[cfg(all(test, feature = "engine"))]
mod moving_tests;
#[cfg(feature = "engine")]
mod read;
#[cfg(feature = "engine")]
mod strict_json;
#[cfg(feature = "engine")]
mod tape;
#[cfg(all(test, feature = "engine"))]
mod tape_tests;
#[cfg(feature = "engine")]
mod yaml_scan;
#[cfg(all(test, feature = "engine"))]
mod yaml_scan_plain_tests;
#[cfg(all(test, feature = "engine"))]
mod yaml_scan_props;
#[cfg(all(test, feature = "engine"))]
mod yaml_scan_tests;
mod yaml_write;

#[cfg(feature = "engine")]
pub use json_in_place::{IN_PLACE_DEPTH, JsonInPlace};
pub use json_write::{write_json, write_json_str, write_json_strs};
#[cfg(feature = "engine")]
pub use read::*;
#[cfg(feature = "engine")]
pub use strict_json::{StrictValue, json_message};
pub use yaml_write::{to_yaml, to_yaml_documents};
