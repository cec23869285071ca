//! The deprecated `apiextensions.k8s.io/v1beta1` form and its conversion to v1.
//!
//! v1beta1 allowed a top-level `version`, `validation`, `subresources` and
//! `additionalPrinterColumns` (with `JSONPath`) shared by all versions, and
//! `conversion.webhookClientConfig`. The conversion follows the API server's:
//! top-level settings are copied into every version, and `preserveUnknownFields`
//! keeps its v1beta1 default of `true` when unset.

use serde::Deserialize;

use super::crd::{
    API_VERSION_V1, CustomResourceColumnDefinition, CustomResourceConversion,
    CustomResourceDefinition, CustomResourceDefinitionNames, CustomResourceDefinitionSpec,
    CustomResourceDefinitionStatus, CustomResourceDefinitionVersion, CustomResourceSubresources,
    CustomResourceValidation, ObjectMeta, SelectableField, WebhookClientConfig, WebhookConversion,
};

/// A v1beta1 CRD as read from a manifest.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomResourceDefinitionV1Beta1 {
    #[serde(rename = "apiVersion")]
    api_version: String,
    kind: String,
    #[serde(default)]
    metadata: ObjectMeta,
    #[serde(default)]
    spec: SpecV1Beta1,
    #[serde(default)]
    status: Option<CustomResourceDefinitionStatus>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct SpecV1Beta1 {
    #[serde(default)]
    group: String,
    #[serde(default)]
    version: Option<String>,
    #[serde(default)]
    names: CustomResourceDefinitionNames,
    #[serde(default)]
    scope: String,
    #[serde(default)]
    validation: Option<CustomResourceValidation>,
    #[serde(default)]
    subresources: Option<CustomResourceSubresources>,
    #[serde(default)]
    versions: Option<Vec<VersionV1Beta1>>,
    #[serde(rename = "additionalPrinterColumns", default)]
    additional_printer_columns: Option<Vec<ColumnV1Beta1>>,
    #[serde(rename = "selectableFields", default)]
    selectable_fields: Option<Vec<SelectableField>>,
    #[serde(default)]
    conversion: Option<ConversionV1Beta1>,
    #[serde(rename = "preserveUnknownFields", default)]
    preserve_unknown_fields: Option<bool>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct VersionV1Beta1 {
    #[serde(default)]
    name: String,
    #[serde(default)]
    served: bool,
    #[serde(default)]
    storage: bool,
    #[serde(default)]
    deprecated: Option<bool>,
    #[serde(rename = "deprecationWarning", default)]
    deprecation_warning: Option<String>,
    #[serde(default)]
    schema: Option<CustomResourceValidation>,
    #[serde(default)]
    subresources: Option<CustomResourceSubresources>,
    #[serde(rename = "additionalPrinterColumns", default)]
    additional_printer_columns: Option<Vec<ColumnV1Beta1>>,
    #[serde(rename = "selectableFields", default)]
    selectable_fields: Option<Vec<SelectableField>>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ColumnV1Beta1 {
    #[serde(default)]
    name: String,
    #[serde(rename = "type", default)]
    type_: String,
    #[serde(default)]
    format: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    priority: Option<i32>,
    #[serde(rename = "JSONPath", default)]
    json_path: String,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConversionV1Beta1 {
    #[serde(default)]
    strategy: String,
    #[serde(rename = "webhookClientConfig", default)]
    webhook_client_config: Option<WebhookClientConfig>,
    #[serde(rename = "conversionReviewVersions", default)]
    conversion_review_versions: Option<Vec<String>>,
}

impl From<ColumnV1Beta1> for CustomResourceColumnDefinition {
    fn from(c: ColumnV1Beta1) -> Self {
        CustomResourceColumnDefinition {
            name: c.name,
            type_: c.type_,
            format: c.format,
            description: c.description,
            priority: c.priority,
            json_path: c.json_path,
        }
    }
}

fn columns(cols: Option<Vec<ColumnV1Beta1>>) -> Option<Vec<CustomResourceColumnDefinition>> {
    cols.map(|c| c.into_iter().map(Into::into).collect())
}

impl CustomResourceDefinitionV1Beta1 {
    /// Converts to the v1 form, as the API server does on read.
    pub fn into_v1(self) -> CustomResourceDefinition {
        let spec = self.spec;
        let versions = match spec.versions {
            Some(v) if !v.is_empty() => v,
            // Only `version` given: it is the single served storage version.
            _ => vec![VersionV1Beta1 {
                name: spec.version.clone().unwrap_or_default(),
                served: true,
                storage: true,
                ..Default::default()
            }],
        };
        let top_columns = columns(spec.additional_printer_columns);
        let versions = versions
            .into_iter()
            .map(|v| CustomResourceDefinitionVersion {
                name: v.name,
                served: v.served,
                storage: v.storage,
                deprecated: v.deprecated,
                deprecation_warning: v.deprecation_warning,
                schema: v.schema.or_else(|| spec.validation.clone()),
                subresources: v.subresources.or_else(|| spec.subresources.clone()),
                additional_printer_columns: columns(v.additional_printer_columns)
                    .or_else(|| top_columns.clone()),
                selectable_fields: v
                    .selectable_fields
                    .or_else(|| spec.selectable_fields.clone()),
            })
            .collect();
        let conversion = spec.conversion.map(|c| CustomResourceConversion {
            webhook: (c.webhook_client_config.is_some() || c.conversion_review_versions.is_some())
                .then(|| WebhookConversion {
                    client_config: c.webhook_client_config,
                    // v1beta1 defaulted the review versions to ["v1beta1"].
                    conversion_review_versions: c
                        .conversion_review_versions
                        .unwrap_or_else(|| vec!["v1beta1".to_string()]),
                }),
            strategy: c.strategy,
        });
        CustomResourceDefinition {
            api_version: API_VERSION_V1.to_string(),
            kind: self.kind,
            metadata: self.metadata,
            spec: CustomResourceDefinitionSpec {
                group: spec.group,
                names: spec.names,
                scope: spec.scope,
                versions,
                conversion,
                // v1beta1 defaulted this to true.
                preserve_unknown_fields: Some(spec.preserve_unknown_fields.unwrap_or(true)),
            },
            status: self.status,
        }
    }

    /// The `apiVersion` this object was read with.
    pub fn api_version(&self) -> &str {
        &self.api_version
    }
}
