//! Admission as the API server's create and update handlers run it: prune (unknown
//! fields, and `null`s of non-nullable fields without a default) → coerce metadata →
//! default → validate.
//!
//! [`Engine::start_admission`] stops after the prune and tells which fields were
//! unknown, so a server can apply `fieldValidation=Strict` (fail before defaulting and
//! validation) or `Warn` (`unknown field "spec.foo"` warnings) from the same walk that
//! prunes, instead of pruning a clone first.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::path::PathRef;
use super::{AdmitError, Engine, default, depth_error, depth2};
use crate::depth::{MAX_DEPTH, with_stack_for};
use crate::field::ErrorList;

/// An admission stopped after its prune: the object has lost its unknown fields and
/// droppable `null`s, and is neither defaulted nor validated until [`Admission::finish`].
#[must_use = "the object is only pruned: `finish` defaults and validates it"]
#[derive(Debug)]
pub struct Admission<'a> {
    engine: &'a Engine,
    value: &'a mut Value,
    old: Option<&'a Value>,
    unknown_fields: Vec<String>,
}

impl Admission<'_> {
    /// The unknown fields the prune dropped, sorted, exactly as [`Engine::prune`]
    /// reports them (`spec.foo`, `spec.list[1].bar`); a dropped `null` of a known field
    /// is not among them.
    pub fn unknown_fields(&self) -> &[String] {
        &self.unknown_fields
    }

    /// [`Admission::unknown_fields`], moved out (for warnings that outlive the admission).
    pub fn take_unknown_fields(&mut self) -> Vec<String> {
        std::mem::take(&mut self.unknown_fields)
    }

    /// The object as pruned so far.
    pub fn value(&self) -> &Value {
        self.value
    }

    /// The rest of the admission: coerce metadata, default, validate (against `old` for
    /// an update). The result is what [`Engine::admit`] / [`Engine::admit_update`]
    /// return for the same object.
    pub fn finish(self) -> Result<(), ErrorList> {
        self.engine.finish_admission(self.value, self.old)
    }
}

impl Engine {
    /// Prune, coerce metadata, default, validate: what the API server does on create.
    pub fn admit(&self, v: &mut Value) -> Result<(), ErrorList> {
        self.admit_inner(v, None)
    }

    /// [`Engine::admit`] for an update of `old`.
    pub fn admit_update(&self, v: &mut Value, old: &Value) -> Result<(), ErrorList> {
        self.admit_inner(v, Some(old))
    }

    /// One depth scan sizes the stack of the whole admission.
    fn admit_inner(&self, v: &mut Value, old: Option<&Value>) -> Result<(), ErrorList> {
        let depth = depth2(v, old);
        if depth > MAX_DEPTH {
            return Err(ErrorList(vec![depth_error()]));
        }
        with_stack_for(depth, || {
            self.prune_here(v, false)?;
            self.decode_admission_here(v)?;
            let errs = self.validate_here(v, old, true);
            if errs.is_empty() { Ok(()) } else { Err(errs) }
        })
    }

