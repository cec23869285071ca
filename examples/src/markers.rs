//! controller-gen's CRD markers written as `#[crd(...)]` attributes (docs/derive.md,
//! "controller-gen markers"); the `// +marker` comments name the Go marker each
//! attribute stands for. `examples/examples/markers.rs` prints the CRD.

use crd_runtime::{CrdSchema, CustomResource};
use serde::{Deserialize, Serialize};

/// The transport protocol.
// +k8s:enum: a unit-only enum is a string enum.
#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum Protocol {
    /// TCP.
    #[serde(rename = "TCP")]
    Tcp,
    /// UDP.
    #[serde(rename = "UDP")]
    Udp,
}

/// A backend reached one way only.
#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
// +kubebuilder:validation:ExactlyOneOf=service;url
#[crd(exactly_one_of(service, url))]
pub struct Backend {
    /// A Service in the route's namespace.
    pub service: Option<String>,
    /// An external URL.
    pub url: Option<String>,
}

/// A route from a host to a backend.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[crd(group = "markers.example.com", version = "v1", kind = "Route", namespaced,
      // +kubebuilder:validation:AtMostOneOf=tls;plainText
      spec_schema(at_most_one_of(tls, plain_text)))]
#[serde(rename_all = "camelCase")]
pub struct RouteSpec {
    /// The host name; set on create, never changed.
    // +k8s:immutable
    #[crd(immutable, title = "Host", min_length = 1)]
    pub host: String,
    /// The port; may be set later, once.
    // +k8s:immutable +optional
    #[crd(immutable)]
    pub port: Option<u16>,
    /// The protocol, TCP unless given.
    // +default="TCP"
    #[crd(default = "TCP")]
    pub protocol: Protocol,
    /// Where the traffic goes.
    // +kubebuilder:externalDocs:url=...,description=...
    #[crd(external_docs(
        url = "https://kubernetes.io/docs/concepts/services-networking/",
        description = "Services"
    ))]
    pub backend: Backend,
    /// Serve TLS.
    pub tls: Option<bool>,
    /// Serve plain text.
    pub plain_text: Option<bool>,
    /// The owning team.
    // +required on a pointer field
    #[crd(required)]
    pub owner: Option<String>,
}
