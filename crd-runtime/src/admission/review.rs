//! The `admission.k8s.io/v1` `AdmissionReview` (and `v1beta1`, the same fields) that
//! the API server POSTs to an admission webhook and the webhook answers.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Attributes, GroupVersionKind, GroupVersionResource, UserInfo};

/// `admission.k8s.io/v1`.
pub const V1: &str = "admission.k8s.io/v1";
/// `admission.k8s.io/v1beta1`, for configurations that list only it.
pub const V1BETA1: &str = "admission.k8s.io/v1beta1";

/// An `AdmissionReview`: the API server sends `request`, the webhook returns
/// `response`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AdmissionReview {
    /// [`V1`] or [`V1BETA1`].
    #[serde(rename = "apiVersion", default)]
    pub api_version: String,
    /// `AdmissionReview`.
    #[serde(default)]
    pub kind: String,
    /// The request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<AdmissionRequest>,
    /// The webhook's decision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<AdmissionResponse>,
}

/// `request` of an [`AdmissionReview`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdmissionRequest {
    /// Identifies this call; echoed in the response.
    pub uid: String,
    /// The kind of `object` as sent (after `matchPolicy: Equivalent` conversion).
    pub kind: GroupVersionKind,
    /// The resource as sent.
    pub resource: GroupVersionResource,
    /// The subresource, if any.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub sub_resource: String,
    /// The kind of the original request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_kind: Option<GroupVersionKind>,
    /// The resource of the original request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_resource: Option<GroupVersionResource>,
    /// The subresource of the original request.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub request_sub_resource: String,
    /// The object's name.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// The namespace.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    /// `CREATE`, `UPDATE`, `DELETE` or `CONNECT`.
    pub operation: String,
    /// Who asked.
    #[serde(default)]
    pub user_info: UserInfo,
    /// The object after the operation (null for DELETE).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<Value>,
    /// The object before it (UPDATE, DELETE).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_object: Option<Value>,
    /// Whether nothing will be persisted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dry_run: Option<bool>,
    /// The operation's options.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<Value>,
}

impl AdmissionRequest {
    /// The request for `attrs` with this `uid`; `sent` is the kind/resource the
    /// object is sent as when it differs from the request's (`matchPolicy:
    /// Equivalent`), the object then already converted.
    pub fn new(
        uid: String,
        attrs: &Attributes,
        sent: Option<(&GroupVersionKind, &GroupVersionResource)>,
    ) -> Self {
        let (kind, resource) = match sent {
            Some((k, r)) => (k.clone(), r.clone()),
            None => (attrs.kind.clone(), attrs.resource.clone()),
        };
        AdmissionRequest {
            uid,
            kind,
            resource,
            sub_resource: attrs.subresource.clone(),
            request_kind: Some(attrs.kind.clone()),
            request_resource: Some(attrs.resource.clone()),
            request_sub_resource: attrs.subresource.clone(),
            name: attrs.name.clone(),
            namespace: attrs.namespace.clone(),
            operation: attrs.op().as_str().to_string(),
            user_info: attrs.user.clone(),
            object: attrs.object.clone(),
            old_object: attrs.old_object.clone(),
            dry_run: Some(attrs.dry_run),
            options: attrs.options.clone(),
        }
    }
}

/// `response` of an [`AdmissionReview`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdmissionResponse {
    /// The request's `uid`.
    pub uid: String,
    /// Whether the request may proceed.
    pub allowed: bool,
    /// Why not (a `metav1.Status`: `code`, `message`, `reason`, `details`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Value>,
    /// A patch to apply to the object, base64 of its JSON (mutating webhooks only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch: Option<String>,
    /// `JSONPatch`, the only patch type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch_type: Option<String>,
    /// Annotations for the audit log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit_annotations: Option<std::collections::BTreeMap<String, String>>,
    /// Warnings shown to the client.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl AdmissionResponse {
    /// Allows the request `uid`.
    pub fn allow(uid: &str) -> Self {
        AdmissionResponse {
            uid: uid.to_string(),
            allowed: true,
            ..Default::default()
        }
    }

    /// Denies the request `uid` with `message` (code 403, as kube-apiserver fills a
    /// denial without a code).
    pub fn deny(uid: &str, message: impl Into<String>) -> Self {
        AdmissionResponse {
            uid: uid.to_string(),
            allowed: false,
            status: Some(serde_json::json!({"message": message.into(), "code": 403})),
            ..Default::default()
        }
    }

    /// Adds a warning.
    pub fn with_warning(mut self, warning: impl Into<String>) -> Self {
        self.warnings.push(warning.into());
        self
    }

    /// Allows the request with a JSON patch (RFC 6902 operations).
    pub fn with_patch(mut self, operations: &Value) -> Self {
        use base64::Engine as _;
        let bytes = serde_json::to_vec(operations).unwrap_or_default();
        self.patch = Some(base64::engine::general_purpose::STANDARD.encode(bytes));
        self.patch_type = Some("JSONPatch".into());
        self
    }
}
