//! rbac.authorization.k8s.io/v1.

pub mod aggregate_policy;
pub mod bootstrap_policy;
pub mod controller_policy;
pub mod roles;

use crate::api::kinds::builtin::rbac::roles::{Bindings, Roles};
use crate::api::kinds::builtin::{ALL_VERBS, NONE, NameRule, Spec};

const GROUP: &str = "rbac.authorization.k8s.io";

pub(super) static KINDS: &[Spec] = &[
    Spec {
        group: GROUP,
        version: "v1",
        plural: "clusterrolebindings",
        singular: "clusterrolebinding",
        kind: "ClusterRoleBinding",
        namespaced: false,
        short_names: &[],
        categories: &[],
        verbs: ALL_VERBS,
        subresources: &[],
        prefix: "/registry/clusterrolebindings/",
        codec: None,
        definition: "io.k8s.api.rbac.v1.ClusterRoleBinding",
        name_rule: Some(NameRule::PathSegment),
        field_selectors: NONE,
        behaviour: &Bindings { cluster: true },
    },
    Spec {
        group: GROUP,
        version: "v1",
        plural: "clusterroles",
        singular: "clusterrole",
        kind: "ClusterRole",
        namespaced: false,
        short_names: &[],
        categories: &[],
        verbs: ALL_VERBS,
        subresources: &[],
        prefix: "/registry/clusterroles/",
        codec: None,
        definition: "io.k8s.api.rbac.v1.ClusterRole",
        name_rule: Some(NameRule::PathSegment),
        field_selectors: NONE,
        behaviour: &Roles { cluster: true },
    },
    Spec {
        group: GROUP,
        version: "v1",
        plural: "rolebindings",
        singular: "rolebinding",
        kind: "RoleBinding",
        namespaced: true,
        short_names: &[],
        categories: &[],
        verbs: ALL_VERBS,
        subresources: &[],
        prefix: "/registry/rolebindings/",
        codec: None,
        definition: "io.k8s.api.rbac.v1.RoleBinding",
        name_rule: Some(NameRule::PathSegment),
        field_selectors: NONE,
        behaviour: &Bindings { cluster: false },
    },
    Spec {
        group: GROUP,
        version: "v1",
        plural: "roles",
        singular: "role",
        kind: "Role",
        namespaced: true,
        short_names: &[],
        categories: &[],
        verbs: ALL_VERBS,
        subresources: &[],
        prefix: "/registry/roles/",
        codec: None,
        definition: "io.k8s.api.rbac.v1.Role",
        name_rule: Some(NameRule::PathSegment),
        field_selectors: NONE,
        behaviour: &Roles { cluster: false },
    },
];
