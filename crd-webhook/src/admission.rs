//! An admission webhook: answers the `AdmissionReview` (`admission.k8s.io/v1` or
//! `v1beta1`) the API server POSTs, with an [`AdmissionHandler`], over HTTPS.
//!
//! The router reads the review, calls the handler with its request and answers with
//! the same `apiVersion` and the request's `uid`. A body that is no `AdmissionReview`
//! (or has no `request`) gets `400` with a `Status`; a handler that panics gets `500`,
//! which the API server reports as `failed calling webhook`.
//!
//! For typed objects, [`AdmissionRequestExt::object_as`] decodes `request.object`
//! (with the path of the field that does not fit), and [`mutate_object`] turns a change
//! made to the typed object into the JSON patch a mutating webhook answers with.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::DefaultBodyLimit;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, post};
use crd_runtime::admission::GroupVersionKind;
use crd_runtime::admission::review::{
    AdmissionRequest, AdmissionResponse, AdmissionReview, V1, V1BETA1,
};
use futures::FutureExt as _;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::{BODY_LIMIT, RunningWebhook, WebhookConfig, bad_request, json_ok};

/// What an admission webhook answers to a request.
///
/// Implemented by every `Fn(&AdmissionRequest) -> AdmissionResponse` (a closure needs
/// its argument typed: `|request: &AdmissionRequest| ...`); implement it on a type
/// for an asynchronous handler. The router sets the response's `uid` to the
/// request's, so a handler cannot get it wrong.
pub trait AdmissionHandler: Send + Sync + 'static {
    /// The decision on `request`.
    fn review(&self, request: &AdmissionRequest) -> impl Future<Output = AdmissionResponse> + Send;
}

impl<F> AdmissionHandler for F
where
    F: Fn(&AdmissionRequest) -> AdmissionResponse + Send + Sync + 'static,
{
    fn review(&self, request: &AdmissionRequest) -> impl Future<Output = AdmissionResponse> + Send {
        std::future::ready(self(request))
    }
}

/// A `POST` endpoint answering reviews with `handler`, to mount at a path:
/// `Router::new().route("/validate", admission_route(v)).route("/mutate",
/// admission_route(m))`, served by [`serve_router`](super::serve_router).
pub fn admission_route<H: AdmissionHandler>(handler: H) -> MethodRouter {
    let handler = Arc::new(handler);
    post(move |body: Bytes| {
        let handler = Arc::clone(&handler);
        async move { answer(&*handler, &body).await }
    })
    .layer(DefaultBodyLimit::max(BODY_LIMIT))
}

/// A router answering reviews with `handler` on every path (`POST` only).
pub fn admission_router<H: AdmissionHandler>(handler: H) -> Router {
    Router::new().fallback(admission_route(handler))
}

/// Admission handlers by path, e.g. a validating handler on `/validate` and a mutating
/// one on `/mutate`; served with [`serve_router`](super::serve_router) after
/// [`into_router`](Self::into_router). Other paths answer `404`.
#[derive(Clone, Debug, Default)]
pub struct AdmissionRoutes {
    router: Router,
}

impl AdmissionRoutes {
    /// No routes yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Answers reviews POSTed to `path` (e.g. `/validate`) with `handler`.
    ///
    /// # Panics
    /// When `path` does not start with `/` or is routed already (axum's rules).
    pub fn route<H: AdmissionHandler>(mut self, path: &str, handler: H) -> Self {
        self.router = self.router.route(path, admission_route(handler));
        self
    }

    /// The axum router, to serve or to merge into another.
    pub fn into_router(self) -> Router {
        self.router
    }
}

/// Starts an admission webhook answering on every path in the background; its
/// [`url`](RunningWebhook::url) is `https://ADDR/`.
///
/// ```no_run
/// # async fn run() -> Result<(), crd_webhook::Error> {
/// use crd_runtime::admission::review::{AdmissionRequest, AdmissionResponse};
/// use crd_webhook::{WebhookConfig, WebhookTls, serve_admission};
/// let webhook = serve_admission(
///     |request: &AdmissionRequest| {
///         if request.namespace == "kube-system" {
///             AdmissionResponse::deny(&request.uid, "not in kube-system")
///         } else {
///             AdmissionResponse::allow(&request.uid)
///         }
///     },
///     WebhookConfig { listen: "127.0.0.1:8443".parse().unwrap(), tls: WebhookTls::SelfSigned },
/// )
/// .await?;
/// println!("{} caBundle: {}", webhook.url(), webhook.ca_bundle().unwrap());
/// webhook.wait().await;
/// # Ok(()) }
/// ```
pub async fn serve_admission<H: AdmissionHandler>(
    handler: H,
    config: WebhookConfig,
) -> Result<RunningWebhook, super::Error> {
    super::serve_router(admission_router(handler), config).await
}

