//! What the garbage collector's tests share: a server with the test CRD, kube::Api on
//! any kind the tests use, objects with owner references, bounded waits.

use std::time::{Duration, Instant};

use crate::support::{self, test_crd::TestCrd};
use kube::api::{Api, ApiResource, DeleteParams, DynamicObject, GroupVersionKind, PostParams};
use serde_json::{Value, json};

/// How long a test waits for the garbage collector.
const WAIT: Duration = Duration::from_secs(10);
const GROUP: &str = "stable.example.com";

fn crd() -> String {
    TestCrd::new(GROUP, "CronTab")
        .yaml("{type: object, x-kubernetes-preserve-unknown-fields: true}")
}

pub(crate) async fn server(controllers: &str) -> crd_server::TestServer {
    crd_server::TestServer::builder()
        .crd_yaml(&crd())
        .controllers(controllers)
        .start()
        .await
        .expect("server")
}

pub(crate) fn client(server: &crd_server::TestServer) -> kube::Client {
    let uri: http::Uri = server.url().parse().unwrap();
    kube::Client::try_from(kube::Config::new(uri)).unwrap()
}

/// The resource of a kind the tests use.
fn resource(api_version: &str, kind: &str) -> ApiResource {
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    let plural = match kind {
        "ConfigMap" => "configmaps",
        "Secret" => "secrets",
        "Deployment" => "deployments",
        "Job" => "jobs",
        "Pod" => "pods",
        "ClusterRole" => "clusterroles",
        "Event" => "events",
        "CronTab" => "crontabs",
        other => panic!("no plural for {other}"),
    };
    ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk(group, version, kind), plural)
}

pub(crate) fn api(
    c: &kube::Client,
    ns: Option<&str>,
    api_version: &str,
    kind: &str,
) -> Api<DynamicObject> {
    let ar = resource(api_version, kind);
    match ns {
        Some(ns) => Api::namespaced_with(c.clone(), ns, &ar),
        None => Api::all_with(c.clone(), &ar),
    }
}

/// An object as the server answered it.
pub(crate) struct Obj {
    pub(crate) api_version: String,
    pub(crate) kind: String,
    pub(crate) ns: Option<String>,
    pub(crate) name: String,
    pub(crate) uid: String,
}

impl Obj {
    /// An owner reference to this object.
    pub(crate) fn owner_ref(&self, block: bool) -> Value {
        json!({"apiVersion": self.api_version, "kind": self.kind, "name": self.name,
               "uid": self.uid, "blockOwnerDeletion": block})
    }

    pub(crate) fn api(&self, c: &kube::Client) -> Api<DynamicObject> {
        api(c, self.ns.as_deref(), &self.api_version, &self.kind)
    }

    /// Deletes this object with `params`: the object as answered while it waits on
    /// finalizers, `None` when the answer is a `Status` (it went at once).
    pub(crate) async fn delete(
        &self,
        c: &kube::Client,
        params: &kube::api::DeleteParams,
    ) -> Option<DynamicObject> {
        self.api(c)
            .delete(&self.name, params)
            .await
            .unwrap_or_else(|e| panic!("delete {} {}: {e}", self.kind, self.name))
            .left()
    }

    pub(crate) async fn get(&self, c: &kube::Client) -> Option<Value> {
        let found = self.api(c).get_opt(&self.name).await.expect("get");
        found.map(|o| serde_json::to_value(o).unwrap())
    }
}

/// Creates `body` (apiVersion, kind, metadata.name, the rest) in `ns`.
pub(crate) async fn create(c: &kube::Client, ns: Option<&str>, body: Value) -> Obj {
    let api_version = body["apiVersion"].as_str().unwrap().to_string();
    let kind = body["kind"].as_str().unwrap().to_string();
    let obj: DynamicObject = serde_json::from_value(body).unwrap();
    let created = api(c, ns, &api_version, &kind)
        .create(&PostParams::default(), &obj)
        .await
        .unwrap_or_else(|e| panic!("create {kind}: {e}"));
    Obj {
        api_version,
        kind,
        ns: ns.map(str::to_string),
        name: created.metadata.name.unwrap(),
        uid: created.metadata.uid.unwrap(),
    }
}

pub(crate) async fn config_map(c: &kube::Client, ns: &str, name: &str, meta: Value) -> Obj {
    let mut metadata = json!({"name": name});
    merge(&mut metadata, meta);
    let body =
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": {"k": "v"}});
    create(c, Some(ns), body).await
}

pub(crate) async fn crontab(c: &kube::Client, ns: &str, name: &str, meta: Value) -> Obj {
    let mut metadata = json!({"name": name});
    merge(&mut metadata, meta);
    let body = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab", "metadata": metadata,
                      "spec": {"cronSpec": "* * * * */5"}});
    create(c, Some(ns), body).await
}

fn merge(into: &mut Value, from: Value) {
    if let (Value::Object(a), Value::Object(b)) = (into, from) {
        a.extend(b);
    }
}

pub(crate) fn owned_by(owners: &[&Obj]) -> Value {
    json!({"ownerReferences": owners.iter().map(|o| o.owner_ref(false)).collect::<Vec<_>>()})
}

/// Waits (at most [`WAIT`]) until `check` holds.
pub(crate) async fn wait_for<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = Instant::now() + WAIT;
    while !check().await {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

pub(crate) async fn wait_gone(c: &kube::Client, obj: &Obj) {
    let what = format!("{} {} to be gone", obj.kind, obj.name);
    wait_for(&what, || async { obj.get(c).await.is_none() }).await;
}

/// Lets the garbage collector catch up: a throw-away owner's dependent is collected,
/// so the attempts queued before it are done.
pub(crate) async fn settle(c: &kube::Client, ns: &str) {
    let n = uuid_like();
    let owner = config_map(c, ns, &format!("settle-{n}"), json!({})).await;
    let dep = config_map(c, ns, &format!("settle-dep-{n}"), owned_by(&[&owner])).await;
    owner
        .api(c)
        .delete(&owner.name, &DeleteParams::background())
        .await
        .unwrap();
    wait_gone(c, &dep).await;
}

fn uuid_like() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

pub(crate) async fn kubectl(url: &str, args: &[&str]) -> String {
    let (url, args): (String, Vec<String>) =
        (url.into(), args.iter().map(|a| a.to_string()).collect());
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        support::kubectl_ok(&url, &args)
    })
    .await
    .unwrap()
}

pub(crate) fn owner_uids(obj: &Value) -> Vec<String> {
    obj.pointer("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .map(|l| {
            l.iter()
                .map(|r| r["uid"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}
