//! One call of an admission webhook: the `AdmissionReview` sent (v1, or v1beta1 for a
//! webhook that accepts only it), the answer checked as kube-apiserver's
//! `VerifyAdmissionResponse` checks it, and the errors worded as kube-apiserver words
//! them. A failure to get an answer ([`HookError::Calling`]) is subject to the
//! webhook's `failurePolicy`; anything else ([`HookError::Reject`]) is not.

use base64::Engine as _;
use crd_runtime::admission::Attributes;
use crd_runtime::admission::matching::Invocation;
use crd_runtime::admission::review::AdmissionRequest;
use http::StatusCode;
use serde_json::{Value, json};

use super::configurations::Hook;
use crate::api::status::ApiError;
use crate::webhook_client::CallError;

/// Why a webhook gave no usable verdict.
#[derive(Debug)]
pub enum HookError {
    /// kube-apiserver's `ErrCallingWebhook`: the text after `failed calling webhook
    /// "NAME": `. `failurePolicy: Ignore` lets the request through.
    Calling(String),
    /// A denial or an error no policy ignores.
    Reject(ApiError),
}

/// A webhook's usable answer.
#[derive(Debug, Default)]
pub struct Answer {
    pub allowed: bool,
    /// `response.status` (a `metav1.Status`).
    pub status: Option<Value>,
    /// The decoded JSON patch bytes (mutating webhooks).
    pub patch: Option<Vec<u8>>,
    /// The patch type, normalized to v1's (`JSONPatch`).
    pub patch_type: Option<String>,
    pub warnings: Vec<String>,
}

/// `failed calling webhook "NAME": REASON` as the 500 kube-apiserver answers.
pub fn calling_error(name: &str, reason: &str) -> ApiError {
    let message = format!("failed calling webhook \"{name}\": {reason}");
    internal(message)
}

/// `apierrors.NewInternalError`: `Internal error occurred: …` with the cause.
pub fn internal(message: String) -> ApiError {
    ApiError {
        code: StatusCode::INTERNAL_SERVER_ERROR,
        reason: "InternalError",
        message: format!("Internal error occurred: {message}"),
        details: Some(json!({"causes": [{"message": message}]})),
        warnings: Vec::new(),
    }
}

/// `webhookerrors.ToStatusErr`: a denial as the client sees it.
pub fn denial(name: &str, status: Option<&Value>) -> ApiError {
    let field = |f: &str| {
        status
            .and_then(|s| s.get(f))
            .and_then(Value::as_str)
            .unwrap_or("")
    };
    let denied = format!("admission webhook \"{name}\" denied the request");
    let message = match (field("message"), field("reason")) {
        ("", "") => format!("{denied} without explanation"),
        ("", reason) => format!("{denied}: {reason}"),
        (message, _) => format!("{denied}: {message}"),
    };
    let code = status
        .and_then(|s| s.get("code"))
        .and_then(Value::as_u64)
        .and_then(|c| u16::try_from(c).ok())
        .filter(|c| *c >= 400)
        .and_then(|c| StatusCode::from_u16(c).ok())
        .unwrap_or(StatusCode::BAD_REQUEST);
    ApiError {
        code,
        reason: known_reason(field("reason")),
        message,
        details: status.and_then(|s| s.get("details")).cloned(),
        warnings: Vec::new(),
    }
}

/// The `metav1.StatusReason`s a `Status` can carry through (others are dropped: the
/// error type holds static reasons only).
fn known_reason(reason: &str) -> &'static str {
    const REASONS: &[&str] = &[
        "Unauthorized",
        "Forbidden",
        "NotFound",
        "AlreadyExists",
        "Conflict",
        "Gone",
        "Invalid",
        "ServerTimeout",
        "Timeout",
        "TooManyRequests",
        "BadRequest",
        "MethodNotAllowed",
        "NotAcceptable",
        "RequestEntityTooLarge",
        "UnsupportedMediaType",
        "InternalError",
        "Expired",
        "ServiceUnavailable",
    ];
    REASONS
        .iter()
        .find(|r| **r == reason)
        .copied()
        .unwrap_or("")
}

