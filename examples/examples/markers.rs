//! controller-gen's CRD markers written as `#[crd(...)]` attributes (docs/derive.md,
//! "controller-gen markers"). Prints the CRD as YAML on stdout, then shows on stderr what
//! the API server answers when an immutable field changes:
//! `cargo run -p crd-toolkit-examples --example markers`.

use std::process::ExitCode;

use crd_runtime::{CrdSchema, CustomResource, CustomResourceExt};
use serde::{Deserialize, Serialize};
use serde_json::json;

/// The transport protocol.
// +k8s:enum: a unit-only enum is a string enum.
#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug)]
pub enum Protocol {
    #[serde(rename = "TCP")]
    Tcp,
    #[serde(rename = "UDP")]
    Udp,
}

/// A backend reached one way only.
#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug)]
// +kubebuilder:validation:ExactlyOneOf=service;url
#[crd(exactly_one_of(service, url))]
pub struct Backend {
    pub service: Option<String>,
    pub url: Option<String>,
}

/// A route from a host to a backend.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
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
    // +default="TCP"
    #[crd(default = "TCP")]
    pub protocol: Protocol,
    // +kubebuilder:externalDocs:url=...
    #[crd(external_docs(
        url = "https://kubernetes.io/docs/concepts/services-networking/",
        description = "Services"
    ))]
    pub backend: Backend,
    pub tls: Option<bool>,
    pub plain_text: Option<bool>,
    // +required on a pointer field
    #[crd(required)]
    pub owner: Option<String>,
}

fn main() -> ExitCode {
    let yaml = match Route::crd_yaml() {
        Ok(y) => y,
        Err(e) => {
            eprintln!("error: cannot render the Route CRD: {e}");
            return ExitCode::FAILURE;
        }
    };
    print!("{yaml}");
    let engine = match Route::engine() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error: the Route CRD does not compile: {e}");
            return ExitCode::FAILURE;
        }
    };
    let object = |host: &str| {
        json!({
            "apiVersion": "markers.example.com/v1", "kind": "Route",
            "metadata": {"name": "r", "namespace": "default"},
            "spec": {"host": host, "backend": {"service": "web"}, "owner": "team-a"},
        })
    };
    let mut old = object("a.example.com");
    if let Err(errs) = engine.admit(&mut old) {
        eprintln!("error: the first Route is rejected: {:?}", errs.strings());
        return ExitCode::FAILURE;
    }
    let mut new = object("b.example.com");
    match engine.admit_update(&mut new, &old) {
        Err(errs) => {
            for e in errs.strings() {
                eprintln!("update rejected: {e}");
            }
            ExitCode::SUCCESS
        }
        Ok(()) => {
            eprintln!("error: changing the immutable host was admitted");
            ExitCode::FAILURE
        }
    }
}
