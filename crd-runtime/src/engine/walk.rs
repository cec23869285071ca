//! The extension point for validation beyond the API server's own (policy checks,
//! admission-webhook logic under test).
//!
//! A [`ValidationPass`] runs after the built-in passes (schema, embedded resources,
//! list types, CEL) with the new value and, on updates, the old value.

use std::fmt;

use serde_json::Value;

use crate::field::ErrorList;

/// What a pass gets to look at.
#[derive(Clone, Copy, Debug)]
pub struct PassContext<'a> {
    /// The object being validated (already pruned and defaulted by `admit`).
    pub value: &'a Value,
    /// The previous object on updates.
    pub old: Option<&'a Value>,
}

/// A validation pass added to an [`Engine`](super::Engine) with
/// [`Engine::with_pass`](super::Engine::with_pass). Errors must use the API server's
/// wording and full paths, like the built-in passes.
pub trait ValidationPass: Send + Sync + fmt::Debug {
    /// Appends the errors found in `cx.value`.
    fn validate(&self, cx: &PassContext<'_>, errors: &mut ErrorList);
}
