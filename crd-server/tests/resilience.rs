//! The server as a harness for resilience tests, driven by kubectl and kube::Client
//! (kube-runtime's watcher included): history that expires like kube-apiserver's over
//! etcd (410 Expired for watches, exact lists and continue tokens), injected faults and
//! the max-in-flight 429. See docs/testing-faults.md.

mod support;

use std::time::{Duration, Instant};

use crd_server::TestServer;
use futures::StreamExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{ListParams, PostParams, VersionMatch, WatchEvent, WatchParams};
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Api, Client};
use support::{kubectl, kubectl_err};

/// Every wait of these tests is bounded by this.
const WAIT: Duration = Duration::from_secs(20);

fn client(server: &TestServer) -> Client {
    let uri: http::Uri = server.url().parse().expect("url");
    Client::try_from(kube::Config::new(uri)).expect("client")
}

/// A client that authenticates with a bearer token.
fn client_with(server: &TestServer, token: String) -> Client {
    let uri: http::Uri = server.url().parse().expect("url");
    let mut config = kube::Config::new(uri);
    config.auth_info.token = Some(token.into());
    Client::try_from(config).expect("client")
}

/// A client without kube's default retry of 429, 503 and 504 (to see the answers).
fn no_retry_client(server: &TestServer) -> Client {
    let uri: http::Uri = server.url().parse().expect("url");
    let mut config = kube::Config::new(uri);
    config.default_retry = false;
    Client::try_from(config).expect("client")
}

fn configmap(name: &str) -> ConfigMap {
    serde_json::from_value(serde_json::json!({
        "metadata": {"name": name}, "data": {"k": "v"}
    }))
    .expect("configmap")
}

async fn create(api: &Api<ConfigMap>, name: &str) -> ConfigMap {
    api.create(&PostParams::default(), &configmap(name))
        .await
        .expect("create")
}

fn rv(cm: &ConfigMap) -> String {
    cm.metadata
        .resource_version
        .clone()
        .expect("resourceVersion")
}

/// The API error of a failed call.
fn api_error<T: std::fmt::Debug>(r: Result<T, kube::Error>) -> Box<kube::core::Status> {
    match r {
        Err(kube::Error::Api(status)) => status,
        other => panic!("expected an API error, got {other:?}"),
    }
}

