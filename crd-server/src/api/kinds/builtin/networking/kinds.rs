//! networking.k8s.io/v1 Ingresses, IngressClasses and NetworkPolicies: their defaults
//! (a NetworkPolicy's port protocols and policy types; an Ingress's `pathType` is left
//! as sent), the checks of networking validation, and the printers' columns.

use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use serde_json::{Value, json};

use crate::api::kinds::builtin::behaviour::*;
use crate::api::kinds::builtin::checks::strings;
use crate::api::kinds::builtin::core::service::ip_range::{parse_net, strict_subset};
use crate::api::kinds::builtin::core::service::load_balancer_ingress;
use crate::api::kinds::builtin::{checks, default_field, immutable_field};
use crate::api::selectors::label;
use crate::api::table::Column;

const PATH_TYPES: [&str; 3] = ["Exact", "ImplementationSpecific", "Prefix"];
const PROTOCOLS: [&str; 3] = ["SCTP", "TCP", "UDP"];
const POLICY_TYPES: [&str; 2] = ["Egress", "Ingress"];

/// A host: a DNS subdomain, `*.` allowed in front, never an IP address.
fn host(h: &str, path: Path, errs: &mut ErrorList) {
    if checks::is_ip(h) {
        errs.push(FieldError::invalid(
            path,
            BadValue::Str(h.into()),
            "must be a DNS name, not an IP address",
        ));
        return;
    }
    match h.strip_prefix("*.") {
        Some(rest) => {
            if !crd_runtime::names::dns1123_subdomain(rest).is_empty() {
                errs.push(FieldError::invalid(
                    path,
                    BadValue::Str(h.into()),
                    "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
                ));
            }
        }
        None => checks::dns1123_subdomain(h, path, errs),
    }
}

/// `validateIngressBackend`: a service (name and one of port name or number) or a
/// resource, not both.
fn backend(b: &Value, path: Path, errs: &mut ErrorList) {
    let (svc, res) = (&b["service"], &b["resource"]);
    match (svc.is_object(), res.is_object()) {
        (true, true) => errs.push(FieldError::invalid(
            path,
            BadValue::Str(String::new()),
            "cannot set both resource and service backends",
        )),
        (false, false) => errs.push(FieldError::invalid(
            path,
            BadValue::Omit,
            "resource or service backend is required",
        )),
        (false, true) => {
            for f in ["kind", "name"] {
                if res[f].as_str().unwrap_or("").is_empty() {
                    errs.push(FieldError::required(path.child("resource").child(f), ""));
                }
            }
        }
        (true, false) => {
            let sp = path.child("service");
            let name = svc["name"].as_str().unwrap_or("");
            if name.is_empty() {
                errs.push(FieldError::required(sp.child("name"), ""));
            } else {
                for m in crd_runtime::names::dns1035_label(name) {
                    errs.push(FieldError::invalid(
                        sp.child("name"),
                        BadValue::Str(name.into()),
                        m,
                    ));
                }
            }
            let port = &svc["port"];
            let (pname, pnum) = (
                port["name"].as_str().unwrap_or(""),
                port["number"].as_i64().unwrap_or(0),
            );
            let pp = sp.child("port");
            if !pname.is_empty() && pnum != 0 {
                errs.push(FieldError::invalid(
                    pp,
                    BadValue::Str(pname.into()),
                    "cannot set both port name & port number",
                ));
            } else if !pname.is_empty() {
                for m in checks::port_name_messages(pname) {
                    errs.push(FieldError::invalid(
                        pp.child("name"),
                        BadValue::Str(pname.into()),
                        m,
                    ));
                }
            } else if pnum != 0 {
                checks::port_number(pnum, pp.child("number"), errs);
            } else {
                errs.push(FieldError::required(pp, "port name or number is required"));
            }
        }
    }
}

/// Ingresses.
pub struct Ingresses;

defaults!(Ingresses: Defaulter, Preparer, Serving, Deleter, AllocateStrategy);

