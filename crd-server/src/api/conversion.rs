//! Converting custom resources between the versions of their CRD, as the API server
//! does: objects are stored in the storage version and served in the version asked
//! for. `strategy: None` rewrites `apiVersion` only; `strategy: Webhook` sends the
//! objects that need it in one `ConversionReview` over HTTPS (trusting `caBundle`) and
//! checks the answer the way kube-apiserver does (uid, count, group/version, kind,
//! name/namespace/uid; other metadata restored, labels and annotations taken).
//!
//! A test server may serve a CRD's webhook in process ([`ConversionWebhooks`]): the
//! same review, encoded and decoded, the same checks and messages; only the HTTPS call
//! is left out.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use crd_runtime::conversion::{ConversionRequest, ConversionReview};
use crd_runtime::model::{CustomResourceDefinition, WebhookClientConfig};
use serde_json::{Map, Value, json};

use super::status::ApiError;
use crate::webhook_client::{CallError, ServiceRef, WebhookClient};

/// The `ConversionReview` version the server sends and reads back.
const REVIEW_API_VERSION: &str = "apiextensions.k8s.io/v1";

/// How long a webhook may take (kube-apiserver's default webhook timeout).
const WEBHOOK_TIMEOUT: Duration = Duration::from_secs(30);

/// A conversion webhook served in process: a `ConversionReview` request body in, the
/// answer's body out, as an HTTPS webhook would read and write them (`Err`: what an
/// HTTP 400 would say).
pub type ConversionHandler = Arc<dyn Fn(&[u8]) -> Result<Vec<u8>, String> + Send + Sync>;

/// In-process conversion webhooks by CRD name (`plural.group`). A CRD of that name
/// whose `spec.conversion.strategy` is `Webhook` is converted by the handler instead of
/// over HTTPS; its `clientConfig` is not dialed. A CRD with strategy `None` stays `None`,
/// as in a cluster.
#[derive(Clone, Default)]
pub struct ConversionWebhooks(BTreeMap<String, ConversionHandler>);

impl ConversionWebhooks {
    /// Serves the conversion webhook of the CRD `crd_name` with `handler`.
    pub fn insert(&mut self, crd_name: impl Into<String>, handler: ConversionHandler) {
        self.0.insert(crd_name.into(), handler);
    }

    /// Serves the conversion webhook of the CRD of `H` with `converter`, through
    /// [`crd_runtime::conversion::review`], as `crd_webhook::serve_conversion` does.
    pub fn insert_converter<H>(&mut self, converter: crd_runtime::conversion::Converter<H>)
    where
        H: crd_runtime::CustomResourceExt + 'static,
    {
        let converter = Arc::new(converter);
        self.insert(
            H::crd().metadata.name.unwrap_or_default(),
            Arc::new(move |body: &[u8]| {
                let answer =
                    crd_runtime::conversion::review(&converter, body).map_err(|e| e.to_string())?;
                serde_json::to_vec(&answer).map_err(|e| e.to_string())
            }),
        );
    }

    /// Whether no webhook is served in process.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn get(&self, crd_name: &str) -> Option<&ConversionHandler> {
        self.0.get(crd_name)
    }
}

impl std::fmt::Debug for ConversionWebhooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.0.keys()).finish()
    }
}

/// A CRD's conversion strategy.
pub enum Converter {
    /// Only `apiVersion` changes.
    None,
    /// A conversion webhook.
    Webhook(Arc<Webhook>),
    /// A conversion webhook served in process.
    InProcess(ConversionHandler),
    /// A webhook configuration that cannot be used (no CA, a bad URL): every
    /// conversion fails with this message.
    Broken(String),
}

