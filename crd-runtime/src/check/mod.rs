//! Static checks of CRDs and their schemas, reported exactly like the API server
//! (`apiextensions-apiserver`'s `ValidateCustomResourceDefinition`).
//!
//! - [`validate_crd`]: a v1 manifest, as a **create** request would be validated.
//! - [`validate_internal_crd`]: a CRD already in the server's internal form
//!   ([`InternalCrd`], as upstream's tests write them).
//! - [`validate_identity`]: only the rules for the names (metadata, group, names,
//!   versions), without visiting any schema; [`validate_property_types`]: only the
//!   `type` rule of a schema.
//! - [`validate_schema`]: one `openAPIV3Schema` (the conformance tables' unit).
//! - [`validate_structural`] / [`validate_structural_completeness`]: the
//!   structural-schema rules alone.
//! - [`assert_valid_crd`]: a test helper that panics listing every violation.
//!
//! All violations are collected; nothing stops at the first one.

#[cfg(feature = "cel")]
mod cel_rules;
mod completeness;
mod conversion;
mod crd_level;
mod crd_names;
mod defaults;
mod internal;
mod listtype;
mod objectmeta;
mod openapi;
mod printer_columns;
mod schema;
mod structural;

pub use completeness::validate_structural_completeness;
pub use crd_names::validate_identity;
pub use internal::{
    InternalConversion, InternalCrd, InternalSpec, InternalStatus, InternalVersion, PathStyle,
};
pub use openapi::validate_property_types;
pub use schema::{validate_schema, validate_validation};
pub use structural::{conversion_error as structural_conversion_error, validate_structural};

use crate::depth::schema::{
    MAX_SCHEMA_DEPTH, crd_schema_depth, schema_depth, validations_depth, with_schema_stack,
};
use crate::field::Path;
use std::sync::Arc;

use crate::field::ErrorList;
use crate::model::{CustomResourceDefinition, PreexistingExpressions};

/// Which rules apply, mirroring upstream's `validationOptions` (plus the
/// structural-schema `ValidationOptions`). Updates of existing CRDs relax some
/// rules so that stored objects stay valid; a create enables all of them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckOptions {
    /// Schemas may contain `default`s.
    pub allow_defaults: bool,
    /// Webhook conversion must list a ConversionReview version the server knows.
    pub require_recognized_conversion_review_version: bool,
    /// Every version needs an `openAPIV3Schema`.
    pub require_open_api_schema: bool,
    /// `type` must be one of the OpenAPI v3 types.
    pub require_valid_property_type: bool,
    /// Schemas must be structural (forced on when pruning, defaults or
    /// `x-kubernetes-*` extensions are used).
    pub require_structural_schema: bool,
    /// Defaults must not contain fields pruning would drop.
    pub require_pruned_defaults: bool,
    /// Items of `x-kubernetes-list-type: set` must be atomic.
    pub require_atomic_set_type: bool,
    /// Map-list keys are required or defaulted and not nullable; set/map items are not nullable.
    pub require_map_list_keys_map_set_validation: bool,
    /// Allow `additionalProperties` inside `allOf`/`anyOf`/`oneOf`/`not`.
    pub allow_nested_additional_properties: bool,
    /// Allow junctor validations of properties that only `additionalProperties` specifies.
    pub allow_validation_properties_with_additional_properties: bool,
    /// At least one version must be served. Not an API-server rule: a CRD without
    /// a served version is accepted but useless, so `crd-gen check` reports it.
    pub require_served_version: bool,
    /// How a v1 CRD's per-version fields map to error paths.
    pub path_style: PathStyle,
    /// The CEL compatibility version (major, minor) new
    /// `x-kubernetes-validations` are compiled at
    /// (`celEnvironmentCompatibilityVersion`; a 1.N server uses 1.(N-1));
    /// `None`: the newest this crate implements. Before 1.31, property names
    /// that are CEL keywords can only be selected escaped (`self.__if__`).
    pub cel_environment_version: Option<(u32, u32)>,
    /// On an update: the rules and message expressions of the old CRD, which
    /// are compiled in the stored-expression environment (one release newer
    /// than the compatibility version) instead.
    pub preexisting_expressions: Option<Arc<PreexistingExpressions>>,
}

impl CheckOptions {
    /// What creating a v1 CRD enables (`ValidateCustomResourceDefinition`), plus
    /// [`CheckOptions::require_served_version`], with per-version error paths.
    pub fn v1_create() -> Self {
        CheckOptions {
            allow_defaults: true,
            require_recognized_conversion_review_version: true,
            require_open_api_schema: true,
            require_valid_property_type: true,
            require_structural_schema: true,
            require_pruned_defaults: true,
            require_atomic_set_type: true,
            require_map_list_keys_map_set_validation: true,
            allow_nested_additional_properties: false,
            allow_validation_properties_with_additional_properties: false,
            require_served_version: true,
            path_style: PathStyle::PerVersion,
            cel_environment_version: None,
            preexisting_expressions: None,
        }
    }

    /// Exactly upstream's create options (no extra rules), with the server's paths.
    pub fn api_server_create() -> Self {
        CheckOptions {
            require_served_version: false,
            path_style: PathStyle::Server,
            ..Self::v1_create()
        }
    }
}

/// A field that must hold one of `allowed`: required when empty, else not supported
/// when it is none of them.
fn one_of(errs: &mut ErrorList, path: Path, value: &str, allowed: &[&str]) {
    if value.is_empty() {
        errs.push(crate::field::FieldError::required(path, ""));
    } else if !allowed.contains(&value) {
        errs.push(crate::field::FieldError::not_supported(
            path,
            crate::field::BadValue::Str(value.into()),
            allowed,
        ));
    }
}

