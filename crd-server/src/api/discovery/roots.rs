//! The answers of `/api` and `/apis`, negotiated as kube-apiserver's discovery wrapper
//! does: the aggregated document when a clause of `Accept` asks for an aggregated kind
//! the release serves, else the legacy document when a clause takes it as it is, else
//! 406. The aggregated answer carries an ETag (the SHA-512 of the document) and is
//! answered 304 when `If-None-Match` names it.

use axum::body::Bytes;
use axum::response::{IntoResponse, Response};
use http::{HeaderMap, HeaderValue, StatusCode};
use serde_json::Value;

use super::aggregated::{DiscoveryList, DiscoveryVersion, GROUP, LIST_KIND, Root, document};
use crate::api::registry::Registry;
use crate::api::request::media::{Conversion, DISCOVERY_TYPES, negotiate};
use crate::api::status::ApiError;
use crate::api::verbs::json_response;

/// The aggregated version a conversion names, if this release serves it.
pub fn aggregated_version(
    conversion: Option<&Conversion<'_>>,
    kube: crd_runtime::KubeVersion,
) -> Option<DiscoveryVersion> {
    let c = conversion?;
    if c.group != GROUP || c.kind != LIST_KIND {
        return None;
    }
    DiscoveryVersion::parse(c.version, kube)
}

/// What `Accept` asks `/api` or `/apis` for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    Aggregated(DiscoveryVersion),
    Legacy,
    NotAcceptable,
}

/// Reads `Accept`. Only JSON is written, so a clause asking for the aggregated kind in
/// YAML or protobuf is passed over (kube-apiserver would answer it in that encoding);
/// the legacy document is written as JSON whichever of its types was taken.
pub fn answer_for(headers: &HeaderMap, kube: crd_runtime::KubeVersion) -> Answer {
    let json = &DISCOVERY_TYPES[..1];
    let chosen = negotiate(headers, json, |c| aggregated_version(c, kube).is_some());
    if let Some(v) = chosen.and_then(|n| aggregated_version(n.conversion.as_ref(), kube)) {
        return Answer::Aggregated(v);
    }
    match negotiate(headers, DISCOVERY_TYPES, |c| c.is_none()) {
        Some(_) => Answer::Legacy,
        None => Answer::NotAcceptable,
    }
}

/// `/api` (`Root::Core`) or `/apis` (`Root::Groups`); `legacy` builds the unaggregated
/// document.
pub fn serve(
    registry: &Registry,
    ext: &super::Extensions,
    headers: &HeaderMap,
    root: Root,
    legacy: impl FnOnce() -> Value,
) -> Response {
    match answer_for(headers, registry.kube_version()) {
        Answer::Aggregated(version) => aggregated(document(registry, ext, root), version, headers),
        Answer::Legacy => json_response(StatusCode::OK, &legacy(), &[]),
        Answer::NotAcceptable => {
            let types: Vec<String> = DISCOVERY_TYPES.iter().map(|s| s.media_type()).collect();
            ApiError::not_acceptable(format!(
                "only the following media types are accepted: {}",
                types.join(", ")
            ))
            .into_response()
        }
    }
}

/// The ETag of a document: the upper-case hex SHA-512 of its JSON, quoted.
pub fn etag(list: &DiscoveryList) -> String {
    let bytes = serde_json::to_vec(list).unwrap_or_default();
    let digest = ring::digest::digest(&ring::digest::SHA512, &bytes);
    let hex: String = digest.as_ref().iter().map(|b| format!("{b:02X}")).collect();
    format!("\"{hex}\"")
}

/// The `Content-Type` of an aggregated answer: JSON with the kind it was converted to,
/// as kube-apiserver names it.
pub fn content_type(version: DiscoveryVersion) -> String {
    format!(
        "application/json;g={GROUP};v={};as={LIST_KIND}",
        version.name()
    )
}

