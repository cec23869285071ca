//! Impersonation (`kubectl --as`, `--as-group`, `--as-uid`, `Impersonate-Extra-*`), as
//! kube-apiserver's impersonation filter checks it: each requested user, service
//! account, group, uid and extra value is authorized with the `impersonate` verb for
//! the requesting user, then the request runs as the impersonated user.

use crd_runtime::rbac::{AUTHENTICATED, Attributes, UserInfo};
use http::HeaderMap;

use super::{ANONYMOUS, UNAUTHENTICATED};

// Header names made once: a lookup by `&str` parses the name on every request.
const USER: http::HeaderName = http::HeaderName::from_static("impersonate-user");
const GROUP: http::HeaderName = http::HeaderName::from_static("impersonate-group");
const UID: http::HeaderName = http::HeaderName::from_static("impersonate-uid");
const EXTRA_PREFIX: &str = "impersonate-extra-";

/// What a request asks to act as.
pub struct Requested {
    /// One `impersonate` check per thing impersonated.
    pub checks: Vec<Attributes>,
    /// The user the request becomes once every check passes.
    pub user: UserInfo,
}

fn check(requestor: &UserInfo, group: &str, resource: &str, ns: &str, name: &str) -> Attributes {
    Attributes {
        user: requestor.clone(),
        verb: "impersonate".into(),
        namespace: ns.into(),
        api_group: group.into(),
        resource: resource.into(),
        name: name.into(),
        resource_request: true,
        ..Attributes::default()
    }
}

/// `%XX` escapes decoded (an extra key travels escaped in its header name).
fn unescape(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = s.get(i + 1..i + 3)
            && let Ok(b) = u8::from_str_radix(hex, 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The impersonation a request's headers ask for: `Ok(None)` without any, `Err` for
/// groups, extras or a uid without a user (kube-apiserver's 500).
pub fn requested(headers: &HeaderMap, requestor: &UserInfo) -> Result<Option<Requested>, String> {
    let text = |v: &http::HeaderValue| v.to_str().unwrap_or("").to_string();
    let username = headers.get(&USER).map(text).filter(|u| !u.is_empty());
    let groups: Vec<String> = headers.get_all(&GROUP).iter().map(text).collect();
    let uid = headers.get(&UID).map(text).filter(|u| !u.is_empty());
    let mut extras: Vec<(String, String)> = Vec::new();
    for (name, value) in headers {
        if let Some(key) = name.as_str().strip_prefix(EXTRA_PREFIX) {
            extras.push((unescape(key).to_lowercase(), text(value)));
        }
    }
    let Some(username) = username else {
        if groups.is_empty() && extras.is_empty() && uid.is_none() {
            return Ok(None);
        }
        let mut what: Vec<String> = groups.iter().map(|g| format!("group {g:?}")).collect();
        what.extend(extras.iter().map(|(k, v)| format!("extra {k}={v:?}")));
        what.extend(uid.iter().map(|u| format!("uid {u:?}")));
        return Err(format!(
            "requested [{}] without impersonating a user",
            what.join(" ")
        ));
    };
    let groups_specified = !groups.is_empty();
    let mut checks = Vec::new();
    let mut user = UserInfo {
        name: username.clone(),
        ..UserInfo::default()
    };
    match crd_runtime::rbac::split_service_account(&username) {
        Some((ns, name)) => {
            checks.push(check(requestor, "", "serviceaccounts", ns, name));
            if !groups_specified {
                user.groups = vec![
                    "system:serviceaccounts".into(),
                    format!("system:serviceaccounts:{ns}"),
                ];
            }
        }
        None => checks.push(check(requestor, "", "users", "", &username)),
    }
    for g in &groups {
        checks.push(check(requestor, "", "groups", "", g));
        user.groups.push(g.clone());
    }
    for (key, value) in &extras {
        let mut c = check(requestor, "authentication.k8s.io", "userextras", "", value);
        c.subresource = key.clone();
        checks.push(c);
        user.extra
            .entry(key.clone())
            .or_default()
            .push(value.clone());
    }
    if let Some(uid) = &uid {
        checks.push(check(requestor, "authentication.k8s.io", "uids", "", uid));
        user.uid = uid.clone();
    }
    if username != ANONYMOUS {
        if !user
            .groups
            .iter()
            .any(|g| g == AUTHENTICATED || g == UNAUTHENTICATED)
        {
            user.groups.push(AUTHENTICATED.into());
        }
    } else if !user.groups.iter().any(|g| g == UNAUTHENTICATED) {
        user.groups.push(UNAUTHENTICATED.into());
    }
    Ok(Some(Requested { checks, user }))
}

/// Whether a header is an impersonation header (removed before the handler runs).
pub fn is_impersonation_header(name: &str) -> bool {
    name == USER || name == GROUP || name == UID || name.starts_with(EXTRA_PREFIX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(
                http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                v.parse().unwrap(),
            );
        }
        h
    }

    #[test]
    fn service_accounts_users_groups_and_extras_are_each_checked() {
        let alice = UserInfo::user("alice");
        let r = requested(
            &headers(&[("Impersonate-User", "system:serviceaccount:demo:robot")]),
            &alice,
        )
        .unwrap()
        .unwrap();
        assert_eq!(r.checks.len(), 1);
        assert_eq!(
            (
                r.checks[0].resource.as_str(),
                r.checks[0].namespace.as_str(),
                r.checks[0].name.as_str()
            ),
            ("serviceaccounts", "demo", "robot")
        );
        assert_eq!(
            r.user.groups,
            [
                "system:serviceaccounts",
                "system:serviceaccounts:demo",
                "system:authenticated"
            ]
        );
        let r = requested(
            &headers(&[
                ("Impersonate-User", "bob"),
                ("Impersonate-Group", "dev"),
                ("Impersonate-Extra-Scopes%2Fx", "a"),
                ("Impersonate-Uid", "42"),
            ]),
            &alice,
        )
        .unwrap()
        .unwrap();
        let resources: Vec<_> = r.checks.iter().map(|c| c.combined_resource()).collect();
        assert_eq!(
            resources,
            ["users", "groups", "userextras/scopes/x", "uids"]
        );
        assert_eq!(r.user.groups, ["dev", "system:authenticated"]);
        assert_eq!(r.user.extra["scopes/x"], ["a"]);
        assert_eq!(r.user.uid, "42");
        assert!(requested(&headers(&[("Impersonate-Group", "dev")]), &alice).is_err());
        assert!(requested(&HeaderMap::new(), &alice).unwrap().is_none());
    }
}
