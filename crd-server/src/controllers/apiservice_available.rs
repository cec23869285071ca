//! kube-aggregator's `AvailableConditionController`: each APIService's `Available`
//! condition. A local APIService (no `service`) is always available; one served by a
//! Service is checked as upstream checks it — the Service exists (`ServiceNotFound`),
//! listens on the port (`ServicePortError`), has Endpoints (`EndpointsNotFound`) with an
//! address for that port (`MissingEndpoints`), and its server answers discovery
//! (`GET /apis/GROUP/VERSION`, `FailedDiscoveryCheck`) — then `Passed`. The server is
//! reached on 127.0.0.1 at the Service's port, its certificate verified as
//! `NAME.NAMESPACE.svc` with `caBundle` (or not at all with `insecureSkipTLSVerify`), as
//! crd-server reaches webhooks. Remote APIServices are checked again every 30 s and on
//! every change of the Service or Endpoints they name.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::mpsc;

use super::AbortOnDrop;
use super::client::{Client, Mutation};
use super::informer::{Change, follow};
use super::queue::Queue;
use crate::api::aggregator::remote::Remote;
use crate::api::kinds::crd::conditions::set_condition_status;
use crate::api::kinds::{Resource, Subresource};
use crate::api::object::{name_of, str_at};
use crate::api::state::Shared;
use crate::api::status::ApiError;
use crate::webhook_client::{CallError, ClientIdentity};

const PREFIX: &str = "/registry/apiregistration.k8s.io/apiservices/";
const RESYNC: Duration = Duration::from_secs(30);
const DISCOVERY_TIMEOUT: Duration = Duration::from_secs(6);

/// An `Available` condition: status, reason, message.
type Verdict = (&'static str, &'static str, String);

/// Runs the controller until the task is aborted.
pub async fn run(shared: Arc<Shared>) {
    let registry = &shared.registry;
    let (Some(apiservices), Some(services), Some(endpoints)) = (
        registry.resolve("apiregistration.k8s.io", "v1", "apiservices"),
        registry.resolve("", "v1", "services"),
        registry.resolve("", "v1", "endpoints"),
    ) else {
        return;
    };
    let (tx, mut rx) = mpsc::unbounded_channel();
    let mut followers = Vec::new();
    for prefix in [
        PREFIX,
        "/registry/services/specs/",
        "/registry/services/endpoints/",
    ] {
        let task = tokio::spawn(follow(shared.store.clone(), prefix.into(), tx.clone()));
        followers.push(AbortOnDrop(task.abort_handle()));
    }
    drop(tx);
    let controller = Available {
        // Part of kube-apiserver (kube-aggregator): its loopback identity.
        client: Client::new(shared.clone(), "kube-apiserver"),
        apiservices,
        services,
        endpoints,
    };
    let queue = Queue::<String>::new(RESYNC);
    let mut resync = tokio::time::interval(RESYNC);
    // The APIServices each Service (`namespace/name`) backs: a Service's or its
    // Endpoints' change rechecks those alone (Endpoints change often once workloads run).
    let mut backed_by: HashMap<String, HashSet<String>> = HashMap::new();
    loop {
        tokio::select! {
            biased;
            name = queue.get() => {
                match controller.sync(&name).await {
                    Ok(()) => queue.forget(&name),
                    Err(_) => queue.retry(name.clone()),
                }
                queue.done(&name);
            }
            change = rx.recv() => match change {
                Some(change @ (Change::Put { .. } | Change::Delete(_))) => {
                    let (kv, deleted) = match change {
                        Change::Put { kv, .. } => (kv, false),
                        Change::Delete(kv) => (kv, true),
                        Change::Synced(_) => continue,
                    };
                    if let Some(name) = kv.key.strip_prefix(PREFIX) {
                        for names in backed_by.values_mut() {
                            names.remove(name);
                        }
                        let service = serde_json::from_slice::<Value>(&kv.value)
                            .ok()
                            .and_then(|a| service_key(&a));
                        if let (false, Some(service)) = (deleted, service) {
                            backed_by.entry(service).or_default().insert(name.to_string());
                        }
                        queue.add(name.to_string());
                    } else if let Some(names) = object_key(&kv.key).and_then(|k| backed_by.get(k)) {
                        for name in names {
                            queue.add(name.clone());
                        }
                    }
                }
                Some(Change::Synced(_)) => {}
                None => return,
            },
            _ = resync.tick() => controller.enqueue_remote(&queue).await,
        }
    }
}