fn aggregated(list: DiscoveryList, version: DiscoveryVersion, headers: &HeaderMap) -> Response {
    let tag = etag(&list);
    // Compared as a whole, as kube-apiserver does (no lists, no weak tags).
    let cached = headers
        .get(http::header::IF_NONE_MATCH)
        .is_some_and(|v| v.as_bytes() == tag.as_bytes());
    let mut resp = if cached {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let body = Bytes::from(serde_json::to_vec(&list.typed(version)).unwrap_or_default());
        let mut resp = (StatusCode::OK, body).into_response();
        if let Ok(ct) = HeaderValue::from_str(&content_type(version)) {
            resp.headers_mut().insert(http::header::CONTENT_TYPE, ct);
        }
        resp
    };
    let h = resp.headers_mut();
    if let Ok(tag) = HeaderValue::from_str(&tag) {
        h.insert(http::header::ETAG, tag);
    }
    h.insert(http::header::VARY, HeaderValue::from_static("Accept"));
    h.insert(
        http::header::CACHE_CONTROL,
        HeaderValue::from_static("public"),
    );
    resp
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::discovery::aggregated::{
        GroupDiscovery, GroupMeta, Gvk, ListMeta, ResourceDiscovery, VersionDiscovery,
    };
    use crd_runtime::KubeVersion;

    const V2: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
    const V2BETA1: &str =
        "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList";

    fn answer(accept: Option<&str>, minor: u32) -> Answer {
        let mut h = HeaderMap::new();
        if let Some(a) = accept {
            h.insert(http::header::ACCEPT, a.parse().unwrap());
        }
        answer_for(&h, KubeVersion::new(minor).unwrap())
    }

    #[test]
    fn kubectl_and_client_go_get_v2() {
        let client_go = format!("{V2},{V2BETA1},application/json");
        for minor in [30, 32, 33, 37] {
            assert_eq!(
                answer(Some(&client_go), minor),
                Answer::Aggregated(DiscoveryVersion::V2)
            );
        }
    }

    #[test]
    fn v2beta1_is_served_before_1_33_only() {
        assert_eq!(
            answer(Some(V2BETA1), 32),
            Answer::Aggregated(DiscoveryVersion::V2beta1)
        );
        assert_eq!(answer(Some(V2BETA1), 33), Answer::NotAcceptable);
        let with_json = format!("{V2BETA1},application/json");
        assert_eq!(answer(Some(&with_json), 37), Answer::Legacy);
        assert_eq!(
            answer(Some(&with_json), 30),
            Answer::Aggregated(DiscoveryVersion::V2beta1)
        );
    }

    #[test]
    fn other_accepts_get_the_legacy_document_or_406() {
        assert_eq!(answer(None, 37), Answer::Legacy);
        assert_eq!(answer(Some("*/*"), 37), Answer::Legacy);
        assert_eq!(answer(Some("application/yaml"), 37), Answer::Legacy);
        assert_eq!(answer(Some("text/html"), 37), Answer::NotAcceptable);
        // Another kind, group or version is no aggregated discovery.
        let other = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscovery";
        assert_eq!(answer(Some(other), 37), Answer::NotAcceptable);
        let table = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";
        assert_eq!(answer(Some(table), 37), Answer::Legacy);
        // Aggregated protobuf is not written: the JSON clause after it answers.
        let proto = "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";
        assert_eq!(answer(Some(proto), 37), Answer::Legacy);
        // A wildcard asking for the conversion converts.
        let wild = "*/*;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
        assert_eq!(
            answer(Some(wild), 37),
            Answer::Aggregated(DiscoveryVersion::V2)
        );
        // Whatever the qualities: kube-apiserver's wrapper looks for an aggregated clause
        // first and only then lets the legacy handler negotiate.
        let low = format!("{V2};q=0.5,application/json");
        assert_eq!(
            answer(Some(&low), 37),
            Answer::Aggregated(DiscoveryVersion::V2)
        );
    }

    #[test]
    fn content_type_names_the_kind() {
        assert_eq!(content_type(DiscoveryVersion::V2), V2);
        assert_eq!(content_type(DiscoveryVersion::V2beta1), V2BETA1);
    }

    fn widgets() -> DiscoveryList {
        DiscoveryList {
            kind: None,
            api_version: None,
            metadata: ListMeta {},
            items: vec![GroupDiscovery {
                metadata: GroupMeta {
                    name: "acme.example.com".into(),
                    creation_timestamp: None,
                },
                versions: vec![VersionDiscovery {
                    version: "v1".into(),
                    resources: vec![ResourceDiscovery {
                        resource: "widgets".into(),
                        response_kind: Gvk {
                            group: "acme.example.com".into(),
                            version: "v1".into(),
                            kind: "Widget".into(),
                        },
                        scope: "Cluster",
                        singular_resource: "widget".into(),
                        verbs: vec!["get".into()],
                        short_names: vec![],
                        categories: vec![],
                        subresources: vec![],
                    }],
                    freshness: "Current",
                }],
            }],
        }
    }

    #[test]
    fn etag_is_the_sha512_of_the_go_ordered_json() {
        let list = widgets();
        // The Go types' field order, empty optional fields left out.
        let expected = r#"{"metadata":{},"items":[{"metadata":{"name":"acme.example.com"},"versions":[{"version":"v1","resources":[{"resource":"widgets","responseKind":{"group":"acme.example.com","version":"v1","kind":"Widget"},"scope":"Cluster","singularResource":"widget","verbs":["get"]}],"freshness":"Current"}]}]}"#;
        assert_eq!(serde_json::to_string(&list).unwrap(), expected);
        // `printf '%s' "$expected" | sha512sum`, upper-cased.
        assert_eq!(
            etag(&list),
            "\"7606476A2D4AB90D1A0D9657AC3CCC4C2375B04E473A426A5451907D4AA5B36D43E30AFD3743A7917A383C738A01EE0514692B4E46DE4F6E9965AE3C7C105C31\""
        );
        let typed = serde_json::to_value(list.typed(DiscoveryVersion::V2)).unwrap();
        assert_eq!(typed["kind"], "APIGroupDiscoveryList");
        assert_eq!(typed["apiVersion"], "apidiscovery.k8s.io/v2");
    }

    #[test]
    fn aggregated_answers_carry_the_etag_and_304_when_it_matches() {
        let list = widgets();
        let tag = etag(&list);
        let resp = aggregated(list.clone(), DiscoveryVersion::V2, &HeaderMap::new());
        assert_eq!(resp.status(), StatusCode::OK);
        let h = resp.headers();
        assert_eq!(h[http::header::ETAG], tag.as_str());
        assert_eq!(h[http::header::VARY], "Accept");
        assert_eq!(h[http::header::CACHE_CONTROL], "public");
        assert_eq!(h[http::header::CONTENT_TYPE], V2);

        let mut cached = HeaderMap::new();
        cached.insert(http::header::IF_NONE_MATCH, tag.parse().unwrap());
        let resp = aggregated(list.clone(), DiscoveryVersion::V2, &cached);
        assert_eq!(resp.status(), StatusCode::NOT_MODIFIED);
        assert_eq!(resp.headers()[http::header::ETAG], tag.as_str());
        // Not a list, not a weak tag: only the tag itself.
        for other in [format!("W/{tag}"), format!("\"x\", {tag}"), "*".to_string()] {
            let mut h = HeaderMap::new();
            h.insert(http::header::IF_NONE_MATCH, other.parse().unwrap());
            let resp = aggregated(list.clone(), DiscoveryVersion::V2, &h);
            assert_eq!(resp.status(), StatusCode::OK, "{other}");
        }
    }
}
