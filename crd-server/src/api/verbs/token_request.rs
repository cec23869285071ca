//! `serviceaccounts/{name}/token`: a TokenRequest (`kubectl create token`) answered with
//! a bound service-account token, as kube-apiserver's token REST storage answers it:
//! the audiences default to the API's, the lifetime to an hour (at least ten minutes),
//! the token may be bound to a Pod or Secret of the namespace, and the answer is the
//! request with `status.token` and `status.expirationTimestamp`. Never stored.

use axum::body::Body;
use chrono::{TimeZone, Utc};
use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use http::StatusCode;
use serde_json::{Value, json};

use super::{Reply, Scope};
use crate::api::request::BodyType;
use crate::api::request::media::{parse_body, read_body};
use crate::api::status::{ApiError, Qualified};
use crate::auth::jwt::{self, Claims, Kubernetes, Ref};

/// The default and the shortest lifetime of a requested token.
const DEFAULT_SECONDS: i64 = 3600;
const MIN_SECONDS: i64 = 600;

fn token_request_kind() -> Qualified {
    Qualified {
        group: "authentication.k8s.io".into(),
        plural: "tokenrequests".into(),
        kind: "TokenRequest".into(),
    }
}

fn core(plural: &str, kind: &str) -> Qualified {
    Qualified {
        group: String::new(),
        plural: plural.into(),
        kind: kind.into(),
    }
}

async fn read_request(scope: &Scope<'_>, body: Body) -> Result<Value, ApiError> {
    let ty = scope.req.body_type()?;
    let bytes = read_body(&scope.req.headers, body).await?;
    if ty == BodyType::Protobuf {
        let message =
            crate::api::protobuf::message_for("io.k8s.api.authentication.v1.TokenRequest")
                .ok_or_else(|| ApiError::internal("no TokenRequest message"))?;
        return crate::api::protobuf::decode_object(&bytes, "TokenRequest", message);
    }
    parse_body(&bytes, ty, "create")
}

/// Checks a TokenRequest's spec (`ValidateTokenRequest`).
fn validate(req: &Value, errs: &mut ErrorList) {
    let path = Path::new("spec").child("expirationSeconds");
    if let Some(seconds) = req
        .pointer("/spec/expirationSeconds")
        .and_then(Value::as_i64)
    {
        if seconds < MIN_SECONDS {
            errs.push(FieldError::invalid(
                path,
                BadValue::Int(seconds),
                "may not specify a duration less than 10 minutes",
            ));
        } else if seconds > 1 << 32 {
            errs.push(FieldError::invalid(
                path,
                BadValue::Int(seconds),
                "may not specify a duration larger than 2^32 seconds",
            ));
        }
    }
}

/// Answers a TokenRequest for the service account the path names.
pub async fn create(scope: &Scope<'_>, body: Body) -> Result<Reply, ApiError> {
    let mut req = read_request(scope, body).await?;
    let ns = scope.req.info.namespace.clone().unwrap_or_default();
    let name = scope.req.info.name.clone().unwrap_or_default();
    let body_name = req
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("");
    if !body_name.is_empty() && body_name != name {
        return Err(ApiError::bad_request(
            "name in URL does not match name in TokenRequest object",
        ));
    }
    let mut errs = ErrorList::new();
    validate(&req, &mut errs);
    if !errs.is_empty() {
        return Err(ApiError::invalid(&token_request_kind(), &name, &errs));
    }
    let store = &scope.shared.store;
    let get = |plural: &'static str, kind: &'static str, obj_name: String| {
        let key = format!("/registry/{plural}/{ns}/{obj_name}");
        async move {
            let q = core(plural, kind);
            let kv = store
                .get(&key)
                .await
                .map_err(|e| ApiError::from_store(&q, &obj_name, e))?
                .ok_or_else(|| ApiError::not_found(&q, &obj_name))?;
            crate::api::stored::decode(&kv)
        }
    };
    let sa = get("serviceaccounts", "ServiceAccount", name.clone()).await?;
    let uid_of = |v: &Value| {
        v.pointer("/metadata/uid")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let mut kubernetes = Kubernetes {
        namespace: ns.clone(),
        serviceaccount: Ref {
            name: name.clone(),
            uid: uid_of(&sa),
        },
        ..Kubernetes::default()
    };
    if let Some(bound) = req
        .pointer("/spec/boundObjectRef")
        .filter(|v| v.is_object())
        .cloned()
    {
        let kind = bound["kind"].as_str().unwrap_or("");
        let bound_name = bound["name"].as_str().unwrap_or("").to_string();
        let (plural, slot) = match kind {
            "Pod" => ("pods", &mut kubernetes.pod),
            "Secret" => ("secrets", &mut kubernetes.secret),
            other => {
                let mut errs = ErrorList::new();
                errs.push(FieldError::not_supported(
                    Path::new("spec").child("boundObjectRef").child("kind"),
                    BadValue::Str(other.to_string()),
                    &["Pod", "Secret"],
                ));
                return Err(ApiError::invalid(&token_request_kind(), &name, &errs));
            }
        };
        let obj = get(
            plural,
            if kind == "Pod" { "Pod" } else { "Secret" },
            bound_name.clone(),
        )
        .await?;
        let uid = uid_of(&obj);
        if let Some(want) = bound["uid"].as_str().filter(|u| !u.is_empty())
            && want != uid
        {
            return Err(ApiError::conflict_because(
                &core(plural, kind),
                &bound_name,
                &format!(
                    "the UID in the bound object reference ({want}) does not match the UID in record. The object might have been deleted and then recreated"
                ),
            ));
        }
        *slot = Some(Ref {
            name: bound_name,
            uid,
        });
    }
    let issuer = &scope.shared.auth.issuer;
    let audiences: Vec<String> = match req.pointer("/spec/audiences").and_then(Value::as_array) {
        Some(a) if !a.is_empty() => a
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        _ => issuer.audiences.clone(),
    };
    let seconds = req
        .pointer("/spec/expirationSeconds")
        .and_then(Value::as_i64)
        .unwrap_or(DEFAULT_SECONDS);
    let now = Utc::now().timestamp();
    let claims = Claims {
        aud: audiences.clone(),
        exp: now + seconds,
        iat: now,
        iss: issuer.issuer.clone(),
        jti: uuid::Uuid::new_v4().to_string(),
        nbf: now,
        sub: crd_runtime::rbac::service_account_username(&ns, &name),
        kubernetes,
    };
    let token = jwt::sign(issuer, &claims).map_err(ApiError::internal)?;
    let expiration = Utc
        .timestamp_opt(claims.exp, 0)
        .single()
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        .unwrap_or_default();
    if !req.get("metadata").is_some_and(Value::is_object) {
        req["metadata"] = json!({});
    }
    req["apiVersion"] = json!("authentication.k8s.io/v1");
    req["kind"] = json!("TokenRequest");
    req["metadata"]["name"] = json!(name);
    req["metadata"]["namespace"] = json!(ns);
    req["metadata"]["creationTimestamp"] = Value::Null;
    req["spec"]["audiences"] = json!(audiences);
    req["spec"]["expirationSeconds"] = json!(seconds);
    if req["spec"].get("boundObjectRef").is_none() {
        req["spec"]["boundObjectRef"] = Value::Null;
    }
    req["status"] = json!({"token": token, "expirationTimestamp": expiration});
    Ok(Reply {
        code: StatusCode::CREATED,
        body: req,
        json: None,
        warnings: Vec::new(),
    })
}
