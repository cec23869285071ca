//! Stack growth for the recursive traits of [`super::JSONSchemaProps`]: each schema
//! level runs inside [`grow`], which continues on a fresh stack segment when the
//! current one runs low; serde reaches it through `#[serde(with = "grown")]`.

/// Stack that must be left before a schema level starts: more than one level of the
/// deepest of these traits uses in a debug build (typing a schema from a
/// `serde_json::Value` through `serde_path_to_error` takes ~25 KiB a level).
const RED_ZONE: usize = 256 << 10;

/// Size of each stack segment added when the red zone is reached.
const SEGMENT: usize = 8 << 20;

/// Runs `f` (one schema level) with at least [`RED_ZONE`] bytes of stack.
pub(crate) fn grow<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, SEGMENT, f)
}

/// `#[serde(with = ...)]` for the fields that hold child schemas: each level of a
/// schema is serialized and deserialized inside [`grow`].
pub(super) mod grown {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<T: Serialize, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        super::grow(|| v.serialize(s))
    }

    pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
        d: D,
    ) -> Result<T, D::Error> {
        super::grow(|| T::deserialize(d))
    }
}
