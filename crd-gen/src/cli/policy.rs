//! `crd-gen validate --policy FILE...`: admission policies on top of validation.
//! Reads the policies, bindings and parameter objects, finds each object's kind
//! (a CRD's, one of Kubernetes' built-in kinds with the release's schema, or a kind
//! known to neither: policies only), and admits each object as the API server
//! would: decode, mutating policies, validation, validating policies.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use crd_gen::policy::{PolicySet, Target, builtin_schema, is_namespace};
use crd_runtime::engine::{Engine, EngineOptions, SchemaOptions};
use crd_runtime::{CustomResourceDefinition, ErrorList, JSONSchemaProps, KubeVersion};
use serde_json::Value;

use super::documents::for_each_document;
use super::inputs::{Input, read_inputs};

/// (apiVersion, kind).
type Key = (String, String);

/// A kind's engine and schema: its CRD's, or a built-in kind's.
type Schema = Option<Arc<(Engine, JSONSchemaProps)>>;

/// Everything `--policy` adds to a validation run.
pub struct Policies {
    set: PolicySet,
    /// CRD kinds: the target and the version's schema.
    crds: HashMap<Key, (Target, Option<JSONSchemaProps>)>,
    /// Built-in kinds met so far (`None`: no schema, policies only).
    builtin: Mutex<HashMap<Key, Schema>>,
    options: EngineOptions,
    version: KubeVersion,
}

fn str_at<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

impl Policies {
    /// Reads the `--policy` inputs; Namespaces among `objects` are seen by requests
    /// in them. Errors name the file (and the object and field) at fault.
    pub fn load(
        paths: &[PathBuf],
        crds: &[CustomResourceDefinition],
        objects: &[Input],
        options: EngineOptions,
        version: KubeVersion,
    ) -> Result<Policies, String> {
        let mut documents = Vec::new();
        let mut errors = Vec::new();
        for input in read_inputs(paths)? {
            for_each_document(&input, |d| match d {
                Ok(d) if d.is_object() => documents.push((input.name.clone(), d)),
                Ok(_) => errors.push(format!("{}: a document is not an object", input.name)),
                Err(e) => errors.push(e),
            });
        }
        if !errors.is_empty() {
            return Err(errors.join("\n"));
        }
        let mut set = PolicySet::load(documents, version).map_err(|e| e.join("\n"))?;
        for input in objects {
            // Most inputs hold no Namespace: skip parsing them twice.
            if memchr::memmem::find(&input.bytes, b"Namespace").is_none() {
                continue;
            }
            for_each_document(input, |d| {
                if let Ok(d) = d
                    && is_namespace(&d)
                {
                    set.add_namespace(d);
                }
            });
        }
        let mut by_kind = HashMap::new();
        for crd in crds {
            set.add_crd(crd);
            for v in &crd.spec.versions {
                let api_version = format!("{}/{}", crd.spec.group, v.name);
                let schema = v.schema.as_ref().and_then(|s| s.open_api_v3_schema.clone());
                by_kind.insert(
                    (api_version, crd.spec.names.kind.clone()),
                    (Target::for_crd(crd, &v.name), schema),
                );
            }
        }
        Ok(Policies {
            set,
            crds: by_kind,
            builtin: Mutex::new(HashMap::new()),
            options,
            version,
        })
    }

    /// The engine and schema of a kind no CRD defines, built once per kind.
    fn builtin(&self, key: &Key) -> Schema {
        let mut map = self.builtin.lock().unwrap_or_else(|e| e.into_inner());
        map.entry(key.clone())
            .or_insert_with(|| {
                let gvk = crd_gen::policy::Target::builtin(&key.0, &key.1).kind;
                let schema = builtin_schema(&gvk, self.version)?;
                let options = SchemaOptions {
                    resource_root: true,
                };
                let engine = Engine::for_schema_with(Some(&schema), options, self.options).ok()?;
                Some(Arc::new((engine, schema)))
            })
            .clone()
    }

    /// Admits `doc` (as an update of `old` when given): `engine` is its CRD's, when
    /// one is loaded. Returns the errors that make it invalid, and the warnings.
    pub fn admit(
        &self,
        engine: Option<&Engine>,
        doc: &mut Value,
        old: Option<&Value>,
    ) -> (Result<(), Vec<String>>, Vec<String>) {
        let mut warnings = Vec::new();
        let result = self.admit_into(engine, doc, old, &mut warnings);
        (result, warnings)
    }

    fn admit_into(
        &self,
        engine: Option<&Engine>,
        doc: &mut Value,
        old: Option<&Value>,
        warnings: &mut Vec<String>,
    ) -> Result<(), Vec<String>> {
        if !doc.is_object() {
            return Err(vec!["the document is not an object".to_string()]);
        }
        let key = (
            str_at(doc, "apiVersion").to_string(),
            str_at(doc, "kind").to_string(),
        );
        if key.0.is_empty() || key.1.is_empty() {
            return Err(vec!["the object has no apiVersion or no kind".to_string()]);
        }
        let builtin;
        let (target, engine, schema) = match (engine, self.crds.get(&key)) {
            (Some(engine), Some((target, schema))) => {
                (target.clone(), Some(engine), schema.as_ref())
            }
            _ => {
                builtin = self.builtin(&key);
                let target = Target::builtin(&key.0, &key.1);
                match &builtin {
                    Some(b) => (target, Some(&b.0), Some(&b.1)),
                    None => (target, None, None),
                }
            }
        };
        let strings = |e: ErrorList| e.strings();
        // The server's order: decode (prune, default), mutating admission, decode
        // the mutated object again, validate, validating admission.
        if self.set.has_mutating() {
            if let Some(engine) = engine {
                engine.decode(doc).map_err(strings)?;
            }
            let mutation = self
                .set
                .mutate(&target, doc, old, schema)
                .map_err(|denial| vec![denial])?;
            warnings.extend(mutation.warnings);
            if let Some(engine) = engine {
                if mutation.changed {
                    engine.decode(doc).map_err(strings)?;
                }
                let errs = match old {
                    Some(old) => engine.validate_update(doc, old),
                    None => engine.validate(doc),
                };
                if !errs.is_empty() {
                    return Err(errs.strings());
                }
            }
        } else if let Some(engine) = engine {
            match old {
                Some(old) => engine.admit_update(doc, old),
                None => engine.admit(doc),
            }
            .map_err(strings)?;
        }
        let outcome = self.set.validate_owned(&target, doc, old);
        warnings.extend(outcome.warnings);
        match outcome.denial {
            Some(message) => Err(vec![message]),
            None => Ok(()),
        }
    }
}
