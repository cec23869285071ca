//! The 20 benchmark CRD types of `../types/`, derived with kube-derive 5.
#![allow(missing_docs, clippy::upper_case_acronyms)]
// clippy reads two `printcolumn(.., type_ = "string", ..)` in one `#[kube(..)]` as a
// duplicated attribute; they are arguments of different columns.
#![allow(clippy::duplicated_attributes)]

use kube::CustomResource as Resource;
use schemars::JsonSchema as Schema;

#[path = "../../types/mod.rs"]
pub mod types;

/// The CRDs of all 20 kinds (21 with feature `k8s`).
pub fn crds()
-> Vec<k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition>
{
    use kube::CustomResourceExt;
    #[allow(unused_mut)]
    let mut crds = types::all_crds!();
    #[cfg(feature = "k8s")]
    crds.push(types::Workload::crd());
    crds
}

#[cfg(test)]
mod tests {
    #[test]
    fn all_twenty_crds_are_valid() {
        let crds = super::crds();
        assert_eq!(crds.len(), if cfg!(feature = "k8s") { 21 } else { 20 });
        // kube-derive has no checker: at least every CRD serializes with a schema.
        for crd in &crds {
            let v = serde_json::to_value(crd).unwrap();
            assert!(v["spec"]["versions"][0]["schema"]["openAPIV3Schema"].is_object());
        }
    }
}
