//! Service-account issuer discovery (pkg/serviceaccount/openidmetadata.go):
//! `/.well-known/openid-configuration` and `/openid/v1/jwks`, what workload-identity
//! code reads to verify this server's tokens. Both are authorized as non-resource
//! URLs (`system:service-account-issuer-discovery` grants them to service accounts).

use std::sync::Arc;

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use http::StatusCode;
use serde_json::{Value, json};

use crate::api::state::Shared;
use crate::auth::keys::Issuer;

/// The discovery path.
pub const DISCOVERY_PATH: &str = "/.well-known/openid-configuration";
/// The JWKS path.
pub const JWKS_PATH: &str = "/openid/v1/jwks";

/// The OpenID provider configuration of an issuer.
pub fn configuration(issuer: &Issuer) -> Value {
    let algs: Vec<&str> = {
        let mut a: Vec<&str> = issuer.keys.iter().map(|k| k.alg.name()).collect();
        a.sort();
        a.dedup();
        a
    };
    json!({
        "issuer": issuer.issuer,
        "jwks_uri": format!("{}{JWKS_PATH}", issuer.issuer.trim_end_matches('/')),
        "response_types_supported": ["id_token"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": algs,
    })
}

fn answer(content_type: &'static str, body: &Value) -> Response {
    (
        StatusCode::OK,
        [
            (http::header::CONTENT_TYPE, content_type),
            (http::header::CACHE_CONTROL, "public, max-age=3600"),
        ],
        serde_json::to_vec(body).unwrap_or_default(),
    )
        .into_response()
}

/// `GET /.well-known/openid-configuration`.
pub async fn discovery(State(shared): State<Arc<Shared>>) -> Response {
    answer("application/json", &configuration(&shared.auth.issuer))
}

/// `GET /openid/v1/jwks`.
pub async fn jwks(State(shared): State<Arc<Shared>>) -> Response {
    answer("application/jwk-set+json", &shared.auth.issuer.jwks())
}
