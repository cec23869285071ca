//! The ServiceAccount controller, as kube-controller-manager's `serviceaccount`: a
//! `default` ServiceAccount in every active namespace, created again when deleted.

use std::sync::Arc;

use serde_json::json;

use super::{active, namespace_gone, per_namespace};
use crate::controllers::cache::Informer;
use crate::controllers::workload::resources::{NAMESPACES, SERVICE_ACCOUNTS};
use crate::controllers::workload::{Api, Next};

/// The component its writes come from.
pub const COMPONENT: &str = "serviceaccount-controller";
/// The ServiceAccount every namespace has.
pub const DEFAULT: &str = "default";

/// Runs the controller until aborted.
pub async fn run(api: Api) {
    let Some([namespaces, accounts]) = api.informers([NAMESPACES, SERVICE_ACCOUNTS]) else {
        return;
    };
    let sync = {
        let (api, accounts) = (api.clone(), accounts.clone());
        move |ns: String| {
            let (api, namespaces, accounts) = (api.clone(), namespaces.clone(), accounts.clone());
            async move { sync(&api, &namespaces, &accounts, &ns).await }
        }
    };
    per_namespace(&api, &accounts, DEFAULT, false, sync).await;
}

async fn sync(
    api: &Api,
    namespaces: &Informer,
    accounts: &Arc<Informer>,
    ns: &str,
) -> Result<Next, String> {
    if !namespaces.get("", ns).is_some_and(|n| active(&n)) || accounts.get(ns, DEFAULT).is_some() {
        return Ok(Next::Done);
    }
    let sa = json!({
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {"name": DEFAULT, "namespace": ns},
    });
    match api.create(accounts, ns, sa).await {
        Ok(_) => Ok(Next::Done),
        Err(e) if e.code == http::StatusCode::CONFLICT || namespace_gone(&e) => Ok(Next::Done),
        Err(e) => Err(e.message),
    }
}