impl Validator for Ingresses {
    fn validate(&self, obj: &Value, _old: Option<&Value>, errs: &mut ErrorList) {
        let spec = &obj["spec"];
        let sp = Path::new("spec");
        let rules = spec["rules"].as_array().cloned().unwrap_or_default();
        if rules.is_empty() && !spec["defaultBackend"].is_object() {
            errs.push(FieldError::invalid(sp.clone(), BadValue::Omit, "[]networking.IngressRule(nil): either `defaultBackend` or `rules` must be specified"));
        }
        if spec["defaultBackend"].is_object() {
            backend(&spec["defaultBackend"], sp.child("defaultBackend"), errs);
        }
        for (i, r) in rules.iter().enumerate() {
            let rp = sp.child("rules").index(i);
            if let Some(h) = r["host"].as_str().filter(|h| !h.is_empty()) {
                host(h, rp.child("host"), errs);
            }
            if !r["http"].is_object() {
                continue;
            }
            let hp = rp.child("http");
            let paths = r["http"]["paths"].as_array().cloned().unwrap_or_default();
            if paths.is_empty() {
                errs.push(FieldError::required(hp.child("paths"), ""));
            }
            for (j, p) in paths.iter().enumerate() {
                let pp = hp.child("paths").index(j);
                let path = p["path"].as_str().unwrap_or("");
                match p["pathType"].as_str() {
                    None => errs.push(FieldError::required(
                        pp.child("pathType"),
                        "pathType must be specified",
                    )),
                    Some(t) if !PATH_TYPES.contains(&t) => {
                        errs.push(FieldError::not_supported(
                            pp.child("pathType"),
                            BadValue::Str(t.into()),
                            &PATH_TYPES,
                        ));
                    }
                    Some("Exact" | "Prefix") if !path.starts_with('/') => {
                        errs.push(FieldError::invalid(
                            pp.child("path"),
                            BadValue::Str(path.into()),
                            "must be an absolute path",
                        ));
                    }
                    Some("Exact" | "Prefix") if path.contains("//") => {
                        errs.push(FieldError::invalid(
                            pp.child("path"),
                            BadValue::Str(path.into()),
                            "must not contain '//'",
                        ));
                    }
                    Some(_) => {}
                }
                backend(&p["backend"], pp.child("backend"), errs);
            }
        }
        for (i, t) in spec["tls"].as_array().into_iter().flatten().enumerate() {
            for (j, h) in strings(&t["hosts"]).iter().enumerate() {
                host(h, sp.child("tls").index(i).child("hosts").index(j), errs);
            }
        }
        if let Some(class) = spec["ingressClassName"].as_str() {
            checks::dns1123_subdomain(class, sp.child("ingressClassName"), errs);
        }
    }
}

impl Printer for Ingresses {
    fn columns(&self) -> Vec<Column> {
        vec![
            Column::computed(
                "Class",
                "string",
                "The name of the IngressClass resource referenced by the Ingress",
                |o| json!(o["spec"]["ingressClassName"].as_str().unwrap_or("<none>")),
            ),
            Column::computed(
                "Hosts",
                "string",
                "Hosts that incoming requests are matched against before the ingress rule",
                |o| json!(hosts(o)),
            ),
            Column::computed(
                "Address",
                "string",
                "Address is a list containing ingress points for the load-balancer",
                |o| json!(load_balancer_ingress(&o["status"]["loadBalancer"])),
            ),
            Column::computed(
                "Ports",
                "string",
                "Ports of TLS configurations that open",
                |o| {
                    json!(
                        if o["spec"]["tls"].as_array().is_some_and(|t| !t.is_empty()) {
                            "80, 443"
                        } else {
                            "80"
                        }
                    )
                },
            ),
            Column::builtin_age(),
        ]
    }
}

/// `formatHosts`: three hosts, then ` + N more...`; `*` without one.
fn hosts(o: &Value) -> String {
    let rules = o["spec"]["rules"].as_array().cloned().unwrap_or_default();
    let list: Vec<&str> = rules
        .iter()
        .take(3)
        .filter_map(|r| r["host"].as_str().filter(|h| !h.is_empty()))
        .collect();
    if list.is_empty() {
        return "*".into();
    }
    let mut out = list.join(",");
    if rules.len() > 3 {
        out.push_str(&format!(" + {} more...", rules.len() - 3));
    }
    out
}

/// IngressClasses.
pub struct IngressClasses;

defaults!(IngressClasses: Defaulter, Preparer, Serving, Deleter, AllocateStrategy);