/// `type` is `ty` where the schema needs another one (`detail` says which): required
/// when empty, else invalid, as the API server reports it.
fn wrong_type(path: &Path, ty: &str, detail: &str) -> crate::field::FieldError {
    use crate::field::{BadValue, FieldError};
    if ty.is_empty() {
        FieldError::required(path.child("type"), detail)
    } else {
        FieldError::invalid(path.child("type"), BadValue::Str(ty.into()), detail)
    }
}

/// Validates a v1 CRD as the API server validates a create request: v1 defaults
/// are applied, the status is reset, then every rule in `opts` is checked.
pub fn validate_crd(crd: &CustomResourceDefinition, opts: &CheckOptions) -> ErrorList {
    // The internal copy clones, walks and drops every schema: deep ones on a stack
    // sized for them (see `depth::schema`); a schema too deep for any stack we size
    // is refused alone, before it is copied.
    let depth = crd_schema_depth(crd);
    if depth > MAX_SCHEMA_DEPTH {
        return too_deep_schemas(crd, opts);
    }
    with_schema_stack(depth, || {
        let internal = InternalCrd::from_v1(crd, opts.path_style);
        // Kept per version, identical fields are the norm in v1 and not an error.
        crd_level::validate_internal(&internal, opts, opts.path_style == PathStyle::Server)
    })
}

/// The refusals of `crd`'s schemas nested past [`MAX_SCHEMA_DEPTH`].
fn too_deep_schemas(crd: &CustomResourceDefinition, opts: &CheckOptions) -> ErrorList {
    let mut errs = ErrorList::new();
    for (i, v) in crd.spec.versions.iter().enumerate() {
        let Some(s) = v
            .schema
            .as_ref()
            .and_then(|s| s.open_api_v3_schema.as_ref())
        else {
            continue;
        };
        if schema_depth(s, MAX_SCHEMA_DEPTH) > MAX_SCHEMA_DEPTH {
            let path = Path::new("spec").child("versions").index(i).child("schema");
            errs.extend(validate_schema(Some(s), false, opts, &path));
        }
    }
    errs
}

/// The API server's refusals of `crd` replacing a CRD whose `status.storedVersions` is
/// `stored`: an update keeps the stored versions and adds the new storage version
/// (upstream's `PrepareForUpdate`), then `ValidateCustomResourceDefinitionStoredVersions`
/// refuses each stored version missing from `spec.versions`.
pub(crate) fn stored_versions_on_update(
    crd: &CustomResourceDefinition,
    stored: &[String],
) -> ErrorList {
    let mut stored = stored.to_vec();
    for v in crd.spec.versions.iter().filter(|v| v.storage) {
        if !stored.contains(&v.name) {
            stored.push(v.name.clone());
        }
    }
    let versions: Vec<InternalVersion> = crd
        .spec
        .versions
        .iter()
        .map(|v| InternalVersion {
            name: v.name.clone(),
            served: v.served,
            storage: v.storage,
            ..Default::default()
        })
        .collect();
    crd_names::validate_stored_versions(
        &stored,
        &versions,
        &Path::new("status").child("storedVersions"),
    )
}

/// Validates a CRD given in the internal form, without defaulting.
pub fn validate_internal_crd(crd: &InternalCrd, opts: &CheckOptions) -> ErrorList {
    let depth = validations_depth(
        std::iter::once(crd.spec.validation.as_ref())
            .chain(crd.spec.versions.iter().map(|v| v.schema.as_ref())),
    );
    with_schema_stack(depth, || crd_level::validate_internal(crd, opts, true))
}

/// Panics, listing every violation, unless `crd` passes [`CheckOptions::v1_create`].
///
/// Meant for tests of code that builds CRDs:
///
/// ```
/// let yaml = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n\
///   metadata: {name: crontabs.stable.example.com}\n\
///   spec:\n  group: stable.example.com\n  scope: Namespaced\n\
///   \x20 names: {plural: crontabs, singular: crontab, kind: CronTab}\n\
///   \x20 versions:\n  - name: v1\n    served: true\n    storage: true\n\
///   \x20   schema: {openAPIV3Schema: {type: object}}\n";
/// let crd = crd_runtime::load_crds("crontab.yaml", yaml).unwrap().crds.remove(0).crd;
/// crd_runtime::assert_valid_crd(&crd);
/// ```
#[track_caller]
pub fn assert_valid_crd(crd: &CustomResourceDefinition) {
    let errs = validate_crd(crd, &CheckOptions::v1_create());
    if !errs.is_empty() {
        let lines: Vec<String> = errs.iter().map(|e| format!("  {e}")).collect();
        panic!(
            "CRD {} has {} violation(s):\n{}",
            crd.name(),
            errs.len(),
            lines.join("\n")
        );
    }
}

/// The errors of the schema check `check` over `schema` at path `s` with the v1
/// create options, rendered like the API server (the checks' unit tests).
#[cfg(test)]
fn check_strings(
    schema: serde_json::Value,
    check: fn(&crate::model::JSONSchemaProps, &Path, &CheckOptions) -> ErrorList,
) -> Vec<String> {
    let s = serde_json::from_value(schema).expect("a schema");
    check(&s, &Path::new("s"), &CheckOptions::v1_create()).strings()
}
