//! A port of a real multi-version API to `#[crd_runtime::versioned]`: MetalLB's
//! `BGPPeer` (`metallb.io`, v1beta1 and v1beta2, converted by a webhook), written once
//! from the Go types (`api/v1beta1/bgppeer_types.go`, `api/v1beta2/bgppeer_types.go`).
//! The test compares the merged CRD with the one MetalLB publishes
//! (`../shared/corpus/crds/metallb/bgppeers.metallb.io.yaml`) structurally, per version,
//! and asserts the exact list of differences, each with its reason (docs/versions.md,
//! "A port: MetalLB's BGPPeer").

use std::collections::BTreeMap;

use crd_runtime::model::{ServiceReference, WebhookClientConfig};
use serde_json::{Value, json};

/// The label selector of v1beta2 (`metav1.LabelSelector`): values are optional, the
/// selector is atomic.
#[derive(crd_runtime::CrdSchema, serde::Serialize, serde::Deserialize, Clone, Debug, Default)]
#[crd(map_type = "atomic")]
#[serde(rename_all = "camelCase")]
pub struct LabelSelector {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub match_expressions: Vec<LabelSelectorRequirement>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub match_labels: BTreeMap<String, String>,
}

/// `metav1.LabelSelectorRequirement`.
#[derive(crd_runtime::CrdSchema, serde::Serialize, serde::Deserialize, Clone, Debug, Default)]
pub struct LabelSelectorRequirement {
    pub key: String,
    pub operator: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
}

/// v1beta1's own selector (`NodeSelector`): at least one value per expression.
#[derive(crd_runtime::CrdSchema, serde::Serialize, serde::Deserialize, Clone, Debug, Default)]
#[serde(rename_all = "camelCase")]
pub struct NodeSelector {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub match_expressions: Vec<MatchExpression>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub match_labels: BTreeMap<String, String>,
}

/// v1beta1's `MatchExpression`.
#[derive(crd_runtime::CrdSchema, serde::Serialize, serde::Deserialize, Clone, Debug, Default)]
pub struct MatchExpression {
    pub key: String,
    pub operator: String,
    #[crd(min_items = 1)]
    pub values: Vec<String>,
}

fn upgrade_selectors(old: Vec<NodeSelector>) -> Vec<LabelSelector> {
    old.into_iter()
        .map(|s| LabelSelector {
            match_expressions: s
                .match_expressions
                .into_iter()
                .map(|e| LabelSelectorRequirement {
                    key: e.key,
                    operator: e.operator,
                    values: e.values,
                })
                .collect(),
            match_labels: s.match_labels,
        })
        .collect()
}

fn downgrade_selectors(new: Vec<LabelSelector>) -> Vec<NodeSelector> {
    new.into_iter()
        .map(|s| NodeSelector {
            match_expressions: s
                .match_expressions
                .into_iter()
                .map(|e| MatchExpression {
                    key: e.key,
                    operator: e.operator,
                    values: e.values,
                })
                .collect(),
            match_labels: s.match_labels,
        })
        .collect()
}

#[crd_runtime::versioned(version(name = "v1beta1"), version(name = "v1beta2"))]
pub mod bgppeer {
    use crd_runtime::CrdSchema;
    use serde::{Deserialize, Serialize};

    use super::{LabelSelector, NodeSelector, downgrade_selectors, upgrade_selectors};

