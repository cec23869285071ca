//! The user an authenticating proxy names in request headers, read as k8s.io/apiserver's
//! request-header authenticator reads it: header names case-insensitive, the first
//! non-empty username and uid, every non-empty group value, extras from prefixed
//! headers with the rest of the name lower-cased and percent-decoded.

use std::collections::BTreeMap;

use axum::http::HeaderMap;

use super::{AuthenticatedUser, RequestHeaderAuth};

/// The user `headers` name; `None` without a username (the proxy vouched for no one).
pub(super) fn user_of(auth: &RequestHeaderAuth, headers: &HeaderMap) -> Option<AuthenticatedUser> {
    let name = first_value(headers, &auth.username_headers)?;
    Some(AuthenticatedUser {
        name,
        uid: first_value(headers, &auth.uid_headers).unwrap_or_default(),
        groups: all_values(headers, &auth.group_headers),
        extra: extras(headers, &auth.extra_header_prefixes),
    })
}

/// Removes every identity header (and `Authorization`), so that what the handler sees
/// cannot contradict the authenticated user.
pub(super) fn strip(auth: &RequestHeaderAuth, headers: &mut HeaderMap) {
    let named: Vec<String> = auth
        .username_headers
        .iter()
        .chain(&auth.uid_headers)
        .chain(&auth.group_headers)
        .map(|h| h.to_ascii_lowercase())
        .collect();
    let prefixes: Vec<String> = auth
        .extra_header_prefixes
        .iter()
        .map(|p| p.to_ascii_lowercase())
        .collect();
    let doomed: Vec<_> = headers
        .keys()
        .filter(|k| {
            let k = k.as_str();
            k == "authorization"
                || named.iter().any(|n| n == k)
                || prefixes
                    .iter()
                    .any(|p| !p.is_empty() && k.starts_with(p.as_str()))
        })
        .cloned()
        .collect();
    for name in doomed {
        headers.remove(name);
    }
}

fn text(value: &axum::http::HeaderValue) -> String {
    String::from_utf8_lossy(value.as_bytes()).into_owned()
}

/// The first value of the first of `names` that has a non-empty one.
fn first_value(headers: &HeaderMap, names: &[String]) -> Option<String> {
    names
        .iter()
        .filter_map(|n| headers.get(n.trim()))
        .map(text)
        .find(|v| !v.is_empty())
}

/// Every non-empty value of every header of `names`, in order.
fn all_values(headers: &HeaderMap, names: &[String]) -> Vec<String> {
    names
        .iter()
        .flat_map(|n| headers.get_all(n.trim()))
        .map(text)
        .filter(|v| !v.is_empty())
        .collect()
}

/// The extras of headers named `<prefix><key>`: prefixes in order, each value kept.
fn extras(headers: &HeaderMap, prefixes: &[String]) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for prefix in prefixes.iter().map(|p| p.trim().to_ascii_lowercase()) {
        if prefix.is_empty() {
            continue;
        }
        // HeaderMap keys are lower-case already.
        for (name, value) in headers {
            if let Some(rest) = name.as_str().strip_prefix(prefix.as_str()) {
                out.entry(decode_extra_key(rest))
                    .or_default()
                    .push(text(value));
            }
        }
    }
    out
}

/// Percent-decodes an (already lower-cased) extra key; a malformed escape keeps the key
/// as sent, as upstream does, so that no extra is lost.
pub(super) fn decode_extra_key(key: &str) -> String {
    let bytes = key.as_bytes();
    let well_formed = bytes.iter().enumerate().all(|(i, b)| {
        *b != b'%'
            || (bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
    });
    if !well_formed {
        return key.to_string();
    }
    match percent_encoding::percent_decode_str(key).decode_utf8() {
        Ok(decoded) => decoded.into_owned(),
        Err(_) => key.to_string(),
    }
}
