//! The typed CRD model (`apiextensions.k8s.io/v1`), plus the v1beta1 reader.

mod crd;
mod either;
mod grow;
mod preexisting;
mod schema;
mod schema_traits;
mod v1beta1;

pub use crd::*;
pub use preexisting::PreexistingExpressions;
pub use schema::*;
pub use v1beta1::CustomResourceDefinitionV1Beta1;

/// The CronTab CRD of the Kubernetes documentation (`stable.example.com`, namespaced)
/// with `versions`, for tests.
#[cfg(all(test, any(feature = "engine", feature = "kube")))]
pub(crate) fn crontab_crd(versions: serde_json::Value) -> CustomResourceDefinition {
    serde_json::from_value(serde_json::json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "crontabs.stable.example.com"},
        "spec": {
            "group": "stable.example.com",
            "scope": "Namespaced",
            "names": {
                "plural": "crontabs", "singular": "crontab", "kind": "CronTab",
                "shortNames": ["ct"]
            },
            "versions": versions
        }
    }))
    .expect("a CRD")
}