impl Converter {
    /// The strategy of a CRD, its webhook served by `in_process` when that has one for
    /// the CRD's name.
    pub fn of(crd: &CustomResourceDefinition, in_process: &ConversionWebhooks) -> Converter {
        let Some(conversion) = crd.spec.conversion.as_ref() else {
            return Converter::None;
        };
        if conversion.strategy != "Webhook" {
            return Converter::None;
        }
        if let Some(handler) = in_process.get(crd.metadata.name.as_deref().unwrap_or("")) {
            return Converter::InProcess(handler.clone());
        }
        let config = conversion
            .webhook
            .as_ref()
            .and_then(|w| w.client_config.as_ref());
        match config.map(Webhook::new) {
            Some(Ok(webhook)) => Converter::Webhook(Arc::new(webhook)),
            Some(Err(e)) => Converter::Broken(e),
            None => Converter::Broken("the CRD's conversion webhook has no clientConfig".into()),
        }
    }
}

/// A conversion webhook endpoint.
pub struct Webhook {
    client: WebhookClient,
}

impl Webhook {
    fn new(config: &WebhookClientConfig) -> Result<Webhook, String> {
        let service = config.service.as_ref().map(|s| ServiceRef {
            namespace: &s.namespace,
            name: &s.name,
            path: s.path.as_deref(),
            port: s.port.and_then(|p| u16::try_from(p).ok()),
        });
        let client = WebhookClient::new(
            config.url.as_deref(),
            service,
            config.ca_bundle.as_deref(),
            "conversion webhook",
        )?;
        Ok(Webhook { client })
    }

    /// POSTs `review` and returns the answer.
    async fn call(&self, review: &ConversionReview) -> Result<ConversionReview, String> {
        let body = serde_json::to_vec(review).map_err(|e| format!("encoding the review: {e}"))?;
        let post = format!("Post \"{}\"", self.client.url(None));
        let body = match self.client.post(None, body, WEBHOOK_TIMEOUT).await {
            Ok(body) => body,
            Err(CallError::Transport(e)) => return Err(format!("{post}: {e}")),
            Err(CallError::TimedOut) => {
                return Err(format!(
                    "{post}: context deadline exceeded (Client.Timeout exceeded while awaiting headers)"
                ));
            }
            Err(CallError::Status(code, body)) => {
                let text = String::from_utf8_lossy(&body);
                return Err(format!(
                    "the server responded with status {code}: {}",
                    text.trim()
                ));
            }
        };
        serde_json::from_slice(&body)
            .map_err(|e| format!("the answer is not a ConversionReview: {e}"))
    }
}

