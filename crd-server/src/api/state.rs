//! What every request handler shares: the store, the registry of kinds, the token and
//! the fault rules.

use std::sync::Arc;

use crate::api::kinds::Resource;
use crate::api::registry::Registry;
use crate::store::Store;

/// The API's shared state.
pub struct Shared {
    /// The store.
    pub store: Arc<dyn Store>,
    /// The served kinds.
    pub registry: Arc<Registry>,
    /// The admission plugins (webhooks, policies).
    pub admission: Arc<crate::api::admission::Admission>,
    /// Bearer token required on every request but health checks (`None`: no auth).
    pub token: Option<String>,
    /// Who is calling and what they may do.
    pub auth: Arc<crate::auth::Auth>,
    /// The fault rules applied to resource requests (`--fault`).
    pub faults: Arc<crate::faults::Faults>,
    /// The max-in-flight limits.
    pub inflight: crate::api::inflight::Limits,
    /// The APIServices served by extension API servers.
    pub aggregator: Arc<crate::api::aggregator::Aggregator>,
}

impl Shared {
    /// What admission reads of a write to `res`.
    pub fn backend<'a>(&'a self, res: &'a Resource) -> crate::api::admission::Backend<'a> {
        crate::api::admission::Backend {
            store: &self.store,
            registry: &self.registry,
            res,
        }
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        self.registry.stop();
    }
}
