//! Selectors, one module per kind of selector:
//!
//! - [`label`]: label selectors — the `labelSelector=` of list and watch, a
//!   `metav1.LabelSelector` object of a kind's spec (parsed, matched, validated with
//!   apimachinery's `ValidateLabelSelector`, printed);
//! - [`field`]: the `fieldSelector=` of list and watch.

pub mod field;
pub mod label;

pub use field::FieldSelector;
pub use label::LabelSelector;
