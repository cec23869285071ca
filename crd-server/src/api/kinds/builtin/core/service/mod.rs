//! Services and Endpoints as kube-apiserver serves them: `SetDefaults_Service`
//! (type, session affinity, protocols, target ports, traffic policies), the status a
//! new Service starts with, validation ([`crate::api::kinds::builtin::core::service::validation`]), cluster IPs and
//! node ports ([`crate::api::kinds::builtin::core::service::txn`]), and the printers' columns.

pub mod alloc;
pub mod fields;
pub mod ip_range;
pub mod txn;
pub mod validation;

use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use futures::future::BoxFuture;
use serde_json::{Value, json};

use crate::api::kinds::builtin::behaviour::*;
use crate::api::kinds::builtin::checks::strings;
use crate::api::kinds::builtin::core::service::validation::{
    externally_accessible, validate, validate_update,
};
use crate::api::kinds::builtin::{checks, default_field};
use crate::api::kinds::{Allocated, Context, Subresource};
use crate::api::table::Column;

/// `v1.DefaultClientIPServiceAffinitySeconds`.
const CLIENT_IP_TIMEOUT: i64 = 10800;

/// Services.
pub struct Services;

/// `SetDefaults_Service`.
fn defaults(svc: &mut Value) {
    if !svc.get("spec").is_some_and(Value::is_object) {
        svc["spec"] = json!({});
    }
    let spec = &mut svc["spec"];
    default_field(spec, "sessionAffinity", json!("None"));
    if spec["sessionAffinity"] == "None"
        && let Some(m) = spec.as_object_mut()
    {
        m.remove("sessionAffinityConfig");
    }
    if spec["sessionAffinity"] == "ClientIP"
        && spec
            .pointer("/sessionAffinityConfig/clientIP/timeoutSeconds")
            .is_none_or(Value::is_null)
    {
        spec["sessionAffinityConfig"] = json!({"clientIP": {"timeoutSeconds": CLIENT_IP_TIMEOUT}});
    }
    default_field(spec, "type", json!("ClusterIP"));
    if let Some(ports) = spec["ports"].as_array_mut() {
        for p in ports.iter_mut().filter(|p| p.is_object()) {
            default_field(p, "protocol", json!("TCP"));
            let unset = matches!(&p["targetPort"], Value::Null)
                || p["targetPort"] == json!(0)
                || p["targetPort"] == json!("");
            if unset {
                p["targetPort"] = p["port"].clone();
            }
        }
    }
    let ty = spec["type"].as_str().unwrap_or("").to_string();
    if externally_accessible(svc) {
        default_field(&mut svc["spec"], "externalTrafficPolicy", json!("Cluster"));
    }
    let spec = &mut svc["spec"];
    if matches!(ty.as_str(), "NodePort" | "LoadBalancer" | "ClusterIP") {
        default_field(spec, "internalTrafficPolicy", json!("Cluster"));
    }
    if ty == "LoadBalancer" {
        default_field(spec, "allocateLoadBalancerNodePorts", json!(true));
        if let Some(ingress) = svc
            .pointer_mut("/status/loadBalancer/ingress")
            .and_then(Value::as_array_mut)
        {
            for i in ingress
                .iter_mut()
                .filter(|i| i["ip"].as_str().is_some_and(|s| !s.is_empty()))
            {
                default_field(i, "ipMode", json!("VIP"));
            }
        }
    }
}

defaults!(Services: Serving, Deleter);

impl Defaulter for Services {
    fn decode(&self, obj: &mut Value) -> Result<(), String> {
        defaults(obj);
        Ok(())
    }
}

impl Validator for Services {
    fn validate(&self, obj: &Value, old: Option<&Value>, errs: &mut ErrorList) {
        match old {
            None => validate(obj, errs),
            Some(old) => validate_update(obj, old, errs),
        }
    }
}

impl Preparer for Services {
    fn prepare(&self, obj: &mut Value, _old: Option<&Value>, _sub: Subresource) {
        // A Service's status is never absent: its load balancer part prints empty.
        if !obj.get("status").is_some_and(Value::is_object) && obj.is_object() {
            obj["status"] = json!({"loadBalancer": {}});
        }
    }
}

impl Printer for Services {
    fn columns(&self) -> Vec<Column> {
        let mut selector = Column::computed(
            "Selector",
            "string",
            "Route service traffic to pods with label keys and values matching this selector. If empty or not present, the service is assumed to have an external process managing its endpoints, which Kubernetes will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/",
            |o| json!(format_labels(&o["spec"]["selector"])),
        );
        selector.priority = 1;
        vec![
            Column::computed(
                "Type",
                "string",
                "type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer.",
                |o| o["spec"]["type"].clone(),
            ),
            Column::computed(
                "Cluster-IP",
                "string",
                "clusterIP is the IP address of the service and is usually assigned randomly.",
                |o| {
                    json!(
                        strings(&o["spec"]["clusterIPs"])
                            .first()
                            .cloned()
                            .unwrap_or_else(|| "<none>".into())
                    )
                },
            ),
            Column::computed(
                "External-IP",
                "string",
                "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.",
                |o| json!(external_ip(o)),
            ),
            Column::computed(
                "Port(s)",
                "string",
                "The list of ports that are exposed by this service.",
                |o| json!(port_string(o)),
            ),
            Column::builtin_age(),
            selector,
        ]
    }
}

