//! The `(group, resource)` of each kind the controllers follow, as
//! [`super::Api::informers`] takes them.

/// A `(group, resource)` pair; the core group is `""`.
pub type Resource = (&'static str, &'static str);

pub const PODS: Resource = ("", "pods");
pub const NODES: Resource = ("", "nodes");
pub const SERVICES: Resource = ("", "services");
pub const ENDPOINTS: Resource = ("", "endpoints");
pub const CLAIMS: Resource = ("", "persistentvolumeclaims");
pub const VOLUMES: Resource = ("", "persistentvolumes");
pub const NAMESPACES: Resource = ("", "namespaces");
pub const SERVICE_ACCOUNTS: Resource = ("", "serviceaccounts");
pub const DEPLOYMENTS: Resource = ("apps", "deployments");
pub const REPLICA_SETS: Resource = ("apps", "replicasets");
pub const STATEFUL_SETS: Resource = ("apps", "statefulsets");
pub const DAEMON_SETS: Resource = ("apps", "daemonsets");
pub const REVISIONS: Resource = ("apps", "controllerrevisions");
pub const JOBS: Resource = ("batch", "jobs");
pub const CRON_JOBS: Resource = ("batch", "cronjobs");
pub const BUDGETS: Resource = ("policy", "poddisruptionbudgets");
pub const ENDPOINT_SLICES: Resource = ("discovery.k8s.io", "endpointslices");
pub const LEASES: Resource = ("coordination.k8s.io", "leases");
pub const STORAGE_CLASSES: Resource = ("storage.k8s.io", "storageclasses");
