//! Typed attribute IR: `#[crd(...)]` parsed into structs, every error with a span.

pub mod fragment;
pub mod meta;
pub mod node;
pub mod resource;
pub mod value;
