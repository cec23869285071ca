//! The authenticating proxy (`--requestheader-*`), as apiserver's
//! `authenticator/request/headerrequest`: a request over a connection whose client
//! certificate `--requestheader-client-ca-file` signed is the user its headers name —
//! the first non-empty username header, the first uid header, every value of the group
//! headers, and `PREFIX-KEY` headers as extra `key` (lower-cased, percent-decoded). A
//! proxy certificate whose CommonName is not in `--requestheader-allowed-names` (when
//! that is set) is refused; a request without a username header goes on to the other
//! authenticators.

use crd_runtime::rbac::UserInfo;
use http::HeaderMap;

use super::RequestHeaderConfig;

/// What the proxy's headers say.
pub enum Proxied {
    /// The user they name.
    User(UserInfo),
    /// No username header: not this authenticator's request.
    NoUser,
    /// The proxy's certificate is not allowed.
    Refused,
}

fn first(headers: &HeaderMap, names: &[String]) -> Option<String> {
    names.iter().find_map(|name| {
        headers
            .get_all(name.as_str())
            .iter()
            .filter_map(|v| v.to_str().ok())
            .find(|v| !v.is_empty())
            .map(str::to_string)
    })
}

/// `%XX` escapes decoded (an invalid one is kept as it is).
fn unescape(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(h), Some(l)) = (
                bytes.get(i + 1).copied().and_then(hex),
                bytes.get(i + 2).copied().and_then(hex),
            )
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The user a proxy with CommonName `cn` names in `headers`.
pub fn user_of(config: &RequestHeaderConfig, cn: &str, headers: &HeaderMap) -> Proxied {
    if !config.allowed_names.is_empty() && !config.allowed_names.iter().any(|n| n == cn) {
        return Proxied::Refused;
    }
    let Some(name) = first(headers, &config.username_headers) else {
        return Proxied::NoUser;
    };
    // Groups as the headers give them; `system:authenticated` is added after them.
    let mut user = UserInfo {
        name,
        ..UserInfo::default()
    };
    user.uid = first(headers, &config.uid_headers).unwrap_or_default();
    for header in &config.group_headers {
        for value in headers.get_all(header.as_str()) {
            if let Ok(v) = value.to_str() {
                user.groups.push(v.to_string());
            }
        }
    }
    for prefix in &config.extra_headers_prefix {
        let prefix = prefix.to_ascii_lowercase();
        for (header, value) in headers {
            let Some(key) = header.as_str().strip_prefix(prefix.as_str()) else {
                continue;
            };
            if let Ok(v) = value.to_str() {
                user.extra
                    .entry(unescape(key).to_ascii_lowercase())
                    .or_default()
                    .push(v.to_string());
            }
        }
    }
    Proxied::User(user)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(allowed: &[&str]) -> RequestHeaderConfig {
        RequestHeaderConfig {
            allowed_names: allowed.iter().map(|s| s.to_string()).collect(),
            username_headers: vec!["X-Remote-User".into()],
            uid_headers: vec!["X-Remote-Uid".into()],
            group_headers: vec!["X-Remote-Group".into()],
            extra_headers_prefix: vec!["X-Remote-Extra-".into()],
            ..RequestHeaderConfig::default()
        }
    }

    #[test]
    fn headers_name_the_user_its_groups_and_extra() {
        let mut h = HeaderMap::new();
        h.insert("x-remote-user", "jane".parse().unwrap());
        h.insert("x-remote-uid", "42".parse().unwrap());
        h.append("x-remote-group", "dev".parse().unwrap());
        h.append("x-remote-group", "ops".parse().unwrap());
        h.append("x-remote-extra-acme.com%2Fproject", "a".parse().unwrap());
        h.append("x-remote-extra-Scopes", "read".parse().unwrap());
        let Proxied::User(user) = user_of(&config(&["front-proxy"]), "front-proxy", &h) else {
            panic!("a user");
        };
        assert_eq!((user.name.as_str(), user.uid.as_str()), ("jane", "42"));
        assert_eq!(user.groups, ["dev", "ops"]);
        assert_eq!(user.extra["acme.com/project"], ["a"]);
        assert_eq!(user.extra["scopes"], ["read"]);
        assert!(matches!(
            user_of(&config(&["other"]), "front-proxy", &h),
            Proxied::Refused
        ));
        assert!(matches!(
            user_of(&config(&[]), "anyone", &HeaderMap::new()),
            Proxied::NoUser
        ));
    }
}
