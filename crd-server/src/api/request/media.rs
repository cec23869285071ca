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
    /// `application/json;as=PartialObjectMetadata(List);g=meta.k8s.io;v=v1` (or
    /// v1beta1): the objects' metadata only, what kube's metadata watchers (and
    /// `Controller::owns`) and client-go's metadata informers ask for.
    Metadata,
}

impl Representation {
    /// The answer's `Content-Type` (`list`: a list or watch of objects).
    pub fn content_type(self, list: bool) -> &'static str {
        match (self, list) {
            (Representation::Json, _) => "application/json",
            (Representation::Table, _) => "application/json;as=Table;v=v1;g=meta.k8s.io",
            (Representation::Metadata, true) => {
                "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
            }
            (Representation::Metadata, false) => {
                "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
            }
        }
    }
}

/// The `PartialObjectMetadata` of an object (`meta.k8s.io/v1`).
pub fn partial_metadata(obj: &serde_json::Value) -> serde_json::Value {
    serde_json::json!({
        "kind": "PartialObjectMetadata",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": obj.get("metadata").cloned().unwrap_or_else(|| serde_json::json!({})),
    })
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
            (Some("PartialObjectMetadata" | "PartialObjectMetadataList"), Some("meta.k8s.io")) => {
                return Ok(Representation::Metadata);
            }
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

/// One clause of an `Accept` header as kube-apiserver reads it (its `goautoneg`): a
/// media range, its parameters (`q` apart) and its quality.
#[derive(Clone, Debug, PartialEq)]
pub struct AcceptClause<'a> {
    pub kind: &'a str,
    pub subtype: &'a str,
    pub params: Vec<(&'a str, &'a str)>,
    pub q: f64,
}

impl<'a> AcceptClause<'a> {
    /// A parameter's value (the last one given wins, as in a map).
    pub fn param(&self, key: &str) -> Option<&'a str> {
        self.params
            .iter()
            .rev()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| *v)
    }

    /// Whether the clause's media range covers `kind/subtype`.
    pub fn covers(&self, kind: &str, subtype: &str) -> bool {
        (self.kind == kind && (self.subtype == subtype || self.subtype == "*"))
            || (self.kind == "*" && self.subtype == "*")
    }

    /// goautoneg's order: a higher quality first, then a concrete type or subtype before
    /// a wildcard. (Its comparison only looks for reasons to put `self` first, so a
    /// concrete type of lower quality still goes before a wildcard of higher quality.)
    fn before(&self, other: &AcceptClause<'_>) -> bool {
        self.q > other.q
            || (self.kind != "*" && other.kind == "*")
            || (self.subtype != "*" && other.subtype == "*")
    }
}

/// The clauses of an `Accept` header in the order kube-apiserver tries them. Clauses
/// that name no media range are skipped; a `q` that does not parse counts as 0. Go
/// sorts headers of up to 12 clauses by insertion, so the same insertion sort here gives
/// the same order.
pub fn accept_clauses(header: &str) -> Vec<AcceptClause<'_>> {
    let mut clauses: Vec<AcceptClause<'_>> = Vec::new();
    for part in header.split(',') {
        let mut pieces = part.trim_matches(' ').split(';');
        let range = pieces.next().unwrap_or("");
        let mut sp = range.split('/');
        let kind = sp.next().unwrap_or("").trim_matches(' ');
        let subtype = match (sp.next(), sp.next()) {
            (None, _) if kind == "*" => "*",
            (Some(sub), None) => sub.trim_matches(' '),
            _ => continue,
        };
        let mut clause = AcceptClause {
            kind,
            subtype,
            params: Vec::new(),
            q: 1.0,
        };
        for param in pieces {
            let Some((key, value)) = param.split_once('=') else {
                continue;
            };
            let key = key.trim_matches(' ');
            if key == "q" {
                clause.q = value.parse::<f64>().unwrap_or(0.0);
            } else {
                clause.params.push((key, value.trim_matches(' ')));
            }
        }
        clauses.push(clause);
    }
    for i in 1..clauses.len() {
        let mut j = i;
        while j > 0 && clauses[j].before(&clauses[j - 1]) {
            clauses.swap(j, j - 1);
            j -= 1;
        }
    }
    clauses
}

