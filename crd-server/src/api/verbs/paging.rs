//! Continue tokens in kube-apiserver's format (`storage/continue.go`): base64url (no
//! padding) of `{"v":"meta.k8s.io/v1","rv":N,"start":"<next key>"}`, the next key relative
//! to the list's key prefix with a NUL after the last key returned. `rv` is the revision
//! the list is read at; `-1` (the token a 410 Expired hands out) reads the rest of the
//! list at the latest revision instead.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::api::status::ApiError;
use crate::store::Revision;

const VERSION: &str = "meta.k8s.io/v1";

#[derive(serde::Serialize, serde::Deserialize)]
struct Token {
    #[serde(rename = "v")]
    version: String,
    #[serde(rename = "rv")]
    revision: i64,
    start: String,
}

/// Where a token continues a list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Continue {
    /// Keys after this one (full key).
    pub start_after: String,
    /// The revision to read at (`None`: the latest, for a token of revision -1).
    pub revision: Option<Revision>,
}

fn invalid(why: impl std::fmt::Display) -> ApiError {
    ApiError::bad_request(format!(
        "invalid continue token: continue key is not valid{why}"
    ))
}

/// The token that continues a list of `prefix` after `last_key`, at `revision`
/// (`None`: at the latest revision).
pub fn encode(prefix: &str, last_key: &str, revision: Option<Revision>) -> String {
    let token = Token {
        version: VERSION.into(),
        revision: revision.map_or(-1, |r| r.min(i64::MAX as u64) as i64),
        start: format!("{}\0", last_key.strip_prefix(prefix).unwrap_or(last_key)),
    };
    URL_SAFE_NO_PAD.encode(serde_json::to_vec(&token).unwrap_or_default())
}

/// Reads a token for a list of `prefix`, refusing what kube-apiserver refuses (400).
pub fn decode(text: &str, prefix: &str) -> Result<Continue, ApiError> {
    let raw = URL_SAFE_NO_PAD
        .decode(text.trim_end_matches('='))
        .map_err(|e| invalid(format_args!(": {e}")))?;
    let token: Token = serde_json::from_slice(&raw).map_err(|e| invalid(format_args!(": {e}")))?;
    if token.version != VERSION {
        return Err(ApiError::bad_request(format!(
            "invalid continue token: continue key is not valid: server does not recognize this encoded version {}",
            token.version
        )));
    }
    if token.revision == 0 {
        return Err(invalid(
            ": incorrect encoded start resourceVersion (version meta.k8s.io/v1)",
        ));
    }
    if token.start.is_empty() {
        return Err(invalid(
            ": encoded start key empty (version meta.k8s.io/v1)",
        ));
    }
    // The start key stays inside the list's prefix: no `..` or `.` segment, no doubled
    // slash (what Go's path.Clean would change).
    let start = token.start.strip_prefix('/').unwrap_or(&token.start);
    let clean = !start
        .trim_end_matches('\0')
        .split('/')
        .enumerate()
        .any(|(i, seg)| seg == ".." || seg == "." || (seg.is_empty() && i > 0))
        && !start.ends_with('/');
    if !clean || start.is_empty() {
        return Err(invalid(format_args!(": {}", token.start)));
    }
    // Keys never hold a NUL: "from K\0" is "after K". (A start without the NUL, which
    // no server writes, is read the same way: from the key after it.)
    let start_after = match start.strip_suffix('\0') {
        Some(last) => format!("{prefix}{last}"),
        None => format!("{prefix}{start}"),
    };
    Ok(Continue {
        start_after,
        revision: u64::try_from(token.revision).ok(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PREFIX: &str = "/registry/stable.example.com/crontabs/default/";

    #[test]
    fn tokens_are_kube_apiservers() {
        let token = encode(PREFIX, &format!("{PREFIX}b"), Some(42));
        let raw = URL_SAFE_NO_PAD.decode(&token).unwrap();
        assert_eq!(
            String::from_utf8(raw).unwrap(),
            r#"{"v":"meta.k8s.io/v1","rv":42,"start":"b\u0000"}"#
        );
        assert_eq!(
            decode(&token, PREFIX).unwrap(),
            Continue {
                start_after: format!("{PREFIX}b"),
                revision: Some(42)
            }
        );
        let latest = encode(PREFIX, &format!("{PREFIX}b"), None);
        assert_eq!(decode(&latest, PREFIX).unwrap().revision, None);
    }

    #[test]
    fn bad_tokens_are_refused_as_kube_apiserver_refuses_them() {
        let t = |json: &str| URL_SAFE_NO_PAD.encode(json);
        let message = |text: &str| decode(text, PREFIX).unwrap_err().message;
        assert!(message("%%%").starts_with("invalid continue token: continue key is not valid: "));
        assert_eq!(
            message(&t(r#"{"v":"meta.k8s.io/v1","rv":0,"start":"a"}"#)),
            "invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)"
        );
        assert_eq!(
            message(&t(r#"{"v":"meta.k8s.io/v1","rv":3,"start":""}"#)),
            "invalid continue token: continue key is not valid: encoded start key empty (version meta.k8s.io/v1)"
        );
        assert_eq!(
            message(&t(r#"{"v":"v2","rv":3,"start":"a"}"#)),
            "invalid continue token: continue key is not valid: server does not recognize this encoded version v2"
        );
        assert_eq!(
            message(&t(
                r#"{"v":"meta.k8s.io/v1","rv":3,"start":"../kube-system/a"}"#
            )),
            "invalid continue token: continue key is not valid: ../kube-system/a"
        );
        let e = decode("%%%", PREFIX).unwrap_err();
        assert_eq!(e.code, http::StatusCode::BAD_REQUEST);
    }
}
