use super::*;

fn attrs(method: Method, uri: &str) -> Attributes {
    let (path, query) = uri
        .split_once('?')
        .map_or((uri, None), |(p, q)| (p, Some(q)));
    attributes_of(&method, path, query)
}

#[test]
fn requests_read_as_the_request_info_factory_reads_them() {
    let a = attrs(Method::GET, "/api/v1/namespaces/demo/pods");
    assert!(a.resource_request);
    assert_eq!(
        (a.verb.as_str(), a.namespace.as_str(), a.resource.as_str()),
        ("list", "demo", "pods")
    );
    let a = attrs(
        Method::GET,
        "/api/v1/namespaces/demo/pods?watch=true&resourceVersion=1",
    );
    assert_eq!(a.verb, "watch");
    let a = attrs(
        Method::POST,
        "/api/v1/namespaces/demo/serviceaccounts/robot/token",
    );
    assert_eq!(
        (a.verb.as_str(), a.name.as_str(), a.subresource.as_str()),
        ("create", "robot", "token")
    );
    let a = attrs(Method::DELETE, "/apis/apps/v1/namespaces/demo/deployments");
    assert_eq!(
        (a.verb.as_str(), a.api_group.as_str()),
        ("deletecollection", "apps")
    );
    // A namespace is in itself.
    let a = attrs(Method::GET, "/api/v1/namespaces/demo");
    assert_eq!((a.namespace.as_str(), a.name.as_str()), ("demo", "demo"));
    // A list of one name is authorized for that name.
    let a = attrs(
        Method::GET,
        "/api/v1/namespaces/demo/secrets?fieldSelector=metadata.name%3Dtls",
    );
    assert_eq!((a.verb.as_str(), a.name.as_str()), ("list", "tls"));
}

#[test]
fn discovery_and_other_paths_are_non_resource_requests() {
    for path in [
        "/api",
        "/api/v1",
        "/apis",
        "/apis/apps/v1",
        "/version",
        "/openid/v1/jwks",
    ] {
        let a = attrs(Method::GET, path);
        assert!(!a.resource_request, "{path}");
        assert_eq!((a.verb.as_str(), a.path.as_str()), ("get", path));
    }
}

#[test]
fn refusals_carry_kube_apiservers_status() {
    let mut a = attrs(Method::GET, "/api/v1/namespaces/demo/pods");
    a.user = UserInfo::user("alice");
    let e = forbidden(&a, "");
    assert_eq!(e.code, StatusCode::FORBIDDEN);
    assert_eq!(
        e.message,
        r#"pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "demo""#
    );
    assert_eq!(e.to_status()["details"], json!({"kind": "pods"}));
    let mut a = attrs(
        Method::DELETE,
        "/apis/apps/v1/namespaces/demo/deployments/web",
    );
    a.user = UserInfo::user("alice");
    assert_eq!(
        forbidden(&a, "Everything is forbidden.").message,
        r#"deployments.apps "web" is forbidden: User "alice" cannot delete resource "deployments" in API group "apps" in the namespace "demo": Everything is forbidden."#
    );
    let mut a = attrs(Method::GET, "/metrics");
    a.user = UserInfo::user("bob");
    assert_eq!(
        forbidden(&a, "").message,
        r#"forbidden: User "bob" cannot get path "/metrics""#
    );
}
