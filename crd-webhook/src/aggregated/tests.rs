//! The request-header rules, the ConfigMap's parsing, and a server called over TLS with
//! and without a front-proxy certificate.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::http::{HeaderMap, HeaderValue};
use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose,
};
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

use super::headers::{decode_extra_key, strip, user_of};
use super::serving::{Authenticator, ClientCertificates};
use super::*;

/// A CA: its PEM and what signs with it.
struct Ca {
    pem: String,
    issuer: Issuer<'static, KeyPair>,
}

fn ca(name: &str) -> Ca {
    let key = KeyPair::generate().unwrap();
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.distinguished_name.push(DnType::CommonName, name);
    params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let cert = params.self_signed(&key).unwrap();
    Ca {
        pem: cert.pem(),
        issuer: Issuer::new(params, key),
    }
}

/// A client certificate `ca` signed for `cn` in `orgs` (rcgen keeps one of each
/// attribute: the last), with its key.
fn client(ca: &Ca, cn: &str, orgs: &[&str]) -> (CertificateDer<'static>, PrivateKeyDer<'static>) {
    let key = KeyPair::generate().unwrap();
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.distinguished_name.push(DnType::CommonName, cn);
    for o in orgs {
        params.distinguished_name.push(DnType::OrganizationName, *o);
    }
    params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
    let cert = params.signed_by(&key, &ca.issuer).unwrap();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
    (cert.der().clone(), key)
}

fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
    let mut out = HeaderMap::new();
    for (k, v) in pairs {
        out.append(
            axum::http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
            HeaderValue::from_str(v).unwrap(),
        );
    }
    out
}

fn auth() -> RequestHeaderAuth {
    RequestHeaderAuth::new("unused")
}

#[test]
fn extra_keys_are_percent_decoded_and_malformed_ones_kept() {
    assert_eq!(decode_extra_key("acme.com%2fproject"), "acme.com/project");
    assert_eq!(decode_extra_key("scopes"), "scopes");
    assert_eq!(decode_extra_key("%e2%82%ac"), "€");
    assert_eq!(decode_extra_key("bad%zzkey"), "bad%zzkey");
    assert_eq!(decode_extra_key("tail%4"), "tail%4");
    assert_eq!(decode_extra_key("half%41%g1"), "half%41%g1");
}

#[test]
fn the_user_is_read_as_upstream_reads_it() {
    let mut auth = auth();
    auth.username_headers = vec!["X-Other-User".into(), "X-Remote-User".into()];
    auth.extra_header_prefixes = vec!["X-Remote-Extra-".into(), "X-Also-".into()];
    let h = headers(&[
        ("x-other-user", ""),
        ("X-Remote-User", "alice"),
        ("X-Remote-User", "mallory"),
        ("X-Remote-Uid", "u-1"),
        ("X-Remote-Group", "dev"),
        ("X-Remote-Group", ""),
        ("x-remote-group", "ops"),
        ("X-Remote-Extra-Acme.com%2FProject", "p1"),
        ("X-Remote-Extra-acme.com%2fproject", "p2"),
        ("X-Also-Scopes", "read"),
    ]);
    let user = user_of(&auth, &h).expect("a user");
    assert_eq!(user.name, "alice");
    assert_eq!(user.uid, "u-1");
    assert_eq!(user.groups, ["dev", "ops"]);
    let extra: BTreeMap<String, Vec<String>> = [
        (
            "acme.com/project".to_string(),
            vec!["p1".into(), "p2".into()],
        ),
        ("scopes".to_string(), vec!["read".into()]),
    ]
    .into();
    assert_eq!(user.extra, extra);
}

#[test]
fn no_username_is_no_user_and_identity_headers_are_stripped() {
    let h = headers(&[("X-Remote-Group", "dev"), ("X-Remote-User", "")]);
    assert_eq!(user_of(&auth(), &h), None);

    let mut h = headers(&[
        ("X-Remote-User", "alice"),
        ("X-Remote-Extra-Scopes", "read"),
        ("Authorization", "Bearer t"),
        ("Accept", "application/json"),
    ]);
    strip(&auth(), &mut h);
    assert_eq!(h.len(), 1);
    assert!(h.contains_key("accept"));
}

