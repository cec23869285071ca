//! `kube://NAME` and `kube://`: CRDs read from a cluster with kube's client, through
//! the kubeconfig as kubectl reads it. The CLI is synchronous: each read runs on its
//! own current-thread runtime.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, ApiResource, DynamicObject, ListParams};
use kube::config::{KubeConfigOptions, Kubeconfig, KubeconfigError};
use serde_json::Value;

use super::{Document, Options, one_line};

/// The annotation `kubectl apply` keeps its last input in: the client's bookkeeping,
/// not part of the CRD.
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// Metadata the API server fills in; removed so that a CRD read from a cluster is the
/// manifest that was applied (as `kubectl get -o yaml` minus the server's bookkeeping).
const SERVER_METADATA: [&str; 8] = [
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "managedFields",
    "selfLink",
];

/// The CRD `name` (or every CRD with `None`), one JSON document each, named
/// `kube://NAME`, in the server's order (by name).
pub(super) fn read(name: Option<&str>, options: &Options) -> Result<Vec<Document>, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the client's runtime: {e}"))?;
    runtime.block_on(fetch(name, options))
}

async fn fetch(name: Option<&str>, options: &Options) -> Result<Vec<Document>, String> {
    let config = config(options).await?;
    let url = config.cluster_url.to_string();
    let url = url.trim_end_matches('/').to_string();
    let client = kube::Client::try_from(config)
        .map_err(|e| format!("cannot create a client for {url}: {}", one_line(&e)))?;
    let api: Api<DynamicObject> =
        Api::all_with(client, &ApiResource::erase::<CustomResourceDefinition>(&()));
    let objects = match name {
        Some(name) => vec![api.get(name).await.map_err(|e| request_error(&url, &e))?],
        None => {
            api.list(&ListParams::default())
                .await
                .map_err(|e| request_error(&url, &e))?
                .items
        }
    };
    objects.into_iter().map(document).collect()
}

/// The client configuration kubectl would use: `--kubeconfig` or `KUBECONFIG` /
/// `~/.kube/config`, at `--context` or the current context; without flags and without
/// a kubeconfig, the in-cluster service account.
async fn config(options: &Options) -> Result<kube::Config, String> {
    let kube_options = KubeConfigOptions {
        context: options.context.clone(),
        ..KubeConfigOptions::default()
    };
    let loaded = match &options.kubeconfig {
        Some(path) => {
            let kubeconfig = Kubeconfig::read_from(path).map_err(|e| kubeconfig_error(&e))?;
            kube::Config::from_custom_kubeconfig(kubeconfig, &kube_options).await
        }
        None => match kube::Config::from_kubeconfig(&kube_options).await {
            // No kubeconfig at all: inside a pod, its service account (as kubectl).
            Err(e) if options.context.is_none() && no_kubeconfig(&e) => {
                return kube::Config::incluster().map_err(|_| {
                    "no kubeconfig found (set KUBECONFIG, pass --kubeconfig FILE or \
                     create ~/.kube/config) and not running in a cluster"
                        .to_string()
                });
            }
            loaded => loaded,
        },
    };
    loaded.map_err(|e| kubeconfig_error(&e))
}

/// Whether `e` says there is no kubeconfig at all: no `KUBECONFIG` and no
/// `~/.kube/config` (kube reports the missing default file as unreadable).
fn no_kubeconfig(e: &KubeconfigError) -> bool {
    match e {
        KubeconfigError::FindPath => true,
        KubeconfigError::ReadConfig(io, _) => {
            io.kind() == std::io::ErrorKind::NotFound && std::env::var_os("KUBECONFIG").is_none()
        }
        _ => false,
    }
}

/// kubectl's wording where it has one.
fn kubeconfig_error(e: &KubeconfigError) -> String {
    match e {
        KubeconfigError::LoadContext(name) => format!("context \"{name}\" does not exist"),
        KubeconfigError::FindPath => "no kubeconfig found (set KUBECONFIG, pass \
             --kubeconfig FILE or create ~/.kube/config)"
            .to_string(),
        KubeconfigError::ReadConfig(io, path) => {
            format!("cannot read kubeconfig {}: {io}", path.display())
        }
        e => format!("kubeconfig: {}", one_line(e)),
    }
}

/// The server's own message for a refused request (`customresourcedefinitions...
/// "x" not found`, as kubectl prints it); the innermost cause when the cluster could
/// not be reached.
fn request_error(url: &str, e: &kube::Error) -> String {
    match e {
        kube::Error::Api(status) => status.message.clone(),
        kube::Error::HyperError(_) | kube::Error::Service(_) => {
            format!("cannot reach the cluster at {url}: {}", innermost(e))
        }
        e => format!("request to {url} failed: {}", one_line(e)),
    }
}

/// The root cause of `e` (`Connection refused (os error 111)`), which the wrappers
/// around it only restate.
fn innermost(e: &dyn std::error::Error) -> String {
    let mut cause = e;
    while let Some(next) = cause.source() {
        cause = next;
    }
    cause.to_string().replace('\n', " ")
}

/// The CRD as the JSON manifest that was applied: the server's metadata and `status`
/// removed, except `status.storedVersions` (the versions objects may still be stored
/// in, which `diff` needs to judge a removed version), `apiVersion` and `kind` set
/// (list items come without them).
fn document(object: DynamicObject) -> Result<Document, String> {
    let name = object.metadata.name.clone().unwrap_or_default();
    let mut value =
        serde_json::to_value(&object).map_err(|e| format!("{name}: cannot encode: {e}"))?;
    let Some(map) = value.as_object_mut() else {
        return Err(format!("{name}: the server returned a non-object"));
    };
    let stored = map
        .remove("status")
        .and_then(|status| status.get("storedVersions").cloned())
        .filter(|stored| stored.as_array().is_some_and(|list| !list.is_empty()));
    if let Some(stored) = stored {
        map.insert(
            "status".into(),
            Value::Object(
                [("storedVersions".to_string(), stored)]
                    .into_iter()
                    .collect(),
            ),
        );
    }
    map.insert("apiVersion".into(), Value::from("apiextensions.k8s.io/v1"));
    map.insert("kind".into(), Value::from("CustomResourceDefinition"));
    if let Some(Value::Object(meta)) = map.get_mut("metadata") {
        for key in SERVER_METADATA {
            meta.remove(key);
        }
        if let Some(Value::Object(annotations)) = meta.get_mut("annotations") {
            annotations.remove(LAST_APPLIED);
            if annotations.is_empty() {
                meta.remove("annotations");
            }
        }
    }
    let bytes = serde_json::to_vec(&value).map_err(|e| format!("{name}: cannot encode: {e}"))?;
    Ok(Document {
        name: format!("kube://{name}"),
        bytes,
    })
}