    /// The first step of [`Engine::admit`] (`old: None`) or [`Engine::admit_update`]
    /// (`old: Some`): prunes `v` once and returns the unknown fields it found, so the
    /// caller can stop before defaulting and validation (strict decoding) or carry
    /// them as warnings, then [`Admission::finish`]. When nothing is unknown it costs
    /// what `admit` costs: paths are only formatted for fields that are dropped.
    ///
    /// Fails with the depth error `admit` gives for objects nested too deep.
    ///
    /// ```
    /// use crd_runtime::engine::{Engine, SchemaOptions};
    /// use serde_json::json;
    ///
    /// let schema = serde_json::from_value(json!({"type": "object", "properties": {
    ///     "a": {"type": "integer", "default": 1}, "b": {"type": "string"}}})).unwrap();
    /// let engine = Engine::for_schema(&schema, SchemaOptions::default()).unwrap();
    /// let mut obj = json!({"b": null, "c": {"d": 1}});
    /// let mut admission = engine.start_admission(&mut obj, None).unwrap();
    /// assert_eq!(admission.take_unknown_fields(), ["c"]); // the null `b` is not unknown
    /// admission.finish().unwrap();
    /// assert_eq!(obj, json!({"a": 1}));
    /// ```
    pub fn start_admission<'a>(
        &'a self,
        v: &'a mut Value,
        old: Option<&'a Value>,
    ) -> Result<Admission<'a>, ErrorList> {
        let unknown_fields = self.prune_for_admission(v, old, true)?;
        Ok(Admission {
            engine: self,
            value: v,
            old,
            unknown_fields,
        })
    }

    /// Decoding as the API server decodes a request body, without validation: prune
    /// (unknown fields and droppable `null`s, in one walk), coerce metadata, default.
    /// Returns the unknown fields as [`Admission::unknown_fields`] does. A server
    /// validates afterwards ([`Engine::validate`], [`Engine::validate_update`]), once
    /// its strategy has prepared the object (status reset, generation), as
    /// kube-apiserver orders decoding, `PrepareForCreate` and `Validate`.
    ///
    /// ```
    /// use crd_runtime::engine::{Engine, SchemaOptions};
    /// use serde_json::json;
    ///
    /// let schema = serde_json::from_value(json!({"type": "object", "properties": {
    ///     "a": {"type": "integer", "default": 1}, "b": {"type": "string"}}})).unwrap();
    /// let engine = Engine::for_schema(&schema, SchemaOptions::default()).unwrap();
    /// let mut obj = json!({"b": null, "c": 1});
    /// assert_eq!(engine.decode(&mut obj).unwrap(), ["c"]);
    /// assert_eq!(obj, json!({"a": 1}));
    /// ```
    pub fn decode(&self, v: &mut Value) -> Result<Vec<String>, ErrorList> {
        let unknown = self.prune_for_admission(v, None, true)?;
        self.decode_admission(v)?;
        Ok(unknown)
    }

    /// Reading as the API server reads an object from storage with this schema (the
    /// schema of the version it is stored or converted in): unknown fields and
    /// droppable `null`s pruned, invalid metadata fields dropped (not reported),
    /// defaults applied. Objects nested too deep are left as they are.
    pub fn decode_stored(&self, v: &mut Value) {
        with_stack_for(depth2(v, None), || {
            if self.coerce_converted_here(v)
                && let Some(root) = self.schema.root
            {
                default::default(&self.schema, v, root, 0);
            }
        })
    }

    /// What the API server does to an object converted into this schema's version:
    /// unknown fields and droppable `null`s pruned, invalid metadata fields dropped;
    /// no defaults (those of the stored version were applied before the conversion).
    /// Returns `false` (and stops) for an object nested too deep, which the pruner
    /// leaves as it is.
    pub fn coerce_converted(&self, v: &mut Value) -> bool {
        with_stack_for(depth2(v, None), || self.coerce_converted_here(v))
    }

    fn coerce_converted_here(&self, v: &mut Value) -> bool {
        // The pruner guards its own depth for values deeper than the stack was sized for.
        let mut p = self.pruner(true, false);
        p.prune(v, self.schema.root, &PathRef::root());
        if p.too_deep {
            return false;
        }
        let _ = self.coerce_metadata_here(v, true);
        true
    }

    /// Admits a typed object: serialize, [`Engine::admit`], deserialize. The result
    /// is identical to the dynamic path on the serialized value.
    pub fn admit_typed<T: Serialize + DeserializeOwned>(&self, obj: &T) -> Result<T, AdmitError> {
        let mut v = serde_json::to_value(obj).map_err(|e| AdmitError::Serialize(e.to_string()))?;
        self.admit(&mut v).map_err(AdmitError::Invalid)?;
        serde_json::from_value(v).map_err(|e| AdmitError::Deserialize(e.to_string()))
    }

    /// The prune of an admission (nulls dropped too); the unknown fields, sorted, when
    /// `record`.
    fn prune_for_admission(
        &self,
        v: &mut Value,
        old: Option<&Value>,
        record: bool,
    ) -> Result<Vec<String>, ErrorList> {
        let depth = depth2(v, old);
        if depth > MAX_DEPTH {
            return Err(ErrorList(vec![depth_error()]));
        }
        with_stack_for(depth, || self.prune_here(v, record))
    }

    /// The prune of an admission on the current stack (the caller sized it).
    fn prune_here(&self, v: &mut Value, record: bool) -> Result<Vec<String>, ErrorList> {
        let mut p = self.pruner(true, record);
        p.prune(v, self.schema.root, &PathRef::root());
        if p.too_deep {
            return Err(ErrorList(vec![depth_error()]));
        }
        let mut unknown = p.pruned.unwrap_or_default();
        unknown.sort();
        Ok(unknown)
    }

    /// Coerce metadata, default: the part of an admission between prune and validate.
    fn decode_admission(&self, v: &mut Value) -> Result<(), ErrorList> {
        with_stack_for(depth2(v, None), || self.decode_admission_here(v))
    }

    fn decode_admission_here(&self, v: &mut Value) -> Result<(), ErrorList> {
        self.coerce_metadata_here(v, false)
            .map_err(|e| ErrorList(vec![e]))?;
        if let Some(root) = self.schema.root {
            default::default(&self.schema, v, root, 0);
        }
        Ok(())
    }

    fn finish_admission(&self, v: &mut Value, old: Option<&Value>) -> Result<(), ErrorList> {
        // One depth scan and one stack for the rest of the admission.
        with_stack_for(depth2(v, old), || {
            self.decode_admission_here(v)?;
            let errs = self.validate_here(v, old, true);
            if errs.is_empty() { Ok(()) } else { Err(errs) }
        })
    }
}

#[cfg(test)]
mod tests;
