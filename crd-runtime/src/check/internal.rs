//! The API server's *internal* CRD form, which its validation runs on.
//!
//! The internal type still has the v1beta1-era top-level `spec.version`,
//! `spec.validation`, `spec.subresources`, `spec.additionalPrinterColumns` and
//! `spec.selectableFields`, and `spec.conversion.webhookClientConfig`. A v1 object is
//! converted into it before validation; that conversion *promotes* per-version
//! fields that are identical in all versions to top level, which is why the server
//! reports `spec.validation.openAPIV3Schema...` paths for single-version CRDs.
//!
//! [`InternalCrd::from_v1`] does that conversion, either faithfully
//! ([`PathStyle::Server`]) or without promotion ([`PathStyle::PerVersion`]) so that
//! errors point at the `spec.versions[i]...` a manifest author actually wrote.

use serde::Deserialize;

use crate::model::{
    CustomResourceColumnDefinition, CustomResourceDefinition, CustomResourceDefinitionNames,
    CustomResourceSubresources, CustomResourceValidation, ObjectMeta, SelectableField,
    WebhookClientConfig,
};

/// How per-version fields of a v1 CRD are mapped into the internal form.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PathStyle {
    /// Keep every field in its version: errors read `spec.versions[0].schema.openAPIV3Schema...`.
    #[default]
    PerVersion,
    /// Promote fields identical across all versions to top level, exactly like the
    /// API server: errors read `spec.validation.openAPIV3Schema...` for shared schemas.
    Server,
}

/// A CRD in the internal form (JSON field names as in the v1/v1beta1 tags).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct InternalCrd {
    /// Object metadata.
    pub metadata: ObjectMeta,
    /// The definition.
    pub spec: InternalSpec,
    /// Status (stored versions, accepted names).
    pub status: InternalStatus,
}

/// Internal `spec`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct InternalSpec {
    /// API group.
    pub group: String,
    /// Legacy single version; must equal `versions[0].name` when set.
    pub version: String,
    /// Resource and kind names (`singular`/`listKind` empty when unset).
    pub names: CustomResourceDefinitionNames,
    /// `Namespaced` or `Cluster`.
    pub scope: String,
    /// Top-level schema shared by all versions.
    pub validation: Option<CustomResourceValidation>,
    /// Top-level subresources shared by all versions.
    pub subresources: Option<CustomResourceSubresources>,
    /// The versions.
    pub versions: Vec<InternalVersion>,
    /// Top-level printer columns shared by all versions.
    #[serde(rename = "additionalPrinterColumns")]
    pub additional_printer_columns: Vec<CustomResourceColumnDefinition>,
    /// Top-level selectable fields shared by all versions.
    #[serde(rename = "selectableFields")]
    pub selectable_fields: Vec<SelectableField>,
    /// Conversion settings.
    pub conversion: Option<InternalConversion>,
    /// `preserveUnknownFields` (unset means false for v1).
    #[serde(rename = "preserveUnknownFields")]
    pub preserve_unknown_fields: Option<bool>,
}

/// Internal `spec.versions[i]`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct InternalVersion {
    /// Version name.
    pub name: String,
    /// Served by the REST API.
    pub served: bool,
    /// The storage version.
    pub storage: bool,
    /// Deprecated.
    pub deprecated: bool,
    /// Warning for clients of a deprecated version.
    #[serde(rename = "deprecationWarning")]
    pub deprecation_warning: Option<String>,
    /// Per-version schema.
    pub schema: Option<CustomResourceValidation>,
    /// Per-version subresources.
    pub subresources: Option<CustomResourceSubresources>,
    /// Per-version printer columns.
    #[serde(rename = "additionalPrinterColumns")]
    pub additional_printer_columns: Vec<CustomResourceColumnDefinition>,
    /// Per-version selectable fields.
    #[serde(rename = "selectableFields")]
    pub selectable_fields: Vec<SelectableField>,
}

/// Internal `spec.conversion`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct InternalConversion {
    /// `None` or `Webhook`.
    pub strategy: String,
    /// Webhook endpoint.
    #[serde(rename = "webhookClientConfig")]
    pub webhook_client_config: Option<WebhookClientConfig>,
    /// ConversionReview versions the webhook understands.
    #[serde(rename = "conversionReviewVersions")]
    pub conversion_review_versions: Vec<String>,
}

/// Internal `status` (only what validation looks at).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct InternalStatus {
    /// Names the server accepted.
    #[serde(rename = "acceptedNames")]
    pub accepted_names: CustomResourceDefinitionNames,
    /// Versions ever persisted.
    #[serde(rename = "storedVersions")]
    pub stored_versions: Vec<String>,
}

/// The webhook service port when a v1 manifest leaves it out.
const DEFAULT_SERVICE_PORT: i32 = 443;