impl Validator for IngressClasses {
    fn validate(&self, obj: &Value, old: Option<&Value>, errs: &mut ErrorList) {
        let sp = Path::new("spec");
        let controller = obj["spec"]["controller"].as_str().unwrap_or("");
        let cp = sp.child("controller");
        if controller.is_empty() {
            errs.push(FieldError::required(cp.clone(), ""));
        } else if controller.len() > 250 {
            errs.push(FieldError::too_long(cp.clone(), 250));
        } else if !controller.contains('/') {
            errs.push(FieldError::invalid(
                cp.clone(),
                BadValue::Str(controller.into()),
                "must be a domain-prefixed path (such as \"acme.io/foo\")",
            ));
        }
        let params = &obj["spec"]["parameters"];
        if params.is_object() {
            let pp = sp.child("parameters");
            for f in ["kind", "name"] {
                if params[f].as_str().unwrap_or("").is_empty() {
                    errs.push(FieldError::required(pp.child(f), ""));
                }
            }
            match params["scope"].as_str() {
                Some("Namespace") if params["namespace"].as_str().unwrap_or("").is_empty() => {
                    errs.push(FieldError::required(
                        pp.child("namespace"),
                        "`parameters.scope` is set to 'Namespace'",
                    ));
                }
                Some("Cluster") if params["namespace"].is_string() => {
                    errs.push(FieldError::forbidden(
                        pp.child("namespace"),
                        "`parameters.scope` is set to 'Cluster'",
                    ));
                }
                Some(s) if s != "Namespace" && s != "Cluster" => {
                    errs.push(FieldError::not_supported(
                        pp.child("scope"),
                        BadValue::Str(s.into()),
                        &["Cluster", "Namespace"],
                    ));
                }
                _ => {}
            }
        }
        if let Some(old) = old {
            immutable_field(obj, old, "/spec/controller", cp, errs);
        }
    }
}

impl Printer for IngressClasses {
    fn columns(&self) -> Vec<Column> {
        vec![
            Column::computed(
                "Controller",
                "string",
                "Controller that is responsible for handling this class",
                |o| json!(o["spec"]["controller"].as_str().unwrap_or("")),
            ),
            Column::computed(
                "Parameters",
                "string",
                "A reference to a resource with additional parameters",
                |o| {
                    let p = &o["spec"]["parameters"];
                    if !p.is_object() {
                        return json!("<none>");
                    }
                    let mut s = p["kind"].as_str().unwrap_or("").to_string();
                    if let Some(g) = p["apiGroup"].as_str() {
                        s = format!("{s}.{g}");
                    }
                    json!(format!("{s}/{}", p["name"].as_str().unwrap_or("")))
                },
            ),
            Column::builtin_age(),
        ]
    }
}

/// NetworkPolicies.
pub struct NetworkPolicies;

defaults!(NetworkPolicies: Preparer, Serving, Deleter, AllocateStrategy);

impl Defaulter for NetworkPolicies {
    fn decode(&self, obj: &mut Value) -> Result<(), String> {
        if !obj["spec"].is_object() {
            return Ok(());
        }
        for dir in ["ingress", "egress"] {
            if let Some(rules) = obj["spec"][dir].as_array_mut() {
                for r in rules {
                    if let Some(ports) = r.get_mut("ports").and_then(Value::as_array_mut) {
                        for p in ports.iter_mut().filter(|p| p.is_object()) {
                            default_field(p, "protocol", json!("TCP"));
                        }
                    }
                }
            }
        }
        if strings(&obj["spec"]["policyTypes"]).is_empty() {
            let mut types = vec!["Ingress"];
            if obj["spec"]["egress"]
                .as_array()
                .is_some_and(|e| !e.is_empty())
            {
                types.push("Egress");
            }
            obj["spec"]["policyTypes"] = json!(types);
        }
        Ok(())
    }
}

impl Validator for NetworkPolicies {
    fn validate(&self, obj: &Value, old: Option<&Value>, errs: &mut ErrorList) {
        let spec = &obj["spec"];
        let sp = Path::new("spec");
        let opts = selector_options(old);
        label::validate(&spec["podSelector"], opts, &sp.child("podSelector"), errs);
        for (dir, peers) in [("ingress", "from"), ("egress", "to")] {
            for (i, rule) in spec[dir].as_array().into_iter().flatten().enumerate() {
                let rp = sp.child(dir).index(i);
                for (j, port) in rule["ports"].as_array().into_iter().flatten().enumerate() {
                    np_port(port, rp.child("ports").index(j), errs);
                }
                for (j, peer) in rule[peers].as_array().into_iter().flatten().enumerate() {
                    np_peer(peer, opts, rp.child(peers).index(j), errs);
                }
            }
        }
        let types = strings(&spec["policyTypes"]);
        for (i, t) in types.iter().enumerate() {
            if !POLICY_TYPES.contains(&t.as_str()) {
                errs.push(FieldError::not_supported(
                    sp.child("policyTypes").index(i),
                    BadValue::Str(t.clone()),
                    &POLICY_TYPES,
                ));
            }
        }
        if types.len() > 2 {
            errs.push(FieldError::invalid(
                sp.child("policyTypes"),
                BadValue::Omit,
                format!(
                    "{}: may not specify more than two policyTypes",
                    crate::api::kinds::builtin::checks::go_strings(&types).replacen(
                        "[]string",
                        "[]networking.PolicyType",
                        1
                    )
                ),
            ));
        }
    }
}

