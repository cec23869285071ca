//! A read-only aggregated API, `metrics.example.com/v1`: one cluster-scoped
//! `NodeMetrics` per Node of the cluster, its usage a quarter of the Node's
//! `status.capacity` (deterministic, so that tests can check it). Served behind the
//! aggregator with `crd_webhook::aggregated`; every resource request is authorized by
//! the cluster with a SubjectAccessReview ([`authz`]). `examples/metrics-apiserver.rs`
//! is the binary.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use crd_webhook::aggregated::{self, AuthenticatedUser, RequestHeaderAuth};
use crd_webhook::{RunningWebhook, WebhookConfig};
use k8s_openapi::api::core::v1::{ConfigMap, Node};
use kube::Api;
use kube::api::ListParams;
use serde_json::{Value, json};

pub mod authz;
mod discovery;
pub mod register;
mod status;
mod table;

pub use status::ApiError;

/// The API group served.
pub const GROUP: &str = "metrics.example.com";
/// The version served.
pub const VERSION: &str = "v1";
/// The resource (plural) served.
pub const RESOURCE: &str = "nodemetrics";
/// The kind served.
pub const KIND: &str = "NodeMetrics";
/// The window every sample claims to cover.
pub const WINDOW: &str = "30s";

/// What the handlers share: the cluster's client (Nodes, SubjectAccessReviews) and the
/// authorizer's cache.
#[derive(Clone)]
pub struct MetricsApi {
    client: kube::Client,
    authorizer: Arc<authz::Authorizer>,
}

impl MetricsApi {
    /// Reads Nodes and asks for authorization with `client`.
    pub fn new(client: kube::Client) -> Self {
        MetricsApi {
            authorizer: Arc::new(authz::Authorizer::new(client.clone())),
            client,
        }
    }

    /// The routes: discovery, OpenAPI and the `nodemetrics` resource; any other method
    /// on the resource is `405`, any other path `404`, each with a `Status`.
    pub fn router(self) -> Router {
        let base = format!("/apis/{GROUP}/{VERSION}");
        let refuse = || status::method_not_allowed;
        Router::new()
            .route("/apis", get(discovery::group_list))
            .route(&format!("/apis/{GROUP}"), get(discovery::group))
            .route(&base, get(discovery::resource_list))
            .route("/openapi/v2", get(discovery::openapi_v2))
            .route("/openapi/v3", get(discovery::openapi_v3_index))
            .route(&format!("/openapi/v3{base}"), get(discovery::openapi_v3))
            .route(&format!("{base}/{RESOURCE}"), get(list).fallback(refuse()))
            .route(
                &format!("{base}/{RESOURCE}/{{name}}"),
                get(get_one).fallback(refuse()),
            )
            .fallback(status::not_found_path)
            .with_state(self)
    }
}

/// The trust settings the cluster publishes for extension servers: the ConfigMap
/// `kube-system/extension-apiserver-authentication`, read with `client`.
pub async fn authentication_from_cluster(
    client: &kube::Client,
) -> Result<RequestHeaderAuth, String> {
    let config_maps: Api<ConfigMap> =
        Api::namespaced(client.clone(), aggregated::CONFIG_MAP_NAMESPACE);
    let name = aggregated::CONFIG_MAP_NAME;
    let config_map = config_maps
        .get_opt(name)
        .await
        .map_err(|e| format!("cannot read the ConfigMap {}/{name}: {e}", aggregated::CONFIG_MAP_NAMESPACE))?
        .ok_or_else(|| {
            format!(
                "the cluster publishes no ConfigMap {}/{name} (give --requestheader-client-ca-file)",
                aggregated::CONFIG_MAP_NAMESPACE
            )
        })?;
    RequestHeaderAuth::from_config_map_data(&config_map.data.unwrap_or_default())
        .map_err(|e| format!("ConfigMap {}/{name}: {e}", aggregated::CONFIG_MAP_NAMESPACE))
}

/// Serves the metrics API with `client`, trusting `auth`, where `config` says.
pub async fn serve(
    client: kube::Client,
    auth: RequestHeaderAuth,
    config: WebhookConfig,
) -> Result<RunningWebhook, crd_webhook::Error> {
    aggregated::serve_aggregated(MetricsApi::new(client).router(), auth, config).await
}

/// A Node's `NodeMetrics`: a quarter of its capacity, sampled `now`.
pub fn node_metrics(node: &Node, now: &str) -> Value {
    let capacity = node.status.as_ref().and_then(|s| s.capacity.as_ref());
    let quarter = |key: &str, unit: Unit| {
        capacity
            .and_then(|c| c.get(key))
            .and_then(|q| parse_quantity(&q.0))
            .map(|v| unit.format(v / 4.0))
            .unwrap_or_else(|| unit.format(0.0))
    };
    json!({
        "kind": KIND,
        "apiVersion": format!("{GROUP}/{VERSION}"),
        "metadata": {
            "name": node.metadata.name.clone().unwrap_or_default(),
            "creationTimestamp": now,
        },
        "timestamp": now,
        "window": WINDOW,
        "usage": {"cpu": quarter("cpu", Unit::MilliCores), "memory": quarter("memory", Unit::KiB)},
    })
}

