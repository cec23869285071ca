//! The controller-gen markers of `examples/src/markers.rs` against a real crd-server, driven
//! by `kube::Client`: the API server accepts the CRD, and its CEL rules answer creates and
//! updates with controller-gen's messages (the value is shown for scalars and omitted for
//! objects, as the API server does). Run with
//! `cargo test -p crd-toolkit-examples --features kube --test markers_server`.

use crd_runtime::CustomResourceExt;
use crd_server::TestServer;
use crd_toolkit_examples::markers::{Backend, Protocol, Route, RouteSpec};
use kube::Api;
use kube::api::PostParams;

fn spec() -> RouteSpec {
    RouteSpec {
        host: "a.example.com".into(),
        port: None,
        protocol: Protocol::Tcp,
        backend: Backend {
            service: Some("web".into()),
            url: None,
        },
        tls: None,
        plain_text: None,
        owner: Some("team-a".into()),
    }
}

/// The status message of a rejected write (422), or a panic naming what happened.
fn rejected<T: std::fmt::Debug>(r: Result<T, kube::Error>) -> String {
    match r {
        Err(kube::Error::Api(s)) if s.code == 422 => s.message,
        other => panic!("expected 422 Invalid, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn marker_rules_on_a_real_server() {
    let server = TestServer::with_crds([Route::crd()]).await.expect("server");
    let api: Api<Route> = Api::namespaced(server.client(), "default");
    let pp = PostParams::default();

    // ExactlyOneOf on the backend type, AtMostOneOf on the spec.
    let mut both = Route::new("both", spec());
    both.spec.backend.url = Some("https://example.com".into());
    let msg = rejected(api.create(&pp, &both).await);
    assert!(
        msg.contains(
            "spec.backend: Invalid value: exactly one of the fields in [service url] must be set"
        ),
        "{msg}"
    );
    let mut two = Route::new("two", spec());
    (two.spec.tls, two.spec.plain_text) = (Some(true), Some(false));
    let msg = rejected(api.create(&pp, &two).await);
    assert!(
        msg.contains(
            "spec: Invalid value: at most one of the fields in [tls plainText] may be set"
        ),
        "{msg}"
    );

    // Immutable: the host never changes; the port may be set once, then neither changes
    // nor goes away.
    let created = api
        .create(&pp, &Route::new("r", spec()))
        .await
        .expect("create");
    let mut moved = created.clone();
    moved.spec.host = "b.example.com".into();
    let msg = rejected(api.replace("r", &pp, &moved).await);
    assert!(
        msg.contains("spec.host: Invalid value: \"b.example.com\": field is immutable"),
        "{msg}"
    );
    let mut with_port = created.clone();
    with_port.spec.port = Some(8080);
    let with_port = api
        .replace("r", &pp, &with_port)
        .await
        .expect("set the port once");
    let mut other_port = with_port.clone();
    other_port.spec.port = Some(9090);
    let msg = rejected(api.replace("r", &pp, &other_port).await);
    assert!(
        msg.contains("spec.port: Invalid value: 9090: field is immutable"),
        "{msg}"
    );
    let mut no_port = with_port.clone();
    no_port.spec.port = None;
    let msg = rejected(api.replace("r", &pp, &no_port).await);
    assert!(
        msg.contains("spec: Invalid value: field port is immutable once set"),
        "{msg}"
    );
    // Unchanged immutable fields: an update of another field goes through.
    let mut retagged = with_port.clone();
    retagged.spec.owner = Some("team-b".into());
    let got = api.replace("r", &pp, &retagged).await.expect("update");
    assert_eq!(got.spec.owner.as_deref(), Some("team-b"));
}
