//! API errors as the API server returns them: a `Status` object with the HTTP code,
//! `reason`, `details` and the server's message wording.

use axum::response::{IntoResponse, Response};
use crd_runtime::ErrorList;
use http::StatusCode;
use serde_json::{Value, json};

use crate::store::StoreError;

/// What kube-apiserver's timeout filter says of a request that took too long.
pub const DEADLINE: &str =
    "request did not complete within requested timeout - context deadline exceeded";

/// An error response (a `Status` with `status: Failure`).
#[derive(Debug, Clone)]
pub struct ApiError {
    /// HTTP status code.
    pub code: StatusCode,
    /// `reason` (`NotFound`, `AlreadyExists`, `Conflict`, `Invalid`, ...).
    pub reason: &'static str,
    /// `message`.
    pub message: String,
    /// `details`, when the server gives them.
    pub details: Option<Value>,
    /// Warnings recorded before the request failed (sent as `Warning` headers with
    /// the error, as kube-apiserver sends a request's warnings whatever its outcome).
    pub warnings: Vec<String>,
}

/// A resource's identity in messages: `crontabs.stable.example.com`, `namespaces`.
#[derive(Clone, Debug)]
pub struct Qualified {
    /// Group (empty for core).
    pub group: String,
    /// Plural resource name.
    pub plural: String,
    /// Kind.
    pub kind: String,
}

impl Qualified {
    /// `plural.group`, or `plural` for the core group (`schema.GroupResource.String()`).
    pub fn resource(&self) -> String {
        if self.group.is_empty() {
            self.plural.clone()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }

    /// `Kind.group` (`schema.GroupKind.String()`).
    pub fn group_kind(&self) -> String {
        if self.group.is_empty() {
            self.kind.clone()
        } else {
            format!("{}.{}", self.kind, self.group)
        }
    }

    fn details(&self, name: &str) -> Value {
        json!({"name": name, "group": self.group, "kind": self.plural})
    }
}

impl ApiError {
    fn new(code: StatusCode, reason: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            code,
            reason,
            message: message.into(),
            details: None,
            warnings: Vec::new(),
        }
    }

    /// The error with `earlier` warnings sent before its own.
    pub fn after_warnings(mut self, earlier: &[String]) -> ApiError {
        if !earlier.is_empty() {
            let own = std::mem::take(&mut self.warnings);
            self.warnings = earlier.iter().cloned().chain(own).collect();
        }
        self
    }

    /// `code` about the object `name`: `<resource> "<name>" <what>`, with its details.
    fn about(
        code: StatusCode,
        reason: &'static str,
        q: &Qualified,
        name: &str,
        what: &str,
    ) -> ApiError {
        Self::new(code, reason, format!("{} \"{name}\" {what}", q.resource()))
            .with_details(q.details(name))
    }

    fn with_details(mut self, details: Value) -> ApiError {
        self.details = Some(details);
        self
    }

    /// 404 `crontabs.stable.example.com "x" not found`.
    pub fn not_found(q: &Qualified, name: &str) -> ApiError {
        Self::about(StatusCode::NOT_FOUND, "NotFound", q, name, "not found")
    }

    /// 404 for a path that names no resource.
    pub fn no_route() -> ApiError {
        Self::new(
            StatusCode::NOT_FOUND,
            "NotFound",
            "the server could not find the requested resource",
        )
        .with_details(json!({}))
    }

    /// 409 `... "x" already exists`.
    pub fn already_exists(q: &Qualified, name: &str) -> ApiError {
        Self::about(
            StatusCode::CONFLICT,
            "AlreadyExists",
            q,
            name,
            "already exists",
        )
    }

    /// 409 on a stale `resourceVersion`, in the server's words.
    pub fn conflict(q: &Qualified, name: &str) -> ApiError {
        Self::conflict_because(
            q,
            name,
            "the object has been modified; please apply your changes to the latest version and try again",
        )
    }

    /// 409 `Operation cannot be fulfilled on ... "x": <why>`.
    pub fn conflict_because(q: &Qualified, name: &str, why: &str) -> ApiError {
        Self::new(
            StatusCode::CONFLICT,
            "Conflict",
            format!(
                "Operation cannot be fulfilled on {} \"{name}\": {why}",
                q.resource()
            ),
        )
        .with_details(q.details(name))
    }