    /// BGPPeerSpec defines the desired state of Peer.
    #[derive(Serialize, Deserialize, Clone, Debug)]
    #[crd(
        group = "metallb.io",
        kind = "BGPPeer",
        namespaced,
        status = BgpPeerStatus,
        printcolumn(name = "Address", type = "string", json_path = ".spec.peerAddress"),
        printcolumn(name = "ASN", type = "string", json_path = ".spec.peerASN"),
        printcolumn(name = "BFD Profile", type = "string", json_path = ".spec.bfdProfile"),
        printcolumn(name = "Multi Hops", type = "string", json_path = ".spec.ebgpMultiHop")
    )]
    #[serde(rename_all = "camelCase")]
    pub struct BgpPeerSpec {
        /// AS number to use for the local end of the session.
        #[serde(rename = "myASN")]
        #[crd(minimum = 0, maximum = 4294967295, format = "int32")]
        pub my_asn: u32,
        /// AS number to expect from the remote end of the session.
        #[serde(rename = "peerASN")]
        #[crd(minimum = 0, maximum = 4294967295, format = "int32")]
        pub asn: u32,
        /// Address to dial when establishing the session.
        #[serde(rename = "peerAddress")]
        pub address: String,
        /// Source address to use when establishing the session.
        #[serde(
            rename = "sourceAddress",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub src_address: Option<String>,
        /// Port to dial when establishing the session.
        #[serde(rename = "peerPort", default, skip_serializing_if = "Option::is_none")]
        #[crd(minimum = 0, maximum = 16384, default = 179)]
        pub port: Option<u16>,
        /// Requested BGP hold time, per RFC4271.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub hold_time: Option<String>,
        /// Requested BGP keepalive time, per RFC4271.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub keepalive_time: Option<String>,
        /// BGP router ID to advertise to the peer.
        #[serde(rename = "routerID", default, skip_serializing_if = "Option::is_none")]
        pub router_id: Option<String>,
        /// Only connect to this peer on nodes that match one of these selectors.
        #[versioned(changed(
            since = "v1beta2",
            from_type = "Vec<NodeSelector>",
            upgrade_with = "upgrade_selectors",
            downgrade_with = "downgrade_selectors"
        ))]
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub node_selectors: Vec<LabelSelector>,
        /// Authentication password for routers enforcing TCP MD5 authenticated sessions.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub password: Option<String>,
        /// passwordSecret is name of the authentication secret for BGP Peer.
        #[versioned(added(since = "v1beta2"))]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub password_secret: Option<SecretReference>,
        /// The name of the BFD Profile to be used for the BFD session associated to the
        /// BGP session.
        #[serde(
            rename = "bfdProfile",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub bfd_profile: Option<String>,
        /// To set if the BGPPeer is multi-hops away. Needed for FRR mode only.
        #[serde(
            rename = "ebgpMultiHop",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        pub ebgp_multi_hop: Option<bool>,
        /// To set if we want to peer with the BGPPeer using an interface belonging to a
        /// host vrf.
        #[versioned(added(since = "v1beta2"))]
        #[serde(rename = "vrf", default, skip_serializing_if = "Option::is_none")]
        pub vrf_name: Option<String>,
    }

    /// `corev1.SecretReference`.
    #[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
    #[crd(map_type = "atomic")]
    pub struct SecretReference {
        /// name is unique within a namespace to reference a secret resource.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub name: Option<String>,
        /// namespace defines the space within which the secret name must be unique.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub namespace: Option<String>,
    }

    /// BGPPeerStatus defines the observed state of Peer.
    #[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, Default)]
    pub struct BgpPeerStatus {}
}

/// MetalLB's published CRD.
fn published() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/corpus/crds/metallb/bgppeers.metallb.io.yaml"
    );
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let crd = crd_runtime::load_crds(path, &text)
        .unwrap()
        .crds
        .remove(0)
        .crd;
    serde_json::to_value(crd).unwrap()
}

/// The port's merged CRD, served to MetalLB's conversion webhook as the published one is.
fn generated() -> Value {
    let crd = bgppeer::crd_with_webhook(WebhookClientConfig {
        service: Some(ServiceReference {
            name: "webhook-service".into(),
            namespace: "metallb-system".into(),
            path: Some("/convert".into()),
            ..Default::default()
        }),
        ..Default::default()
    })
    .unwrap();
    crd_runtime::assert_valid_crd(&crd);
    serde_json::to_value(crd).unwrap()
}

