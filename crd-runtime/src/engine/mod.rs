//! The admission engine: given a CRD version (or a bare `openAPIV3Schema`) and an
//! object, produce what the API server would store, or the errors it would return.
//!
//! The pipeline follows the API server (`customresource_handler.go`):
//!
//! 1. [`Engine::prune`]: unknown fields are dropped (together with `null`s of
//!    non-nullable fields without a default, when admitting);
//! 2. [`Engine::coerce_metadata`]: root and embedded `metadata` are round-tripped
//!    through `ObjectMeta`, `apiVersion`/`kind` must be strings;
//! 3. [`Engine::default`]: defaults are applied top-down;
//! 4. [`Engine::validate`]: type meta and root metadata (for resources), the OpenAPI
//!    schema (kube-openapi semantics), embedded resources, list types, the
//!    `x-kubernetes-validations` rules (CEL, default feature `cel`), then every
//!    extra [`ValidationPass`] added with [`Engine::with_pass`].
//!
//! [`Engine::admit`] runs all four; [`Engine::start_admission`] stops after the prune
//! with the unknown fields it dropped (for `fieldValidation=Strict|Warn`) and
//! [`Admission::finish`] runs the rest. The schema and its rules are compiled once
//! (regexes, property lookups, bounds, CEL programs); an engine is immutable and can
//! be shared between threads. [`EngineOptions`] picks the Kubernetes release to
//! behave like; updates ([`Engine::validate_update`], [`Engine::admit_update`])
//! ratchet as that release does.
//!
//! ```
//! use crd_runtime::engine::Engine;
//! use serde_json::json;
//!
//! let crd = crd_runtime::load_crds("crontab.yaml", r#"
//! apiVersion: apiextensions.k8s.io/v1
//! kind: CustomResourceDefinition
//! metadata: {name: crontabs.stable.example.com}
//! spec:
//!   group: stable.example.com
//!   scope: Namespaced
//!   names: {plural: crontabs, kind: CronTab}
//!   versions:
//!   - name: v1
//!     served: true
//!     storage: true
//!     schema:
//!       openAPIV3Schema:
//!         type: object
//!         properties:
//!           spec:
//!             type: object
//!             properties:
//!               replicas: {type: integer, maximum: 10, default: 1}
//! "#).unwrap().crds.remove(0).crd;
//! let engine = Engine::for_crd(&crd, "v1").unwrap();
//!
//! let mut obj = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
//!                      "metadata": {"name": "a"}, "spec": {"extra": true}});
//! engine.admit(&mut obj).unwrap();
//! assert_eq!(obj["spec"], json!({"replicas": 1}));
//!
//! let mut bad = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
//!                      "metadata": {"name": "a"}, "spec": {"replicas": 15}});
//! let errs = engine.admit(&mut bad).unwrap_err();
//! assert_eq!(errs.strings(), vec![
//!     "spec.replicas: Invalid value: 15: spec.replicas in body should be less than or equal to 10",
//! ]);
//! ```

mod admission;
pub(crate) mod compiled;
mod default;
pub(crate) mod formats;
mod listtype;
pub(crate) mod metadata;
mod numeric;
pub(crate) mod objectmeta;
pub(crate) mod path;
mod prune;
pub(crate) mod regex_go;
mod validate;
pub(crate) mod walk;

use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use crate::depth::schema::{MAX_SCHEMA_DEPTH, schema_depth, with_schema_stack};
use crate::depth::{MAX_DEPTH, depth_of, with_stack_for};
use crate::field::{ErrorList, FieldError, Path};
use crate::model::{CustomResourceDefinition, JSONSchemaProps};
use crate::version::KubeVersion;
pub use admission::Admission;
use compiled::CompiledSchema;
use path::PathRef;
pub use walk::{PassContext, ValidationPass};

