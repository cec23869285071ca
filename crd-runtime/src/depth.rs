//! Nesting depth as kube-apiserver allows it, and stacks big enough to walk it.
//!
//! The API server decodes JSON with Go's `encoding/json` scanner (through
//! `sigs.k8s.io/json`), which refuses a document once more than 10,000 arrays and
//! objects are open (`maxNestingDepth`, error `invalid character '[' exceeded max
//! depth`); `k8s.io/apimachinery/pkg/util/json` converts numbers to the same
//! depth, and the CBOR decoder is set to it too. Go's goroutine stacks grow, so
//! nothing else on its path is limited. Our walks recurse once per level on fixed
//! native stacks; [`with_stack_for`] runs a walk of a deep value on a stack sized
//! from the measured bytes each level needs (see `docs/limits.md`), and leaves
//! shallow values on the caller's stack, so ordinary objects pay one iterative
//! depth scan and nothing more.

use serde::de::DeserializeOwned;
use serde_json::Value;

/// Deepest nesting of arrays and objects (the outermost counts as 1) a document
/// may have: Go's `encoding/json` `maxNestingDepth`.
pub const MAX_DEPTH: usize = 10_000;

/// Values at most this deep are walked on the caller's stack: 2 MiB (a test
/// thread, a Tokio worker) holds every walk this deep, in debug builds too.
pub const SHALLOW: usize = 64;

/// Stack each level of the deepest walk may use. Measured (`tests/depth_stack.rs`,
/// docs/limits.md): admission ~1.9 KiB per level in debug builds and ~1.1 KiB in
/// release builds; typing a deep CRD into the model ~22 KiB in debug builds. The
/// figures keep a margin over those.
const PER_LEVEL: usize = if cfg!(debug_assertions) {
    32 << 10
} else {
    4 << 10
};

/// Stack for the walk's first frames and whatever runs at the deepest level.
const BASE: usize = 4 << 20;

/// Bytes of stack [`with_stack_for`] gives a walk of a value `depth` deep.
pub fn stack_bytes(depth: usize) -> usize {
    BASE + depth.min(MAX_DEPTH + 1) * PER_LEVEL
}

/// Runs `f`, which walks a value `depth` deep, on a stack big enough for it: the
/// caller's when `depth <= SHALLOW` or when enough of it is left (a sized worker),
/// else a fresh one of [`stack_bytes`] on the same thread (`stacker`), freed when
/// `f` returns.
pub fn with_stack_for<R>(depth: usize, f: impl FnOnce() -> R) -> R {
    on_big_enough_stack(depth, stack_bytes, f)
}

/// Runs `f`, a walk `depth` levels deep that needs `bytes(depth)` of stack: on the
/// caller's stack when `depth <= SHALLOW` or when enough of it is left, else on a
/// fresh one (`stacker`) freed when `f` returns. Values and schemas differ only in
/// what a level costs.
fn on_big_enough_stack<R>(depth: usize, bytes: fn(usize) -> usize, f: impl FnOnce() -> R) -> R {
    if depth <= SHALLOW {
        return f();
    }
    let need = bytes(depth);
    if stacker::remaining_stack().is_some_and(|left| left >= need) {
        return f();
    }
    stacker::grow(need, f)
}

/// How deeply arrays and objects nest in `v` (a scalar is 0, `[]` is 1), without
/// recursion. Stops counting past `limit`.
pub fn depth_of<'v>(v: &'v Value, limit: usize) -> usize {
    if !matches!(v, Value::Array(_) | Value::Object(_)) {
        return 0;
    }
    // Nearly every value is shallow: measure it by recursion, which allocates
    // nothing; only past SHALLOW levels does the walk need an explicit stack.
    if let Some(d) = shallow_depth(v, 1) {
        return d;
    }
    let mut deepest = 0;
    let mut stack: Vec<(&'v Value, usize)> = vec![(v, 1)];
    while let Some((v, depth)) = stack.pop() {
        deepest = deepest.max(depth);
        if deepest > limit {
            return deepest;
        }
        let mut push = |c: &'v Value| {
            if matches!(c, Value::Array(_) | Value::Object(_)) {
                stack.push((c, depth + 1));
            }
        };
        match v {
            Value::Array(items) => items.iter().for_each(&mut push),
            Value::Object(map) => map.values().for_each(&mut push),
            _ => {}
        }
    }
    deepest
}