/// The group, version and kind a clause asks the server to convert its answer to
/// (`g=`, `v=`, `as=`; a missing one is empty).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Conversion<'a> {
    pub group: &'a str,
    pub version: &'a str,
    pub kind: &'a str,
}

/// A media type an endpoint writes, as its serializer is registered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Served {
    pub kind: &'static str,
    pub subtype: &'static str,
    /// Whether it has a stream serializer (`stream=watch` then passes; YAML has none).
    pub streams: bool,
}

/// What the media types kube-apiserver's discovery endpoints write: JSON, YAML and
/// protobuf, in the order its codec factory lists them.
pub const DISCOVERY_TYPES: &[Served] = &[
    Served {
        kind: "application",
        subtype: "json",
        streams: true,
    },
    Served {
        kind: "application",
        subtype: "yaml",
        streams: false,
    },
    Served {
        kind: "application",
        subtype: "vnd.kubernetes.protobuf",
        streams: true,
    },
];

impl Served {
    /// `type/subtype`.
    pub fn media_type(&self) -> String {
        format!("{}/{}", self.kind, self.subtype)
    }
}

/// The outcome of negotiating `Accept`: the media type to write and the conversion the
/// chosen clause asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Negotiated<'a> {
    pub served: Served,
    pub conversion: Option<Conversion<'a>>,
}

/// kube-apiserver's `NegotiateMediaTypeOptions`: the clauses of `Accept` in their
/// order, each tried against the served types in theirs; the first pair whose options
/// the endpoint allows wins. `allowed` is the endpoint's rule for conversions (discovery
/// allows only its aggregated kinds, other endpoints none); a server version (`sv=`) is
/// never allowed, a `stream=` only as `watch` on a type that streams. No `Accept` (or
/// an empty one) takes the first served type as it is.
pub fn negotiate<'a>(
    headers: &'a HeaderMap,
    served: &[Served],
    allowed: impl Fn(Option<&Conversion<'_>>) -> bool,
) -> Option<Negotiated<'a>> {
    let accept = match headers.get(http::header::ACCEPT) {
        None => "",
        Some(v) => v.to_str().ok()?,
    };
    if accept.is_empty() {
        return served.first().map(|s| Negotiated {
            served: *s,
            conversion: None,
        });
    }
    for clause in accept_clauses(accept) {
        for s in served {
            if !clause.covers(s.kind, s.subtype) {
                continue;
            }
            let stream = clause.param("stream").unwrap_or("");
            if !stream.is_empty() && (!s.streams || stream != "watch") {
                continue;
            }
            if clause.param("sv").is_some_and(|v| !v.is_empty()) {
                continue;
            }
            let (group, version, kind) = (clause.param("g"), clause.param("v"), clause.param("as"));
            let conversion =
                (group.is_some() || version.is_some() || kind.is_some()).then(|| Conversion {
                    group: group.unwrap_or(""),
                    version: version.unwrap_or(""),
                    kind: kind.unwrap_or(""),
                });
            if allowed(conversion.as_ref()) {
                return Some(Negotiated {
                    served: *s,
                    conversion,
                });
            }
        }
    }
    None
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

/// [`parse_body`] for an object of kind `kind`: a JSON body nested deeper than the
/// API server decodes fails first, in its words (`handlers.transformDecodeError`:
/// the decoder reads the type meta before the kind is known).
pub fn parse_object_body(
    body: &[u8],
    ty: BodyType,
    what: &str,
    kind: &str,
) -> Result<Value, ApiError> {
    if let Err(e) = crd_runtime::__private::depth::json_text_depth(body) {
        return Err(ApiError::bad_request(format!(
            "the object provided is unrecognized (must be of type {kind}): {e} ({})",
            summarize(body)
        )));
    }
    parse_body(body, ty, what)
}