impl InternalCrd {
    /// Converts a v1 CRD the way a **create** request does: v1 defaults are applied
    /// (`singular`, `listKind`, conversion strategy `None`, service port 443), the
    /// status is replaced by `storedVersions: [<first storage version>]`, and
    /// per-version fields are kept or promoted according to `style`.
    pub fn from_v1(crd: &CustomResourceDefinition, style: PathStyle) -> InternalCrd {
        let spec = &crd.spec;
        let mut names = spec.names.clone();
        if names.singular.as_deref().unwrap_or("").is_empty() {
            names.singular = Some(names.kind.to_lowercase());
        }
        if names.list_kind.as_deref().unwrap_or("").is_empty() && !names.kind.is_empty() {
            names.list_kind = Some(format!("{}List", names.kind));
        }
        let conversion = match &spec.conversion {
            None => InternalConversion {
                strategy: "None".into(),
                ..Default::default()
            },
            Some(c) => {
                let webhook = c.webhook.as_ref();
                let mut client_config = webhook.and_then(|w| w.client_config.clone());
                if let Some(service) = client_config.as_mut().and_then(|cc| cc.service.as_mut()) {
                    service.port.get_or_insert(DEFAULT_SERVICE_PORT);
                }
                InternalConversion {
                    strategy: c.strategy.clone(),
                    webhook_client_config: client_config,
                    conversion_review_versions: webhook
                        .map(|w| w.conversion_review_versions.clone())
                        .unwrap_or_default(),
                }
            }
        };
        let mut versions: Vec<InternalVersion> = spec
            .versions
            .iter()
            .map(|v| InternalVersion {
                name: v.name.clone(),
                served: v.served,
                storage: v.storage,
                deprecated: v.deprecated.unwrap_or(false),
                deprecation_warning: v.deprecation_warning.clone(),
                schema: v.schema.clone(),
                subresources: v.subresources.clone(),
                additional_printer_columns: v
                    .additional_printer_columns
                    .clone()
                    .unwrap_or_default(),
                selectable_fields: v.selectable_fields.clone().unwrap_or_default(),
            })
            .collect();
        let mut out = InternalSpec {
            group: spec.group.clone(),
            version: versions.first().map(|v| v.name.clone()).unwrap_or_default(),
            names,
            scope: spec.scope.clone(),
            conversion: Some(conversion),
            preserve_unknown_fields: Some(spec.preserve_unknown_fields.unwrap_or(false)),
            ..Default::default()
        };
        if style == PathStyle::Server && !versions.is_empty() {
            promote_identical(&mut out, &mut versions);
        }
        out.versions = versions;
        let stored = spec
            .versions
            .iter()
            .find(|v| v.storage)
            .map(|v| vec![v.name.clone()])
            .unwrap_or_default();
        InternalCrd {
            metadata: crd.metadata.clone(),
            spec: out,
            status: InternalStatus {
                accepted_names: CustomResourceDefinitionNames::default(),
                stored_versions: stored,
            },
        }
    }
}

/// Moves each per-version field that is identical in every version to top level
/// (`Convert_v1_CustomResourceDefinitionSpec_To_apiextensions_...`).
fn promote_identical(out: &mut InternalSpec, versions: &mut [InternalVersion]) {
    fn identical<T: PartialEq>(vs: &[InternalVersion], f: impl Fn(&InternalVersion) -> &T) -> bool {
        vs.iter().all(|v| f(v) == f(&vs[0]))
    }
    if identical(versions, |v| &v.schema) {
        out.validation = versions[0].schema.clone();
        versions.iter_mut().for_each(|v| v.schema = None);
    }
    if identical(versions, |v| &v.subresources) {
        out.subresources = versions[0].subresources.clone();
        versions.iter_mut().for_each(|v| v.subresources = None);
    }
    if identical(versions, |v| &v.additional_printer_columns) {
        out.additional_printer_columns = versions[0].additional_printer_columns.clone();
        versions
            .iter_mut()
            .for_each(|v| v.additional_printer_columns.clear());
    }
    if identical(versions, |v| &v.selectable_fields) {
        out.selectable_fields = versions[0].selectable_fields.clone();
        versions
            .iter_mut()
            .for_each(|v| v.selectable_fields.clear());
    }
}

impl InternalSpec {
    /// The subresources that apply to `version` (top level unless any version has its own).
    pub fn subresources_for(&self, index: usize) -> Option<&CustomResourceSubresources> {
        if self.versions.iter().any(|v| v.subresources.is_some()) {
            self.versions.get(index)?.subresources.as_ref()
        } else {
            self.subresources.as_ref()
        }
    }

    /// Whether any version (or the top level) enables `/status`.
    pub fn any_status_enabled(&self) -> bool {
        has_status(self.subresources.as_ref())
            || self
                .versions
                .iter()
                .any(|v| has_status(v.subresources.as_ref()))
    }
}

/// Whether a subresources block enables `/status`.
pub fn has_status(s: Option<&CustomResourceSubresources>) -> bool {
    s.is_some_and(|s| s.status.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::load_crds;

    const CRONTAB: &str = include_str!("../../tests/data/crontab-full.yaml");

    #[test]
    fn v1_create_defaults_and_status() {
        let crd = load_crds("c.yaml", CRONTAB).unwrap().crds.remove(0).crd;
        let internal = InternalCrd::from_v1(&crd, PathStyle::PerVersion);
        assert_eq!(internal.status.stored_versions, vec!["v1".to_string()]);
        assert_eq!(internal.spec.version, "v1");
        assert!(internal.spec.validation.is_none());
        assert!(internal.spec.versions[0].schema.is_some());
        assert_eq!(
            internal.spec.conversion.as_ref().unwrap().strategy,
            "None".to_string()
        );
        let promoted = InternalCrd::from_v1(&crd, PathStyle::Server);
        assert!(promoted.spec.validation.is_some());
        assert!(promoted.spec.versions[0].schema.is_none());
    }
}