/// How a usage is written: CPU in millicores, memory in KiB (as metrics-server does).
#[derive(Clone, Copy)]
enum Unit {
    MilliCores,
    KiB,
}

impl Unit {
    fn format(self, value: f64) -> String {
        match self {
            Unit::MilliCores => format!("{}m", (value * 1000.0).round() as u64),
            Unit::KiB => format!("{}Ki", (value / 1024.0).round() as u64),
        }
    }
}

/// A resource quantity (`4`, `3500m`, `16Gi`, `1.5G`) as a number of base units;
/// `None` for what this example does not read (exponents).
fn parse_quantity(text: &str) -> Option<f64> {
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, suffix) = text.split_at(split);
    let number: f64 = number.parse().ok()?;
    let scale = match suffix {
        "" => 1.0,
        "m" => 1e-3,
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "P" => 1e15,
        "Ki" => 1024.0,
        "Mi" => 1024.0 * 1024.0,
        "Gi" => 1024.0 * 1024.0 * 1024.0,
        "Ti" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        "Pi" => 1024.0 * 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    Some(number * scale)
}

/// The sample time: now, to the second, as Kubernetes writes times.
fn now() -> String {
    let now = k8s_openapi::jiff::Timestamp::now();
    k8s_openapi::jiff::Timestamp::from_second(now.as_second())
        .map(|t| t.to_string())
        .unwrap_or_else(|_| now.to_string())
}

/// Whether the client asked for a `meta.k8s.io/v1` Table (what `kubectl get` asks for).
fn wants_table(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|media| {
            let params: Vec<&str> = media.split(';').map(str::trim).collect();
            params.contains(&"as=Table")
                && params.contains(&"v=v1")
                && params.contains(&"g=meta.k8s.io")
        })
}

fn json_response(body: &Value) -> Response {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// `GET .../nodemetrics`: every Node's metrics (query parameters such as `limit` are
/// accepted and ignored: the list is small).
async fn list(
    State(api): State<MetricsApi>,
    user: AuthenticatedUser,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    api.authorizer.check(&user, "list", "").await?;
    let nodes = Api::<Node>::all(api.client.clone())
        .list(&ListParams::default())
        .await
        .map_err(ApiError::cluster)?;
    let now = now();
    let items: Vec<Value> = nodes.items.iter().map(|n| node_metrics(n, &now)).collect();
    let resource_version = nodes.metadata.resource_version.unwrap_or_default();
    if wants_table(&headers) {
        return Ok(json_response(&table::table(&items, &resource_version)));
    }
    Ok(json_response(&json!({
        "kind": format!("{KIND}List"),
        "apiVersion": format!("{GROUP}/{VERSION}"),
        "metadata": {"resourceVersion": resource_version},
        "items": items,
    })))
}

/// `GET .../nodemetrics/NAME`.
async fn get_one(
    State(api): State<MetricsApi>,
    Path(name): Path<String>,
    user: AuthenticatedUser,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    api.authorizer.check(&user, "get", &name).await?;
    let node = Api::<Node>::all(api.client.clone())
        .get_opt(&name)
        .await
        .map_err(ApiError::cluster)?
        .ok_or_else(|| ApiError::not_found(&name))?;
    let metrics = node_metrics(&node, &now());
    if wants_table(&headers) {
        return Ok(json_response(&table::table(&[metrics], "")));
    }
    Ok(json_response(&metrics))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_are_read_in_base_units() {
        assert_eq!(parse_quantity("4"), Some(4.0));
        assert_eq!(parse_quantity("3500m"), Some(3.5));
        assert_eq!(parse_quantity("8Gi"), Some(8.0 * 1024.0 * 1024.0 * 1024.0));
        assert_eq!(parse_quantity("1.5k"), Some(1500.0));
        assert_eq!(parse_quantity("1e3"), None);
        assert_eq!(Unit::MilliCores.format(1.0), "1000m");
        assert_eq!(
            Unit::KiB.format(2.0 * 1024.0 * 1024.0 * 1024.0),
            "2097152Ki"
        );
    }

    #[test]
    fn kubectl_gets_accept_asks_for_a_table() {
        let mut h = HeaderMap::new();
        h.insert(
            header::ACCEPT,
            "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
                .parse()
                .unwrap(),
        );
        assert!(wants_table(&h));
        h.insert(header::ACCEPT, "application/json".parse().unwrap());
        assert!(!wants_table(&h));
    }
}