/// Why an engine could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineError {
    /// The CRD has no such version.
    UnknownVersion {
        /// CRD name.
        crd: String,
        /// The version asked for.
        version: String,
    },
    /// The version has no `schema.openAPIV3Schema`.
    NoSchema {
        /// CRD name.
        crd: String,
        /// The version.
        version: String,
    },
    /// The schema nests deeper than the engine compiles: more levels than a CRD
    /// body's JSON can hold, so only a schema built in code gets here.
    SchemaTooDeep(usize),
    /// The schema has `x-kubernetes-validations` but crd-runtime was built without
    /// its `cel` feature: the rules cannot run, and skipping them would accept
    /// objects the API server rejects.
    CelDisabled,
    /// `ratcheting: false` for a release where validation ratcheting is GA.
    RatchetingLocked(KubeVersion),
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::UnknownVersion { crd, version } => {
                write!(
                    f,
                    "CustomResourceDefinition {crd:?} has no version {version:?}"
                )
            }
            EngineError::NoSchema { crd, version } => write!(
                f,
                "CustomResourceDefinition {crd:?} version {version:?} has no openAPIV3Schema"
            ),
            EngineError::SchemaTooDeep(n) => write!(
                f,
                "schema nests deeper than {n} levels, more than a CustomResourceDefinition's \
                 JSON can hold (crd-toolkit's limit: kube-apiserver only limits the CRD body)"
            ),
            EngineError::CelDisabled => f.write_str(
                "the schema has x-kubernetes-validations rules, but crd-runtime was built without its \"cel\" feature (enable it to evaluate them)",
            ),
            EngineError::RatchetingLocked(v) => write!(
                f,
                "validation ratcheting (CRDValidationRatcheting) is GA and always on in Kubernetes {v}"
            ),
        }
    }
}

impl std::error::Error for EngineError {}

/// Why a typed object could not be admitted.
#[derive(Clone, Debug, PartialEq)]
pub enum AdmitError {
    /// The value did not serialize to JSON.
    Serialize(String),
    /// The API server would reject it.
    Invalid(ErrorList),
    /// The admitted JSON no longer fits the Rust type (e.g. a default of the wrong type).
    Deserialize(String),
}

impl fmt::Display for AdmitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AdmitError::Serialize(e) => write!(f, "cannot serialize the object: {e}"),
            AdmitError::Invalid(errs) => write!(f, "{errs}"),
            AdmitError::Deserialize(e) => {
                write!(f, "the admitted object does not deserialize: {e}")
            }
        }
    }
}

impl std::error::Error for AdmitError {}

/// How an engine behaves: which Kubernetes release it follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineOptions {
    /// The release to behave like (default: the newest).
    pub kube_version: KubeVersion,
    /// Validation ratcheting on updates (the `CRDValidationRatcheting` gate): on by
    /// default from 1.30, and cannot be turned off from 1.33.
    pub ratcheting: bool,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions::for_version(KubeVersion::NEWEST)
    }
}

impl EngineOptions {
    /// The defaults of `version`.
    pub fn for_version(kube_version: KubeVersion) -> Self {
        EngineOptions {
            kube_version,
            ratcheting: kube_version.ratcheting_by_default(),
        }
    }

    /// Applies one kube-apiserver `--feature-gates` entry; only
    /// `CRDValidationRatcheting=true|false` is understood.
    pub fn set_feature_gate(&mut self, gate: &str) -> Result<(), String> {
        let value = match gate.split_once('=') {
            Some(("CRDValidationRatcheting", v)) => v.parse::<bool>().map_err(|_| {
                format!("invalid value in --feature-gates {gate:?}: use true or false")
            })?,
            _ => {
                return Err(format!(
                    "unknown feature gate {gate:?}: only CRDValidationRatcheting=true|false is supported"
                ));
            }
        };
        self.ratcheting = value;
        Ok(())
    }

    fn check(&self) -> Result<(), EngineError> {
        if !self.ratcheting && !self.kube_version.ratcheting_can_be_disabled() {
            return Err(EngineError::RatchetingLocked(self.kube_version));
        }
        Ok(())
    }
}

/// Options for [`Engine::for_schema`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SchemaOptions {
    /// Treat the root as a Kubernetes object: `apiVersion`, `kind` and `metadata` are
    /// kept by pruning, `metadata` is coerced, and the root is checked like an
    /// embedded resource.
    pub resource_root: bool,
}

