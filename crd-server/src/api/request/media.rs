//! Media types: the body of a write (JSON, YAML, the patch types, protobuf for the
//! kinds kubectl sends that way), the representation a read accepts (plain JSON or a
//! `meta.k8s.io` Table), and reading the body within the server's size limit.

use axum::body::{Body, Bytes};
use http::HeaderMap;
use serde_json::Value;

use crate::api::status::ApiError;

/// Bodies larger than this get 413 (the API server's limit is 3 MiB).
pub const MAX_BODY: usize = 3 * 1024 * 1024;

/// Reads a body, refusing one over [`MAX_BODY`] before reading it when its length is
/// declared.
pub async fn read_body(headers: &HeaderMap, body: Body) -> Result<Bytes, ApiError> {
    let declared = headers
        .get(http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > MAX_BODY) {
        return Err(ApiError::too_large());
    }
    axum::body::to_bytes(body, MAX_BODY)
        .await
        .map_err(|_| ApiError::too_large())
}

/// The representation a GET asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Representation {
    Json,
    /// `application/json;as=Table;v=v1;g=meta.k8s.io` (or v1beta1).
    Table,
}

/// Reads `Accept`: a Table when a `meta.k8s.io` Table is listed before anything else we
/// can produce; otherwise JSON (aggregated discovery and protobuf fall back to JSON, as the
/// server does for clients that also accept JSON).
pub fn representation(headers: &HeaderMap) -> Result<Representation, ApiError> {
    let Some(accept) = headers
        .get(http::header::ACCEPT)
        .and_then(|v| v.to_str().ok())
    else {
        return Ok(Representation::Json);
    };
    let mut json_ok = false;
    for part in accept.split(',') {
        let mut params = part.split(';').map(str::trim);
        let media = params.next().unwrap_or("");
        let params: Vec<(&str, &str)> = params.filter_map(|p| p.split_once('=')).collect();
        let get = |k: &str| params.iter().find(|(pk, _)| *pk == k).map(|(_, v)| *v);
        if !matches!(
            media,
            "application/json" | "*/*" | "application/*" | "application/yaml"
        ) {
            continue;
        }
        match (get("as"), get("g")) {
            (Some("Table"), Some("meta.k8s.io")) => return Ok(Representation::Table),
            (None, _) => json_ok = true,
            _ => {}
        }
        if json_ok {
            return Ok(Representation::Json);
        }
    }
    if json_ok {
        Ok(Representation::Json)
    } else {
        Err(ApiError::not_acceptable(
            "only the following media types are accepted: application/json, application/yaml",
        ))
    }
}

/// Body media types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyType {
    Json,
    Yaml,
    MergePatch,
    JsonPatch,
    StrategicMergePatch,
    ApplyPatch,
    /// `application/vnd.kubernetes.protobuf` (read for the built-in kinds).
    Protobuf,
}

/// The `Content-Type` of a body (JSON when absent).
pub fn body_type(headers: &HeaderMap) -> Result<BodyType, ApiError> {
    let ct = headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("application/json");
    let media = ct
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    Ok(match media.as_str() {
        "application/json" | "" => BodyType::Json,
        "application/yaml" | "application/x-yaml" | "text/yaml" => BodyType::Yaml,
        "application/merge-patch+json" => BodyType::MergePatch,
        "application/json-patch+json" => BodyType::JsonPatch,
        "application/strategic-merge-patch+json" => BodyType::StrategicMergePatch,
        "application/apply-patch+yaml" => BodyType::ApplyPatch,
        "application/vnd.kubernetes.protobuf" => BodyType::Protobuf,
        other => {
            return Err(ApiError::unsupported_media_type(format!(
                "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml (got {other:?})"
            )));
        }
    })
}

/// Parses a JSON or YAML body into one value; errors name what is wrong.
pub fn parse_body(body: &[u8], ty: BodyType, what: &str) -> Result<Value, ApiError> {
    if body.is_empty() {
        return Err(ApiError::bad_request(format!(
            "{what}: the request body is empty"
        )));
    }
    let yaml = matches!(ty, BodyType::Yaml | BodyType::ApplyPatch);
    let text = std::str::from_utf8(body)
        .map_err(|e| ApiError::bad_request(format!("{what}: the body is not UTF-8: {e}")))?;
    if !yaml || text.trim_start().starts_with('{') || text.trim_start().starts_with('[') {
        return serde_json::from_str(text).map_err(|e| {
            ApiError::bad_request(format!("{what}: couldn't decode the JSON body: {e}"))
        });
    }
    let mut docs = crd_runtime::parse_documents("body", text).map_err(|e| {
        ApiError::bad_request(format!("{what}: couldn't decode the YAML body: {e}"))
    })?;
    match docs.len() {
        1 => Ok(docs.remove(0)),
        n => Err(ApiError::bad_request(format!(
            "{what}: the body holds {n} YAML documents, not one"
        ))),
    }
}
