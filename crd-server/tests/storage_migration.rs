//! Storage version migration on the embedded store and on a real etcd: objects stored
//! in v1 are rewritten in v2 by a StorageVersionMigration while other clients write,
//! none of those writes is lost, `status.storedVersions` is trimmed once every object
//! is in v2 — and not when the migration fails. The off-by-default trigger creates the
//! migration by itself when a CRD's storage version moves.

mod support;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use crd_server::{Config, RunningServer, StoreConfig};
use kube::api::{Api, ApiResource, DynamicObject, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

const PREFIX: &str = "/registry/example.com/widgets/";

/// The Widget CRD: stored in `storage`, serving v1 (and v2 once `storage` is v2).
fn crd(storage: &str) -> Value {
    let schema = json!({"openAPIV3Schema": {"type": "object", "properties": {
        "spec": {"type": "object", "properties": {"size": {"type": "integer"}}}}}});
    let mut versions =
        vec![json!({"name": "v1", "served": true, "storage": storage == "v1", "schema": schema})];
    if storage == "v2" {
        versions.push(json!({"name": "v2", "served": true, "storage": true, "schema": schema}));
    }
    json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
                 "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
                 "versions": versions}
    })
}

fn widgets(client: &kube::Client, version: &str) -> Api<DynamicObject> {
    let gvk = kube::api::GroupVersionKind::gvk("example.com", version, "Widget");
    let ar = ApiResource::from_gvk_with_plural(&gvk, "widgets");
    Api::namespaced_with(client.clone(), "default", &ar)
}

fn widget(version: &str, name: &str, size: i64) -> DynamicObject {
    serde_json::from_value(json!({
        "apiVersion": format!("example.com/{version}"), "kind": "Widget",
        "metadata": {"name": name, "namespace": "default"}, "spec": {"size": size}
    }))
    .expect("a widget")
}

async fn start(store: StoreConfig, controllers: &str) -> RunningServer {
    let config = Config {
        listen: SocketAddr::from(([127, 0, 0, 1], 0)),
        store,
        crds: vec![serde_json::from_value(crd("v1")).expect("crd")],
        controllers: controllers.parse().expect("controllers"),
        ..Config::default()
    };
    crd_server::start(config).await.expect("server")
}

fn client(server: &RunningServer) -> kube::Client {
    kube::Client::try_from(kube::Config::new(server.url().parse().expect("url"))).expect("client")
}

