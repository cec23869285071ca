//! Conversion between the versions of one kind, hub and spoke.
//!
//! One version is the *hub* (as in controller-runtime); every other version converts to
//! and from it with plain `From`/`TryFrom` impls the user writes, so `n` versions need
//! `2(n−1)` impls. A [`Converter`] turns JSON objects of any registered version into any
//! other, through the hub, keeping what the API server requires of a conversion (same
//! `kind`, name, namespace, uid, resourceVersion…; only labels and annotations may
//! change). [`review`] answers an `apiextensions.k8s.io/v1` `ConversionReview` with it —
//! the body of a conversion webhook.
//!
//! An object is read with its version's schema defaults applied (as the API server
//! applies them when it reads from storage), so objects stored before a field had a
//! default convert too.
//!
//! Fields a version lacks survive a round trip when the conversion keeps them in an
//! annotation ([`stash`] on the way out, [`unstash`] on the way back).
//!
//! ```
//! # #[cfg(feature = "derive")] {
//! use crd_runtime::conversion::Converter;
//!
//! mod v1 {
//!     use crd_runtime::CustomResource;
//!     use serde::{Deserialize, Serialize};
//!     #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
//!     #[crd(group = "stable.example.com", version = "v1", kind = "CronTab", namespaced)]
//!     #[serde(rename_all = "camelCase")]
//!     pub struct CronTabSpec { pub cron_spec: String }
//! }
//! mod v2 {
//!     use crd_runtime::CustomResource;
//!     use serde::{Deserialize, Serialize};
//!     #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
//!     #[crd(group = "stable.example.com", version = "v2", kind = "CronTab", namespaced)]
//!     pub struct CronTabSpec { pub schedule: String }
//! }
//! impl From<v2::CronTab> for v1::CronTab {
//!     fn from(o: v2::CronTab) -> Self {
//!         v1::CronTab { metadata: o.metadata, spec: v1::CronTabSpec { cron_spec: o.spec.schedule } }
//!     }
//! }
//! impl From<v1::CronTab> for v2::CronTab {
//!     fn from(o: v1::CronTab) -> Self {
//!         v2::CronTab { metadata: o.metadata, spec: v2::CronTabSpec { schedule: o.spec.cron_spec } }
//!     }
//! }
//!
//! let converter = Converter::<v1::CronTab>::hub().spoke::<v2::CronTab>();
//! let object = serde_json::json!({
//!     "apiVersion": "stable.example.com/v1", "kind": "CronTab",
//!     "metadata": {"name": "a"}, "spec": {"cronSpec": "* * * * */5"}
//! });
//! let v2 = converter.convert(&object, "stable.example.com/v2").unwrap();
//! assert_eq!(v2["spec"], serde_json::json!({"schedule": "* * * * */5"}));
//! # }
//! ```

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::derive_support::CustomResourceExt;
use crate::meta::ObjectMeta;

mod review;

pub use review::{ConversionRequest, ConversionResponse, ConversionReview, review};

/// Why an object could not be converted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConversionError(pub String);

impl fmt::Display for ConversionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConversionError {}

type ToHub<H> = Box<dyn Fn(Value) -> Result<H, String> + Send + Sync>;
type FromHub<H> = Box<dyn Fn(H) -> Result<Value, String> + Send + Sync>;

struct Version<H> {
    api_version: String,
    to_hub: ToHub<H>,
    from_hub: FromHub<H>,
}

/// Converts objects of one kind between its registered versions through the hub `H`.
pub struct Converter<H> {
    kind: &'static str,
    versions: Vec<Version<H>>,
}

impl<H> fmt::Debug for Converter<H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let versions: Vec<&str> = self
            .versions
            .iter()
            .map(|v| v.api_version.as_str())
            .collect();
        f.debug_struct("Converter")
            .field("kind", &self.kind)
            .field("versions", &versions)
            .finish()
    }
}

fn decode<T: DeserializeOwned>(object: Value) -> Result<T, String> {
    serde_path_to_error::deserialize(object).map_err(|e| {
        let path = e.path().to_string();
        if path == "." {
            e.into_inner().to_string()
        } else {
            format!("{path}: {}", e.into_inner())
        }
    })
}

/// Decodes an object of version `T` after applying `T`'s schema defaults, as the API
/// server does when it reads an object from storage: an object stored before a field
/// had a default lacks that field, and a conversion must still read it.
fn decode_defaulted<T: CustomResourceExt>(mut object: Value) -> Result<T, String> {
    match T::engine() {
        Ok(engine) => {
            engine.default(&mut object);
            decode(object)
        }
        // Without an engine the defaults cannot be applied; an object that needs them
        // fails to decode, and the message says why they were missing.
        Err(engine_error) => decode(object).map_err(|e| {
            format!(
                "{e} (the schema's defaults of {} were not applied: {engine_error})",
                T::API_VERSION
            )
        }),
    }
}

fn encode<T: Serialize>(object: &T) -> Result<Value, String> {
    serde_json::to_value(object).map_err(|e| e.to_string())
}