/// The depth of container `v` at level `depth`, or `None` past [`SHALLOW`] levels.
fn shallow_depth(v: &Value, depth: usize) -> Option<usize> {
    if depth > SHALLOW {
        return None;
    }
    let mut deepest = depth;
    let mut visit = |c: &Value| -> Option<()> {
        if matches!(c, Value::Array(_) | Value::Object(_)) {
            deepest = deepest.max(shallow_depth(c, depth + 1)?);
        }
        Some(())
    };
    match v {
        Value::Array(items) => items.iter().try_for_each(&mut visit)?,
        Value::Object(map) => map.values().try_for_each(&mut visit)?,
        _ => {}
    }
    Some(deepest)
}

/// Drops `v` without recursion when it is deep (serde_json's drop recurses once per
/// level; values from a deep request can outlive the stack they were built on).
pub fn drop_value(v: Value) {
    if depth_of(&v, SHALLOW) <= SHALLOW {
        return;
    }
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

/// A JSON text nesting deeper than [`MAX_DEPTH`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooDeep {
    /// The bracket that opened level `MAX_DEPTH + 1` (`b'['` or `b'{'`).
    pub bracket: u8,
    /// Its byte offset.
    pub offset: usize,
}

impl std::fmt::Display for TooDeep {
    /// Go's scanner error: `invalid character '[' exceeded max depth`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "invalid character '{}' exceeded max depth",
            self.bracket as char
        )
    }
}

impl std::error::Error for TooDeep {}

/// The nesting depth of a JSON text, by a scan of its brackets outside strings;
/// [`TooDeep`] at the first bracket past [`MAX_DEPTH`]. Malformed text is scanned
/// all the same: the parser reports its own errors afterwards.
pub fn json_text_depth(text: &[u8]) -> Result<usize, TooDeep> {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut i = 0;
    while let Some(off) = memchr::memchr3(b'"', b'[', b'{', &text[i..]).map(|o| o + i) {
        // Closing brackets between here and the next opener lower the depth.
        depth = depth.saturating_sub(closers(&text[i..off]));
        if text[off] == b'"' {
            i = skip_string(text, off + 1);
            continue;
        }
        depth += 1;
        if depth > MAX_DEPTH {
            return Err(TooDeep {
                bracket: text[off],
                offset: off,
            });
        }
        deepest = deepest.max(depth);
        i = off + 1;
    }
    Ok(deepest)
}

fn closers(bytes: &[u8]) -> usize {
    memchr::memchr2_iter(b']', b'}', bytes).count()
}

/// The offset after the string whose body starts at `i` (or the end).
fn skip_string(text: &[u8], mut i: usize) -> usize {
    while let Some(o) = memchr::memchr2(b'"', b'\\', &text[i..]) {
        let at = i + o;
        if text[at] == b'"' {
            return at + 1;
        }
        i = at + 2;
        if i >= text.len() {
            break;
        }
    }
    text.len()
}

/// Why a JSON text was not read by [`from_json_slice`].
#[derive(Debug)]
pub enum JsonError {
    /// Nested deeper than the API server reads.
    TooDeep(TooDeep),
    /// Not JSON, or not the type asked for.
    Syntax(serde_json::Error),
}

impl std::fmt::Display for JsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JsonError::TooDeep(e) => e.fmt(f),
            JsonError::Syntax(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for JsonError {}

/// `serde_json::from_slice` to the API server's depth: [`MAX_DEPTH`] levels instead
/// of serde_json's 128, parsed on a stack sized for the text's depth.
pub fn from_json_slice<T: DeserializeOwned>(text: &[u8]) -> Result<T, JsonError> {
    let depth = json_text_depth(text).map_err(JsonError::TooDeep)?;
    if depth <= SHALLOW {
        return serde_json::from_slice(text).map_err(JsonError::Syntax);
    }
    with_stack_for(depth, || {
        let mut de = serde_json::Deserializer::from_slice(text);
        de.disable_recursion_limit();
        let v = T::deserialize(&mut de)?;
        de.end()?;
        Ok(v)
    })
    .map_err(JsonError::Syntax)
}

/// `serde_json::to_vec` of a value of any depth up to [`MAX_DEPTH`].
pub fn to_json_vec(v: &Value) -> Vec<u8> {
    let depth = depth_of(v, MAX_DEPTH + 1);
    with_stack_for(depth, || {
        serde_json::to_vec(v).expect("a JSON value serializes")
    })
}

#[path = "depth_schema.rs"]
pub mod schema;

#[cfg(test)]
#[path = "depth_tests.rs"]
mod tests;