    /// 422 `CronTab.stable.example.com "x" is invalid: ...` with one cause per error.
    pub fn invalid(q: &Qualified, name: &str, errs: &ErrorList) -> ApiError {
        let causes: Vec<Value> = errs
            .iter()
            .map(|e| {
                json!({
                    "reason": e.type_.reason(),
                    "message": e.body(),
                    "field": e.field.as_str(),
                })
            })
            .collect();
        let message = format!(
            "{} \"{name}\" is invalid: {}",
            q.group_kind(),
            errs.aggregate()
        );
        Self::new(StatusCode::UNPROCESSABLE_ENTITY, "Invalid", message).with_details(json!({
            "name": name, "group": q.group, "kind": q.kind, "causes": causes,
        }))
    }

    /// 422 with the given message (a patch that cannot be applied).
    pub fn unprocessable(message: impl Into<String>) -> ApiError {
        Self::new(StatusCode::UNPROCESSABLE_ENTITY, "Invalid", message)
    }

    /// 400 with the given message.
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        Self::new(StatusCode::BAD_REQUEST, "BadRequest", message)
    }

    /// 405.
    pub fn method_not_allowed(message: impl Into<String>) -> ApiError {
        Self::new(StatusCode::METHOD_NOT_ALLOWED, "MethodNotAllowed", message)
    }

    /// 405 `NewMethodNotSupported` for resource `q`, with `message` in place of its
    /// own (`details` name the group and the resource).
    pub fn method_not_supported(q: &Qualified, message: impl Into<String>) -> ApiError {
        Self::method_not_allowed(message).with_details(json!({"group": q.group, "kind": q.plural}))
    }

    /// 405 in the server's words for a method a path does not take.
    pub fn method_not_allowed_here() -> ApiError {
        Self::method_not_allowed("the server does not allow this method on the requested resource")
    }

    /// 422 for invalid request options (`DeleteOptions.meta.k8s.io "" is invalid: ...`).
    pub fn invalid_options(kind: &str, errs: &ErrorList) -> ApiError {
        let q = Qualified {
            group: "meta.k8s.io".into(),
            plural: String::new(),
            kind: kind.into(),
        };
        Self::invalid(&q, "", errs)
    }

    /// 415 for a body in a media type the endpoint does not read.
    pub fn unsupported_media_type(message: impl Into<String>) -> ApiError {
        Self::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "UnsupportedMediaType",
            message,
        )
    }

    /// 406 for an `Accept` the server cannot produce.
    pub fn not_acceptable(message: impl Into<String>) -> ApiError {
        Self::new(StatusCode::NOT_ACCEPTABLE, "NotAcceptable", message)
    }

    /// 413: the request body is over the limit.
    pub fn too_large() -> ApiError {
        Self::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "RequestEntityTooLarge",
            "the request is too large: limit is 3145728",
        )
    }

    /// 410 `too old resource version: X (Y)`: a watch from `requested` where the watch
    /// cache holds only the events after `kept_after` (`NewResourceExpired`).
    pub fn gone(requested: u64, kept_after: u64) -> ApiError {
        Self::expired(format!(
            "too old resource version: {requested} ({kept_after})"
        ))
    }

    /// 410 `Expired` with the given message (`NewResourceExpired`).
    pub fn expired(message: impl Into<String>) -> ApiError {
        Self::new(StatusCode::GONE, "Expired", message)
    }

    /// 429 `TooManyRequests` asking the client to retry after `retry_after` seconds
    /// (`NewTooManyRequests`; the answer carries `Retry-After`).
    pub fn too_many_requests(message: impl Into<String>, retry_after: u32) -> ApiError {
        Self::new(StatusCode::TOO_MANY_REQUESTS, "TooManyRequests", message)
            .with_details(json!({"retryAfterSeconds": retry_after}))
    }

    /// 500 `Internal error occurred: <cause>` (`NewInternalError`).
    pub fn internal_error(cause: &str) -> ApiError {
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "InternalError",
            format!("Internal error occurred: {cause}"),
        )
        .with_details(json!({"causes": [{"message": cause}]}))
    }

    /// 504 `Timeout: <message>` (`NewTimeoutError`), with `Retry-After` when
    /// `retry_after` is not 0.
    pub fn timeout(message: &str, retry_after: u32) -> ApiError {
        let details = if retry_after > 0 {
            json!({"retryAfterSeconds": retry_after})
        } else {
            json!({})
        };
        Self::new(
            StatusCode::GATEWAY_TIMEOUT,
            "Timeout",
            format!("Timeout: {message}"),
        )
        .with_details(details)
    }

    /// The error with `details.retryAfterSeconds` (sent as `Retry-After` too).
    pub fn retry_after(mut self, seconds: u32) -> ApiError {
        let mut details = self.details.take().unwrap_or_else(|| json!({}));
        details["retryAfterSeconds"] = json!(seconds);
        self.details = Some(details);
        self
    }

    /// 401.
    pub fn unauthorized() -> ApiError {
        Self::new(StatusCode::UNAUTHORIZED, "Unauthorized", "Unauthorized")
    }

    /// 403 `... is forbidden: ...`.
    pub fn forbidden(q: &Qualified, name: &str, why: &str) -> ApiError {
        Self::new(
            StatusCode::FORBIDDEN,
            "Forbidden",
            format!("{} \"{name}\" is forbidden: {why}", q.resource()),
        )
        .with_details(q.details(name))
    }

    /// 403 as the authorization filter answers it (`NewForbidden` of the request's
    /// group and resource): `pods is forbidden: <why>`, `forbidden: <why>` for a path.
    pub fn forbidden_request(group: &str, resource: &str, name: &str, why: &str) -> ApiError {
        let qualified = if group.is_empty() {
            resource.to_string()
        } else {
            format!("{resource}.{group}")
        };
        let message = if resource.is_empty() && group.is_empty() {
            format!("forbidden: {why}")
        } else if name.is_empty() {
            format!("{qualified} is forbidden: {why}")
        } else {
            format!(
                "{qualified} {} is forbidden: {why}",
                crd_runtime::__private::go::quote(name)
            )
        };
        // StatusDetails' fields are `omitempty`.
        let mut details = json!({});
        for (field, value) in [("name", name), ("group", group), ("kind", resource)] {
            if !value.is_empty() {
                details[field] = json!(value);
            }
        }
        Self::new(StatusCode::FORBIDDEN, "Forbidden", message).with_details(details)
    }

    /// 500 with the given message.
    pub fn internal(message: impl Into<String>) -> ApiError {
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, "InternalError", message)
    }

    /// 503 (storage unavailable, timeouts).
    pub fn unavailable(message: impl Into<String>) -> ApiError {
        Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "ServiceUnavailable",
            message,
        )
    }

    /// A store failure for resource `q`, object `name`.
    pub fn from_store(q: &Qualified, name: &str, e: StoreError) -> ApiError {
        match e {
            StoreError::NotFound { .. } => Self::not_found(q, name),
            StoreError::AlreadyExists { .. } => Self::already_exists(q, name),
            StoreError::Conflict { .. } => Self::conflict(q, name),
            StoreError::Compacted { requested, oldest } => {
                Self::gone(requested, oldest.saturating_sub(1))
            }
            StoreError::FutureRevision { requested, current } => Self::new(
                StatusCode::GATEWAY_TIMEOUT,
                "Timeout",
                format!("Too large resource version: {requested}, current: {current}"),
            ),
            StoreError::Unavailable(m) => Self::unavailable(m),
        }
    }

    /// The `Status` object.
    pub fn to_status(&self) -> Value {
        let mut status = json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code.as_u16(),
        });
        if let Some(d) = &self.details {
            status["details"] = d.clone();
        }
        status
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::to_vec(&self.to_status()).unwrap_or_default();
        let mut resp = (
            self.code,
            [(http::header::CONTENT_TYPE, "application/json")],
            body,
        )
            .into_response();
        add_warnings(&mut resp, &self.warnings);
        // As kube-apiserver's error writer: a Status asking for a retry says when.
        let retry = self
            .details
            .as_ref()
            .and_then(|d| d["retryAfterSeconds"].as_u64());
        if let Some(seconds) = retry.filter(|s| *s > 0) {
            resp.headers_mut()
                .insert(http::header::RETRY_AFTER, http::HeaderValue::from(seconds));
        }
        resp
    }
}

/// Adds `Warning: 299 - "..."` headers (a text that cannot be a header value is left
/// out).
pub fn add_warnings(resp: &mut Response, warnings: &[String]) {
    for w in warnings {
        let text = format!("299 - \"{}\"", w.replace('"', "\\\""));
        if let Ok(v) = http::HeaderValue::from_str(&text) {
            resp.headers_mut().append(http::header::WARNING, v);
        }
    }
}

/// A `Status` with `status: Success` (what some deletes return).
pub fn success(q: &Qualified, name: &str, uid: &str) -> Value {
    json!({
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
        "details": {"name": name, "group": q.group, "kind": q.plural, "uid": uid},
    })
}

/// Panics unless `e` answers `code` with a message that `fits` (the message is shown
/// when it does not).
#[cfg(test)]
pub fn assert_answer(e: &ApiError, code: u16, fits: impl Fn(&str) -> bool) {
    assert_eq!(e.code, code, "{}", e.message);
    assert!(fits(&e.message), "{}", e.message);
}
