//! What the server tells extension API servers about itself: the
//! `extension-apiserver-authentication` ConfigMap's data, as kube-apiserver's
//! cluster-authentication-trust controller writes it (the client CA, and the
//! requestheader CA with its allowed names and headers as JSON lists), and the client
//! certificate its proxy shows.

use serde_json::{Map, Value, json};

use crate::auth::AuthConfig;
use crate::webhook_client::ClientIdentity;
use crd_webhook::TlsFiles;

/// How the server shows itself to extension API servers.
#[derive(Clone, Debug, Default)]
pub struct AggregationConfig {
    /// `--proxy-client-cert-file` and `--proxy-client-key-file`: the client certificate
    /// requests proxied to an APIService's server (and its availability checks) show.
    pub proxy_client: Option<TlsFiles>,
    /// A front proxy made for this server alone (a test server's): its certificate
    /// is shown as `proxy_client` would be, and its CA published in the
    /// `extension-apiserver-authentication` ConfigMap as the requestheader CA.
    pub front_proxy: Option<FrontProxy>,
}

/// A front-proxy CA and the client certificate it signed (PEM).
#[derive(Clone, Debug)]
pub struct FrontProxy {
    /// The CA certificate: what extension servers trust.
    pub ca_pem: String,
    /// The client certificate (its CommonName is the one allowed name).
    pub cert_pem: String,
    /// The client certificate's key.
    pub key_pem: String,
    /// The client certificate's CommonName.
    pub common_name: String,
}

impl FrontProxy {
    /// A fresh CA and a client certificate `front-proxy-client` it signed.
    pub fn generate() -> Result<FrontProxy, String> {
        use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyPair, KeyUsagePurpose};
        let fail = |e: rcgen::Error| format!("front proxy certificates: {e}");
        let ca_key = KeyPair::generate().map_err(fail)?;
        let mut ca = CertificateParams::new(Vec::new()).map_err(fail)?;
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca.distinguished_name
            .push(DnType::CommonName, "front-proxy-ca");
        ca.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let ca_cert = ca.self_signed(&ca_key).map_err(fail)?;
        let issuer = rcgen::Issuer::new(ca, ca_key);
        let common_name = "front-proxy-client".to_string();
        let key = KeyPair::generate().map_err(fail)?;
        let mut client = CertificateParams::new(Vec::new()).map_err(fail)?;
        client
            .distinguished_name
            .push(DnType::CommonName, common_name.clone());
        client.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ClientAuth];
        let cert = client.signed_by(&key, &issuer).map_err(fail)?;
        Ok(FrontProxy {
            ca_pem: ca_cert.pem(),
            cert_pem: cert.pem(),
            key_pem: key.serialize_pem(),
            common_name,
        })
    }
}

/// The proxy's client certificate, if one is configured.
pub fn identity(agg: &AggregationConfig) -> Result<Option<ClientIdentity>, String> {
    if let Some(files) = &agg.proxy_client {
        return ClientIdentity::load(&files.cert, &files.key)
            .map(Some)
            .map_err(|e| format!("--proxy-client-cert-file: {e}"));
    }
    match &agg.front_proxy {
        Some(fp) => ClientIdentity::from_pem(&fp.cert_pem, &fp.key_pem)
            .map(Some)
            .map_err(|e| format!("the front proxy's certificate: {e}")),
        None => Ok(None),
    }
}

/// The ConfigMap's data (`None`: nothing to publish).
pub fn config_map_data(
    auth: &AuthConfig,
    agg: &AggregationConfig,
) -> Result<Option<Map<String, Value>>, String> {
    let read = |path: &std::path::Path, flag: &str| {
        std::fs::read_to_string(path).map_err(|e| format!("{flag} {}: {e}", path.display()))
    };
    let mut data = Map::new();
    if let Some(path) = &auth.client_ca_file {
        data.insert(
            "client-ca-file".into(),
            json!(read(path, "--client-ca-file")?),
        );
    }
    let rh = &auth.request_header;
    let list = |v: &[String]| Value::String(json!(v).to_string());
    if let Some(path) = &rh.client_ca_file {
        data.insert(
            "requestheader-client-ca-file".into(),
            json!(read(path, "--requestheader-client-ca-file")?),
        );
        data.insert(
            "requestheader-allowed-names".into(),
            list(&rh.allowed_names),
        );
        data.insert(
            "requestheader-username-headers".into(),
            list(&rh.username_headers),
        );
        data.insert("requestheader-uid-headers".into(), list(&rh.uid_headers));
        data.insert(
            "requestheader-group-headers".into(),
            list(&rh.group_headers),
        );
        data.insert(
            "requestheader-extra-headers-prefix".into(),
            list(&rh.extra_headers_prefix),
        );
    } else if let Some(fp) = &agg.front_proxy {
        // kubeadm's settings for its front proxy.
        let one = |s: &str| list(&[s.to_string()]);
        data.insert("requestheader-client-ca-file".into(), json!(fp.ca_pem));
        data.insert(
            "requestheader-allowed-names".into(),
            list(std::slice::from_ref(&fp.common_name)),
        );
        data.insert(
            "requestheader-username-headers".into(),
            one("X-Remote-User"),
        );
        data.insert("requestheader-uid-headers".into(), one("X-Remote-Uid"));
        data.insert("requestheader-group-headers".into(), one("X-Remote-Group"));
        data.insert(
            "requestheader-extra-headers-prefix".into(),
            one("X-Remote-Extra-"),
        );
    }
    Ok((!data.is_empty()).then_some(data))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_front_proxy_is_published_as_kubeadm_configures_one() {
        let agg = AggregationConfig {
            proxy_client: None,
            front_proxy: Some(FrontProxy::generate().unwrap()),
        };
        let data = config_map_data(&AuthConfig::default(), &agg)
            .unwrap()
            .unwrap();
        assert_eq!(
            data["requestheader-allowed-names"],
            r#"["front-proxy-client"]"#
        );
        assert_eq!(
            data["requestheader-username-headers"],
            r#"["X-Remote-User"]"#
        );
        assert!(
            data["requestheader-client-ca-file"]
                .as_str()
                .unwrap()
                .starts_with("-----BEGIN CERTIFICATE-----")
        );
        assert!(!data.contains_key("client-ca-file"));
        assert!(identity(&agg).unwrap().is_some());
        let none = AggregationConfig::default();
        assert!(
            config_map_data(&AuthConfig::default(), &none)
                .unwrap()
                .is_none()
        );
    }
}
