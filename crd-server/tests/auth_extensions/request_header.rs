//! The authenticating proxy (`--requestheader-*`) with curl and kubectl: a client
//! certificate of the request-header CA makes the `X-Remote-*` headers the user; a
//! proxy name not allowed is a 401; the same headers from a `--client-ca-file` user, or
//! with no certificate, name nobody; and the proxy's certificate is no user of its own.

use crate::support;

use std::path::Path;
use std::process::Command;

use crd_server::auth::RequestHeaderConfig;
use crd_server::{AuthConfig, AuthorizationMode, Config, StoreConfig};
use serde_json::Value;

use crate::support::openssl;

/// A CA `name` and a client certificate it signs for `subject`: (`name.crt`, `cert`, `key`).
fn client_pki(dir: &Path, name: &str, client: &str, subject: &str) {
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            &format!("{name}.key"),
            "-out",
            &format!("{name}.crt"),
            "-days",
            "1",
            "-subj",
            &format!("/CN={name}"),
        ],
    );
    openssl(
        dir,
        &[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            &format!("{client}.key"),
            "-out",
            &format!("{client}.csr"),
            "-subj",
            subject,
        ],
    );
    std::fs::write(dir.join("client.ext"), "extendedKeyUsage=clientAuth\n").expect("ext");
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            &format!("{client}.csr"),
            "-CA",
            &format!("{name}.crt"),
            "-CAkey",
            &format!("{name}.key"),
            "-CAcreateserial",
            "-out",
            &format!("{client}.crt"),
            "-days",
            "1",
            "-extfile",
            "client.ext",
        ],
    );
}

/// A SelfSubjectReview POSTed with curl: the user the server sees, or the Status.
fn whoami(url: &str, dir: &Path, cert: Option<&str>, headers: &[&str]) -> Value {
    let mut cmd = Command::new("curl");
    cmd.current_dir(dir)
        .args(["-sk", "-X", "POST", "-H", "Content-Type: application/json"]);
    if let Some(c) = cert {
        cmd.args(["--cert", &format!("{c}.crt"), "--key", &format!("{c}.key")]);
    }
    for h in headers {
        cmd.args(["-H", h]);
    }
    cmd.args([
        "--data",
        r#"{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}"#,
        &format!("{url}/apis/authentication.k8s.io/v1/selfsubjectreviews"),
    ]);
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run curl ({e})"));
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proxy_certificate_makes_the_headers_the_user() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path().to_path_buf();
    client_pki(&d, "proxy-ca", "front-proxy", "/CN=front-proxy");
    client_pki(&d, "users-ca", "carol", "/CN=carol/O=dev");
    // A second proxy certificate whose name is not allowed.
    openssl(
        &d,
        &[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "rogue.key",
            "-out",
            "rogue.csr",
            "-subj",
            "/CN=rogue",
        ],
    );
    openssl(
        &d,
        &[
            "x509",
            "-req",
            "-in",
            "rogue.csr",
            "-CA",
            "proxy-ca.crt",
            "-CAkey",
            "proxy-ca.key",
            "-CAcreateserial",
            "-out",
            "rogue.crt",
            "-days",
            "1",
            "-extfile",
            "client.ext",
        ],
    );
    let config = Config {
        listen: "127.0.0.1:0".parse().expect("addr"),
        store: StoreConfig::InMemory,
        tls: Some(support::self_signed_tls(&d)),
        auth: AuthConfig {
            client_ca_file: Some(d.join("users-ca.crt")),
            anonymous: false,
            authorization_modes: vec![AuthorizationMode::Rbac],
            request_header: RequestHeaderConfig {
                client_ca_file: Some(d.join("proxy-ca.crt")),
                allowed_names: vec!["front-proxy".into()],
                username_headers: vec!["X-Remote-User".into()],
                uid_headers: vec!["X-Remote-Uid".into()],
                group_headers: vec!["X-Remote-Group".into()],
                extra_headers_prefix: vec!["X-Remote-Extra-".into()],
            },
            ..AuthConfig::default()
        },
        ..Config::default()
    };
    let server = crd_server::start(config).await.expect("server");
    let url = server.url();
    tokio::task::spawn_blocking(move || {
        let proxied = [
            "X-Remote-User: jane",
            "X-Remote-Uid: 42",
            "X-Remote-Group: dev",
            "X-Remote-Group: ops",
            "X-Remote-Extra-Acme.com%2fproject: apollo",
        ];
        let me = whoami(&url, &d, Some("front-proxy"), &proxied);
        let user = &me["status"]["userInfo"];
        assert_eq!(user["username"], "jane", "{me}");
        assert_eq!(user["uid"], "42");
        assert_eq!(
            user["groups"],
            serde_json::json!(["dev", "ops", "system:authenticated"])
        );
        assert_eq!(
            user["extra"]["acme.com/project"],
            serde_json::json!(["apollo"])
        );

        // A proxy whose name is not allowed: 401.
        let refused = whoami(&url, &d, Some("rogue"), &proxied);
        assert_eq!(refused["code"], 401, "{refused}");
        // The headers from a plain user, or with no certificate, name nobody else.
        let carol = whoami(&url, &d, Some("carol"), &proxied);
        assert_eq!(carol["status"]["userInfo"]["username"], "carol", "{carol}");
        let nobody = whoami(&url, &d, None, &proxied);
        assert_eq!(nobody["code"], 401, "{nobody}");
        // The proxy without a username header is not a user itself.
        let bare = whoami(&url, &d, Some("front-proxy"), &[]);
        assert_eq!(bare["code"], 401, "{bare}");

        // kubectl with carol's certificate, through the same server: RBAC refuses her.
        let out = support::kubectl(
            &url,
            &[
                "--insecure-skip-tls-verify",
                "--client-certificate",
                d.join("carol.crt").to_str().unwrap(),
                "--client-key",
                d.join("carol.key").to_str().unwrap(),
                "get",
                "namespaces",
            ],
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("User \"carol\" cannot list resource \"namespaces\""),
            "{err}"
        );
    })
    .await
    .expect("curl");
}