/// The resource an engine built from a CRD admits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceInfo {
    /// API group.
    pub group: String,
    /// Version name.
    pub version: String,
    /// Kind.
    pub kind: String,
    /// `scope: Namespaced`.
    pub namespaced: bool,
}

impl ResourceInfo {
    /// `group/version`.
    pub fn api_version(&self) -> String {
        crate::names::api_version(&self.group, &self.version)
    }

    /// Whether `s` is [`ResourceInfo::api_version`], without building it (every
    /// admission asks).
    pub(crate) fn is_api_version(&self, s: &str) -> bool {
        if self.group.is_empty() {
            return s == self.version;
        }
        s.len() == self.group.len() + 1 + self.version.len()
            && s.starts_with(self.group.as_str())
            && s.as_bytes()[self.group.len()] == b'/'
            && s.ends_with(self.version.as_str())
    }
}

/// A compiled, reusable validator for one CRD version or one bare schema: the
/// OpenAPI schema and its `x-kubernetes-validations` rules (CEL), compiled once.
#[derive(Clone, Debug)]
pub struct Engine {
    schema: CompiledSchema,
    resource: Option<ResourceInfo>,
    resource_root: bool,
    options: EngineOptions,
    #[cfg(feature = "cel")]
    cel: Option<Arc<crate::cel::CelPass>>,
    #[cfg(feature = "cel")]
    rule_problems: Vec<crate::cel::SchemaRuleError>,
    passes: Vec<Arc<dyn ValidationPass>>,
}

/// Whether `v` nests deeper than [`MAX_DEPTH`]. The recursion stops at `MAX_DEPTH`
/// levels, so values built in code with any depth are safe to pass in; it allocates
/// nothing because every admission runs it (a heap stack cost 4 % of `crd-gen validate`).
pub fn too_deep(v: &Value) -> bool {
    depth_of(v, MAX_DEPTH) > MAX_DEPTH
}

/// How deep `v` (and `old`) nest, counted up to just past [`MAX_DEPTH`]: what the
/// entry points size their stack by.
fn depth2(v: &Value, old: Option<&Value>) -> usize {
    let d = depth_of(v, MAX_DEPTH);
    old.map_or(d, |o| d.max(depth_of(o, MAX_DEPTH)))
}

fn depth_error() -> FieldError {
    FieldError::forbidden(
        Path::root(),
        format!("the object nests deeper than {MAX_DEPTH} levels"),
    )
}

impl Engine {
    /// The engine for version `version` of `crd`, behaving like the newest release.
    pub fn for_crd(crd: &CustomResourceDefinition, version: &str) -> Result<Engine, EngineError> {
        Self::for_crd_with(crd, version, EngineOptions::default())
    }

    /// The engine for version `version` of `crd`, with `options`.
    pub fn for_crd_with(
        crd: &CustomResourceDefinition,
        version: &str,
        options: EngineOptions,
    ) -> Result<Engine, EngineError> {
        let v = crd
            .version(version)
            .ok_or_else(|| EngineError::UnknownVersion {
                crd: crd.name().to_string(),
                version: version.to_string(),
            })?;
        let schema = v.open_api_schema().ok_or_else(|| EngineError::NoSchema {
            crd: crd.name().to_string(),
            version: version.to_string(),
        })?;
        let mut engine = Self::build(Some(schema), true, options, true)?;
        engine.resource = Some(ResourceInfo {
            group: crd.spec.group.clone(),
            version: version.to_string(),
            kind: crd.spec.names.kind.clone(),
            namespaced: crd.spec.scope != "Cluster",
        });
        Ok(engine)
    }

    /// An engine for the schema checks only, for the CRD checker's use on parts of
    /// a schema (defaults): its rules are not compiled and never run.
    pub(crate) fn schema_checks_only(
        schema: &JSONSchemaProps,
        options: SchemaOptions,
    ) -> Result<Engine, EngineError> {
        Self::build(
            Some(schema),
            options.resource_root,
            EngineOptions::default(),
            false,
        )
    }