impl<H> Converter<H>
where
    H: CustomResourceExt + Serialize + DeserializeOwned + 'static,
{
    /// A converter whose hub is `H` (one of the versions).
    pub fn hub() -> Self {
        Converter {
            kind: H::KIND,
            versions: vec![Version {
                api_version: H::API_VERSION.to_string(),
                to_hub: Box::new(decode_defaulted::<H>),
                from_hub: Box::new(|hub| encode(&hub)),
            }],
        }
    }

    /// Registers the version `V`, which converts to and from the hub (`From` impls
    /// count: they imply `TryFrom`).
    pub fn spoke<V>(mut self) -> Self
    where
        V: CustomResourceExt + Serialize + DeserializeOwned + TryFrom<H> + 'static,
        H: TryFrom<V>,
        <V as TryFrom<H>>::Error: fmt::Display,
        <H as TryFrom<V>>::Error: fmt::Display,
    {
        self.versions.push(Version {
            api_version: V::API_VERSION.to_string(),
            to_hub: Box::new(|object| {
                H::try_from(decode_defaulted::<V>(object)?).map_err(|e| e.to_string())
            }),
            from_hub: Box::new(|hub| encode(&V::try_from(hub).map_err(|e| e.to_string())?)),
        });
        self
    }
}

impl<H> Converter<H> {
    /// The registered `apiVersion`s, the hub's first.
    pub fn api_versions(&self) -> impl Iterator<Item = &str> {
        self.versions.iter().map(|v| v.api_version.as_str())
    }

    fn version(&self, api_version: &str) -> Result<&Version<H>, ConversionError> {
        self.versions
            .iter()
            .find(|v| v.api_version == api_version)
            .ok_or_else(|| {
                let known: Vec<&str> = self.api_versions().collect();
                ConversionError(format!(
                    "unsupported version {api_version:?} for kind {} (supported: {})",
                    self.kind,
                    known.join(", ")
                ))
            })
    }

    /// `object` (any registered version) in the version `desired` (`group/version`).
    /// The result keeps the object's metadata except labels and annotations, which the
    /// conversion may change, as the API server requires.
    pub fn convert(&self, object: &Value, desired: &str) -> Result<Value, ConversionError> {
        let to = self.version(desired)?;
        let from_version = object
            .get("apiVersion")
            .and_then(Value::as_str)
            .ok_or_else(|| ConversionError("the object has no apiVersion".into()))?;
        if object.get("kind").and_then(Value::as_str) != Some(self.kind) {
            return Err(ConversionError(format!(
                "expected kind {}, got {}",
                self.kind,
                object.get("kind").unwrap_or(&Value::Null)
            )));
        }
        if from_version == desired {
            return Ok(object.clone());
        }
        let from = self.version(from_version)?;
        let name = object
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("");
        let fail = |e: String| {
            ConversionError(format!(
                "converting {name:?} from {from_version} to {desired}: {e}"
            ))
        };
        let hub = (from.to_hub)(object.clone()).map_err(fail)?;
        let mut converted = (to.from_hub)(hub).map_err(fail)?;
        keep_identity(&mut converted, object, desired);
        Ok(converted)
    }
}

/// Metadata other than labels and annotations stays the source's; `apiVersion` is
/// the desired one and `kind` the source's.
fn keep_identity(converted: &mut Value, source: &Value, desired: &str) {
    let Value::Object(out) = converted else {
        return;
    };
    let mut meta: Map<String, Value> = source
        .get("metadata")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let new_meta = out.get("metadata").and_then(Value::as_object);
    for key in ["labels", "annotations"] {
        match new_meta.and_then(|m| m.get(key)) {
            Some(v) if !v.is_null() && v.as_object().is_none_or(|o| !o.is_empty()) => {
                meta.insert(key.into(), v.clone());
            }
            _ => {
                meta.remove(key);
            }
        }
    }
    out.insert("metadata".into(), Value::Object(meta));
    out.insert("apiVersion".into(), Value::String(desired.into()));
    if let Some(kind) = source.get("kind") {
        out.insert("kind".into(), kind.clone());
    }
}

/// Keeps `value` in the annotation `key` (JSON), for a version that has no field for
/// it; [`unstash`] takes it back when converting to a version that has.
pub fn stash<T: Serialize>(metadata: &mut ObjectMeta, key: &str, value: &T) {
    if let Ok(text) = serde_json::to_string(value) {
        metadata
            .annotations
            .get_or_insert_with(BTreeMap::new)
            .insert(key.to_string(), text);
    }
}

/// Takes the value [`stash`] kept in the annotation `key` (removing the annotation);
/// `None` when there is none or it does not decode as `T`.
pub fn unstash<T: DeserializeOwned>(metadata: &mut ObjectMeta, key: &str) -> Option<T> {
    let annotations = metadata.annotations.as_mut()?;
    let text = annotations.remove(key)?;
    if annotations.is_empty() {
        metadata.annotations = None;
    }
    serde_json::from_str(&text).ok()
}

/// Converts `object` (any registered version) to every other registered version and
/// back, and fails naming the first version whose round trip changes the object (the
/// JSON before and after). Property tests of a conversion call it on generated objects;
/// `#[crd_runtime::versioned]` modules call it from their `check_round_trip`.
pub fn check_round_trip<H>(
    converter: &Converter<H>,
    object: &Value,
) -> Result<(), ConversionError> {
    let from = object
        .get("apiVersion")
        .and_then(Value::as_str)
        .ok_or_else(|| ConversionError("the object has no apiVersion".into()))?;
    for to in converter.api_versions().filter(|v| *v != from) {
        let there = converter.convert(object, to)?;
        let back = converter.convert(&there, from)?;
        if &back != object {
            return Err(ConversionError(format!(
                "{from} -> {to} -> {from} changed the object: {object} became {back} (in {to}: {there})"
            )));
        }
    }
    Ok(())
}
