//! What a request asks for beyond its path: query options, body media types, and the
//! representation it accepts (plain JSON or a `meta.k8s.io` Table).

use axum::body::Bytes;
use http::HeaderMap;
use serde_json::Value;

use super::status::ApiError;

/// Bodies larger than this get 413 (the API server's limit is 3 MiB).
pub const MAX_BODY: usize = 3 * 1024 * 1024;

/// Query parameters the handlers read.
#[derive(Debug, Default, Clone)]
pub struct Query {
    pub watch: bool,
    pub resource_version: Option<String>,
    pub resource_version_match: Option<String>,
    pub label_selector: Option<String>,
    pub field_selector: Option<String>,
    pub limit: Option<usize>,
    pub continue_token: Option<String>,
    pub timeout_seconds: Option<u64>,
    pub allow_watch_bookmarks: bool,
    pub send_initial_events: bool,
    pub field_validation: Option<String>,
    pub dry_run: bool,
    pub field_manager: Option<String>,
    /// The manager of writes without `fieldManager`: the User-Agent's program name.
    pub default_manager: Option<String>,
    pub force: bool,
    pub include_object: Option<String>,
    pub pretty: bool,
}

impl Query {
    /// The manager a write is recorded under: `fieldManager`, else the User-Agent's
    /// program (`kubectl/v1.32.0 (...)` → `kubectl`), else `unknown`.
    pub fn manager(&self) -> &str {
        self.field_manager
            .as_deref()
            .or(self.default_manager.as_deref())
            .unwrap_or("unknown")
    }
}

fn truthy(v: &str) -> bool {
    matches!(v, "true" | "1" | "True" | "TRUE")
}

impl Query {
    /// Parses the query string; malformed numbers are the server's 400s.
    pub fn parse(raw: Option<&str>) -> Result<Query, ApiError> {
        let mut q = Query::default();
        let Some(raw) = raw else { return Ok(q) };
        let pairs: Vec<(String, String)> =
            axum::extract::Query::<Vec<(String, String)>>::try_from_uri(
                &format!("/?{raw}")
                    .parse()
                    .map_err(|_| ApiError::bad_request("invalid query string"))?,
            )
            .map_err(|e| ApiError::bad_request(format!("invalid query string: {e}")))?
            .0;
        for (k, v) in pairs {
            match k.as_str() {
                "watch" => q.watch = truthy(&v),
                "resourceVersion" => q.resource_version = Some(v).filter(|v| !v.is_empty()),
                "resourceVersionMatch" => {
                    q.resource_version_match = Some(v).filter(|v| !v.is_empty())
                }
                "labelSelector" => q.label_selector = Some(v).filter(|v| !v.is_empty()),
                "fieldSelector" => q.field_selector = Some(v).filter(|v| !v.is_empty()),
                "limit" => {
                    let n: i64 = v.parse().map_err(|_| {
                        ApiError::bad_request(format!(
                            "limit: Invalid value: \"{v}\": must be an integer"
                        ))
                    })?;
                    q.limit = (n > 0).then_some(n as usize);
                }
                "continue" => q.continue_token = Some(v).filter(|v| !v.is_empty()),
                "timeoutSeconds" | "timeout" => {
                    let secs = v.trim_end_matches('s').parse().map_err(|_| {
                        ApiError::bad_request(format!(
                            "{k}: Invalid value: \"{v}\": must be an integer"
                        ))
                    })?;
                    q.timeout_seconds = Some(secs);
                }
                "allowWatchBookmarks" => q.allow_watch_bookmarks = truthy(&v),
                "sendInitialEvents" => q.send_initial_events = truthy(&v),
                "fieldValidation" => q.field_validation = Some(v),
                "dryRun" => q.dry_run = v == "All",
                "fieldManager" => q.field_manager = Some(v),
                "force" => q.force = truthy(&v),
                "includeObject" => q.include_object = Some(v),
                "pretty" => q.pretty = truthy(&v),
                _ => {}
            }
        }
        Ok(q)
    }

    /// `fieldValidation`: Strict, Warn (the server's default) or Ignore.
    pub fn validation(&self) -> Result<FieldValidation, ApiError> {
        match self.field_validation.as_deref() {
            None | Some("") | Some("Warn") => Ok(FieldValidation::Warn),
            Some("Strict") => Ok(FieldValidation::Strict),
            Some("Ignore") => Ok(FieldValidation::Ignore),
            Some(other) => Err(ApiError::bad_request(format!(
                "fieldValidation parameter unsupported: \"{other}\""
            ))),
        }
    }
}

/// What to do with unknown and duplicate fields in a body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldValidation {
    Strict,
    Warn,
    Ignore,
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
    /// `application/vnd.kubernetes.protobuf` (read for Namespaces only).
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
pub fn parse_body(body: &Bytes, ty: BodyType, what: &str) -> Result<Value, ApiError> {
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
