//! Schemas nested as deep as a CRD body can carry them.
//!
//! kube-apiserver has no schema depth limit of its own: a schema is bounded only by
//! the 10,000 JSON levels its CRD body may nest ([`super::MAX_DEPTH`]). Each
//! `properties` level costs two of them, an `items` level one, and
//! `openAPIV3Schema` starts six levels down, so a served schema nests at most
//! ~5,000 objects or ~10,000 arrays. Our schema walks (the CRD checks, the engine
//! compile, CEL rule compilation, clone and drop) recurse once per level;
//! [`with_schema_stack`] runs them on a stack sized from the measured bytes per
//! level when the schema is deep, and on the caller's stack otherwise.

use super::{SHALLOW, on_big_enough_stack};
use crate::model::{CustomResourceDefinition, CustomResourceValidation, JSONSchemaProps};

/// Deepest schema nesting walked. No schema read from a CRD body goes past it (a
/// level takes at least one of the body's 10,000 JSON levels); only schemas built
/// in code can, and those are refused with our own error, not the server's.
pub const MAX_SCHEMA_DEPTH: usize = super::MAX_DEPTH;

/// Stack each schema level of the deepest schema walk may use. Measured
/// (`tests/depth_stack.rs`, docs/limits.md "Schemas"): compiling an engine ~4.3 KiB
/// per level in debug builds, the CRD checks ~3.5 KiB; the budget keeps a margin.
const PER_LEVEL: usize = 8 << 10;

/// Stack for the walk's first frames and whatever runs at the deepest level.
const BASE: usize = 4 << 20;

/// Bytes of stack [`with_schema_stack`] gives a walk of a schema `depth` deep.
pub fn schema_stack_bytes(depth: usize) -> usize {
    BASE + depth.min(MAX_SCHEMA_DEPTH + 1) * PER_LEVEL
}

/// Runs `f`, which walks a schema `depth` levels deep, on a stack big enough for
/// it: the caller's when the schema is shallow or enough of it is left, else a
/// fresh one (`stacker`) freed when `f` returns.
pub fn with_schema_stack<R>(depth: usize, f: impl FnOnce() -> R) -> R {
    on_big_enough_stack(depth, schema_stack_bytes, f)
}

/// How many schemas nest in `s` (a leaf is 1), counting stopped past `limit`.
/// Shallow schemas are measured by recursion, which allocates nothing; past
/// [`SHALLOW`] levels the walk uses an explicit stack.
pub fn schema_depth(s: &JSONSchemaProps, limit: usize) -> usize {
    if let Some(d) = shallow_depth(s, 1) {
        return d;
    }
    let mut deepest = 0;
    let mut stack = vec![(s, 1usize)];
    while let Some((node, depth)) = stack.pop() {
        deepest = deepest.max(depth);
        if deepest > limit {
            return deepest;
        }
        node.for_each_child(&mut |_, child| stack.push((child, depth + 1)));
    }
    deepest
}

fn shallow_depth(s: &JSONSchemaProps, depth: usize) -> Option<usize> {
    if depth > SHALLOW {
        return None;
    }
    let mut deepest = Some(depth);
    s.for_each_child(&mut |_, child| {
        deepest = match (deepest, shallow_depth(child, depth + 1)) {
            (Some(a), Some(b)) => Some(a.max(b)),
            _ => None,
        };
    });
    deepest
}

/// The depth of the deepest `openAPIV3Schema` of `validations`.
pub fn validations_depth<'a>(
    validations: impl IntoIterator<Item = Option<&'a CustomResourceValidation>>,
) -> usize {
    validations
        .into_iter()
        .flatten()
        .filter_map(|v| v.open_api_v3_schema.as_ref())
        .map(|s| schema_depth(s, MAX_SCHEMA_DEPTH))
        .max()
        .unwrap_or(0)
}

/// The depth of the deepest schema of `crd`'s versions.
pub fn crd_schema_depth(crd: &CustomResourceDefinition) -> usize {
    validations_depth(crd.spec.versions.iter().map(|v| v.schema.as_ref()))
}

impl JSONSchemaProps {
    /// The deepest nesting of schema nodes below and including this one
    /// (properties, items, additionalProperties and the junctors each count one level).
    pub fn depth(&self) -> usize {
        schema_depth(self, usize::MAX)
    }
}

/// Drops `schema` on a stack sized for it (a schema's drop recurses once per level).
pub fn drop_schema(schema: JSONSchemaProps) {
    let depth = schema_depth(&schema, MAX_SCHEMA_DEPTH);
    with_schema_stack(depth, move || drop(schema));
}

/// Drops `crd` on a stack sized for its schemas (a schema's drop recurses once per
/// level).
pub fn drop_crd(crd: CustomResourceDefinition) {
    let depth = crd_schema_depth(&crd);
    with_schema_stack(depth, move || drop(crd));
}