    fn build(
        schema: Option<&JSONSchemaProps>,
        resource_root: bool,
        options: EngineOptions,
        with_rules: bool,
    ) -> Result<Engine, EngineError> {
        options.check()?;
        // Deep schemas compile on a stack sized for them; the depth scan is the only
        // cost for ordinary ones.
        let depth = schema.map_or(0, |s| schema_depth(s, MAX_SCHEMA_DEPTH));
        if depth > MAX_SCHEMA_DEPTH {
            return Err(EngineError::SchemaTooDeep(MAX_SCHEMA_DEPTH));
        }
        with_schema_stack(depth, || {
            let compiled = CompiledSchema::compile_for(schema, options.kube_version)?;
            let has_rules =
                with_rules && compiled.get(compiled.root).is_some_and(|n| n.rules_below);
            #[cfg(not(feature = "cel"))]
            if has_rules {
                return Err(EngineError::CelDisabled);
            }
            #[cfg(feature = "cel")]
            let (cel, rule_problems) = match schema {
                Some(s) if has_rules => {
                    let (pass, problems) =
                        crate::cel::CelPass::for_version(s, resource_root, options.kube_version);
                    let pass = pass.with_ratcheting(options.ratcheting);
                    (pass.has_rules().then(|| Arc::new(pass)), problems)
                }
                _ => (None, Vec::new()),
            };
            Ok(Engine {
                schema: compiled,
                resource: None,
                resource_root,
                options,
                #[cfg(feature = "cel")]
                cel,
                #[cfg(feature = "cel")]
                rule_problems,
                passes: Vec::new(),
            })
        })
    }

    /// An engine for a bare `openAPIV3Schema` (not a resource root unless asked).
    pub fn for_schema(
        schema: &JSONSchemaProps,
        options: SchemaOptions,
    ) -> Result<Engine, EngineError> {
        Self::for_optional_schema(Some(schema), options)
    }

    /// Like [`Engine::for_schema`]; `None` means "no schema" (everything below the
    /// root is unknown), which is not the same as the empty schema `{}`.
    pub fn for_optional_schema(
        schema: Option<&JSONSchemaProps>,
        options: SchemaOptions,
    ) -> Result<Engine, EngineError> {
        Self::build(
            schema,
            options.resource_root,
            EngineOptions::default(),
            true,
        )
    }

    /// [`Engine::for_optional_schema`] with `engine` options.
    pub fn for_schema_with(
        schema: Option<&JSONSchemaProps>,
        options: SchemaOptions,
        engine: EngineOptions,
    ) -> Result<Engine, EngineError> {
        Self::build(schema, options.resource_root, engine, true)
    }

    /// The options the engine was built with.
    pub fn options(&self) -> EngineOptions {
        self.options
    }

    /// Compile problems of the schema's CEL rules (those rules report
    /// `rule compile error` when evaluated; `check` reports them with schema paths).
    #[cfg(feature = "cel")]
    pub fn rule_problems(&self) -> &[crate::cel::SchemaRuleError] {
        &self.rule_problems
    }

    /// Whether the schema has `x-kubernetes-validations` rules (run by every
    /// validation).
    pub fn has_rules(&self) -> bool {
        self.schema
            .get(self.schema.root)
            .is_some_and(|n| n.rules_below)
    }

    /// Adds a validation pass that runs after the built-in ones.
    pub fn with_pass(mut self, pass: Arc<dyn ValidationPass>) -> Engine {
        self.passes.push(pass);
        self
    }

    /// The resource, for engines built from a CRD.
    pub fn resource(&self) -> Option<&ResourceInfo> {
        self.resource.as_ref()
    }

