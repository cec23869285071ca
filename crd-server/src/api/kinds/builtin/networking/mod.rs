//! networking.k8s.io/v1.

pub mod kinds;

use crate::api::kinds::Subresource;
use crate::api::kinds::builtin::networking::kinds::{IngressClasses, Ingresses, NetworkPolicies};
use crate::api::kinds::builtin::{ALL_VERBS, NONE, NameRule, Spec};

pub(super) static KINDS: &[Spec] = &[
    Spec {
        group: "networking.k8s.io",
        version: "v1",
        plural: "ingresses",
        singular: "ingress",
        kind: "Ingress",
        namespaced: true,
        short_names: &["ing"],
        categories: &[],
        verbs: ALL_VERBS,
        subresources: &[Subresource::Status],
        prefix: "/registry/ingress/",
        codec: None,
        definition: "io.k8s.api.networking.v1.Ingress",
        name_rule: Some(NameRule::DnsSubdomain),
        field_selectors: NONE,
        behaviour: &Ingresses,
    },
    Spec {
        group: "networking.k8s.io",
        version: "v1",
        plural: "ingressclasses",
        singular: "ingressclass",
        kind: "IngressClass",
        namespaced: false,
        short_names: &[],
        categories: &[],
        verbs: ALL_VERBS,
        subresources: &[],
        prefix: "/registry/ingressclasses/",
        codec: None,
        definition: "io.k8s.api.networking.v1.IngressClass",
        name_rule: Some(NameRule::DnsSubdomain),
        field_selectors: NONE,
        behaviour: &IngressClasses,
    },
    Spec {
        group: "networking.k8s.io",
        version: "v1",
        plural: "networkpolicies",
        singular: "networkpolicy",
        kind: "NetworkPolicy",
        namespaced: true,
        short_names: &["netpol"],
        categories: &[],
        verbs: ALL_VERBS,
        subresources: &[],
        prefix: "/registry/networkpolicies/",
        codec: None,
        definition: "io.k8s.api.networking.v1.NetworkPolicy",
        name_rule: Some(NameRule::DnsSubdomain),
        field_selectors: NONE,
        behaviour: &NetworkPolicies,
    },
];
