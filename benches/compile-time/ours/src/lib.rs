//! The 20 benchmark CRD types of `../types/`, derived with crd-derive.
#![allow(missing_docs, clippy::upper_case_acronyms)]

use crd_runtime::CrdSchema as Schema;
use crd_runtime::CustomResource as Resource;

#[path = "../../types/mod.rs"]
pub mod types;

/// The CRDs of all 20 kinds (21 with feature `k8s`).
pub fn crds() -> Vec<crd_runtime::model::CustomResourceDefinition> {
    use crd_runtime::CustomResourceExt;
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
        for crd in &crds {
            crd_runtime::assert_valid_crd(crd);
        }
    }
}