    fn pruner(&self, drop_nulls: bool, record: bool) -> prune::Pruner<'_> {
        prune::Pruner {
            schema: &self.schema,
            resource_root: self.resource_root,
            drop_nulls,
            pruned: record.then(Vec::new),
            too_deep: false,
        }
    }

    /// Drops unknown fields; returns the pruned paths, sorted (`a.b`, `[1].b`).
    /// Values nested deeper than [`MAX_DEPTH`] are left alone.
    pub fn prune(&self, v: &mut Value) -> Vec<String> {
        let depth = depth_of(v, MAX_DEPTH);
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        let mut p = self.pruner(false, true);
        with_stack_for(depth, || p.prune(v, self.schema.root, &PathRef::root()));
        let mut out = p.pruned.unwrap_or_default();
        out.sort();
        out
    }

    /// Drops `null`s of non-nullable fields without a default (never list items).
    pub fn prune_nulls(&self, v: &mut Value) {
        let depth = depth_of(v, MAX_DEPTH);
        if depth > MAX_DEPTH {
            return;
        }
        // Unknown keys stay: nulls are only dropped where a schema is known.
        with_stack_for(depth, || {
            prune::prune_nulls_only(&self.schema, v, self.schema.root, 0)
        });
    }

    /// Round-trips root (for resources) and embedded `metadata` through `ObjectMeta`
    /// and checks that `apiVersion`/`kind` are strings. With `drop_invalid` (how the
    /// API server reads from storage) bad fields are dropped instead of reported.
    pub fn coerce_metadata(&self, v: &mut Value, drop_invalid: bool) -> Result<(), FieldError> {
        let depth = depth_of(v, MAX_DEPTH);
        with_stack_for(depth, || self.coerce_metadata_here(v, drop_invalid))
    }

    /// [`Engine::coerce_metadata`] on the current stack (the caller sized it).
    fn coerce_metadata_here(&self, v: &mut Value, drop_invalid: bool) -> Result<(), FieldError> {
        let c = objectmeta::Coercer {
            schema: &self.schema,
            resource_root: self.resource_root,
            drop_invalid,
        };
        c.coerce(v, self.schema.root, &PathRef::root())
    }

    /// Applies defaults.
    pub fn default(&self, v: &mut Value) {
        let depth = depth_of(v, MAX_DEPTH);
        if depth > MAX_DEPTH {
            return;
        }
        if let Some(root) = self.schema.root {
            with_stack_for(depth, || default::default(&self.schema, v, root, 0));
        }
    }

    /// Validates an object for create.
    pub fn validate(&self, v: &Value) -> ErrorList {
        self.validate_inner(v, None, false)
    }

    /// Validates an object for update of `old`: transition rules see `old`, and with
    /// ratcheting (on by default) errors on values unchanged from `old` are dropped,
    /// as are list-type errors when `old` had some already.
    pub fn validate_update(&self, new: &Value, old: &Value) -> ErrorList {
        self.validate_inner(new, Some(old), false)
    }

    /// Only the OpenAPI schema validation (kube-openapi).
    pub fn validate_schema(&self, v: &Value) -> ErrorList {
        let mut errs = ErrorList::new();
        with_stack_for(depth_of(v, MAX_DEPTH), || {
            self.schema_errors(v, None, &mut errs)
        });
        errs
    }

    /// Only the embedded-resource checks (`x-kubernetes-embedded-resource`, and the
    /// root for a resource-root bare schema).
    pub fn validate_embedded(&self, v: &Value) -> ErrorList {
        with_stack_for(depth_of(v, MAX_DEPTH), || self.embedded_errors(v))
    }

    fn embedded_errors(&self, v: &Value) -> ErrorList {
        let mut errs = ErrorList::new();
        let include_root = self.resource_root && self.resource.is_none();
        objectmeta::validate_embedded(
            &self.schema,
            v,
            self.schema.root,
            &PathRef::root(),
            include_root,
            &mut errs,
        );
        errs
    }

    /// Only the `x-kubernetes-list-type` checks.
    pub fn validate_list_types(&self, v: &Value) -> ErrorList {
        with_stack_for(depth_of(v, MAX_DEPTH), || self.list_type_errors(v))
    }

    fn list_type_errors(&self, v: &Value) -> ErrorList {
        let mut errs = ErrorList::new();
        listtype::validate(
            &self.schema,
            v,
            self.schema.root,
            &PathRef::root(),
            &mut errs,
        );
        errs
    }

    fn schema_errors(&self, v: &Value, old: Option<&Value>, errs: &mut ErrorList) {
        let Some(root) = self.schema.root else { return };
        let mut sv = validate::SchemaValidator::new(&self.schema);
        sv.ratchet = self.options.ratcheting && old.is_some();
        sv.validate(v, old, root, &PathRef::root());
        validate::dedup(&mut sv.errors);
        if sv.too_deep {
            errs.push(depth_error());
        }
        errs.extend(sv.errors);
    }

    fn validate_inner(&self, v: &Value, old: Option<&Value>, checked: bool) -> ErrorList {
        let depth = depth2(v, old);
        if !checked && depth > MAX_DEPTH {
            return ErrorList(vec![depth_error()]);
        }
        with_stack_for(depth, || self.validate_here(v, old, false))
    }

    /// [`Engine::validate_inner`] on the current stack (the caller sized it).
    /// `coerced`: an admission's metadata coercion ran on `v` just before, so its
    /// ObjectMeta is normalized already.
    fn validate_here(&self, v: &Value, old: Option<&Value>, coerced: bool) -> ErrorList {
        let mut errs = ErrorList::new();
        match &self.resource {
            Some(res) => {
                let type_errs = objectmeta::type_meta_errors(res, v);
                if type_errs.is_empty() {
                    let normalized = coerced && self.resource_root;
                    objectmeta::root_meta_errors(res, v, normalized, &mut errs);
                    self.schema_errors(v, old, &mut errs);
                } else {
                    errs.extend(type_errs);
                }
            }
            None => self.schema_errors(v, old, &mut errs),
        }
        errs.extend(self.embedded_errors(v));
        // Like the server, an update whose old object already broke a list-type
        // invariant is not held to it.
        if old.is_none_or(|o| self.list_type_errors(o).is_empty()) {
            errs.extend(self.list_type_errors(v));
        }
        #[cfg(feature = "cel")]
        if let Some(cel) = &self.cel {
            cel.check(v, old, &mut errs);
        }
        if !self.passes.is_empty() {
            let cx = PassContext { value: v, old };
            for p in &self.passes {
                p.validate(&cx, &mut errs);
            }
        }
        errs
    }
}

