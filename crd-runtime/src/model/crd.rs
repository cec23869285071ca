//! `apiextensions.k8s.io/v1` `CustomResourceDefinition`.
//!
//! Fields the API server requires (`group`, `names.plural`, `served`, ...) are plain
//! values defaulting to empty, so that a CRD missing them still loads and the checker
//! can report `Required value` with the server's field path instead of failing to parse.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::schema::JSONSchemaProps;

/// The v1 API version string.
pub const API_VERSION_V1: &str = "apiextensions.k8s.io/v1";
/// The deprecated v1beta1 API version string.
pub const API_VERSION_V1BETA1: &str = "apiextensions.k8s.io/v1beta1";
/// The kind of a CRD.
pub const KIND: &str = "CustomResourceDefinition";

/// A CustomResourceDefinition in its v1 form.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomResourceDefinition {
    /// `apiextensions.k8s.io/v1`.
    #[serde(rename = "apiVersion")]
    pub api_version: String,
    /// `CustomResourceDefinition`.
    pub kind: String,
    /// Object metadata; `name` must be `<plural>.<group>`.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// The definition.
    #[serde(default)]
    pub spec: CustomResourceDefinitionSpec,
    /// Status as written by the API server (often present in generated manifests).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<CustomResourceDefinitionStatus>,
}

/// Object metadata: of CRD manifests, and of custom resources built with `crd-derive`.
///
/// The typed fields have the names and types of k8s-openapi's `ObjectMeta`, so code written
/// as `ObjectMeta { name: Some(..), ..Default::default() }` keeps compiling when the `kube`
/// feature swaps this type for k8s-openapi's. Fields whose k8s-openapi types are richer
/// (timestamps, owner references, managed fields) are kept verbatim in [`ObjectMeta::other`]
/// so that objects round-trip without loss.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ObjectMeta {
    /// `metadata.name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `metadata.generateName`.
    #[serde(
        rename = "generateName",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub generate_name: Option<String>,
    /// `metadata.namespace`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// `metadata.labels`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<BTreeMap<String, String>>,
    /// `metadata.annotations`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<BTreeMap<String, String>>,
    /// `metadata.uid`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
    /// `metadata.resourceVersion`.
    #[serde(
        rename = "resourceVersion",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub resource_version: Option<String>,
    /// `metadata.generation`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation: Option<i64>,
    /// `metadata.finalizers`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finalizers: Option<Vec<String>>,
    /// `metadata.deletionGracePeriodSeconds`.
    #[serde(
        rename = "deletionGracePeriodSeconds",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub deletion_grace_period_seconds: Option<i64>,
    /// `metadata.selfLink`.
    #[serde(rename = "selfLink", default, skip_serializing_if = "Option::is_none")]
    pub self_link: Option<String>,
    /// Any other metadata (`creationTimestamp`, `ownerReferences`, ...), kept as written.
    #[serde(flatten)]
    pub other: BTreeMap<String, Value>,
}

/// `spec` of a CRD.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomResourceDefinitionSpec {
    /// API group of the resources, e.g. `stable.example.com`.
    #[serde(default)]
    pub group: String,
    /// Resource and kind names.
    #[serde(default)]
    pub names: CustomResourceDefinitionNames,
    /// `Namespaced` or `Cluster`.
    #[serde(default)]
    pub scope: String,
    /// The served versions.
    #[serde(default)]
    pub versions: Vec<CustomResourceDefinitionVersion>,
    /// How to convert between versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversion: Option<CustomResourceConversion>,
    /// Legacy: keep unknown fields everywhere (must be false in v1).
    #[serde(
        rename = "preserveUnknownFields",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub preserve_unknown_fields: Option<bool>,
}

/// `spec.names`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomResourceDefinitionNames {
    /// Plural resource name, used in URLs (`crontabs`).
    #[serde(default)]
    pub plural: String,
    /// Singular name (`crontab`); defaults to the lower-cased kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub singular: Option<String>,
    /// Short names for kubectl (`ct`).
    #[serde(
        rename = "shortNames",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub short_names: Option<Vec<String>>,
    /// The kind (`CronTab`).
    #[serde(default)]
    pub kind: String,
    /// The list kind; defaults to `<kind>List`.
    #[serde(rename = "listKind", default, skip_serializing_if = "Option::is_none")]
    pub list_kind: Option<String>,
    /// Groupings such as `all`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub categories: Option<Vec<String>>,
}

/// One entry of `spec.versions`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomResourceDefinitionVersion {
    /// Version name (`v1`, `v1beta2`).
    #[serde(default)]
    pub name: String,
    /// Whether the version is served by the REST API.
    #[serde(default)]
    pub served: bool,
    /// Whether objects are persisted in this version (exactly one is).
    #[serde(default)]
    pub storage: bool,
    /// Whether the version is deprecated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deprecated: Option<bool>,
    /// Warning returned to clients of a deprecated version.
    #[serde(
        rename = "deprecationWarning",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub deprecation_warning: Option<String>,
    /// The schema of this version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<CustomResourceValidation>,
    /// Status and scale subresources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subresources: Option<CustomResourceSubresources>,
    /// Extra `kubectl get` columns.
    #[serde(
        rename = "additionalPrinterColumns",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub additional_printer_columns: Option<Vec<CustomResourceColumnDefinition>>,
    /// Fields usable in field selectors.
    #[serde(
        rename = "selectableFields",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub selectable_fields: Option<Vec<SelectableField>>,
}

