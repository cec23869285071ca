//! What a resource request addresses, read from its method and path the way
//! kube-apiserver's `RequestInfoFactory` reads them: `/api/v1/...` and
//! `/apis/{group}/{version}/...`, then `[watch/][namespaces/{ns}/]{resource}[/{name}
//! [/{subresource}]]`, where `namespaces/{name}/status|finalize` is the namespace's own
//! subresource.

use http::Method;

use crate::api::status::ApiError;

/// The verb of a resource request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verb {
    Get,
    List,
    Watch,
    Create,
    Update,
    Patch,
    Delete,
    DeleteCollection,
}

impl Verb {
    /// The verb's name as discovery and RBAC write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Verb::Get => "get",
            Verb::List => "list",
            Verb::Watch => "watch",
            Verb::Create => "create",
            Verb::Update => "update",
            Verb::Patch => "patch",
            Verb::Delete => "delete",
            Verb::DeleteCollection => "deletecollection",
        }
    }
}

/// A resource request: verb, group/version/resource, namespace, name, subresource.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestInfo {
    pub verb: Verb,
    /// Empty for the core group.
    pub group: String,
    pub version: String,
    /// The plural resource name.
    pub resource: String,
    pub namespace: Option<String>,
    pub name: Option<String>,
    pub subresource: Option<String>,
}

/// Subresources of a namespace addressed as `namespaces/{name}/{subresource}`.
const NAMESPACE_SUBRESOURCES: [&str; 2] = ["status", "finalize"];

impl RequestInfo {
    /// Reads a resource path; `watch_param` is the `watch` query parameter. Paths that
    /// name no resource are the server's 404, methods it has no verb for its 405.
    pub fn parse(method: &Method, path: &str, watch_param: bool) -> Result<RequestInfo, ApiError> {
        let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        let (group, version, rest) = match segs.as_slice() {
            ["api", version, rest @ ..] => ("", *version, rest),
            ["apis", group, version, rest @ ..] => (*group, *version, rest),
            _ => return Err(ApiError::no_route()),
        };
        let (watch_path, rest) = match rest {
            ["watch", rest @ ..] => (true, rest),
            _ => (false, rest),
        };
        let (namespace, rest): (Option<&str>, &[&str]) = match rest {
            ["namespaces", ns, resource, tail @ ..]
                if !(group.is_empty()
                    && tail.is_empty()
                    && NAMESPACE_SUBRESOURCES.contains(resource)) =>
            {
                (Some(*ns), &rest[2..])
            }
            _ => (None, rest),
        };
        let (resource, name, subresource) = match rest {
            [resource] => (*resource, None, None),
            [resource, name] => (*resource, Some(*name), None),
            [resource, name, sub] => (*resource, Some(*name), Some(*sub)),
            // A proxy subresource takes the rest of the path as the path to proxy.
            [resource, name, sub @ "proxy", ..] => (*resource, Some(*name), Some(*sub)),
            _ => return Err(ApiError::no_route()),
        };
        let verb = match (method, name) {
            (&Method::GET | &Method::HEAD, None) if watch_path || watch_param => Verb::Watch,
            (&Method::GET | &Method::HEAD, Some(_)) if watch_path => Verb::Watch,
            (&Method::GET | &Method::HEAD, None) => Verb::List,
            (&Method::GET | &Method::HEAD, Some(_)) => Verb::Get,
            (&Method::POST, None) => Verb::Create,
            // Connect and action subresources (`pods/{name}/binding`, `/exec`, …).
            (&Method::POST, Some(_)) if subresource.is_some() => Verb::Create,
            (&Method::PUT, Some(_)) => Verb::Update,
            (&Method::PATCH, Some(_)) => Verb::Patch,
            (&Method::DELETE, None) => Verb::DeleteCollection,
            (&Method::DELETE, Some(_)) => Verb::Delete,
            _ => return Err(ApiError::method_not_allowed_here()),
        };
        Ok(RequestInfo {
            verb,
            group: group.to_string(),
            version: version.to_string(),
            resource: resource.to_string(),
            namespace: namespace.map(str::to_string),
            name: name.map(str::to_string),
            subresource: subresource.map(str::to_string),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(method: Method, path: &str) -> RequestInfo {
        RequestInfo::parse(&method, path, false).unwrap()
    }

    #[test]
    fn paths_read_like_the_request_info_factory() {
        let r = parse(
            Method::GET,
            "/apis/stable.example.com/v1/namespaces/default/crontabs/a",
        );
        assert_eq!(
            (
                r.verb,
                r.group.as_str(),
                r.version.as_str(),
                r.resource.as_str()
            ),
            (Verb::Get, "stable.example.com", "v1", "crontabs")
        );
        assert_eq!(
            (r.namespace.as_deref(), r.name.as_deref()),
            (Some("default"), Some("a"))
        );

        let r = parse(Method::GET, "/api/v1/namespaces/kube-system");
        assert_eq!(
            (r.resource.as_str(), r.name.as_deref()),
            ("namespaces", Some("kube-system"))
        );
        assert_eq!(r.namespace, None);

        let r = parse(Method::PUT, "/api/v1/namespaces/dev/finalize");
        assert_eq!(
            (
                r.verb,
                r.resource.as_str(),
                r.name.as_deref(),
                r.subresource.as_deref()
            ),
            (Verb::Update, "namespaces", Some("dev"), Some("finalize"))
        );
        // A resource named like a namespace subresource inside a named group is not one.
        let r = parse(Method::GET, "/apis/x.io/v1/namespaces/dev/status");
        assert_eq!(
            (r.namespace.as_deref(), r.resource.as_str()),
            (Some("dev"), "status")
        );

        let r = parse(Method::PATCH, "/apis/x.io/v1/widgets/w/scale");
        assert_eq!(
            (r.verb, r.subresource.as_deref()),
            (Verb::Patch, Some("scale"))
        );
    }

    #[test]
    fn verbs_follow_method_name_and_watch() {
        let path = "/apis/x.io/v1/namespaces/d/widgets";
        assert_eq!(parse(Method::GET, path).verb, Verb::List);
        assert_eq!(
            RequestInfo::parse(&Method::GET, path, true).unwrap().verb,
            Verb::Watch
        );
        assert_eq!(
            parse(Method::GET, "/apis/x.io/v1/watch/namespaces/d/widgets").verb,
            Verb::Watch
        );
        assert_eq!(parse(Method::POST, path).verb, Verb::Create);
        assert_eq!(parse(Method::DELETE, path).verb, Verb::DeleteCollection);
        assert_eq!(
            parse(Method::DELETE, &format!("{path}/w")).verb,
            Verb::Delete
        );
        let e = RequestInfo::parse(&Method::PUT, path, false).unwrap_err();
        assert_eq!(e.code, http::StatusCode::METHOD_NOT_ALLOWED);
        let e = RequestInfo::parse(&Method::GET, "/apis/x.io/v1/a/b/c/d", false).unwrap_err();
        assert_eq!(e.code, http::StatusCode::NOT_FOUND);
        let e = RequestInfo::parse(&Method::GET, "/apis/x.io", false).unwrap_err();
        assert_eq!(e.code, http::StatusCode::NOT_FOUND);
    }
}