#[cfg(test)]
mod feature_tests {
    use super::*;

    fn with_rule() -> JSONSchemaProps {
        serde_json::from_value(serde_json::json!({"type": "object",
            "x-kubernetes-validations": [{"rule": "has(self.a)", "message": "a is required"}]}))
        .unwrap()
    }

    #[test]
    fn feature_gates_parse_like_kube_apiserver() {
        let mut o = EngineOptions::default();
        o.set_feature_gate("CRDValidationRatcheting=false").unwrap();
        assert!(!o.ratcheting);
        assert_eq!(
            o.set_feature_gate("CRDValidationRatcheting=no")
                .unwrap_err(),
            "invalid value in --feature-gates \"CRDValidationRatcheting=no\": use true or false"
        );
        assert!(
            o.set_feature_gate("Foo=true")
                .unwrap_err()
                .starts_with("unknown feature gate")
        );
    }

    /// Without feature `cel`, rules are an error naming the feature, never skipped.
    #[cfg(not(feature = "cel"))]
    #[test]
    fn rules_need_the_cel_feature() {
        let err = Engine::for_schema(&with_rule(), SchemaOptions::default()).unwrap_err();
        assert_eq!(err, EngineError::CelDisabled);
        assert!(err.to_string().contains("\"cel\" feature"), "{err}");
    }

    #[cfg(feature = "cel")]
    #[test]
    fn rules_run_in_every_engine() {
        let e = Engine::for_schema(&with_rule(), SchemaOptions::default()).unwrap();
        assert!(e.has_rules());
        assert_eq!(
            e.validate(&serde_json::json!({})).strings(),
            vec!["<nil>: Invalid value: a is required"]
        );
    }
}