/// What is compared: `spec`, versions keyed by name, descriptions and the webhook's CA
/// bundle left out (prose and a certificate, not structure), `required` as a set.
fn comparable(crd: &Value) -> Value {
    fn strip(value: &Value) -> Value {
        match value {
            Value::Object(map) => Value::Object(
                map.iter()
                    .filter(|(k, _)| k.as_str() != "description")
                    .map(|(k, v)| {
                        if k == "required"
                            && let Value::Array(items) = v
                        {
                            let mut items = items.clone();
                            items.sort_by_key(|i| i.to_string());
                            return (k.clone(), Value::Array(items));
                        }
                        (k.clone(), strip(v))
                    })
                    .collect(),
            ),
            Value::Array(items) => Value::Array(items.iter().map(strip).collect()),
            other => other.clone(),
        }
    }
    let mut spec = strip(&crd["spec"]);
    let versions: serde_json::Map<String, Value> = spec["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (v["name"].as_str().unwrap().to_string(), v.clone()))
        .collect();
    spec["versions"] = Value::Object(versions);
    if let Some(config) = spec
        .pointer_mut("/conversion/webhook/clientConfig")
        .and_then(Value::as_object_mut)
    {
        config.remove("caBundle");
    }
    spec
}

/// Every difference between `published` and `generated`, one line each:
/// `PATH: published P, generated G` (`-` for absent).
fn differences(path: &str, published: &Value, generated: &Value, out: &mut Vec<String>) {
    match (published, generated) {
        (Value::Object(p), Value::Object(g)) => {
            let keys: std::collections::BTreeSet<&String> = p.keys().chain(g.keys()).collect();
            for key in keys {
                let at = format!("{path}/{key}");
                match (p.get(key), g.get(key)) {
                    (Some(a), Some(b)) => differences(&at, a, b, out),
                    (Some(a), None) => out.push(format!("{at}: published {a}, generated -")),
                    (None, Some(b)) => out.push(format!("{at}: published -, generated {b}")),
                    (None, None) => {}
                }
            }
        }
        (Value::Array(p), Value::Array(g)) if p.len() == g.len() => {
            for (i, (a, b)) in p.iter().zip(g).enumerate() {
                differences(&format!("{path}/{i}"), a, b, out);
            }
        }
        (a, b) if a != b => out.push(format!("{path}: published {a}, generated {b}")),
        _ => {}
    }
}

const SPEC: &str = "schema/openAPIV3Schema/properties/spec/properties";

#[test]
fn the_port_is_the_published_crd_but_for_these_differences() {
    let (published, generated) = (comparable(&published()), comparable(&generated()));
    let mut found = Vec::new();
    differences("", &published, &generated, &mut found);
    // Each difference with why it is there: the port is faithful but for these.
    let root = "schema/openAPIV3Schema";
    let expected: Vec<(String, &str)> = vec![
        (
            "/conversion/webhook/conversionReviewVersions: published [\"v1beta1\",\"v1beta2\"], generated [\"v1\"]".into(),
            "crd_with_webhook offers ConversionReview v1 only; MetalLB lists its own API versions, which are not ConversionReview versions (the API server sends v1)",
        ),
        (
            "/names/listKind: published \"BGPPeerList\", generated -".into(),
            "crd-derive leaves listKind out; the API server defaults it to kind + List, the same value",
        ),
        (
            format!("/versions/v1beta1/{root}/properties/apiVersion: published {{\"type\":\"string\"}}, generated -"),
            "controller-gen writes the TypeMeta/ObjectMeta fields into the schema; crd-derive leaves them to the API server, which validates them anyway",
        ),
        (
            format!("/versions/v1beta1/{root}/properties/kind: published {{\"type\":\"string\"}}, generated -"),
            "as apiVersion",
        ),
        (
            format!("/versions/v1beta1/{root}/properties/metadata: published {{\"type\":\"object\"}}, generated -"),
            "as apiVersion",
        ),
        (
            format!("/versions/v1beta1/{SPEC}/peerPort/default: published -, generated 179"),
            "a field's #[crd(...)] attributes are shared by every version; MetalLB added +kubebuilder:default:=179 in v1beta2 only (a retyped field would be the only way to split it)",
        ),
        (
            format!("/versions/v1beta1/{root}/required: published -, generated [\"spec\"]"),
            "the Rust root type needs spec (serde requires it); Go's `Spec BGPPeerSpec json:\"spec,omitempty\"` makes it optional",
        ),
        (
            format!("/versions/v1beta2/{root}/properties/apiVersion: published {{\"type\":\"string\"}}, generated -"),
            "as in v1beta1",
        ),
        (
            format!("/versions/v1beta2/{root}/properties/kind: published {{\"type\":\"string\"}}, generated -"),
            "as in v1beta1",
        ),
        (
            format!("/versions/v1beta2/{root}/properties/metadata: published {{\"type\":\"object\"}}, generated -"),
            "as in v1beta1",
        ),
        (
            format!("/versions/v1beta2/{root}/required: published -, generated [\"spec\"]"),
            "as in v1beta1",
        ),
    ];
    assert!(expected.iter().all(|(_, why)| !why.is_empty()));
    assert_eq!(
        found,
        expected.iter().map(|(d, _)| d.clone()).collect::<Vec<_>>(),
        "differences:\n{}",
        found.join("\n")
    );
}

/// The differences the port has on purpose: v1beta1 selectors need values and keep
/// neither `passwordSecret` nor `vrf`; converting down and back loses nothing.
#[test]
fn the_versions_differ_where_metallb_s_do_and_convert_losslessly() {
    let crd = generated();
    let version = |name: &str| {
        crd["spec"]["versions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"] == name)
            .unwrap()["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
            .clone()
    };
    let (old, new) = (version("v1beta1"), version("v1beta2"));
    let values =
        "/nodeSelectors/items/properties/matchExpressions/items/properties/values/minItems";
    assert_eq!(old.pointer(values), Some(&json!(1)));
    assert_eq!(new.pointer(values), None);
    assert!(old.get("vrf").is_none() && old.get("passwordSecret").is_none());
    assert_eq!(new["passwordSecret"]["x-kubernetes-map-type"], "atomic");
    assert_eq!(
        new["nodeSelectors"]["items"]["x-kubernetes-map-type"],
        "atomic"
    );

    let peer = json!({
        "apiVersion": "metallb.io/v1beta2", "kind": "BGPPeer",
        "metadata": {"name": "tor", "namespace": "metallb-system"},
        "spec": {"myASN": 64500, "peerASN": 64501, "peerAddress": "10.0.0.1",
                 "peerPort": 179, "vrf": "red",
                 "passwordSecret": {"name": "bgp", "namespace": "metallb-system"},
                 "nodeSelectors": [{"matchExpressions": [{"key": "rack", "operator": "Exists"}]}]},
        "status": {}
    });
    let down = bgppeer::converter()
        .convert(&peer, "metallb.io/v1beta1")
        .unwrap();
    assert!(down["spec"].get("vrf").is_none(), "{down}");
    bgppeer::check_round_trip(&peer).unwrap();
}