async fn answer<H: AdmissionHandler>(handler: &H, body: &[u8]) -> Response {
    let (api_version, request) = match decode(body) {
        Ok(decoded) => decoded,
        Err(message) => return bad_request(message),
    };
    // A panicking handler answers 500 instead of dropping the connection (called in
    // the async block, so that a synchronous handler's panic is caught too).
    let Ok(mut response) = AssertUnwindSafe(async { handler.review(&request).await })
        .catch_unwind()
        .await
    else {
        let status = json!({
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "the admission handler panicked", "reason": "InternalError", "code": 500
        });
        return (
            StatusCode::INTERNAL_SERVER_ERROR,
            [(header::CONTENT_TYPE, "application/json")],
            status.to_string(),
        )
            .into_response();
    };
    response.uid = request.uid;
    let review = AdmissionReview {
        api_version,
        kind: "AdmissionReview".into(),
        request: None,
        response: Some(response),
    };
    json_ok(serde_json::to_vec(&review).unwrap_or_default())
}

/// The review's `apiVersion` and request, or why the body is no review.
fn decode(body: &[u8]) -> Result<(String, AdmissionRequest), String> {
    let mut de = serde_json::Deserializer::from_slice(body);
    let review: AdmissionReview = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        if path == "." {
            format!(
                "cannot decode the body as an AdmissionReview: {}",
                e.inner()
            )
        } else {
            format!(
                "cannot decode the body as an AdmissionReview: {path}: {}",
                e.inner()
            )
        }
    })?;
    if review.kind != "AdmissionReview"
        || (review.api_version != V1 && review.api_version != V1BETA1)
    {
        return Err(format!(
            "expected an AdmissionReview of {V1} or {V1BETA1}, got kind {:?} of apiVersion {:?}",
            review.kind, review.api_version
        ));
    }
    let request = review
        .request
        .ok_or_else(|| format!("the {} AdmissionReview has no request", review.api_version))?;
    Ok((review.api_version, request))
}

/// Why a typed object could not be read from a request, or patched.
#[derive(Debug, thiserror::Error)]
pub enum ObjectError {
    /// The request carries no such object (`object` of a DELETE, `oldObject` of a
    /// CREATE).
    #[error("request.{field} is absent ({operation} of {kind})")]
    Missing {
        /// `object` or `oldObject`.
        field: &'static str,
        /// The request's operation.
        operation: String,
        /// The request's kind, `group/version, Kind=K`.
        kind: String,
    },
    /// The object does not fit the type.
    #[error("cannot decode request.{field} ({kind}): {path}: {message}")]
    Decode {
        /// `object` or `oldObject`.
        field: &'static str,
        /// The request's kind, `group/version, Kind=K`.
        kind: String,
        /// The field that does not fit (`.` for the object itself).
        path: String,
        /// What is wrong with it.
        message: String,
    },
    /// The typed object does not serialize, or its change does not apply to
    /// `request.object` (an array index the object sent lacks).
    #[error("cannot patch request.object ({kind}): {message}")]
    Patch {
        /// The request's kind, `group/version, Kind=K`.
        kind: String,
        /// What failed.
        message: String,
    },
}

impl ObjectError {
    /// A denial of request `uid` carrying this error (code 400: the object, not the
    /// policy, is at fault).
    pub fn deny(&self, uid: &str) -> AdmissionResponse {
        let mut response = AdmissionResponse::deny(uid, self.to_string());
        response.status =
            Some(json!({"message": self.to_string(), "reason": "BadRequest", "code": 400}));
        response
    }
}

fn kind_name(kind: &GroupVersionKind) -> String {
    format!("{}, Kind={}", kind.api_version(), kind.kind)
}

/// Typed access to the objects of an [`AdmissionRequest`].
pub trait AdmissionRequestExt {
    /// `request.object` as `T`.
    fn object_as<T: DeserializeOwned>(&self) -> Result<T, ObjectError>;
    /// `request.oldObject` as `T`.
    fn old_object_as<T: DeserializeOwned>(&self) -> Result<T, ObjectError>;
}

impl AdmissionRequestExt for AdmissionRequest {
    fn object_as<T: DeserializeOwned>(&self) -> Result<T, ObjectError> {
        typed(self, "object", self.object.as_ref())
    }