/// `namespace/name` of the Service an APIService names, if any.
fn service_key(apiservice: &Value) -> Option<String> {
    let s = apiservice
        .pointer("/spec/service")
        .filter(|s| s.is_object())?;
    Some(format!(
        "{}/{}",
        str_at(s, "/namespace"),
        str_at(s, "/name")
    ))
}

/// `namespace/name` of a Service's or Endpoints' store key.
fn object_key(key: &str) -> Option<&str> {
    key.strip_prefix("/registry/services/specs/")
        .or_else(|| key.strip_prefix("/registry/services/endpoints/"))
}

struct Available {
    client: Client,
    apiservices: Resource,
    services: Resource,
    endpoints: Resource,
}

impl Available {
    async fn enqueue_remote(&self, queue: &Queue<String>) {
        if let Ok(all) = self.client.list(&self.apiservices, None).await {
            for a in all
                .iter()
                .filter(|a| a.pointer("/spec/service").is_some_and(Value::is_object))
            {
                queue.add(name_of(a).to_string());
            }
        }
    }

    async fn sync(&self, name: &str) -> Result<(), ApiError> {
        let Some(apiservice) = self.client.get(&self.apiservices, None, name).await? else {
            return Ok(());
        };
        let (status, reason, message) = self.check(&apiservice).await;
        let now = status;
        self.client
            .update(
                &self.apiservices,
                None,
                name,
                Subresource::Status,
                |current| {
                    let mut next = current.clone();
                    set_available(&mut next, now, reason, &message);
                    if next == *current {
                        Mutation::Keep
                    } else {
                        Mutation::Write(next)
                    }
                },
            )
            .await?;
        Ok(())
    }

    /// The `Available` condition `apiservice` has now.
    async fn check(&self, apiservice: &Value) -> Verdict {
        let Some(service) = apiservice
            .pointer("/spec/service")
            .filter(|s| s.is_object())
        else {
            return (
                "True",
                "Local",
                "Local APIServices are always available".into(),
            );
        };
        let (ns, name) = (str_at(service, "/namespace"), str_at(service, "/name"));
        let port = service.get("port").and_then(Value::as_i64).unwrap_or(443);
        let svc = match self.client.get(&self.services, Some(ns), name).await {
            Ok(Some(svc)) => svc,
            Ok(None) => {
                return (
                    "False",
                    "ServiceNotFound",
                    format!("service/{name} in {ns:?} is not present"),
                );
            }
            Err(e) => {
                return (
                    "Unknown",
                    "ServiceAccessError",
                    format!(
                        "service/{name} in {ns:?} cannot be checked due to: {}",
                        e.message
                    ),
                );
            }
        };
        let cluster_ip = matches!(
            svc.pointer("/spec/type").and_then(Value::as_str),
            None | Some("ClusterIP")
        );
        if cluster_ip {
            let ports = svc.pointer("/spec/ports").and_then(Value::as_array);
            let Some(port_name) = ports
                .into_iter()
                .flatten()
                .find(|p| p.get("port").and_then(Value::as_i64) == Some(port))
                .map(|p| str_at(p, "/name").to_string())
            else {
                return (
                    "False",
                    "ServicePortError",
                    format!("service/{name} in {ns:?} is not listening on port {port}"),
                );
            };
            let eps = match self.client.get(&self.endpoints, Some(ns), name).await {
                Ok(Some(eps)) => eps,
                Ok(None) => {
                    return (
                        "False",
                        "EndpointsNotFound",
                        format!("cannot find endpoints for service/{name} in {ns:?}"),
                    );
                }
                Err(e) => {
                    return (
                        "Unknown",
                        "EndpointsAccessError",
                        format!(
                            "service/{name} in {ns:?} cannot be checked due to: {}",
                            e.message
                        ),
                    );
                }
            };
            let active = eps
                .pointer("/subsets")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .any(|s| {
                    s.pointer("/addresses")
                        .and_then(Value::as_array)
                        .is_some_and(|a| !a.is_empty())
                        && s.pointer("/ports")
                            .and_then(Value::as_array)
                            .into_iter()
                            .flatten()
                            .any(|p| str_at(p, "/name") == port_name)
                });
            if !active {
                return (
                    "False",
                    "MissingEndpoints",
                    format!(
                        "endpoints for service/{name} in {ns:?} have no addresses with port name {port_name:?}"
                    ),
                );
            }
        }
        let identity = self.client.shared().aggregator.identity();
        match discovery(apiservice, identity, ns, name, port).await {
            Ok(()) => ("True", "Passed", "all checks passed".into()),
            Err(message) => ("False", "FailedDiscoveryCheck", message),
        }
    }
}