/// Polls `check` every 50 ms for up to 20 s.
async fn eventually<T>(what: &str, mut check: impl AsyncFnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(v) = check().await {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn get_json(client: &kube::Client, path: &str) -> Value {
    let request = http::Request::get(path).body(Vec::new()).expect("request");
    client.request::<Value>(request).await.expect(path)
}

async fn post_json(client: &kube::Client, path: &str, body: Value) -> Result<Value, kube::Error> {
    let request = http::Request::post(path)
        .header("content-type", "application/json")
        .body(serde_json::to_vec(&body).expect("body"))
        .expect("request");
    client.request::<Value>(request).await
}

async fn put_json(client: &kube::Client, path: &str, body: Value) -> Value {
    let request = http::Request::put(path)
        .header("content-type", "application/json")
        .body(serde_json::to_vec(&body).expect("body"))
        .expect("request");
    client.request::<Value>(request).await.expect(path)
}

const CRD_PATH: &str =
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com";
const SVM_PATH: &str = "/apis/storagemigration.k8s.io/v1/storageversionmigrations";

/// Moves the CRD's storage version to v2.
async fn put_v2_storage(client: &kube::Client) {
    let mut current = get_json(client, CRD_PATH).await;
    current["spec"]["versions"] = crd("v2")["spec"]["versions"].clone();
    put_json(client, CRD_PATH, current).await;
}

/// [`put_v2_storage`], returning once storedVersions lists both.
async fn move_storage_to_v2(client: &kube::Client) {
    put_v2_storage(client).await;
    eventually("storedVersions [v1, v2]", async || {
        let crd = get_json(client, CRD_PATH).await;
        (crd["status"]["storedVersions"] == json!(["v1", "v2"])).then_some(())
    })
    .await;
}

/// The `apiVersion` of every stored widget, by name.
async fn stored_versions(server: &RunningServer) -> Vec<(String, String)> {
    let listed = server
        .store()
        .list(PREFIX, Default::default())
        .await
        .expect("list the store");
    listed
        .items
        .iter()
        .map(|kv| {
            let v: Value = serde_json::from_slice(&kv.value).expect("stored JSON");
            (
                v["metadata"]["name"].as_str().unwrap_or("").to_string(),
                v["apiVersion"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn condition<'a>(obj: &'a Value, kind: &str) -> &'a Value {
    obj["status"]["conditions"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["type"] == kind))
        .unwrap_or(&Value::Null)
}

/// The CRD once its `StorageMigrating` condition is back to `False` (the migration's
/// end is recorded on it after the migration's own status).
async fn crd_after_migration(client: &kube::Client) -> Value {
    eventually("StorageMigrating False on the CRD", async || {
        let crd = get_json(client, CRD_PATH).await;
        (condition(&crd, "StorageMigrating")["status"] == "False").then_some(crd)
    })
    .await
}

/// The migration's object once it has finished (Succeeded or Failed).
async fn finished(client: &kube::Client, name: &str) -> Value {
    let path = format!("{SVM_PATH}/{name}");
    eventually("the migration to finish", async || {
        let m = get_json(client, &path).await;
        let done = ["Succeeded", "Failed"]
            .iter()
            .any(|k| condition(&m, k)["status"] == "True");
        done.then_some(m)
    })
    .await
}

async fn migrates_while_others_write(store: StoreConfig) {
    let server = start(
        store,
        "garbagecollector,namespace,customresourcecleanup,storage-version-migrator-controller",
    )
    .await;
    let client = client(&server);
    let v1 = widgets(&client, "v1");
    for i in 0..120 {
        v1.create(&PostParams::default(), &widget("v1", &format!("w{i}"), i))
            .await
            .expect("create in v1");
    }
    move_storage_to_v2(&client).await;
    assert!(
        stored_versions(&server)
            .await
            .iter()
            .all(|(_, v)| v == "example.com/v1")
    );

    // Writers race the migration: new objects in v2, patches of old ones.
    let writers = {
        let v2 = widgets(&client, "v2");
        tokio::spawn(async move {
            for i in 0..40 {
                v2.create(&PostParams::default(), &widget("v2", &format!("new{i}"), i))
                    .await
                    .expect("create in v2");
                let patch = Patch::Merge(json!({"spec": {"size": 1000 + i}}));
                v2.patch(&format!("w{i}"), &PatchParams::default(), &patch)
                    .await
                    .expect("patch during the migration");
            }
        })
    };
    let migration = json!({
        "apiVersion": "storagemigration.k8s.io/v1", "kind": "StorageVersionMigration",
        "metadata": {"name": "widgets-to-v2"},
        "spec": {"resource": {"group": "example.com", "resource": "widgets"}}
    });
    post_json(&client, SVM_PATH, migration)
        .await
        .expect("create the migration");
    writers.await.expect("writers");
    let m = finished(&client, "widgets-to-v2").await;

    assert_eq!(condition(&m, "Succeeded")["status"], "True", "{m:#}");
    assert_eq!(
        condition(&m, "Succeeded")["reason"],
        "StorageVersionMigrationSucceeded"
    );
    assert_eq!(condition(&m, "Running")["status"], "False");
    assert_eq!(condition(&m, "Running")["reason"], "MigrationCompleted");
    assert_eq!(condition(&m, "Running")["observedGeneration"], 1);
    assert!(
        m["status"]["resourceVersion"]
            .as_str()
            .is_some_and(|rv| rv.parse::<u64>().is_ok())
    );

    let stored = stored_versions(&server).await;
    assert_eq!(stored.len(), 160, "every object is still there");
    let old: Vec<_> = stored
        .iter()
        .filter(|(_, v)| v != "example.com/v2")
        .collect();
    assert!(
        old.is_empty(),
        "stored in an old version after the migration: {old:?}"
    );
    let v2 = widgets(&client, "v2");
    for i in 0..40 {
        let w = v2.get(&format!("w{i}")).await.expect("get");
        assert_eq!(
            w.data["spec"]["size"],
            1000 + i,
            "a write during the migration was lost"
        );
    }
    for i in 40..120 {
        let w = v2.get(&format!("w{i}")).await.expect("get");
        assert_eq!(w.data["spec"]["size"], i);
    }

    let crd = crd_after_migration(&client).await;
    assert_eq!(crd["status"]["storedVersions"], json!(["v2"]));
    let migrating = condition(&crd, "StorageMigrating");
    assert_eq!(migrating["status"], "False");
    assert_eq!(migrating["reason"], "MigrationSucceeded");
    assert_eq!(
        migrating["message"],
        "The migration has succeeded and the stored versions have been updated"
    );
    // With every object in v2, v1 can go.
    let mut only_v2 = crd.clone();
    only_v2["spec"]["versions"] = json!([crd["spec"]["versions"][1].clone()]);
    put_json(&client, CRD_PATH, only_v2).await;
    assert_eq!(
        v2.list(&Default::default())
            .await
            .expect("list")
            .items
            .len(),
        160
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn migration_on_the_embedded_store() {
    let dir = tempfile::tempdir().expect("tempdir");
    migrates_while_others_write(StoreConfig::DataDir(dir.path().to_path_buf())).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn migration_on_etcd() {
    let etcd = support::Etcd::start().await;
    migrates_while_others_write(StoreConfig::Etcd(vec![etcd.url.clone()])).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_migration_keeps_the_stored_versions() {
    let server = start(StoreConfig::InMemory, "storage-version-migrator-controller").await;
    let client = client(&server);
    let v1 = widgets(&client, "v1");
    v1.create(&PostParams::default(), &widget("v1", "w0", 1))
        .await
        .expect("create");
    move_storage_to_v2(&client).await;
    // An admission policy refuses every update of a widget: the rewrite of w0 fails
    // with an error that is neither a conflict nor a 404.
    let policy = json!({
        "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "frozen-widgets"},
        "spec": {"failurePolicy": "Fail",
                 "matchConstraints": {"resourceRules": [{"apiGroups": ["example.com"],
                     "apiVersions": ["*"], "operations": ["UPDATE"], "resources": ["widgets"]}]},
                 "validations": [{"expression": "false", "message": "widgets are frozen"}]}
    });
    let binding = json!({
        "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": "frozen-widgets"},
        "spec": {"policyName": "frozen-widgets", "validationActions": ["Deny"]}
    });
    let vap = "/apis/admissionregistration.k8s.io/v1";
    post_json(
        &client,
        &format!("{vap}/validatingadmissionpolicies"),
        policy,
    )
    .await
    .expect("policy");
    post_json(
        &client,
        &format!("{vap}/validatingadmissionpolicybindings"),
        binding,
    )
    .await
    .expect("binding");
    let v2 = widgets(&client, "v2");
    eventually("the policy to refuse updates", async || {
        let patch = Patch::Merge(json!({"metadata": {"labels": {"probe": "x"}}}));
        v2.patch("w0", &PatchParams::default(), &patch)
            .await
            .is_err()
            .then_some(())
    })
    .await;
    let migration = json!({
        "apiVersion": "storagemigration.k8s.io/v1", "kind": "StorageVersionMigration",
        "metadata": {"name": "doomed"},
        "spec": {"resource": {"group": "example.com", "resource": "widgets"}}
    });
    post_json(&client, SVM_PATH, migration)
        .await
        .expect("create the migration");
    let m = finished(&client, "doomed").await;
    assert_eq!(condition(&m, "Failed")["status"], "True", "{m:#}");
    assert_eq!(
        condition(&m, "Failed")["message"],
        "migration encountered unhandled error"
    );
    let crd = crd_after_migration(&client).await;
    assert_eq!(crd["status"]["storedVersions"], json!(["v1", "v2"]));
    assert_eq!(
        condition(&crd, "StorageMigrating")["reason"],
        "MigrationFailed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_conversion_webhook_fails_the_migration() {
    let mut webhooks = crd_server::ConversionWebhooks::default();
    webhooks.insert(
        "widgets.example.com",
        std::sync::Arc::new(|_: &[u8]| Err("the converter is down".to_string())),
    );
    let config = Config {
        listen: SocketAddr::from(([127, 0, 0, 1], 0)),
        store: StoreConfig::InMemory,
        crds: vec![serde_json::from_value(crd("v1")).expect("crd")],
        controllers: "storage-version-migrator-controller"
            .parse()
            .expect("controllers"),
        conversion_webhooks: webhooks,
        ..Config::default()
    };
    let server = crd_server::start(config).await.expect("server");
    let client = client(&server);
    widgets(&client, "v1")
        .create(&PostParams::default(), &widget("v1", "w0", 1))
        .await
        .expect("create");
    // v2 becomes the storage version, converted by the (failing) webhook.
    let mut current = get_json(&client, CRD_PATH).await;
    current["spec"]["versions"] = crd("v2")["spec"]["versions"].clone();
    current["spec"]["conversion"] = json!({"strategy": "Webhook", "webhook": {
        "conversionReviewVersions": ["v1"],
        "clientConfig": {"url": "https://127.0.0.1:1/convert"}}});
    put_json(&client, CRD_PATH, current).await;
    let migration = json!({
        "apiVersion": "storagemigration.k8s.io/v1", "kind": "StorageVersionMigration",
        "metadata": {"name": "unconvertible"},
        "spec": {"resource": {"group": "example.com", "resource": "widgets"}}
    });
    post_json(&client, SVM_PATH, migration)
        .await
        .expect("create the migration");
    let m = finished(&client, "unconvertible").await;
    assert_eq!(condition(&m, "Failed")["status"], "True", "{m:#}");
    let crd = crd_after_migration(&client).await;
    assert_eq!(crd["status"]["storedVersions"], json!(["v1", "v2"]));
    assert!(
        stored_versions(&server)
            .await
            .iter()
            .all(|(_, v)| v == "example.com/v1")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_trigger_migrates_when_the_storage_version_moves() {
    let server = start(
        StoreConfig::InMemory,
        "storage-version-migrator-controller,storage-version-migration-trigger",
    )
    .await;
    let client = client(&server);
    let v1 = widgets(&client, "v1");
    for i in 0..10 {
        v1.create(&PostParams::default(), &widget("v1", &format!("w{i}"), i))
            .await
            .expect("create");
    }
    // The trigger may finish before storedVersions is seen listing both.
    put_v2_storage(&client).await;
    eventually(
        "storedVersions trimmed by the triggered migration",
        async || {
            let crd = get_json(&client, CRD_PATH).await;
            (crd["status"]["storedVersions"] == json!(["v2"])).then_some(())
        },
    )
    .await;
    let m = get_json(&client, &format!("{SVM_PATH}/widgets.example.com-2")).await;
    assert_eq!(condition(&m, "Succeeded")["status"], "True");
    assert!(
        stored_versions(&server)
            .await
            .iter()
            .all(|(_, v)| v == "example.com/v2")
    );
}

#[test]
fn the_trigger_is_off_unless_named() {
    let all: crd_server::Controllers = "*".parse().expect("*");
    assert!(all.enabled("storage-version-migrator-controller"));
    assert!(!all.enabled("storage-version-migration-trigger"));
    let named: crd_server::Controllers = "*,storage-version-migration-trigger"
        .parse()
        .expect("named");
    assert!(named.enabled("storage-version-migration-trigger"));
}