    fn old_object_as<T: DeserializeOwned>(&self) -> Result<T, ObjectError> {
        typed(self, "oldObject", self.old_object.as_ref())
    }
}

fn typed<T: DeserializeOwned>(
    request: &AdmissionRequest,
    field: &'static str,
    value: Option<&Value>,
) -> Result<T, ObjectError> {
    let value = value.ok_or_else(|| ObjectError::Missing {
        field,
        operation: request.operation.clone(),
        kind: kind_name(&request.kind),
    })?;
    serde_path_to_error::deserialize(value).map_err(|e| ObjectError::Decode {
        field,
        kind: kind_name(&request.kind),
        path: e.path().to_string(),
        message: e.inner().to_string(),
    })
}

/// The RFC 6902 operations turning `original` into `mutated` (a JSON array, as
/// [`AdmissionResponse::with_patch`] takes it; empty when they are equal).
pub fn json_patch_ops(original: &Value, mutated: &Value) -> Value {
    serde_json::to_value(json_patch::diff(original, mutated)).unwrap_or_else(|_| json!([]))
}

/// Decodes `request.object` as `T`, lets `mutate` change it, and allows the request
/// with the JSON patch of that change (no patch when nothing changed).
///
/// The patch is computed against `request.object` as sent, and only carries what
/// `mutate` changed: fields `T` does not know, or fills with serde defaults, are left
/// as they are (a change under a defaulted member absent from the object adds that
/// member as `T` has it).
pub fn mutate_object<T, F>(
    request: &AdmissionRequest,
    mutate: F,
) -> Result<AdmissionResponse, ObjectError>
where
    T: DeserializeOwned + Serialize,
    F: FnOnce(&mut T),
{
    let raw = request
        .object
        .as_ref()
        .ok_or_else(|| ObjectError::Missing {
            field: "object",
            operation: request.operation.clone(),
            kind: kind_name(&request.kind),
        })?;
    let mut object: T = typed(request, "object", Some(raw))?;
    let failed = |message: String| ObjectError::Patch {
        kind: kind_name(&request.kind),
        message,
    };
    let before = serde_json::to_value(&object).map_err(|e| failed(e.to_string()))?;
    mutate(&mut object);
    let after = serde_json::to_value(&object).map_err(|e| failed(e.to_string()))?;
    // The typed change, replayed on the object as sent: a round trip through `T` may
    // drop fields or add defaults, which a plain diff against `raw` would undo.
    let mut patched = raw.clone();
    for op in json_patch::diff(&before, &after).0 {
        apply_leniently(&mut patched, op, &after).map_err(failed)?;
    }
    let ops = json_patch_ops(raw, &patched);
    let response = AdmissionResponse::allow(&request.uid);
    Ok(match ops.as_array() {
        Some(list) if !list.is_empty() => response.with_patch(&ops),
        _ => response,
    })
}

/// Applies `op` of the typed change to the object as sent. What `T` filled with serde
/// defaults may be missing there: a change under such a member adds the outermost
/// missing one whole, as the typed object has it in the end (`after`), and removing
/// one is already done.
fn apply_leniently(
    doc: &mut Value,
    op: json_patch::PatchOperation,
    after: &Value,
) -> Result<(), String> {
    use json_patch::{AddOperation, PatchOperation};
    let Err(e) = json_patch::patch(doc, std::slice::from_ref(&op)) else {
        return Ok(());
    };
    let path = match &op {
        PatchOperation::Add(a) => a.path.as_str(),
        PatchOperation::Replace(r) => r.path.as_str(),
        PatchOperation::Remove(r) if doc.pointer(r.path.as_str()).is_none() => return Ok(()),
        _ => return Err(e.to_string()),
    };
    // Tokens are escaped (`~1` for `/`), so splitting on `/` keeps them whole.
    let missing = path
        .match_indices('/')
        .skip(1)
        .map(|(i, _)| &path[..i])
        .chain([path])
        .find(|prefix| doc.pointer(prefix).is_none())
        .ok_or_else(|| e.to_string())?;
    let value = after.pointer(missing).ok_or_else(|| e.to_string())?;
    let add = PatchOperation::Add(AddOperation {
        path: json_patch::jsonptr::PointerBuf::parse(missing).map_err(|e| e.to_string())?,
        value: value.clone(),
    });
    json_patch::patch(doc, &[add]).map_err(|e| e.to_string())
}

#[cfg(test)]
#[path = "admission_tests.rs"]
mod tests;