/// A raw GET through kube::Client: status, Retry-After and the body as JSON (or text).
async fn raw_get(c: &Client, path: &str) -> (u16, Option<String>, String) {
    let req = http::Request::get(path).body(Vec::new()).expect("request");
    let resp = c
        .send(req.map(kube::client::Body::from))
        .await
        .expect("send");
    let code = resp.status().as_u16();
    let retry = resp
        .headers()
        .get(http::header::RETRY_AFTER)
        .map(|v| v.to_str().unwrap_or("").to_string());
    let body = resp.into_body().collect_bytes().await.expect("body");
    (code, retry, String::from_utf8_lossy(&body).into_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn history_expires_as_kube_apiserver_over_etcd() {
    let server = TestServer::builder().start().await.expect("server");
    let ns = server.namespace().await.expect("namespace");
    let c = client(&server);
    let cms: Api<ConfigMap> = Api::namespaced(c.clone(), &ns);

    // A watch from before the server started: 200, one ERROR event, the end.
    let mut expired = cms
        .watch(&WatchParams::default(), "1")
        .await
        .expect("watch")
        .boxed();
    let first = tokio::time::timeout(WAIT, expired.next())
        .await
        .expect("an event");
    match first {
        Some(Ok(WatchEvent::Error(status))) => {
            assert_eq!((status.code, status.reason.as_str()), (410, "Expired"));
            assert!(
                status.message.starts_with("too old resource version: 1 ("),
                "{}",
                status.message
            );
        }
        other => panic!("an ERROR event, not {other:?}"),
    }
    let end = tokio::time::timeout(WAIT, expired.next())
        .await
        .expect("the end");
    assert!(end.is_none(), "the stream ends after the error: {end:?}");

    let a = create(&cms, "a").await;
    create(&cms, "b").await;
    create(&cms, "c").await;
    let page = cms
        .list(&ListParams::default().limit(1))
        .await
        .expect("first page");
    let token = page.metadata.continue_.clone().expect("a continue token");
    // Before compaction, the list at a's revision and the continue token work.
    let at_a = ListParams::default()
        .at(&rv(&a))
        .matching(VersionMatch::Exact);
    assert_eq!(cms.list(&at_a).await.expect("exact list").items.len(), 1);
    // A change after the page (elsewhere): the page's revision is compacted below.
    let elsewhere: Api<ConfigMap> = Api::namespaced(c.clone(), "default");
    create(&elsewhere, &format!("bump-{ns}")).await;

    let compacted = server.compact().await.expect("compact");
    assert!(compacted > rv(&a).parse::<u64>().unwrap());

    // An exact list from before the compaction: 410.
    let e = api_error(cms.list(&at_a).await);
    assert_eq!(
        (e.code, e.reason.as_str(), e.message.as_str()),
        (
            410,
            "Expired",
            "The resourceVersion for the provided list is too old."
        )
    );
    // The continue token: 410, with a token that continues at the latest revision.
    let path = format!("/api/v1/namespaces/{ns}/configmaps?limit=1&continue={token}");
    let (code, _, body) = raw_get(&c, &path).await;
    assert_eq!(code, 410, "{body}");
    let status: serde_json::Value = serde_json::from_str(&body).expect("a Status");
    assert_eq!(status["reason"], "Expired");
    assert!(
        status["message"]
            .as_str()
            .unwrap()
            .starts_with("The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response"),
        "{status}"
    );
    let inconsistent = status["metadata"]["continue"]
        .as_str()
        .expect("an inconsistent-continue token");
    let rest = cms
        .list(&ListParams::default().limit(5).continue_token(inconsistent))
        .await
        .expect("the rest of the list at the latest revision");
    let names: Vec<_> = rest
        .items
        .iter()
        .filter_map(|c| c.metadata.name.clone())
        .collect();
    assert_eq!(names, ["b", "c"]);

    // A watch from before the compaction: the ERROR event names the compacted revision.
    let mut w = cms
        .watch(&WatchParams::default(), &rv(&a))
        .await
        .expect("watch")
        .boxed();
    match tokio::time::timeout(WAIT, w.next())
        .await
        .expect("an event")
    {
        Some(Ok(WatchEvent::Error(status))) => assert_eq!(
            status.message,
            format!("too old resource version: {} ({compacted})", rv(&a))
        ),
        other => panic!("an ERROR event, not {other:?}"),
    }
    // From the compacted revision on, watches work.
    let mut fresh = cms
        .watch(&WatchParams::default(), &compacted.to_string())
        .await
        .expect("watch")
        .boxed();
    create(&cms, "d").await;
    match tokio::time::timeout(WAIT, fresh.next())
        .await
        .expect("an event")
    {
        Some(Ok(WatchEvent::Added(cm))) => assert_eq!(cm.metadata.name.as_deref(), Some("d")),
        other => panic!("ADDED d, not {other:?}"),
    }

    // kubectl shows kube-apiserver's words.
    let url = server.url();
    let list = format!(
        "/api/v1/namespaces/{ns}/configmaps?resourceVersion={}&resourceVersionMatch=Exact",
        rv(&a)
    );
    let err = tokio::task::spawn_blocking(move || kubectl_err(&url, &["get", "--raw", &list]))
        .await
        .unwrap();
    assert!(
        err.contains(
            "Error from server (Expired): The resourceVersion for the provided list is too old."
        ),
        "{err}"
    );
    // kubectl's raw watch from before the compaction: the one ERROR event, then the end.
    let url = server.url();
    let watch = format!(
        "/api/v1/namespaces/{ns}/configmaps?watch=true&resourceVersion={}",
        rv(&a)
    );
    let out = tokio::task::spawn_blocking(move || kubectl(&url, &["get", "--raw", &watch]))
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("a watch event"))
        .collect();
    assert_eq!(lines.len(), 1, "{stdout}");
    assert_eq!(lines[0]["type"], "ERROR", "{stdout}");
    assert_eq!(lines[0]["object"]["code"], 410, "{stdout}");
    assert_eq!(
        lines[0]["object"]["message"],
        format!("too old resource version: {} ({compacted})", rv(&a))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bookmarks_come_at_the_watch_caches_cadence_not_every_second() {
    let server = TestServer::builder().start().await.expect("server");
    let ns = server.namespace().await.expect("namespace");
    let cms: Api<ConfigMap> = Api::namespaced(client(&server), &ns);
    let last = create(&cms, "a").await;
    // A 5 s watch that asked for bookmarks: the watch cache sends one two seconds
    // before the end (the minute's heartbeat comes later), none in the first seconds.
    let t0 = Instant::now();
    let mut w = cms
        .watch(&WatchParams::default().timeout(5), &rv(&last))
        .await
        .expect("watch")
        .boxed();
    let mut bookmarks = Vec::new();
    while let Some(event) = tokio::time::timeout(WAIT, w.next())
        .await
        .expect("the watch ends by itself")
    {
        match event.expect("an event") {
            WatchEvent::Bookmark(b) => bookmarks.push((t0.elapsed(), b.metadata.resource_version)),
            other => panic!("only a bookmark, not {other:?}"),
        }
    }
    assert!(t0.elapsed() >= Duration::from_secs(5));
    assert_eq!(bookmarks.len(), 1, "{bookmarks:?}");
    let (at, version) = &bookmarks[0];
    assert!(*at >= Duration::from_millis(2500), "too early: {at:?}");
    assert!(
        version.parse::<u64>().unwrap() >= rv(&last).parse::<u64>().unwrap(),
        "{version}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_timeout_seconds_is_honoured() {
    let server = TestServer::builder().start().await.expect("server");
    let ns = server.namespace().await.expect("namespace");
    let cms: Api<ConfigMap> = Api::namespaced(client(&server), &ns);
    let t0 = Instant::now();
    let events: Vec<_> = tokio::time::timeout(
        WAIT,
        cms.watch(&WatchParams::default().timeout(1), "0")
            .await
            .expect("watch")
            .collect::<Vec<_>>(),
    )
    .await
    .expect("the watch ends by itself");
    assert!(events.is_empty(), "{events:?}");
    assert!(t0.elapsed() >= Duration::from_secs(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kube_runtime_watcher_relists_after_a_compaction() {
    let server = TestServer::builder().start().await.expect("server");
    let ns = server.namespace().await.expect("namespace");
    let cms: Api<ConfigMap> = Api::namespaced(client(&server), &ns);
    create(&cms, "before").await;
    // As a controller runs it: with a backoff, errors are items and the stream goes on.
    let mut events = watcher(cms.clone(), watcher::Config::default())
        .default_backoff()
        .boxed();
    let mut inits = 0;
    let mut expired = false;
    let mut seen_after = false;
    let mut compacted = false;
    let deadline = tokio::time::Instant::now() + WAIT;
    while !(seen_after && inits >= 2) {
        let item = tokio::time::timeout_at(deadline, events.next())
            .await
            .expect("the watcher recovers within the wait")
            .expect("the watcher runs on");
        let event = match item {
            Ok(event) => event,
            Err(watcher::Error::WatchError(status)) => {
                // Resuming from its revision: kube-apiserver's 410, then a relist.
                assert_eq!((status.code, status.reason.as_str()), (410, "Expired"));
                expired = true;
                continue;
            }
            Err(e) => panic!("unexpected watcher error: {e}"),
        };
        match event {
            watcher::Event::Init => inits += 1,
            watcher::Event::InitDone if !compacted => {
                // A change elsewhere, then the compaction: the watch ends, the watcher
                // resumes from its (older) revision, gets 410 and lists again: a
                // second Init.
                let elsewhere: Api<ConfigMap> = Api::namespaced(client(&server), "default");
                create(&elsewhere, &format!("bump-{ns}")).await;
                server.compact().await.expect("compact");
                compacted = true;
                create(&cms, "after").await;
            }
            watcher::Event::InitApply(cm) | watcher::Event::Apply(cm)
                if cm.metadata.name.as_deref() == Some("after") =>
            {
                seen_after = true;
            }
            _ => {}
        }
    }
    assert!(expired, "the watcher saw the 410");
}

/// `user=NAME` acts on the requests authenticated as NAME only (issue 43's identities).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fault_rule_singles_out_one_user() {
    let server = TestServer::builder().start().await.expect("server");
    let ns = server.namespace().await.expect("namespace");
    server
        .add_fault(&format!(
            "verb=create,resource=configmaps,namespace={ns},user=alice,code=500"
        ))
        .expect("rule");
    let alice: Api<ConfigMap> = Api::namespaced(
        client_with(&server, server.token_for_user("alice", &[])),
        &ns,
    );
    let status = api_error(alice.create(&PostParams::default(), &configmap("a")).await);
    assert_eq!(
        (status.code, status.reason.as_str()),
        (500, "InternalError")
    );
    // The admin, another user and an anonymous request are served.
    let admin: Api<ConfigMap> =
        Api::namespaced(client_with(&server, server.admin_token().to_string()), &ns);
    create(&admin, "b").await;
    let bob: Api<ConfigMap> =
        Api::namespaced(client_with(&server, server.token_for_user("bob", &[])), &ns);
    create(&bob, "c").await;
    let anonymous: Api<ConfigMap> = Api::namespaced(client(&server), &ns);
    create(&anonymous, "d").await;
    assert!(alice.get_opt("a").await.expect("get").is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn injected_faults_answer_kube_apiservers_status() {
    let server = TestServer::builder().start().await.expect("server");
    let ns = server.namespace().await.expect("namespace");
    let c = client(&server);
    let cms: Api<ConfigMap> = Api::namespaced(c.clone(), &ns);
    let a = create(&cms, "a").await;

    // 409 on the first update only.
    let id = server
        .add_fault(&format!(
            "verb=update,resource=configmaps,namespace={ns},code=409,count=1"
        ))
        .expect("rule");
    let e = api_error(cms.replace("a", &PostParams::default(), &a).await);
    assert_eq!(
        (e.code, e.reason.as_str(), e.message.as_str()),
        (
            409,
            "Conflict",
            "Operation cannot be fulfilled on configmaps \"a\": the object has been modified; please apply your changes to the latest version and try again"
        )
    );
    cms.replace("a", &PostParams::default(), &a)
        .await
        .expect("the second update passes");
    assert_eq!(server.faults().injected(id), Some(1));
    assert!(server.remove_fault(id));

    // 500 after one get passes.
    let id = server
        .add_fault("verb=get,resource=configmaps,name=a,code=500,after=1")
        .expect("rule");
    cms.get("a").await.expect("the first get passes");
    let e = api_error(cms.get("a").await);
    assert_eq!((e.code, e.reason.as_str()), (500, "InternalError"));
    assert!(
        e.message
            .starts_with("Internal error occurred: injected by crd-server fault rule"),
        "{}",
        e.message
    );
    server.remove_fault(id);

    // 429 with Retry-After, 503 and 504 (seen by a client that does not retry them).
    let path = format!("/api/v1/namespaces/{ns}/configmaps/a");
    let c = no_retry_client(&server);
    server
        .add_fault("verb=get,name=a,code=429,count=1")
        .expect("rule");
    let (code, retry, body) = raw_get(&c, &path).await;
    assert_eq!((code, retry.as_deref()), (429, Some("1")), "{body}");
    let status: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(status["reason"], "TooManyRequests");
    assert_eq!(status["details"]["retryAfterSeconds"], 1);
    server
        .add_fault("verb=get,name=a,code=503,retry-after=2,count=1")
        .expect("rule");
    let (code, retry, body) = raw_get(&c, &path).await;
    assert_eq!((code, retry.as_deref()), (503, Some("2")), "{body}");
    server
        .add_fault("verb=get,name=a,code=504,count=1")
        .expect("rule");
    let (code, retry, body) = raw_get(&c, &path).await;
    assert_eq!((code, retry), (504, None), "{body}");
    let status: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(status["reason"], "Timeout");
    let (code, _, _) = raw_get(&c, &path).await;
    assert_eq!(code, 200, "every count is spent: untouched");
    // kube::Client retries them after Retry-After, as client-go does.
    let id = server
        .add_fault("verb=get,name=a,code=429,count=2")
        .expect("rule");
    cms.get("a").await.expect("kube::Client retried the 429s");
    assert_eq!(server.faults().injected(id), Some(2));

    // A delay holds the answer back.
    server
        .add_fault("verb=get,name=a,delay=300ms,count=1")
        .expect("rule");
    let t0 = Instant::now();
    cms.get("a").await.expect("a slow get");
    assert!(t0.elapsed() >= Duration::from_millis(300));

    // A watch ends after two events; a 410 on a watch is an ERROR event.
    create(&cms, "b").await;
    server
        .add_fault("verb=watch,resource=configmaps,close-after=2,count=1")
        .expect("rule");
    let events: Vec<_> = tokio::time::timeout(
        WAIT,
        cms.watch(&WatchParams::default(), "0")
            .await
            .expect("watch")
            .collect::<Vec<_>>(),
    )
    .await
    .expect("the stream ends after two events");
    assert_eq!(events.len(), 2, "{events:?}");
    server
        .add_fault("verb=watch,resource=configmaps,code=410,count=1")
        .expect("rule");
    let mut w = cms
        .watch(&WatchParams::default(), &rv(&a))
        .await
        .expect("watch")
        .boxed();
    match tokio::time::timeout(WAIT, w.next())
        .await
        .expect("an event")
    {
        Some(Ok(WatchEvent::Error(status))) => {
            assert_eq!((status.code, status.reason.as_str()), (410, "Expired"))
        }
        other => panic!("an ERROR event, not {other:?}"),
    }
    assert!(server.add_fault("verb=get,code=418").is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_retries_a_429_and_reports_a_500() {
    let server = TestServer::builder().start().await.expect("server");
    let ns = server.namespace().await.expect("namespace");
    let url = server.url();
    server
        .add_fault(&format!(
            "verb=list,resource=configmaps,namespace={ns},code=429,count=2"
        ))
        .expect("rule");
    let (u, n) = (url.clone(), ns.clone());
    let out =
        tokio::task::spawn_blocking(move || kubectl(&u, &["get", "configmaps", "-n", &n, "-v=6"]))
            .await
            .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(server.faults().rules().len(), 1);
    let id = server.faults().rules()[0].0;
    assert_eq!(
        server.faults().injected(id),
        Some(2),
        "kubectl retried twice"
    );
    server.faults().clear();

    server
        .add_fault(&format!(
            "verb=get,resource=configmaps,namespace={ns},code=500"
        ))
        .expect("rule");
    let err = tokio::task::spawn_blocking(move || {
        kubectl_err(&url, &["get", "configmap", "x", "-n", &ns])
    })
    .await
    .unwrap();
    assert!(
        err.contains("Error from server (InternalError): Internal error occurred: injected by crd-server fault rule"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_max_inflight_requests_get_429_and_watches_are_exempt() {
    let server = TestServer::builder()
        .max_inflight(1, 1)
        .fault("verb=get,resource=configmaps,name=slow,delay=2s")
        .start()
        .await
        .expect("server");
    let ns = server.namespace().await.expect("namespace");
    let c = no_retry_client(&server);
    let cms: Api<ConfigMap> = Api::namespaced(client(&server), &ns);
    create(&cms, "slow").await;
    // A watch holds no slot.
    let _watch = cms
        .watch(&WatchParams::default(), "0")
        .await
        .expect("watch");
    let slow = {
        let cms = cms.clone();
        tokio::spawn(async move { cms.get("slow").await })
    };
    // The slow get holds the one read-only slot for two seconds.
    let deadline = Instant::now() + WAIT;
    let (code, retry, body) = loop {
        let got = raw_get(&c, &format!("/api/v1/namespaces/{ns}/configmaps")).await;
        if got.0 == 429 || Instant::now() > deadline {
            break got;
        }
    };
    assert_eq!((code, retry.as_deref()), (429, Some("1")));
    assert_eq!(body, "Too many requests, please try again later.\n");
    // Mutating requests have their own slots.
    create(&cms, "other").await;
    // kube::Client waits as Retry-After says and tries again until the slot is free.
    cms.list(&ListParams::default())
        .await
        .expect("kube::Client retried the 429");
    slow.await.unwrap().expect("the slow get is served");
    cms.list(&ListParams::default())
        .await
        .expect("the slot is free again");
}

#[test]
fn the_binary_refuses_a_bad_rule_naming_its_key() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_crd-server"))
        .args([
            "--in-memory",
            "--listen",
            "127.0.0.1:0",
            "--fault",
            "verb=get,code=418",
        ])
        .output()
        .expect("run crd-server");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "fault rule \"verb=get,code=418\": code: 418 is not one of 409, 410, 429, 500, 503, 504"
        ),
        "{err}"
    );
}