/// `schema` of a version.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomResourceValidation {
    /// The OpenAPI v3 schema of the whole object.
    #[serde(
        rename = "openAPIV3Schema",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub open_api_v3_schema: Option<JSONSchemaProps>,
}

/// `subresources` of a version.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomResourceSubresources {
    /// `status: {}` enables the `/status` subresource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<CustomResourceSubresourceStatus>,
    /// The `/scale` subresource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<CustomResourceSubresourceScale>,
}

/// The (empty) status subresource marker.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomResourceSubresourceStatus {}

/// The scale subresource.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomResourceSubresourceScale {
    /// JSON path of the desired replicas, under `.spec`.
    #[serde(rename = "specReplicasPath", default)]
    pub spec_replicas_path: String,
    /// JSON path of the observed replicas, under `.status`.
    #[serde(rename = "statusReplicasPath", default)]
    pub status_replicas_path: String,
    /// JSON path of the label selector string, under `.status` or `.spec`.
    #[serde(
        rename = "labelSelectorPath",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub label_selector_path: Option<String>,
}

/// An additional printer column.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomResourceColumnDefinition {
    /// Column header.
    #[serde(default)]
    pub name: String,
    /// `integer`, `number`, `string`, `boolean` or `date`.
    #[serde(rename = "type", default)]
    pub type_: String,
    /// Optional format (`int32`, `byte`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// Column description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// 0 = shown by default; higher = only in wide output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<i32>,
    /// Simple JSON path evaluated against each object.
    #[serde(rename = "jsonPath", default)]
    pub json_path: String,
}

/// A selectable field.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SelectableField {
    /// Simple JSON path of the field.
    #[serde(rename = "jsonPath", default)]
    pub json_path: String,
}

/// `spec.conversion`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomResourceConversion {
    /// `None` or `Webhook`.
    #[serde(default)]
    pub strategy: String,
    /// Webhook settings, required for `Webhook`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook: Option<WebhookConversion>,
}

/// `spec.conversion.webhook`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebhookConversion {
    /// Where the webhook is.
    #[serde(
        rename = "clientConfig",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub client_config: Option<WebhookClientConfig>,
    /// `ConversionReview` versions the webhook understands (`v1`, `v1beta1`).
    #[serde(rename = "conversionReviewVersions", default)]
    pub conversion_review_versions: Vec<String>,
}

/// A webhook endpoint: a URL or an in-cluster service.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebhookClientConfig {
    /// `https://host:port/path`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// An in-cluster service.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service: Option<ServiceReference>,
    /// PEM CA bundle, base64.
    #[serde(rename = "caBundle", default, skip_serializing_if = "Option::is_none")]
    pub ca_bundle: Option<String>,
}

/// A reference to a Service.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServiceReference {
    /// Namespace of the service.
    #[serde(default)]
    pub namespace: String,
    /// Name of the service.
    #[serde(default)]
    pub name: String,
    /// URL path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Port (default 443).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<i32>,
}

/// `status` of a CRD, as the API server writes it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomResourceDefinitionStatus {
    /// Conditions (`Established`, `NamesAccepted`, ...), kept verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Vec<Value>>,
    /// The names actually served.
    #[serde(
        rename = "acceptedNames",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub accepted_names: Option<CustomResourceDefinitionNames>,
    /// Versions objects were ever stored in.
    #[serde(
        rename = "storedVersions",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub stored_versions: Option<Vec<String>>,
}

impl CustomResourceDefinition {
    /// The version entry named `name`.
    pub fn version(&self, name: &str) -> Option<&CustomResourceDefinitionVersion> {
        self.spec.versions.iter().find(|v| v.name == name)
    }

    /// The storage version, if exactly one is marked.
    pub fn storage_version(&self) -> Option<&CustomResourceDefinitionVersion> {
        let mut it = self.spec.versions.iter().filter(|v| v.storage);
        match (it.next(), it.next()) {
            (Some(v), None) => Some(v),
            _ => None,
        }
    }

    /// `metadata.name`, or `""`.
    pub fn name(&self) -> &str {
        self.metadata.name.as_deref().unwrap_or("")
    }

    /// The list kind, defaulted like the API server does (`<kind>List`).
    pub fn list_kind(&self) -> String {
        self.spec
            .names
            .list_kind
            .clone()
            .unwrap_or_else(|| format!("{}List", self.spec.names.kind))
    }

    /// The singular name, defaulted like the API server does (lower-cased kind).
    pub fn singular(&self) -> String {
        self.spec
            .names
            .singular
            .clone()
            .unwrap_or_else(|| self.spec.names.kind.to_lowercase())
    }
}

impl CustomResourceDefinitionVersion {
    /// The `openAPIV3Schema` of this version.
    pub fn open_api_schema(&self) -> Option<&JSONSchemaProps> {
        self.schema.as_ref()?.open_api_v3_schema.as_ref()
    }

    /// Whether the `/status` subresource is enabled.
    pub fn has_status_subresource(&self) -> bool {
        self.subresources
            .as_ref()
            .is_some_and(|s| s.status.is_some())
    }
}