impl AllocateStrategy for Services {
    fn allocate<'a>(&'a self, cx: &'a Context<'a>, obj: &'a mut Value) -> Allocated<'a> {
        Box::pin(txn::allocate(cx, obj, cx.old, cx.dry_run))
    }

    fn release<'a>(&'a self, cx: &'a Context<'a>, obj: &'a Value) -> BoxFuture<'a, ()> {
        Box::pin(txn::release(cx, obj))
    }
}

/// `labels.FormatLabels`: `k=v` sorted and joined, `<none>` when empty.
pub fn format_labels(map: &Value) -> String {
    let mut pairs: Vec<String> = map
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or("")))
        .collect();
    if pairs.is_empty() {
        return "<none>".into();
    }
    pairs.sort();
    pairs.join(",")
}

/// `loadBalancerStatusStringer` (the server's tables are wide: nothing is cut).
pub fn load_balancer_ingress(status: &Value) -> String {
    status["ingress"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|i| {
            i["ip"]
                .as_str()
                .filter(|s| !s.is_empty())
                .or_else(|| i["hostname"].as_str().filter(|s| !s.is_empty()))
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// `getServiceExternalIP`.
fn external_ip(svc: &Value) -> String {
    let spec = &svc["spec"];
    let external = strings(&spec["externalIPs"]);
    match spec["type"].as_str().unwrap_or("") {
        "ClusterIP" | "NodePort" if !external.is_empty() => external.join(","),
        "ClusterIP" | "NodePort" => "<none>".into(),
        "LoadBalancer" => {
            let lb = load_balancer_ingress(&svc["status"]["loadBalancer"]);
            let mut all: Vec<String> = lb
                .split(',')
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect();
            all.extend(external);
            if all.is_empty() {
                "<pending>".into()
            } else {
                all.join(",")
            }
        }
        "ExternalName" => spec["externalName"].as_str().unwrap_or("").into(),
        _ => "<unknown>".into(),
    }
}

/// `makePortString`: `80/TCP`, `80:30080/TCP`, joined by commas; `<none>`.
fn port_string(svc: &Value) -> String {
    let pieces: Vec<String> = svc["spec"]["ports"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            let port = p["port"].as_i64().unwrap_or(0);
            let protocol = p["protocol"].as_str().unwrap_or("");
            match p["nodePort"].as_i64().filter(|n| *n > 0) {
                Some(np) => format!("{port}:{np}/{protocol}"),
                None => format!("{port}/{protocol}"),
            }
        })
        .collect();
    if pieces.is_empty() {
        "<none>".into()
    } else {
        pieces.join(",")
    }
}

/// Endpoints.
pub struct Endpoints;

defaults!(Endpoints: Preparer, Serving, Deleter, AllocateStrategy);

impl Defaulter for Endpoints {
    fn decode(&self, obj: &mut Value) -> Result<(), String> {
        // `SetDefaults_EndpointPort`: protocol TCP.
        if let Some(subsets) = obj.get_mut("subsets").and_then(Value::as_array_mut) {
            for s in subsets {
                if let Some(ports) = s.get_mut("ports").and_then(Value::as_array_mut) {
                    for p in ports.iter_mut().filter(|p| p.is_object()) {
                        default_field(p, "protocol", json!("TCP"));
                    }
                }
            }
        }
        Ok(())
    }
}

impl Validator for Endpoints {
    fn validate(&self, obj: &Value, _old: Option<&Value>, errs: &mut ErrorList) {
        let subsets = obj["subsets"].as_array().cloned().unwrap_or_default();
        for (i, s) in subsets.iter().enumerate() {
            let path = Path::new("subsets").index(i);
            let addrs = |k: &str| s[k].as_array().cloned().unwrap_or_default();
            let (ready, not_ready) = (addrs("addresses"), addrs("notReadyAddresses"));
            let ports = s["ports"].as_array().cloned().unwrap_or_default();
            if ready.is_empty() && not_ready.is_empty() {
                // The server treats a subset with ports and no address as empty.
                if !ports.is_empty() {
                    errs.push(FieldError::required(
                        path.clone(),
                        "must specify `addresses` or `notReadyAddresses`",
                    ));
                }
            }
            for (field, list) in [("addresses", &ready), ("notReadyAddresses", &not_ready)] {
                for (j, a) in list.iter().enumerate() {
                    let ip = a["ip"].as_str().unwrap_or("");
                    if !checks::is_ip(ip) {
                        errs.push(FieldError::invalid(
                            path.child(field).index(j).child("ip"),
                            BadValue::Str(ip.into()),
                            checks::IP_MESSAGE,
                        ));
                    }
                }
            }
            for (j, p) in ports.iter().enumerate() {
                let pp = path.child("ports").index(j);
                let name = p["name"].as_str().unwrap_or("");
                if ports.len() > 1 && name.is_empty() {
                    errs.push(FieldError::required(pp.child("name"), ""));
                } else if !name.is_empty() {
                    checks::dns1123_label(name, pp.child("name"), errs);
                }
                checks::port_number(p["port"].as_i64().unwrap_or(0), pp.child("port"), errs);
            }
        }
    }
}

impl Printer for Endpoints {
    fn columns(&self) -> Vec<Column> {
        vec![
            Column::computed(
                "Endpoints",
                "string",
                "The set of all endpoints is the union of all subsets. Addresses are placed into subsets according to the IPs they share. A single address with multiple ports, some of which are ready and some of which are not (because they come from different containers) will result in the address being displayed in different subsets for the different ports. No address will appear in both Addresses and NotReadyAddresses in the same subset. Sets of addresses and ports that comprise a service.",
                |o| json!(endpoints_string(o)),
            ),
            Column::builtin_age(),
        ]
    }
}

/// `formatEndpoints` with the printer's limit of three, then `+ N more...`.
fn endpoints_string(ep: &Value) -> String {
    let mut list = Vec::new();
    let mut count = 0;
    let mut more = 0;
    for s in ep["subsets"].as_array().into_iter().flatten() {
        let ports = s["ports"].as_array().cloned().unwrap_or_default();
        for a in s["addresses"].as_array().into_iter().flatten() {
            let ip = a["ip"].as_str().unwrap_or("");
            if ports.is_empty() {
                if count < 3 {
                    list.push(ip.to_string());
                    count += 1;
                } else {
                    more += 1;
                }
                continue;
            }
            for p in &ports {
                if count < 3 {
                    list.push(format!("{ip}:{}", p["port"].as_i64().unwrap_or(0)));
                    count += 1;
                } else {
                    more += 1;
                }
            }
        }
    }
    let mut out = list.join(",");
    if more > 0 {
        out.push_str(&format!(" + {more} more..."));
    }
    if out.is_empty() { "<none>".into() } else { out }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_defaults_are_set_defaults_service() {
        let mut s = json!({"spec": {"type": "NodePort", "ports": [{"port": 80}, {"port": 53, "protocol": "UDP", "targetPort": "dns"}]}});
        Services.decode(&mut s).unwrap();
        assert_eq!(
            s,
            json!({"spec": {"type": "NodePort", "sessionAffinity": "None",
                "externalTrafficPolicy": "Cluster", "internalTrafficPolicy": "Cluster",
                "ports": [{"port": 80, "protocol": "TCP", "targetPort": 80},
                          {"port": 53, "protocol": "UDP", "targetPort": "dns"}]}})
        );
        let mut e = json!({"spec": {"type": "ExternalName", "externalName": "a.b"}});
        Services.decode(&mut e).unwrap();
        assert!(e["spec"].get("internalTrafficPolicy").is_none());
        let mut c = json!({"spec": {"sessionAffinity": "ClientIP", "ports": [{"port": 1}]}});
        Services.decode(&mut c).unwrap();
        assert_eq!(
            c["spec"]["sessionAffinityConfig"]["clientIP"]["timeoutSeconds"],
            10800
        );
    }

    #[test]
    fn the_printer_columns_read_like_kubectl() {
        let s = json!({"spec": {"type": "NodePort", "clusterIPs": ["10.0.0.9"],
            "ports": [{"port": 80, "nodePort": 30080, "protocol": "TCP"}, {"port": 53, "protocol": "UDP"}],
            "selector": {"b": "2", "a": "1"}}});
        assert_eq!(port_string(&s), "80:30080/TCP,53/UDP");
        assert_eq!(external_ip(&s), "<none>");
        assert_eq!(format_labels(&s["spec"]["selector"]), "a=1,b=2");
        let lb = json!({"spec": {"type": "LoadBalancer"}, "status": {"loadBalancer": {}}});
        assert_eq!(external_ip(&lb), "<pending>");
        let ep = json!({"subsets": [{"addresses": [{"ip": "1.1.1.1"}, {"ip": "1.1.1.2"}],
            "ports": [{"port": 80}, {"port": 443}]}]});
        assert_eq!(
            endpoints_string(&ep),
            "1.1.1.1:80,1.1.1.1:443,1.1.1.2:80 + 1 more..."
        );
    }
}