#[test]
fn the_config_map_is_read_and_written_as_kube_apiserver_writes_it() {
    let front = ca("front-proxy-ca");
    let users = ca("client-ca");
    let data: BTreeMap<String, String> = [
        ("client-ca-file", users.pem.as_str()),
        ("requestheader-client-ca-file", front.pem.as_str()),
        ("requestheader-allowed-names", r#"["front-proxy-client"]"#),
        ("requestheader-username-headers", r#"["X-Remote-User"]"#),
        ("requestheader-uid-headers", r#"["X-Remote-Uid"]"#),
        ("requestheader-group-headers", r#"["X-Remote-Group"]"#),
        (
            "requestheader-extra-headers-prefix",
            r#"["X-Remote-Extra-"]"#,
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let auth = RequestHeaderAuth::from_config_map_data(&data).expect("valid");
    let expected = RequestHeaderAuth::new(front.pem.clone())
        .with_allowed_names(["front-proxy-client"])
        .with_client_ca(users.pem.clone());
    assert_eq!(auth, expected);
    assert_eq!(auth.to_config_map_data(), data);

    // Only a client CA: no requestheader keys, and that is enough.
    let only_client: BTreeMap<_, _> = [("client-ca-file".to_string(), users.pem.clone())].into();
    let auth = RequestHeaderAuth::from_config_map_data(&only_client).expect("valid");
    assert_eq!(auth.requestheader_ca_pem, None);
    assert_eq!(auth.to_config_map_data(), only_client);
}

#[test]
fn config_map_errors_name_the_key() {
    let front = ca("front-proxy-ca");
    let with = |pairs: &[(&str, &str)]| {
        let mut data: BTreeMap<String, String> = [
            (
                "requestheader-client-ca-file".to_string(),
                front.pem.clone(),
            ),
            (
                "requestheader-username-headers".to_string(),
                r#"["X-Remote-User"]"#.to_string(),
            ),
        ]
        .into();
        for (k, v) in pairs {
            data.insert(k.to_string(), v.to_string());
        }
        RequestHeaderAuth::from_config_map_data(&data)
            .expect_err("invalid")
            .to_string()
    };
    let e = with(&[("requestheader-group-headers", "X-Remote-Group")]);
    assert!(
        e.starts_with("requestheader-group-headers: not a JSON array of strings: "),
        "{e}"
    );
    let e = with(&[("requestheader-allowed-names", "[1]")]);
    assert!(e.starts_with("requestheader-allowed-names: "), "{e}");
    assert_eq!(
        with(&[("requestheader-client-ca-file", "not pem")]),
        "requestheader-client-ca-file: holds no PEM certificate"
    );
    assert_eq!(
        with(&[("client-ca-file", "")]),
        "client-ca-file: holds no PEM certificate"
    );
    assert_eq!(
        with(&[("requestheader-username-headers", "[]")]),
        "requestheader-username-headers: names no header, but requestheader-client-ca-file is set"
    );
    assert_eq!(
        RequestHeaderAuth::from_config_map_data(&BTreeMap::new())
            .unwrap_err()
            .to_string(),
        "neither client-ca-file nor requestheader-client-ca-file is set: no client can be authenticated"
    );
}

#[test]
fn certificates_decide_whose_headers_count() {
    let front = ca("front-proxy-ca");
    let users = ca("client-ca");
    let stranger = ca("stranger-ca");
    let authenticator = Authenticator::new(
        RequestHeaderAuth::new(front.pem.clone())
            .with_allowed_names(["front-proxy-client"])
            .with_client_ca(users.pem.clone()),
    )
    .expect("valid");
    let chain = |cert: CertificateDer<'static>| ClientCertificates(vec![cert].into());
    let alice = headers(&[("X-Remote-User", "alice"), ("X-Remote-Group", "dev")]);

    let proxy = chain(client(&front, "front-proxy-client", &[]).0);
    let user = authenticator
        .authenticate(Some(&proxy), &alice)
        .expect("alice");
    assert_eq!(user.name, "alice");
    assert_eq!(user.groups, ["dev", "system:authenticated"]);
    // The proxy without a username: no one.
    assert_eq!(
        authenticator.authenticate(Some(&proxy), &HeaderMap::new()),
        None
    );

    let other = chain(client(&front, "someone-else", &[]).0);
    assert_eq!(authenticator.authenticate(Some(&other), &alice), None);

    // A user's own certificate: its subject, never the headers.
    let bob = chain(client(&users, "bob", &["ops"]).0);
    let user = authenticator.authenticate(Some(&bob), &alice).expect("bob");
    assert_eq!(user.name, "bob");
    assert_eq!(user.groups, ["ops", "system:authenticated"]);

    let forged = chain(client(&stranger, "front-proxy-client", &[]).0);
    assert_eq!(authenticator.authenticate(Some(&forged), &alice), None);
    assert_eq!(authenticator.authenticate(None, &alice), None);

    // No allowed names: any CommonName of the requestheader CA.
    let open = Authenticator::new(RequestHeaderAuth::new(front.pem.clone())).expect("valid");
    assert!(open.authenticate(Some(&other), &alice).is_some());
}

mod over_tls {
    use super::*;
    use crate::{WebhookConfig, WebhookTls};
    use axum::Json;
    use axum::routing::get;
    use http_body_util::{BodyExt, Empty};
    use hyper::body::Bytes;
    use tokio_rustls::rustls;

    /// GET `path` on `addr`, trusting `server_ca`, maybe presenting `cert`, with
    /// `extra` headers: the status and body.
    async fn call(
        addr: std::net::SocketAddr,
        server_ca: &str,
        cert: Option<(CertificateDer<'static>, PrivateKeyDer<'static>)>,
        extra: &[(&str, &str)],
    ) -> (u16, serde_json::Value) {
        let mut roots = rustls::RootCertStore::empty();
        for c in rustls_pemfile::certs(&mut server_ca.as_bytes()) {
            roots.add(c.unwrap()).unwrap();
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots);
        let config = match cert {
            Some((c, k)) => builder.with_client_auth_cert(vec![c], k).unwrap(),
            None => builder.with_no_client_auth(),
        };
        let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
        let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
        let name = rustls::pki_types::ServerName::try_from("metrics.default.svc").unwrap();
        let tls = connector.connect(name, tcp).await.unwrap();
        let (mut sender, conn) =
            hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(tls))
                .await
                .unwrap();
        tokio::spawn(conn);
        let mut request = http::Request::get("/whoami").header("host", "metrics");
        for (k, v) in extra {
            request = request.header(*k, *v);
        }
        let response = sender
            .send_request(request.body(Empty::<Bytes>::new()).unwrap())
            .await
            .unwrap();
        let status = response.status().as_u16();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        (status, serde_json::from_slice(&body).unwrap())
    }

    #[tokio::test]
    async fn a_front_proxy_certificate_carries_the_headers_user() {
        let front = ca("front-proxy-ca");
        let auth = RequestHeaderAuth::new(front.pem.clone()).with_allowed_names(["aggregator"]);
        let app = axum::Router::new().route(
            "/whoami",
            get(|user: AuthenticatedUser, headers: HeaderMap| async move {
                Json(serde_json::json!({
                    "name": user.name, "uid": user.uid, "groups": user.groups,
                    "extra": user.extra, "leftover": headers.contains_key("x-remote-user"),
                }))
            }),
        );
        let config = WebhookConfig {
            listen: ([127, 0, 0, 1], 0).into(),
            tls: WebhookTls::SelfSignedFor(vec!["metrics.default.svc".into()]),
        };
        let server = serve_aggregated(app, auth, config).await.expect("serves");
        let ca_pem = server.ca_pem().expect("self-signed").to_string();
        let as_alice = [
            ("X-Remote-User", "alice"),
            ("X-Remote-Group", "dev"),
            ("X-Remote-Extra-Acme.com%2Fteam", "blue"),
            ("Authorization", "Bearer secret"),
        ];

        let proxy = client(&front, "aggregator", &[]);
        let (status, body) = call(server.addr(), &ca_pem, Some(proxy), &as_alice).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(
            body,
            serde_json::json!({"name": "alice", "uid": "", "groups": ["dev", "system:authenticated"],
                               "extra": {"acme.com/team": ["blue"]}, "leftover": false})
        );

        let unauthorized = serde_json::json!({
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "Unauthorized", "reason": "Unauthorized", "code": 401});
        let (status, body) = call(server.addr(), &ca_pem, None, &as_alice).await;
        assert_eq!((status, body), (401, unauthorized.clone()));
        let wrong_cn = client(&front, "mallory", &[]);
        let (status, body) = call(server.addr(), &ca_pem, Some(wrong_cn), &as_alice).await;
        assert_eq!((status, body), (401, unauthorized));
    }
}
