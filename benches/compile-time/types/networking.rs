//! Networking and PKI kinds: Certificate, DnsRecord and HttpRoute (5–7).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{SecretKeyRef, WorkloadStatus, defaults};

use crate::{Resource, Schema};

// 5 --------------------------------------------------------------------------------------
/// How a certificate's key is generated.
#[derive(Schema, Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum KeyAlgorithm {
    RSA,
    ECDSA,
    Ed25519,
}

/// An X.509 certificate issued by an issuer.
#[derive(Resource, Serialize, Deserialize, Clone, Debug)]
#[cfg_attr(feature = "kube-derive", derive(Schema))]
#[cfg_attr(feature = "ours", crd(group = "pki.example.com", version = "v1", kind = "Certificate",
    namespaced, short_names = ["cert", "certs"], status = WorkloadStatus,
    printcolumn(name = "Issuer", type = "string", json_path = ".spec.issuerRef.name")))]
#[cfg_attr(
    feature = "kube-derive",
    kube(
        group = "pki.example.com",
        version = "v1",
        kind = "Certificate",
        namespaced,
        shortname = "cert",
        shortname = "certs",
        status = "WorkloadStatus",
        printcolumn(name = "Issuer", type_ = "string", json_path = ".spec.issuerRef.name")
    )
)]
#[serde(rename_all = "camelCase")]
pub struct CertificateSpec {
    #[cfg_attr(feature = "ours", crd(min_items = 1, max_items = 100))]
    #[cfg_attr(feature = "kube-derive", schemars(length(min = 1, max = 100)))]
    pub dns_names: Vec<String>,
    pub secret_name: String,
    pub issuer_ref: SecretKeyRef,
    pub algorithm: Option<KeyAlgorithm>,
    #[cfg_attr(feature = "ours", crd(minimum = 2048, maximum = 8192))]
    #[cfg_attr(feature = "kube-derive", schemars(range(min = 2048, max = 8192)))]
    pub key_size: Option<i32>,
    pub duration: Option<String>,
}

// 6 --------------------------------------------------------------------------------------
/// A DNS record value.
#[derive(Schema, Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum RecordValue {
    A { address: String },
    CNAME { target: String },
    TXT { text: Vec<String> },
    MX { host: String, priority: u16 },
}

/// A DNS record in a managed zone.
#[derive(Resource, Serialize, Deserialize, Clone, Debug)]
#[cfg_attr(feature = "kube-derive", derive(Schema))]
#[cfg_attr(
    feature = "ours",
    crd(
        group = "dns.example.com",
        version = "v1alpha1",
        kind = "DnsRecord",
        namespaced,
        printcolumn(name = "Zone", type = "string", json_path = ".spec.zone")
    )
)]
#[cfg_attr(
    feature = "kube-derive",
    kube(
        group = "dns.example.com",
        version = "v1alpha1",
        kind = "DnsRecord",
        namespaced,
        printcolumn(name = "Zone", type_ = "string", json_path = ".spec.zone")
    )
)]
#[serde(rename_all = "camelCase")]
pub struct DnsRecordSpec {
    #[cfg_attr(feature = "ours", crd(max_length = 253))]
    #[cfg_attr(feature = "kube-derive", schemars(length(max = 253)))]
    pub zone: String,
    pub name: String,
    pub value: RecordValue,
    #[cfg_attr(feature = "ours", crd(minimum = 30, maximum = 86400))]
    #[cfg_attr(feature = "kube-derive", schemars(range(min = 30, max = 86400)))]
    pub ttl: Option<u32>,
}

// 7 --------------------------------------------------------------------------------------
/// A backend of a route.
#[derive(Schema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Backend {
    pub service: String,
    #[cfg_attr(feature = "ours", crd(minimum = 1, maximum = 65535, default = 8080))]
    #[cfg_attr(feature = "kube-derive", schemars(range(min = 1, max = 65535)))]
    #[serde(default = "defaults::port")]
    pub port: u16,
    #[cfg_attr(feature = "ours", crd(minimum = 0, maximum = 100))]
    #[cfg_attr(feature = "kube-derive", schemars(range(min = 0, max = 100)))]
    pub weight: Option<u8>,
}

/// An HTTP route to weighted backends.
#[derive(Resource, Serialize, Deserialize, Clone, Debug)]
#[cfg_attr(feature = "kube-derive", derive(Schema))]
#[cfg_attr(feature = "ours", crd(group = "net.example.com", version = "v1", kind = "HttpRoute",
    namespaced, categories = ["net"],
    printcolumn(name = "Host", type = "string", json_path = ".spec.hostname")))]
#[cfg_attr(
    feature = "kube-derive",
    kube(
        group = "net.example.com",
        version = "v1",
        kind = "HttpRoute",
        namespaced,
        category = "net",
        printcolumn(name = "Host", type_ = "string", json_path = ".spec.hostname")
    )
)]
#[serde(rename_all = "camelCase")]
pub struct HttpRouteSpec {
    pub hostname: String,
    #[cfg_attr(feature = "ours", crd(pattern = r"^/"))]
    #[cfg_attr(feature = "kube-derive", schemars(regex(pattern = r"^/")))]
    pub path_prefix: Option<String>,
    #[cfg_attr(feature = "ours", crd(min_items = 1))]
    #[cfg_attr(feature = "kube-derive", schemars(length(min = 1)))]
    pub backends: Vec<Backend>,
    #[serde(default)]
    pub request_headers: BTreeMap<String, String>,
    pub timeout_seconds: Option<u32>,
}
