//! What extension servers say about themselves: the resources of their discovery
//! (`GET /apis/GROUP/VERSION`) and their OpenAPI (`/openapi/v2`, and the v3 document
//! of the group/version), read in the background whenever the APIServices change and
//! every 30 s — never while a client waits — and merged into the server's discovery
//! and OpenAPI. A server that stops answering keeps what it said last, marked stale.

use std::sync::{Arc, Weak};
use std::time::Duration;

use serde_json::{Map, Value};

use super::Aggregator;
use super::remote::Remote;

/// How long one read may take.
const TIMEOUT: Duration = Duration::from_secs(5);

/// What one extension server said.
#[derive(Clone, Debug, Default)]
pub struct Documents {
    /// The `resources` of its `APIResourceList`, if it ever answered.
    pub resources: Option<Vec<Value>>,
    /// Its last answer is its answer now (else the APIService is unavailable or the
    /// read failed: the aggregated discovery calls it `Stale`).
    pub fresh: bool,
    pub openapi_v2: Option<Value>,
    pub openapi_v3: Option<Value>,
}

/// Reads every remote server's documents when the table changes and every `every`,
/// until the aggregator is dropped.
pub async fn refresh_loop(this: Weak<Aggregator>, every: Duration) {
    loop {
        let (table, changed) = {
            let Some(agg) = this.upgrade() else { return };
            (agg.table(), agg.changed_signal())
        };
        for remote in table.all() {
            let docs = read(remote, this.upgrade().and_then(|a| a.documents(remote))).await;
            let Some(agg) = this.upgrade() else { return };
            agg.set_documents(&remote.name, docs);
        }
        tokio::select! {
            _ = changed.notified() => {}
            _ = tokio::time::sleep(every) => {}
        }
    }
}

/// `remote`'s documents now; `last` is what it said before.
async fn read(remote: &Remote, last: Option<Arc<Documents>>) -> Documents {
    let mut docs = last.map(|d| (*d).clone()).unwrap_or_default();
    docs.fresh = false;
    let Ok(client) = &remote.client else {
        return docs;
    };
    if !remote.available {
        return docs;
    }
    let get = |path: String| async move {
        match client.get_as_aggregator(&path, TIMEOUT).await {
            Ok((200..=299, body)) => serde_json::from_slice::<Value>(&body).ok(),
            _ => None,
        }
    };
    if let Some(list) = get(remote.discovery_path()).await
        && let Some(resources) = list.get("resources").and_then(Value::as_array)
    {
        docs.resources = Some(resources.clone());
        docs.fresh = true;
    }
    if let Some(v2) = get("/openapi/v2".into()).await {
        docs.openapi_v2 = Some(v2);
    }
    let key = format!("apis/{}/{}", remote.group, remote.version);
    let url = get("/openapi/v3".into()).await.and_then(|index| {
        index
            .pointer(&format!(
                "/paths/{}/serverRelativeURL",
                key.replace('/', "~1")
            ))
            .and_then(Value::as_str)
            .map(str::to_string)
    });
    if let Some(url) = url
        && let Some(v3) = get(url).await
    {
        docs.openapi_v3 = Some(v3);
    }
    docs
}

/// Adds the paths and definitions of every extension server's OpenAPI v2 document to
/// `doc` (the server's own win a clash).
pub fn merge_v2(doc: &mut Value, extensions: &[Arc<Documents>]) {
    for ext in extensions {
        let Some(v2) = &ext.openapi_v2 else { continue };
        for section in ["paths", "definitions"] {
            let Some(theirs) = v2.get(section).and_then(Value::as_object) else {
                continue;
            };
            if !doc.get(section).is_some_and(Value::is_object) {
                doc[section] = Value::Object(Map::new());
            }
            let Some(ours) = doc[section].as_object_mut() else {
                continue;
            };
            for (k, v) in theirs {
                ours.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
    }
}

/// The hash an index entry carries for `doc` (clients cache documents by it).
pub fn hash_of(doc: &Value) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    doc.to_string().hash(&mut h);
    format!("{:016X}", h.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn extension_paths_and_definitions_join_the_servers_own() {
        let mut doc = json!({"swagger": "2.0", "paths": {"/api/v1/pods": {}}, "definitions": {"a": {"type": "object"}}});
        let ext = Documents {
            openapi_v2: Some(json!({"paths": {"/apis/m.io/v1/nodemetrics": {"get": {}}},
                "definitions": {"a": {"type": "string"}, "io.m.v1.NodeMetrics": {}}})),
            ..Default::default()
        };
        merge_v2(&mut doc, &[Arc::new(ext)]);
        assert!(doc["paths"]["/apis/m.io/v1/nodemetrics"].is_object());
        assert_eq!(doc["definitions"]["a"]["type"], "object");
        assert!(doc["definitions"]["io.m.v1.NodeMetrics"].is_object());
    }
}
