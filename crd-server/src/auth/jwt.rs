//! Service-account JWTs as kube-apiserver issues and reads them
//! (pkg/serviceaccount/claims.go, jwt.go): compact JWS with the issuer's key, the
//! registered claims (`iss`, `sub`, `aud`, `exp`, `iat`, `nbf`, `jti`) and the private
//! `kubernetes.io` claim naming the namespace, the service account and the object the
//! token is bound to.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::keys::Issuer;

/// A reference in the `kubernetes.io` claim.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ref {
    pub name: String,
    pub uid: String,
}

/// The `kubernetes.io` claim.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kubernetes {
    pub namespace: String,
    pub serviceaccount: Ref,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod: Option<Ref>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<Ref>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<Ref>,
}

/// The claims of a bound service-account token.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claims {
    pub aud: Vec<String>,
    pub exp: i64,
    pub iat: i64,
    pub iss: String,
    pub jti: String,
    pub nbf: i64,
    pub sub: String,
    #[serde(rename = "kubernetes.io")]
    pub kubernetes: Kubernetes,
}

/// Signs `claims` with the issuer's key: the compact JWS.
pub fn sign(issuer: &Issuer, claims: &Claims) -> Result<String, String> {
    let (kid, alg) = &issuer.signing;
    let header = serde_json::json!({"alg": alg.name(), "kid": kid});
    let input = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(serde_json::to_vec(claims).map_err(|e| e.to_string())?)
    );
    let sig = issuer.sign(input.as_bytes())?;
    Ok(format!("{input}.{}", URL_SAFE_NO_PAD.encode(sig)))
}

/// Why a token is not a valid token of this issuer.
#[derive(Debug, PartialEq, Eq)]
pub enum Invalid {
    /// Not a JWT at all, or not one of this issuer (another authenticator may take it).
    NotOurs,
    /// One of this issuer's tokens that fails (bad signature, expired, wrong audience).
    Rejected(String),
}

fn part(s: &str) -> Result<Value, Invalid> {
    let bytes = URL_SAFE_NO_PAD
        .decode(s.trim_end_matches('='))
        .map_err(|_| Invalid::NotOurs)?;
    serde_json::from_slice(&bytes).map_err(|_| Invalid::NotOurs)
}

/// Verifies a token at time `now` (Unix seconds): its issuer, signature, validity
/// window and audience. The service account's existence is checked by the caller.
pub fn verify(issuer: &Issuer, token: &str, now: i64) -> Result<Claims, Invalid> {
    let mut pieces = token.split('.');
    let (Some(h), Some(c), Some(s), None) =
        (pieces.next(), pieces.next(), pieces.next(), pieces.next())
    else {
        return Err(Invalid::NotOurs);
    };
    let header = part(h)?;
    let raw = part(c)?;
    // A token of another issuer is not ours to judge (kube-apiserver's union of JWT
    // authenticators skips it).
    if raw.get("iss").and_then(Value::as_str) != Some(issuer.issuer.as_str()) {
        return Err(Invalid::NotOurs);
    }
    let sig = URL_SAFE_NO_PAD
        .decode(s)
        .map_err(|_| Invalid::Rejected("invalid signature encoding".into()))?;
    let alg = header.get("alg").and_then(Value::as_str).unwrap_or("");
    let kid = header.get("kid").and_then(Value::as_str);
    let message = format!("{h}.{c}");
    let verified = issuer
        .keys
        .iter()
        .filter(|k| k.alg.name() == alg && kid.is_none_or(|kid| kid == k.kid))
        .any(|k| k.verifies(message.as_bytes(), &sig));
    if !verified {
        return Err(Invalid::Rejected("invalid signature".into()));
    }
    let claims: Claims = serde_json::from_value(raw)
        .map_err(|e| Invalid::Rejected(format!("invalid claims: {e}")))?;
    // go-jose's leeway: one minute either side.
    const LEEWAY: i64 = 60;
    if now > claims.exp + LEEWAY {
        return Err(Invalid::Rejected(
            "service account token has expired".into(),
        ));
    }
    if now + LEEWAY < claims.nbf || now + LEEWAY < claims.iat {
        return Err(Invalid::Rejected(
            "service account token is not valid yet".into(),
        ));
    }
    if !claims.aud.iter().any(|a| issuer.audiences.contains(a)) {
        return Err(Invalid::Rejected("token audiences is invalid".into()));
    }
    Ok(claims)
}