/// Calls `hook` for `attrs` (whose objects are already in the invocation's version).
pub async fn call(
    hook: &Hook,
    attrs: &Attributes,
    invocation: &Invocation,
    mutating: bool,
) -> Result<Answer, HookError> {
    if attrs.dry_run && !hook.dry_run_safe {
        return Err(HookError::Reject(ApiError::bad_request(format!(
            "admission webhook \"{}\" does not support dry run",
            hook.name
        ))));
    }
    let Some(version) = hook.review_version else {
        return Err(HookError::Calling(
            "could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)".into(),
        ));
    };
    let client = hook
        .client
        .as_ref()
        .map_err(|e| HookError::Calling(format!("could not get REST client: {e}")))?;
    let uid = uuid::Uuid::new_v4().to_string();
    let sent = invocation
        .converts(attrs)
        .then_some((&invocation.kind, &invocation.resource));
    let mut request = AdmissionRequest::new(uid.clone(), attrs, sent);
    request.kind = invocation.kind.clone();
    request.resource = invocation.resource.clone();
    let review = json!({
        "kind": "AdmissionReview",
        "apiVersion": format!("admission.k8s.io/{version}"),
        "request": request,
    });
    let body = serde_json::to_vec(&review).unwrap_or_default();
    let query = format!("timeout={}s", hook.timeout.as_secs());
    let failed = |e: String| HookError::Calling(format!("failed to call webhook: {e}"));
    let post = || format!("Post \"{}\"", client.url(Some(&query)));
    let bytes = match client.post(Some(&query), body, hook.timeout).await {
        Ok(b) => b,
        Err(CallError::Transport(e)) => return Err(failed(format!("{}: {e}", post()))),
        Err(CallError::TimedOut) => {
            return Err(failed(format!("{}: context deadline exceeded", post())));
        }
        Err(CallError::Status(code, body)) => return Err(failed(status_error(code, &body))),
    };
    let answer: Value =
        serde_json::from_slice(&bytes).map_err(|e| failed(json_error(&bytes, &e)))?;
    if answer
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or("")
        .is_empty()
    {
        let text = String::from_utf8_lossy(&bytes);
        return Err(failed(format!(
            "Object 'Kind' is missing in '{}'",
            text.trim()
        )));
    }
    verify(&answer, &uid, version, mutating)
        .map_err(|e| HookError::Calling(format!("received invalid webhook response: {e}")))
}

/// `VerifyAdmissionResponse`: the answer of a review sent as `admission.k8s.io/VERSION`.
fn verify(answer: &Value, uid: &str, version: &str, mutating: bool) -> Result<Answer, String> {
    let Some(response) = answer.get("response").filter(|r| r.is_object()) else {
        return Err("webhook response was absent".into());
    };
    let text = |v: &Value, f: &str| v.get(f).and_then(Value::as_str).unwrap_or("").to_string();
    let warnings = response
        .get("warnings")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|w| w.as_str().map(str::to_string))
        .collect();
    let patch = match response.get("patch").and_then(Value::as_str) {
        Some(p) if !p.is_empty() => Some(
            base64::engine::general_purpose::STANDARD
                .decode(p)
                .map_err(|e| format!("illegal base64 data in response.patch: {e}"))?,
        ),
        _ => None,
    };
    let patch_type = response
        .get("patchType")
        .filter(|t| !t.is_null())
        .map(|t| t.as_str().unwrap_or("").to_string());
    let mut out = Answer {
        allowed: response.get("allowed").and_then(Value::as_bool) == Some(true),
        status: response.get("status").filter(|s| s.is_object()).cloned(),
        patch: None,
        patch_type: None,
        warnings,
    };
    if version == "v1beta1" {
        // v1beta1 answers are neither matched by uid nor by version; a patch is JSONPatch.
        if mutating && patch.is_some() {
            out.patch_type = Some("JSONPatch".into());
            out.patch = patch;
        }
        return Ok(out);
    }
    let got = text(response, "uid");
    if got != uid {
        return Err(format!("expected response.uid={uid:?}, got {got:?}"));
    }
    let (api_version, kind) = (text(answer, "apiVersion"), text(answer, "kind"));
    if (api_version.as_str(), kind.as_str()) != ("admission.k8s.io/v1", "AdmissionReview") {
        return Err(format!(
            "expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got {api_version}, Kind={kind}"
        ));
    }
    if mutating {
        match (&patch, &patch_type) {
            (Some(_), None) => {
                return Err("webhook returned response.patch but not response.patchType".into());
            }
            (None, Some(_)) => {
                return Err("webhook returned response.patchType but not response.patch".into());
            }
            (_, Some(t)) if t.is_empty() => {
                return Err(format!(
                    "webhook returned invalid response.patchType of {t:?}"
                ));
            }
            _ => {}
        }
        out.patch = patch;
        out.patch_type = patch_type;
    } else if patch.is_some() {
        return Err("validating webhook may not return response.patch".into());
    } else if patch_type.is_some() {
        return Err("validating webhook may not return response.patchType".into());
    }
    Ok(out)
}

