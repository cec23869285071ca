//! The Kubernetes `Status` answers of the metrics API, in one place, worded as
//! kube-apiserver words them.

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::{GROUP, RESOURCE};

/// Why a metrics request failed; answered as a `Status`.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// No Node of that name.
    #[error("{RESOURCE}.{GROUP} \"{0}\" not found")]
    NotFound(String),
    /// The SubjectAccessReview said no: (message, object name).
    #[error("{0}")]
    Forbidden(String, String),
    /// A method other than GET on the resource.
    #[error("the server does not allow this method on the requested resource")]
    MethodNotAllowed,
    /// A path this server does not serve.
    #[error("the server could not find the requested resource")]
    NoSuchPath,
    /// The cluster could not be asked (Nodes, a SubjectAccessReview).
    #[error("{0}")]
    Cluster(String),
}

impl ApiError {
    /// The Node `name` does not exist.
    pub fn not_found(name: &str) -> Self {
        ApiError::NotFound(name.to_string())
    }

    /// A failed call to the cluster.
    pub fn cluster(e: kube::Error) -> Self {
        ApiError::Cluster(format!("cannot read the cluster: {e}"))
    }

    fn parts(&self) -> (StatusCode, &'static str, Value) {
        let details = |name: &str| {
            let mut d = json!({"group": GROUP, "kind": RESOURCE});
            if !name.is_empty() {
                d["name"] = json!(name);
            }
            d
        };
        match self {
            ApiError::NotFound(name) => (StatusCode::NOT_FOUND, "NotFound", details(name)),
            ApiError::Forbidden(_, name) => (StatusCode::FORBIDDEN, "Forbidden", details(name)),
            ApiError::MethodNotAllowed => (
                StatusCode::METHOD_NOT_ALLOWED,
                "MethodNotAllowed",
                details(""),
            ),
            ApiError::NoSuchPath => (StatusCode::NOT_FOUND, "NotFound", Value::Null),
            ApiError::Cluster(_) => (
                StatusCode::INTERNAL_SERVER_ERROR,
                "InternalError",
                Value::Null,
            ),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (code, reason, details) = self.parts();
        let mut status = json!({
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": self.to_string(), "reason": reason, "code": code.as_u16(),
        });
        if !details.is_null() {
            status["details"] = details;
        }
        (
            code,
            [(header::CONTENT_TYPE, "application/json")],
            status.to_string(),
        )
            .into_response()
    }
}

/// `405` for any method but GET on the resource.
pub(super) async fn method_not_allowed() -> ApiError {
    ApiError::MethodNotAllowed
}

/// `404` for a path outside the API.
pub(super) async fn not_found_path() -> ApiError {
    ApiError::NoSuchPath
}