/// How a review reaches its webhook.
enum Call<'a> {
    Https(&'a Webhook),
    InProcess(&'a ConversionHandler),
}

/// Calls an in-process webhook with `review` encoded, as a POST would send it.
fn call_in_process(
    handler: &ConversionHandler,
    review: &ConversionReview,
) -> Result<ConversionReview, String> {
    let body = serde_json::to_vec(review).map_err(|e| format!("encoding the review: {e}"))?;
    let answer =
        handler(&body).map_err(|e| format!("the in-process webhook refused the review: {e}"))?;
    serde_json::from_slice(&answer)
        .map_err(|e| format!("the answer is not a ConversionReview: {e}"))
}

/// `group/version, Kind=Kind`, as Go prints a GroupVersionKind.
fn gvk(object: &Value, kind: &str) -> String {
    let api_version = object
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    format!("{api_version}, Kind={kind}")
}

/// `objects` (in any stored or served version) in the version `desired`.
pub async fn convert(
    strategy: &Converter,
    kind: &str,
    mut objects: Vec<Value>,
    desired: &str,
) -> Result<Vec<Value>, ApiError> {
    let pending: Vec<usize> = (0..objects.len())
        .filter(|&i| objects[i].get("apiVersion").and_then(Value::as_str) != Some(desired))
        .collect();
    if pending.is_empty() {
        return Ok(objects);
    }
    let call = match strategy {
        Converter::None => {
            for i in pending {
                objects[i]["apiVersion"] = json!(desired);
            }
            return Ok(objects);
        }
        Converter::Broken(message) => {
            let from = gvk(&objects[pending[0]], kind);
            return Err(ApiError::internal(format!(
                "conversion webhook for {from} failed: {message}"
            )));
        }
        Converter::Webhook(webhook) => Call::Https(webhook),
        Converter::InProcess(handler) => Call::InProcess(handler),
    };
    let from = gvk(&objects[pending[0]], kind);
    let fail = |m: String| ApiError::internal(format!("conversion webhook for {from} {m}"));
    let uid = uuid::Uuid::new_v4().to_string();
    let review = ConversionReview {
        api_version: REVIEW_API_VERSION.into(),
        kind: "ConversionReview".into(),
        request: Some(ConversionRequest {
            uid: uid.clone(),
            desired_api_version: desired.to_string(),
            objects: pending.iter().map(|&i| objects[i].clone()).collect(),
        }),
        response: None,
    };
    let answer = match call {
        Call::Https(webhook) => webhook.call(&review).await,
        Call::InProcess(handler) => call_in_process(handler, &review),
    }
    .map_err(|e| fail(format!("failed: {e}")))?;
    let converted = converted_objects(answer, &uid).map_err(|e| fail(format!("failed: {e}")))?;
    if converted.len() != pending.len() {
        return Err(fail(format!(
            "returned {} objects, expected {}",
            converted.len(),
            pending.len()
        )));
    }
    for (index, (i, mut out)) in pending.into_iter().zip(converted).enumerate() {
        let invalid = |m: String| {
            fail(format!(
                "returned invalid converted object at index {index}: {m}"
            ))
        };
        let got = out.get("apiVersion").and_then(Value::as_str).unwrap_or("");
        if got != desired {
            return Err(invalid(format!(
                "invalid groupVersion (expected {desired}, received {got})"
            )));
        }
        let original = &objects[i];
        for (what, pointer) in [
            ("kind", "/kind"),
            ("name", "/metadata/name"),
            ("namespace", "/metadata/namespace"),
            ("UID", "/metadata/uid"),
        ] {
            let (e, a) = (text(original, pointer), text(&out, pointer));
            if e != a {
                return Err(invalid(format!("must have the same {what}: {e} != {a}")));
            }
        }
        restore_metadata(original, &mut out).map_err(|m| {
            fail(format!(
                "returned invalid metadata in object at index {index}: {m}"
            ))
        })?;
        objects[i] = out;
    }
    Ok(objects)
}

fn text<'a>(object: &'a Value, pointer: &str) -> &'a str {
    object
        .pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// The converted objects of a v1 `ConversionReview` answer, or why it is no good.
fn converted_objects(answer: ConversionReview, uid: &str) -> Result<Vec<Value>, String> {
    if (answer.api_version.as_str(), answer.kind.as_str())
        != (REVIEW_API_VERSION, "ConversionReview")
    {
        return Err(format!(
            "expected webhook response of {REVIEW_API_VERSION}, Kind=ConversionReview, got {}, Kind={}",
            answer.api_version, answer.kind
        ));
    }
    let response = answer.response.ok_or("no response provided")?;
    if response.uid != uid {
        return Err(format!(
            "expected response.uid={uid:?}, got {:?}",
            response.uid
        ));
    }
    let status = text(&response.result, "/status");
    if status != "Success" {
        let message = text(&response.result, "/message");
        return Err(if message.is_empty() {
            format!("response.result.status was '{status}', not 'Success'")
        } else {
            message.to_string()
        });
    }
    Ok(response.converted_objects)
}