/// `GET /apis/GROUP/VERSION` (`/api/v1` for `v1.`) of the service's server, as
/// `system:kube-aggregator` in `system:masters` over the proxy's client certificate.
async fn discovery(
    apiservice: &Value,
    identity: Option<&ClientIdentity>,
    ns: &str,
    name: &str,
    port: i64,
) -> Result<(), String> {
    let (group, version) = (
        str_at(apiservice, "/spec/group"),
        str_at(apiservice, "/spec/version"),
    );
    let path = if name_of(apiservice) == "v1." {
        format!("/api/{version}")
    } else {
        format!("/apis/{group}/{version}")
    };
    let url = format!("https://{name}.{ns}.svc:{port}{path}");
    let client = match Remote::of(apiservice, identity).map(|r| r.client) {
        Some(Ok(client)) => client,
        Some(Err(e)) => return Err(format!("failing or missing response from {url}: {e}")),
        None => return Ok(()),
    };
    match client.get_as_aggregator(&path, DISCOVERY_TIMEOUT).await {
        Ok((code, _)) if (200..300).contains(&code) => Ok(()),
        Ok((code, _)) | Err(CallError::Status(code, _)) => Err(format!(
            "failing or missing response from {url}: bad status from {url}: {code}"
        )),
        Err(CallError::TimedOut) => Err(format!("timed out waiting for {url}")),
        Err(CallError::Transport(e)) => Err(format!(
            "failing or missing response from {url}: Get {url:?}: {e}"
        )),
    }
}

/// Sets the `Available` condition as `SetAPIServiceCondition` does: the transition time
/// moves only when the status does.
fn set_available(obj: &mut Value, status: &str, reason: &str, message: &str) {
    set_condition_status(obj, "Available", status, reason, message);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_service_change_is_traced_to_the_apiservices_it_backs() {
        let remote = json!({"spec": {"service": {"namespace": "monitoring", "name": "metrics"}}});
        assert_eq!(service_key(&remote).as_deref(), Some("monitoring/metrics"));
        assert_eq!(service_key(&json!({"spec": {"group": "apps"}})), None);
        assert_eq!(
            object_key("/registry/services/endpoints/monitoring/metrics"),
            Some("monitoring/metrics")
        );
        assert_eq!(
            object_key("/registry/services/specs/monitoring/metrics"),
            Some("monitoring/metrics")
        );
    }

    #[test]
    fn the_condition_moves_its_time_only_with_its_status() {
        let mut a = json!({});
        set_available(
            &mut a,
            "False",
            "ServiceNotFound",
            "service/m in \"ns\" is not present",
        );
        let first = a["status"]["conditions"][0]["lastTransitionTime"].clone();
        a["status"]["conditions"][0]["lastTransitionTime"] = json!("2020-01-01T00:00:00Z");
        set_available(&mut a, "False", "MissingEndpoints", "x");
        assert_eq!(
            a["status"]["conditions"][0]["lastTransitionTime"],
            "2020-01-01T00:00:00Z"
        );
        assert_eq!(a["status"]["conditions"][0]["reason"], "MissingEndpoints");
        set_available(&mut a, "True", "Passed", "all checks passed");
        assert_ne!(
            a["status"]["conditions"][0]["lastTransitionTime"],
            "2020-01-01T00:00:00Z"
        );
        assert!(first.is_string());
    }
}
