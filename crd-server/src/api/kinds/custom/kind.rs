//! A custom resource kind as an established CRD defines it: names, scope, and per
//! version the engine (schema + CEL), subresources, printer columns, selectable fields.

use std::sync::Arc;

use crd_runtime::engine::{Engine, EngineOptions};
use crd_runtime::model::{
    CustomResourceColumnDefinition, CustomResourceDefinition, CustomResourceSubresourceScale,
    JSONSchemaProps,
};

use crate::api::conversion::{ConversionWebhooks, Converter};
use crate::api::status::Qualified;

/// One version of a custom resource.
pub struct CustomVersion {
    pub name: String,
    pub served: bool,
    /// The admission engine (with CEL), or why it could not be built.
    pub engine: Result<Arc<Engine>, String>,
    pub schema: Option<JSONSchemaProps>,
    /// Status subresource on.
    pub status: bool,
    pub scale: Option<CustomResourceSubresourceScale>,
    pub columns: Vec<CustomResourceColumnDefinition>,
    /// `selectableFields` JSON paths.
    pub selectable: Vec<String>,
    /// `deprecationWarning` (or the default text) when `deprecated`.
    pub warning: Option<String>,
}

/// A custom resource kind served from a CRD.
pub struct CustomKind {
    pub q: Qualified,
    pub singular: String,
    pub list_kind: String,
    pub namespaced: bool,
    pub short_names: Vec<String>,
    pub categories: Vec<String>,
    /// Versions in the CRD's order.
    pub versions: Vec<CustomVersion>,
    /// How objects convert between versions.
    pub conversion: Converter,
    /// The storage version's name.
    pub storage_version: String,
    /// The CRD is being deleted (`deletionTimestamp` or `Terminating`): creates of new
    /// objects are refused, everything else is still served.
    pub refuses_creates: bool,
    /// The CRD's `Terminating` condition is true: discovery lists only the verbs that
    /// read or delete.
    pub terminating: bool,
}

impl CustomKind {
    /// Builds the kind of an established CRD (its conversion webhook served by
    /// `in_process` when that has one).
    pub fn from_crd(
        crd: &CustomResourceDefinition,
        options: EngineOptions,
        in_process: &ConversionWebhooks,
    ) -> CustomKind {
        let names = &crd.spec.names;
        let terminating = crd
            .status
            .iter()
            .flat_map(|s| s.conditions.iter().flatten())
            .any(|c| c["type"] == "Terminating" && c["status"] == "True");
        let versions = crd
            .spec
            .versions
            .iter()
            .map(|v| {
                let engine = Engine::for_crd_with(crd, &v.name, options)
                    .map(Arc::new)
                    .map_err(|e| e.to_string());
                let sub = v.subresources.as_ref();
                let warning = (v.deprecated == Some(true)).then(|| {
                    v.deprecation_warning.clone().unwrap_or_else(|| {
                        format!("{}/{} {} is deprecated", crd.spec.group, v.name, names.kind)
                    })
                });
                CustomVersion {
                    name: v.name.clone(),
                    served: v.served,
                    engine,
                    schema: v.open_api_schema().cloned(),
                    status: sub.is_some_and(|s| s.status.is_some()),
                    scale: sub.and_then(|s| s.scale.clone()),
                    columns: v.additional_printer_columns.clone().unwrap_or_default(),
                    selectable: v
                        .selectable_fields
                        .iter()
                        .flatten()
                        .map(|f| f.json_path.clone())
                        .collect(),
                    warning,
                }
            })
            .collect();
        CustomKind {
            q: Qualified {
                group: crd.spec.group.clone(),
                plural: names.plural.clone(),
                kind: names.kind.clone(),
            },
            singular: names
                .singular
                .clone()
                .unwrap_or_else(|| names.kind.to_lowercase()),
            list_kind: names
                .list_kind
                .clone()
                .unwrap_or_else(|| format!("{}List", names.kind)),
            namespaced: crd.spec.scope != "Cluster",
            short_names: names.short_names.clone().unwrap_or_default(),
            categories: names.categories.clone().unwrap_or_default(),
            versions,
            conversion: Converter::of(crd, in_process),
            storage_version: crd
                .spec
                .versions
                .iter()
                .find(|v| v.storage)
                .map(|v| v.name.clone())
                .unwrap_or_default(),
            refuses_creates: terminating
                || crd
                    .metadata
                    .other
                    .get("deletionTimestamp")
                    .is_some_and(|t| !t.is_null()),
            terminating,
        }
    }

    /// A version by name, served or not (objects may be stored in any).
    pub fn any_version(&self, name: &str) -> Option<&CustomVersion> {
        self.versions.iter().find(|v| v.name == name)
    }

    /// Where objects of this kind are stored: `/registry/{group}/{plural}/`.
    pub fn prefix(&self) -> String {
        custom_prefix(&self.q.group, &self.q.plural)
    }
}

/// The storage prefix of a custom resource.
pub fn custom_prefix(group: &str, plural: &str) -> String {
    format!("/registry/{group}/{plural}/")
}