/// The original's metadata with the converted object's labels and annotations.
fn restore_metadata(original: &Value, converted: &mut Value) -> Result<(), String> {
    let response_meta = match converted.get("metadata") {
        Some(Value::Object(m)) => m.clone(),
        Some(_) => return Err("invalid metadata in converted object".into()),
        None => return Err("missing metadata in converted object".into()),
    };
    let mut meta: Map<String, Value> = original
        .get("metadata")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    for field in ["labels", "annotations"] {
        match response_meta.get(field) {
            None | Some(Value::Null) => {
                meta.remove(field);
            }
            Some(Value::Object(values)) => {
                if let Some((k, _)) = values.iter().find(|(_, v)| !v.is_string()) {
                    return Err(format!(
                        "metadata.{field}[{k}] must be a string in the converted object"
                    ));
                }
                meta.insert(field.into(), Value::Object(values.clone()));
            }
            Some(_) => return Err(format!("invalid metadata.{field} in converted object")),
        }
    }
    converted["metadata"] = Value::Object(meta);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(version: &str) -> Value {
        json!({"apiVersion": format!("stable.example.com/{version}"), "kind": "CronTab",
               "metadata": {"name": "a", "uid": "u", "resourceVersion": "3", "labels": {"x": "1"}}})
    }

    #[tokio::test]
    async fn strategy_none_rewrites_the_api_version_only() {
        let out = convert(
            &Converter::None,
            "CronTab",
            vec![object("v1"), object("v2")],
            "stable.example.com/v2",
        )
        .await
        .unwrap();
        assert_eq!(out, vec![object("v2"), object("v2")]);
    }

    #[tokio::test]
    async fn a_broken_webhook_fails_every_conversion_with_its_reason() {
        let strategy = Converter::Broken("caBundle holds no certificate".into());
        let e = convert(
            &strategy,
            "CronTab",
            vec![object("v1")],
            "stable.example.com/v2",
        )
        .await
        .unwrap_err();
        assert_eq!(e.code, http::StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(
            e.message,
            "conversion webhook for stable.example.com/v1, Kind=CronTab failed: caBundle holds no certificate"
        );
        // Nothing to convert: no webhook needed.
        assert!(
            convert(
                &strategy,
                "CronTab",
                vec![object("v2")],
                "stable.example.com/v2"
            )
            .await
            .is_ok()
        );
    }

    #[test]
    fn answers_are_checked_like_kube_apiserver_checks_them() {
        let answer = |uid: &str, status: &str| -> ConversionReview {
            serde_json::from_value(json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
                   "response": {"uid": uid, "result": {"status": status, "message": "nope"}, "convertedObjects": []}}))
            .unwrap()
        };
        assert_eq!(converted_objects(answer("u", "Success"), "u"), Ok(vec![]));
        assert_eq!(
            converted_objects(answer("v", "Success"), "u"),
            Err("expected response.uid=\"u\", got \"v\"".into())
        );
        assert_eq!(
            converted_objects(answer("u", "Failure"), "u"),
            Err("nope".into())
        );
        let mut converted = object("v2");
        converted["metadata"] = json!({"name": "a", "uid": "u", "annotations": {"k": "v"}});
        restore_metadata(&object("v1"), &mut converted).unwrap();
        assert_eq!(
            converted["metadata"],
            json!({"name": "a", "uid": "u", "resourceVersion": "3", "annotations": {"k": "v"}})
        );
    }

    #[test]
    fn webhook_configs_are_checked() {
        let config = |url: &str, ca: &str| WebhookClientConfig {
            url: Some(url.into()),
            service: None,
            ca_bundle: Some(ca.into()),
        };
        let err = |c| Webhook::new(&c).err().unwrap();
        assert_eq!(
            err(config("http://127.0.0.1:1/convert", "")),
            "conversion webhook url \"http://127.0.0.1:1/convert\": the scheme must be https"
        );
        assert_eq!(
            err(config("https://127.0.0.1:1/convert", "%%"))
                .split(':')
                .next(),
            Some("caBundle is not base64")
        );
        assert_eq!(
            err(config("https://127.0.0.1:1/convert", "")),
            "caBundle holds no certificate"
        );
    }
}