impl Printer for NetworkPolicies {
    fn columns(&self) -> Vec<Column> {
        vec![
            Column::computed(
                "Pod-Selector",
                "string",
                "podSelector selects the pods to which this NetworkPolicy object applies. The array of rules is applied to any pods selected by this field. An empty selector matches all pods in the policy's namespace. Multiple network policies can select the same set of pods. In this case, the ingress rules for each are combined additively. This field is NOT optional and follows standard label selector semantics. An empty podSelector matches all pods in this namespace.",
                |o| json!(label::format(o["spec"].get("podSelector"))),
            ),
            Column::builtin_age(),
        ]
    }
}

fn np_port(port: &Value, path: Path, errs: &mut ErrorList) {
    if let Some(proto) = port["protocol"].as_str()
        && !PROTOCOLS.contains(&proto)
    {
        errs.push(FieldError::not_supported(
            path.child("protocol"),
            BadValue::Str(proto.into()),
            &PROTOCOLS,
        ));
    }
    match &port["port"] {
        Value::Number(n) => {
            let n = n.as_i64().unwrap_or(0);
            checks::port_number(n, path.child("port"), errs);
            if let Some(end) = port["endPort"].as_i64() {
                if end < n {
                    errs.push(FieldError::invalid(
                        path.child("endPort"),
                        BadValue::Int(end),
                        "must be greater than or equal to `port`",
                    ));
                }
                checks::port_number(end, path.child("endPort"), errs);
            }
        }
        Value::String(s) => {
            for m in checks::port_name_messages(s) {
                errs.push(FieldError::invalid(
                    path.child("port"),
                    BadValue::Str(s.clone()),
                    m,
                ));
            }
            if port["endPort"].is_i64() {
                errs.push(FieldError::invalid(
                    path.child("endPort"),
                    BadValue::Int(port["endPort"].as_i64().unwrap_or(0)),
                    "may not be specified when `port` is non-numeric",
                ));
            }
        }
        _ => {
            if port["endPort"].is_i64() {
                errs.push(FieldError::required(
                    path.child("port"),
                    "must be specified when `endPort` is specified",
                ));
            }
        }
    }
}

/// `ValidationOptionsForNetworking`: an update allows invalid label values in
/// selectors when the old policy's pod selector, or a pod selector of one of its
/// peers, already had one.
fn selector_options(old: Option<&Value>) -> label::Options {
    let Some(spec) = old.map(|o| &o["spec"]) else {
        return label::Options::default();
    };
    let peers = [("ingress", "from"), ("egress", "to")]
        .into_iter()
        .flat_map(|(dir, peers)| {
            let rules = spec[dir].as_array().into_iter().flatten();
            rules.flat_map(move |r| r[peers].as_array().into_iter().flatten())
        });
    let mut selectors = std::iter::once(spec.get("podSelector"))
        .chain(peers.map(|p| p.get("podSelector").filter(|s| !s.is_null())));
    label::Options {
        allow_invalid_values: selectors.any(|s| label::has_invalid_label_value(s)),
    }
}