/// The body as the API server quotes it in a decode error (`summarizeData(body, 30)`):
/// a JSON object as text, anything else in hex, cut at 30 bytes.
fn summarize(body: &[u8]) -> String {
    let cut = &body[..body.len().min(30)];
    let more = if body.len() > 30 { " ..." } else { "" };
    match body.first() {
        None => "<empty>".to_string(),
        Some(b'{') => format!("{}{more}", String::from_utf8_lossy(cut)),
        Some(_) => format!(
            "{}{more}",
            cut.iter().map(|b| format!("{b:02x}")).collect::<String>()
        ),
    }
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
        // As deep as the API server reads JSON (10,000 levels), not serde_json's 128.
        return crd_runtime::__private::depth::from_json_slice(body).map_err(|e| {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn accept(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(http::header::ACCEPT, value.parse().unwrap());
        h
    }

    fn ranges(header: &str) -> Vec<String> {
        accept_clauses(header)
            .iter()
            .map(|c| format!("{}/{}", c.kind, c.subtype))
            .collect()
    }

    #[test]
    fn clauses_sort_like_goautoneg() {
        // goautoneg's comparison is not an order: a concrete type of lower quality
        // passes a wildcard, as Go's insertion sort of short lists shows.
        assert_eq!(
            ranges("*/*;q=0.8, text/*, application/json;q=0.5, application/yaml"),
            ["application/yaml", "application/json", "text/*", "*/*"]
        );
        // A bad quality counts as 0; a range with two slashes is dropped.
        assert_eq!(
            ranges("application/json;q=x, a/b/c, application/yaml;q=0.1"),
            ["application/yaml", "application/json"]
        );
        let c = &accept_clauses("application/json; g = x ;v=a;v=b")[0];
        assert_eq!((c.param("g"), c.param("v")), (Some("x"), Some("b")));
    }

    const V2: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

    fn only_v2(c: Option<&Conversion<'_>>) -> bool {
        c.is_some_and(|c| c.version == "v2" && c.kind == "APIGroupDiscoveryList")
    }

    #[test]
    fn negotiation_takes_the_first_clause_the_endpoint_allows() {
        let h = accept(&format!("{V2},application/json"));
        let n = negotiate(&h, DISCOVERY_TYPES, only_v2).unwrap();
        assert_eq!(n.served, DISCOVERY_TYPES[0]);
        assert_eq!(n.conversion.unwrap().group, "apidiscovery.k8s.io");
        // No conversion allowed: the plain clause answers.
        let n = negotiate(&h, DISCOVERY_TYPES, |c| c.is_none()).unwrap();
        assert_eq!(n.conversion, None);
        // Quality first.
        let h = accept(&format!("application/json;q=0.9,{V2}"));
        let n = negotiate(&h, DISCOVERY_TYPES, |_| true).unwrap();
        assert!(n.conversion.is_some());
        // A wildcard with parameters converts too, into the first served type.
        let h = accept("*/*;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
        let n = negotiate(&h, DISCOVERY_TYPES, only_v2).unwrap();
        assert_eq!(n.served.media_type(), "application/json");
    }

    #[test]
    fn negotiation_refuses_server_versions_and_unknown_streams() {
        let h = accept("application/json;sv=v1");
        assert_eq!(negotiate(&h, DISCOVERY_TYPES, |_| true), None);
        let h = accept("application/json;stream=other");
        assert_eq!(negotiate(&h, DISCOVERY_TYPES, |_| true), None);
        let h = accept("application/yaml;stream=watch, text/html");
        assert_eq!(negotiate(&h, DISCOVERY_TYPES, |_| true), None);
        let h = accept("application/json;stream=watch");
        assert!(negotiate(&h, DISCOVERY_TYPES, |_| true).is_some());
    }

    #[test]
    fn no_accept_takes_the_first_type() {
        for h in [HeaderMap::new(), accept("")] {
            let n = negotiate(&h, DISCOVERY_TYPES, |_| false).unwrap();
            assert_eq!((n.served, n.conversion), (DISCOVERY_TYPES[0], None));
        }
        assert_eq!(
            negotiate(&accept("text/html"), DISCOVERY_TYPES, |_| true),
            None
        );
    }
}