/// A non-2xx answer as client-go's REST client reports it.
fn status_error(code: u16, body: &[u8]) -> String {
    if let Ok(status) = serde_json::from_slice::<Value>(body)
        && status.get("kind").and_then(Value::as_str) == Some("Status")
        && let Some(m) = status.get("message").and_then(Value::as_str)
    {
        return m.to_string();
    }
    let text = String::from_utf8_lossy(body).trim().to_string();
    match code {
        400 => "the server rejected our request for an unknown reason".into(),
        401 => "the server has asked for the client to provide credentials".into(),
        404 => "the server could not find the requested resource".into(),
        405 => "the server does not allow this method on the requested resource".into(),
        409 => "the server reported a conflict".into(),
        422 => "the server rejected our request due to an error in our request".into(),
        429 => "the server has received too many requests and has asked us to try again later"
            .into(),
        503 => "the server is currently unable to handle the request".into(),
        504 => "the server was unable to return a response in the time allotted, but may still be processing the request".into(),
        c if c >= 500 => {
            format!("an error on the server ({text:?}) has prevented the request from succeeding")
        }
        c => format!("unknown (status {c}): {text}"),
    }
}

/// A body that is not JSON, as the Go decoder words it.
fn json_error(body: &[u8], e: &serde_json::Error) -> String {
    let first = body.iter().find(|b| !b.is_ascii_whitespace());
    let detail = match first {
        None => "unexpected end of JSON input".to_string(),
        Some(b)
            if !matches!(
                b,
                b'{' | b'[' | b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n'
            ) =>
        {
            format!(
                "invalid character '{}' looking for beginning of value",
                *b as char
            )
        }
        Some(_) => e.to_string(),
    };
    format!("couldn't get version/kind; json parse error: {detail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn denials_are_worded_as_kube_apiserver_words_them() {
        let e = denial(
            "deny.example.com",
            Some(&json!({"message": "no", "code": 403})),
        );
        assert_eq!(
            e.message,
            "admission webhook \"deny.example.com\" denied the request: no"
        );
        assert_eq!(e.code, StatusCode::FORBIDDEN);
        let e = denial("d", None);
        assert_eq!(
            e.message,
            "admission webhook \"d\" denied the request without explanation"
        );
        assert_eq!(e.code, StatusCode::BAD_REQUEST);
        let e = denial("d", Some(&json!({"reason": "Forbidden", "code": 200})));
        assert_eq!(
            e.message,
            "admission webhook \"d\" denied the request: Forbidden"
        );
        assert_eq!((e.code, e.reason), (StatusCode::BAD_REQUEST, "Forbidden"));
    }

    #[test]
    fn answers_are_verified() {
        let v1 = |response: Value| json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": response});
        assert_eq!(
            verify(&v1(json!({"uid": "b", "allowed": true})), "a", "v1", false).unwrap_err(),
            "expected response.uid=\"a\", got \"b\""
        );
        assert_eq!(
            verify(&json!({"kind": "AdmissionReview"}), "a", "v1", false).unwrap_err(),
            "webhook response was absent"
        );
        let beta = json!({"apiVersion": "admission.k8s.io/v1beta1", "kind": "AdmissionReview",
                          "response": {"uid": "a", "allowed": true}});
        assert_eq!(
            verify(&beta, "a", "v1", false).unwrap_err(),
            "expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got admission.k8s.io/v1beta1, Kind=AdmissionReview"
        );
        assert!(verify(&beta, "other", "v1beta1", false).unwrap().allowed);
        let patch = base64::engine::general_purpose::STANDARD.encode("[]");
        assert_eq!(
            verify(
                &v1(json!({"uid": "a", "allowed": true, "patch": patch})),
                "a",
                "v1",
                true
            )
            .unwrap_err(),
            "webhook returned response.patch but not response.patchType"
        );
        assert_eq!(
            verify(
                &v1(json!({"uid": "a", "allowed": true, "patch": patch, "patchType": "JSONPatch"})),
                "a",
                "v1",
                false
            )
            .unwrap_err(),
            "validating webhook may not return response.patch"
        );
        let ok = verify(
            &v1(json!({"uid": "a", "allowed": true, "patch": patch, "patchType": "JSONPatch", "warnings": ["w"]})),
            "a",
            "v1",
            true,
        )
        .unwrap();
        assert_eq!(ok.patch.as_deref(), Some(&b"[]"[..]));
        assert_eq!(ok.warnings, ["w"]);
    }

    #[test]
    fn bad_bodies_are_worded_as_go_words_them() {
        let e = serde_json::from_slice::<Value>(b"garbage").unwrap_err();
        assert_eq!(
            json_error(b"garbage", &e),
            "couldn't get version/kind; json parse error: invalid character 'g' looking for beginning of value"
        );
        assert_eq!(
            status_error(500, b"boom"),
            "an error on the server (\"boom\") has prevented the request from succeeding"
        );
    }
}
