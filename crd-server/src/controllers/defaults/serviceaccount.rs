//! The ServiceAccount controller, as kube-controller-manager's `serviceaccount`: a
//! `default` ServiceAccount in every active namespace, created again when deleted.

use std::sync::Arc;

use serde_json::json;

use super::{active, namespace_gone, per_namespace};
use crate::controllers::cache::Informer;
use crate::controllers::workload::resources::{NAMESPACES, SERVICE_ACCOUNTS};
use crate::controllers::workload::{Api, Next, Reconciler, each_key};

/// The component its writes come from.
pub const COMPONENT: &str = "serviceaccount-controller";
/// The ServiceAccount every namespace has.
pub const DEFAULT: &str = "default";

/// Runs the controller until aborted.
pub async fn run(api: Api) {
    let Some([namespaces, accounts]) = api.informers([NAMESPACES, SERVICE_ACCOUNTS]) else {
        return;
    };
    let c = Controller {
        api: api.clone(),
        namespaces,
        accounts: accounts.clone(),
    };
    per_namespace(&api, &accounts, DEFAULT, false, each_key(Arc::new(c))).await;
}

struct Controller {
    api: Api,
    namespaces: Arc<Informer>,
    accounts: Arc<Informer>,
}

impl Reconciler for Controller {
    /// A pass over the namespace `ns`.
    async fn sync(&self, ns: &str) -> Result<Next, String> {
        let active_ns = self.namespaces.get("", ns).is_some_and(|n| active(&n));
        if !active_ns || self.accounts.get(ns, DEFAULT).is_some() {
            return Ok(Next::Done);
        }
        let sa = json!({
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": {"name": DEFAULT, "namespace": ns},
        });
        match self.api.create(&self.accounts, ns, sa).await {
            Ok(_) => Ok(Next::Done),
            Err(e) if e.code == http::StatusCode::CONFLICT || namespace_gone(&e) => Ok(Next::Done),
            Err(e) => Err(e.message),
        }
    }
}
