//! What k8s-pb 0.9.0 (Kubernetes 1.35) cannot tell about the 1.37 definitions: the
//! types and fields added since, with the patch struct tags their upstream Go types
//! (k8s.io/api) declare, and the proto fields 1.37 no longer has. The generator checks
//! every entry against both sources, so the lists cannot go stale silently.

/// Definitions of 1.37 without a k8s-pb message (their fields' markers are below).
pub const DEFINITIONS: &[&str] = &[
    // kube-aggregator's, which the generator's proto reader does not walk.
    "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService",
    "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIServiceCondition",
    "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIServiceSpec",
    "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIServiceStatus",
    "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.ServiceReference",
    "io.k8s.api.admissionregistration.v1.ApplyConfiguration",
    "io.k8s.api.admissionregistration.v1.JSONPatch",
    "io.k8s.api.admissionregistration.v1.MutatingAdmissionPolicy",
    "io.k8s.api.admissionregistration.v1.MutatingAdmissionPolicyBinding",
    "io.k8s.api.admissionregistration.v1.MutatingAdmissionPolicyBindingSpec",
    "io.k8s.api.admissionregistration.v1.MutatingAdmissionPolicySpec",
    "io.k8s.api.admissionregistration.v1.Mutation",
    "io.k8s.api.batch.v1.JobSchedulingConfiguration",
    "io.k8s.api.core.v1.EvictionResponder",
    "io.k8s.api.core.v1.ImageVolumeStatus",
    "io.k8s.api.core.v1.NodeAllocatableMappedResources",
    "io.k8s.api.core.v1.NodeAllocatableOverheadResources",
    "io.k8s.api.core.v1.NodeAllocatableResourceClaimStatus",
    "io.k8s.api.core.v1.NodePodPreemptionPolicy",
    "io.k8s.api.core.v1.PodSchedulingGroup",
    "io.k8s.api.core.v1.PodVolumeHealth",
    "io.k8s.api.core.v1.VolumeHealthCondition",
    "io.k8s.api.core.v1.VolumeHealthStatus",
    "io.k8s.api.core.v1.VolumeStatus",
    "io.k8s.api.scheduling.v1alpha3.TopologyConstraint",
    "io.k8s.api.storagemigration.v1.StorageVersionMigration",
    "io.k8s.api.storagemigration.v1.StorageVersionMigrationSpec",
    "io.k8s.api.storagemigration.v1.StorageVersionMigrationStatus",
    "io.k8s.api.scheduling.v1alpha3.WorkloadPodGroupDisruptionMode",
    "io.k8s.api.scheduling.v1alpha3.WorkloadPodGroupGangSchedulingPolicy",
    "io.k8s.api.scheduling.v1alpha3.WorkloadPodGroupResourceClaim",
    "io.k8s.api.scheduling.v1alpha3.WorkloadPodGroupSchedulingConstraints",
    "io.k8s.api.scheduling.v1alpha3.WorkloadPodGroupSchedulingPolicy",
];

/// Fields without a k8s-pb counterpart that carry patch tags upstream:
/// (definition, JSON name, `patchStrategy`, `patchMergeKey`).
pub const MARKERS: &[(&str, &str, &str, &str)] = &[
    (
        "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIServiceStatus",
        "conditions",
        "merge",
        "type",
    ),
    (
        "io.k8s.api.storagemigration.v1.StorageVersionMigrationStatus",
        "conditions",
        "merge",
        "type",
    ),
    (
        "io.k8s.api.batch.v1.JobSchedulingConfiguration",
        "resourceClaims",
        "merge",
        "name",
    ),
    (
        "io.k8s.api.core.v1.NodeAllocatableResourceClaimStatus",
        "mapping",
        "merge",
        "name",
    ),
    (
        "io.k8s.api.core.v1.NodeAllocatableResourceClaimStatus",
        "overhead",
        "merge",
        "name",
    ),
    (
        "io.k8s.api.core.v1.PodSpec",
        "evictionResponders",
        "merge",
        "name",
    ),
    (
        "io.k8s.api.core.v1.PodStatus",
        "nodeAllocatableResourceClaimStatuses",
        "merge",
        "resourceClaimName",
    ),
    (
        "io.k8s.api.core.v1.PodVolumeHealth",
        "healthConditions",
        "merge",
        "status",
    ),
    (
        "io.k8s.api.core.v1.VolumeHealthStatus",
        "healthConditions",
        "merge",
        "status",
    ),
];

/// k8s-pb fields 1.37 dropped (alpha fields, their protobuf tags tombstoned).
pub const DROPPED: &[(&str, &str)] = &[("io.k8s.api.core.v1.PodSpec", "workload_ref")];