fn np_peer(peer: &Value, opts: label::Options, path: Path, errs: &mut ErrorList) {
    let set = ["podSelector", "namespaceSelector", "ipBlock"]
        .iter()
        .filter(|f| peer[**f].is_object())
        .count();
    if set == 0 {
        errs.push(FieldError::required(path.clone(), "must specify a peer"));
    } else if peer["ipBlock"].is_object() && set > 1 {
        errs.push(FieldError::forbidden(
            path.clone(),
            "may not specify both ipBlock and another peer",
        ));
    }
    label::validate(&peer["podSelector"], opts, &path.child("podSelector"), errs);
    label::validate(
        &peer["namespaceSelector"],
        opts,
        &path.child("namespaceSelector"),
        errs,
    );
    let block = &peer["ipBlock"];
    if !block.is_object() {
        return;
    }
    let bp = path.child("ipBlock");
    let cidr = block["cidr"].as_str().unwrap_or("");
    let parsed = parse_net(cidr);
    if cidr.is_empty() {
        errs.push(FieldError::required(bp.child("cidr"), ""));
    } else if parsed.is_none() {
        errs.push(FieldError::invalid(
            bp.child("cidr"),
            BadValue::Str(cidr.into()),
            "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)",
        ));
    }
    for (i, e) in strings(&block["except"]).iter().enumerate() {
        let ep = bp.child("except").index(i);
        match (parse_net(e), parsed) {
            (None, _) => errs.push(FieldError::invalid(
                ep,
                BadValue::Str(e.clone()),
                "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)",
            )),
            (Some(ex), Some(outer)) if !strict_subset(&outer, &ex) => {
                errs.push(FieldError::invalid(
                    ep,
                    BadValue::Str(e.clone()),
                    "must be a strict subset of `cidr`",
                ));
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {

    /// `ValidateLabelSelector` on every selector of a NetworkPolicy, values included
    /// (kube-apiserver's messages; an update keeps invalid values the old policy had).
    #[test]
    fn network_policy_selectors_are_validated_with_their_values() {
        let np = json!({"spec": {
            "podSelector": {"matchExpressions": [{"key": "app", "operator": "Exists", "values": ["x"]}]},
            "policyTypes": ["Ingress"],
            "ingress": [{"from": [{
                "podSelector": {"matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["not ok"]}]},
                "namespaceSelector": {"matchExpressions": [{"key": "team", "operator": "In"}]}
            }]}]
        }});
        assert_eq!(
            errors_of(&NetworkPolicies, &np, None),
            [
                "spec.podSelector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                "spec.ingress[0].from[0].podSelector.matchExpressions[0].values[0]: Invalid value: \"not ok\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
                "spec.ingress[0].from[0].namespaceSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
            ]
        );
        let valid = json!({"spec": {
            "podSelector": {"matchExpressions": [{"key": "app", "operator": "Exists"}]},
            "policyTypes": ["Ingress"],
            "ingress": [{"from": [{"podSelector": {"matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["not ok"]}]}}]}]
        }});
        let errs = errors_of(&NetworkPolicies, &valid, Some(&valid));
        assert!(errs.is_empty(), "{errs:?}");
    }
    use super::*;

    #[test]
    fn ingresses_need_rules_or_a_default_backend() {
        assert_eq!(
            errors_of(&Ingresses, &json!({"spec": {}}), None),
            [
                "spec: Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` must be specified"
            ]
        );
        let ing = json!({"spec": {"rules": [{"host": "1.2.3.4", "http": {"paths": [
            {"path": "foo", "pathType": "Prefix", "backend": {"service": {"name": "web", "port": {"number": 80}}}},
            {"path": "/", "backend": {"service": {"name": "web", "port": {}}}}]}}]}});
        assert_eq!(
            errors_of(&Ingresses, &ing, None),
            [
                "spec.rules[0].host: Invalid value: \"1.2.3.4\": must be a DNS name, not an IP address",
                "spec.rules[0].http.paths[0].path: Invalid value: \"foo\": must be an absolute path",
                "spec.rules[0].http.paths[1].pathType: Required value: pathType must be specified",
                "spec.rules[0].http.paths[1].backend.service.port: Required value: port name or number is required"
            ]
        );
        assert_eq!(hosts(&ing), "1.2.3.4");
    }

    #[test]
    fn network_policies_default_and_check_their_peers() {
        let mut np = json!({"spec": {"podSelector": {}, "egress": [{"ports": [{"port": 80}]}],
            "ingress": [{"from": [{"ipBlock": {"cidr": "10.0.0.0/16", "except": ["10.1.0.0/24"]}, "podSelector": {}}]}]}});
        NetworkPolicies.decode(&mut np).unwrap();
        assert_eq!(np["spec"]["policyTypes"], json!(["Ingress", "Egress"]));
        assert_eq!(np["spec"]["egress"][0]["ports"][0]["protocol"], "TCP");
        assert_eq!(
            errors_of(&NetworkPolicies, &np, None),
            [
                "spec.ingress[0].from[0]: Forbidden: may not specify both ipBlock and another peer",
                "spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: \"10.1.0.0/24\": must be a strict subset of `cidr`"
            ]
        );
    }
}
