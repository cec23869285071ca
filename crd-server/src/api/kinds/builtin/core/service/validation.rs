//! `ValidateService` and `ValidateServiceUpdate` (core validation) with their messages
//! and field paths: ports, types, session affinity, traffic policies, the cluster IP
//! fields, and what an update may not change.

use std::collections::HashSet;

use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use serde_json::Value;

use crate::api::kinds::builtin::checks;
use crate::api::kinds::builtin::checks::{IP_MESSAGE, go_strings, invalid_go, one_of, strings};
use crate::api::selectors::label::validate_labels;

const TYPES: [&str; 4] = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"];
const PROTOCOLS: [&str; 3] = ["SCTP", "TCP", "UDP"];
const AFFINITIES: [&str; 2] = ["ClientIP", "None"];
const TRAFFIC_POLICIES: [&str; 2] = ["Cluster", "Local"];
const FAMILIES: [&str; 2] = ["IPv4", "IPv6"];
const FAMILY_POLICIES: [&str; 3] = ["PreferDualStack", "RequireDualStack", "SingleStack"];
/// `ports.KubeletPort`: a LoadBalancer may not expose it.
const KUBELET_PORT: i64 = 10250;

fn spec() -> Path {
    Path::new("spec")
}

fn str_at<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// `isHeadlessService`: `clusterIPs` is exactly `["None"]`.
pub fn headless(svc: &Value) -> bool {
    strings(&svc["spec"]["clusterIPs"]) == ["None"]
}

/// `ExternallyAccessible`: NodePort, LoadBalancer, or ClusterIP with external IPs.
pub fn externally_accessible(svc: &Value) -> bool {
    let spec = &svc["spec"];
    match str_at(spec, "type") {
        "LoadBalancer" | "NodePort" => true,
        "ClusterIP" => !strings(&spec["externalIPs"]).is_empty(),
        _ => false,
    }
}

/// `NeedsHealthCheck`: a LoadBalancer with `externalTrafficPolicy: Local`.
pub fn needs_health_check(svc: &Value) -> bool {
    let spec = &svc["spec"];
    str_at(spec, "type") == "LoadBalancer" && str_at(spec, "externalTrafficPolicy") == "Local"
}

/// `ValidateService` (after `ValidateObjectMeta`, which the caller runs).
pub fn validate(svc: &Value, errs: &mut ErrorList) {
    let spec_v = &svc["spec"];
    let ty = str_at(spec_v, "type");
    let ports = spec_v["ports"].as_array().cloned().unwrap_or_default();
    let is_headless = headless(svc);
    if ports.is_empty() && !is_headless && ty != "ExternalName" {
        errs.push(FieldError::required(spec().child("ports"), ""));
    }
    let first_ip = || {
        strings(&spec_v["clusterIPs"])
            .first()
            .cloned()
            .unwrap_or_default()
    };
    match ty {
        "LoadBalancer" => {
            if is_headless {
                errs.push(FieldError::invalid(
                    spec().child("clusterIPs").index(0),
                    BadValue::Str(first_ip()),
                    "may not be set to 'None' for LoadBalancer services",
                ));
            }
            for (i, p) in ports.iter().enumerate() {
                if p["port"].as_i64() == Some(KUBELET_PORT) {
                    errs.push(FieldError::invalid(
                        spec().child("ports").index(i),
                        BadValue::Int(KUBELET_PORT),
                        format!("may not expose port {KUBELET_PORT} externally since it is used by kubelet"),
                    ));
                }
            }
        }
        "NodePort" if is_headless => errs.push(FieldError::invalid(
            spec().child("clusterIPs").index(0),
            BadValue::Str(first_ip()),
            "may not be set to 'None' for NodePort services",
        )),
        "ExternalName" => external_name(spec_v, errs),
        _ => {}
    }
    let mut names = HashSet::new();
    for (i, p) in ports.iter().enumerate() {
        port(
            p,
            ports.len() > 1,
            &mut names,
            spec().child("ports").index(i),
            errs,
        );
    }
    if spec_v["selector"].is_object() {
        validate_labels(
            spec_v["selector"].as_object(),
            &spec().child("selector"),
            errs,
        );
    }
    session_affinity(spec_v, errs);
    cluster_ip_fields(svc, errs);
    for (i, ip) in strings(&spec_v["externalIPs"]).iter().enumerate() {
        if !checks::is_ip(ip) {
            errs.push(FieldError::invalid(
                spec().child("externalIPs").index(i),
                BadValue::Str(ip.clone()),
                IP_MESSAGE,
            ));
        }
    }
    one_of(ty, &TYPES, spec().child("type"), errs);
    if ty == "ClusterIP" {
        for (i, p) in ports.iter().enumerate() {
            if p["nodePort"].as_i64().is_some_and(|n| n != 0) {
                errs.push(FieldError::forbidden(
                    spec().child("ports").index(i).child("nodePort"),
                    "may not be used when `type` is 'ClusterIP'",
                ));
            }
        }
    }
    duplicates(&ports, errs);
    if !strings(&spec_v["loadBalancerSourceRanges"]).is_empty() && ty != "LoadBalancer" {
        errs.push(FieldError::forbidden(
            spec().child("LoadBalancerSourceRanges"),
            "may only be used when `type` is 'LoadBalancer'",
        ));
    }
    traffic_policies(svc, errs);
}

fn external_name(spec_v: &Value, errs: &mut ErrorList) {
    if !strings(&spec_v["clusterIPs"]).is_empty() {
        errs.push(FieldError::forbidden(
            spec().child("clusterIPs"),
            "may not be set for ExternalName services",
        ));
    }
    if !strings(&spec_v["ipFamilies"]).is_empty() {
        errs.push(FieldError::forbidden(
            spec().child("ipFamilies"),
            "may not be set for ExternalName services",
        ));
    }
    if spec_v["ipFamilyPolicy"].is_string() {
        errs.push(FieldError::forbidden(
            spec().child("ipFamilyPolicy"),
            "may not be set for ExternalName services",
        ));
    }
    let cname = str_at(spec_v, "externalName");
    let cname = cname.strip_suffix('.').unwrap_or(cname);
    if cname.is_empty() {
        errs.push(FieldError::required(spec().child("externalName"), ""));
    } else {
        checks::dns1123_subdomain(cname, spec().child("externalName"), errs);
    }
}

/// `validateServicePort`.
fn port(
    p: &Value,
    require_name: bool,
    names: &mut HashSet<String>,
    path: Path,
    errs: &mut ErrorList,
) {
    let name = str_at(p, "name");
    if require_name && name.is_empty() {
        errs.push(FieldError::required(path.child("name"), ""));
    } else if !name.is_empty() {
        checks::dns1123_label(name, path.child("name"), errs);
        if !names.insert(name.to_string()) {
            errs.push(FieldError::duplicate(
                path.child("name"),
                BadValue::Str(name.into()),
            ));
        }
    }
    checks::port_number(p["port"].as_i64().unwrap_or(0), path.child("port"), errs);
    let protocol = str_at(p, "protocol");
    one_of(protocol, &PROTOCOLS, path.child("protocol"), errs);
    checks::port_num_or_name(&p["targetPort"], path.child("targetPort"), errs);
    if let Some(app) = p["appProtocol"].as_str() {
        for m in crd_runtime::names::qualified_name(app) {
            errs.push(FieldError::invalid(
                path.child("appProtocol"),
                BadValue::Str(app.into()),
                m,
            ));
        }
    }
}

/// Go's `%#v` of the `core.ServicePort` used as a duplicate key.
fn port_key(protocol: &str, port: i64, node_port: i64) -> String {
    format!(
        "core.ServicePort{{Name:\"\", Protocol:{}, AppProtocol:(*string)(nil), Port:{port}, TargetPort:intstr.IntOrString{{Type:0, IntVal:0, StrVal:\"\"}}, NodePort:{node_port}}}",
        crd_runtime::__private::go::quote(protocol)
    )
}

/// Duplicate node ports and ports, each by (protocol, number).
fn duplicates(ports: &[Value], errs: &mut ErrorList) {
    let mut node_ports = HashSet::new();
    for (i, p) in ports.iter().enumerate() {
        let np = p["nodePort"].as_i64().unwrap_or(0);
        if np != 0 && !node_ports.insert((str_at(p, "protocol").to_string(), np)) {
            errs.push(FieldError::duplicate(
                spec().child("ports").index(i).child("nodePort"),
                BadValue::Int(np),
            ));
        }
    }
    let mut seen = HashSet::new();
    for (i, p) in ports.iter().enumerate() {
        let key = (
            str_at(p, "protocol").to_string(),
            p["port"].as_i64().unwrap_or(0),
        );
        if !seen.insert(key.clone()) {
            // Go prints the key struct with %#v: rendered into the detail.
            errs.push(FieldError::new(
                crd_runtime::field::ErrorType::Duplicate,
                spec().child("ports").index(i),
                BadValue::Omit,
                port_key(&key.0, key.1, 0),
            ));
        }
    }
}

fn session_affinity(spec_v: &Value, errs: &mut ErrorList) {
    let affinity = str_at(spec_v, "sessionAffinity");
    one_of(affinity, &AFFINITIES, spec().child("sessionAffinity"), errs);
    let config = &spec_v["sessionAffinityConfig"];
    match affinity {
        "ClientIP" => {
            let path = spec()
                .child("sessionAffinityConfig")
                .child("clientIP")
                .child("timeoutSeconds");
            match config
                .pointer("/clientIP/timeoutSeconds")
                .and_then(Value::as_i64)
            {
                None => errs.push(FieldError::required(path, "")),
                Some(t) if !(1..=86400).contains(&t) => errs.push(FieldError::invalid(
                    path,
                    BadValue::Int(t),
                    "must be greater than 0 and less than 86400",
                )),
                Some(_) => {}
            }
        }
        "None" if !config.is_null() => errs.push(FieldError::forbidden(
            spec().child("sessionAffinityConfig"),
            "must not be set when session affinity is None",
        )),
        _ => {}
    }
}

/// `ValidateServiceClusterIPsRelatedFields`.
pub fn cluster_ip_fields(svc: &Value, errs: &mut ErrorList) {
    let spec_v = &svc["spec"];
    if str_at(spec_v, "type") == "ExternalName" {
        return;
    }
    let ips_path = spec().child("clusterIPs");
    let ip = str_at(spec_v, "clusterIP");
    let ips = strings(&spec_v["clusterIPs"]);
    if !ip.is_empty() {
        if ips.is_empty() {
            errs.push(FieldError::required(ips_path.clone(), ""));
        } else if ips[0] != ip {
            errs.push(invalid_go(
                ips_path.clone(),
                &go_strings(&ips),
                "first value must match `clusterIP`",
            ));
        }
    } else if !ips.is_empty() {
        errs.push(invalid_go(
            ips_path.clone(),
            &go_strings(&ips),
            "must be empty when `clusterIP` is not specified",
        ));
    }
    let families = strings(&spec_v["ipFamilies"]);
    let mut seen = HashSet::new();
    for (i, f) in families.iter().enumerate() {
        let path = spec().child("ipFamilies").index(i);
        if !FAMILIES.contains(&f.as_str()) {
            errs.push(FieldError::not_supported(
                path.clone(),
                BadValue::Str(f.clone()),
                &FAMILIES,
            ));
        }
        if !seen.insert(f.clone()) {
            errs.push(FieldError::duplicate(path, BadValue::Str(f.clone())));
        }
    }
    if let Some(policy) = spec_v["ipFamilyPolicy"].as_str()
        && !FAMILY_POLICIES.contains(&policy)
    {
        errs.push(FieldError::not_supported(
            spec().child("ipFamilyPolicy"),
            BadValue::Str(policy.into()),
            &FAMILY_POLICIES,
        ));
    }
    let mut bad_ips = false;
    for (i, ip) in ips.iter().enumerate() {
        if i == 0 && ip == "None" {
            if ips.len() > 1 {
                bad_ips = true;
                errs.push(invalid_go(
                    ips_path.clone(),
                    &go_strings(&ips),
                    "'None' must be the first and only value",
                ));
            }
            continue;
        }
        if !checks::is_ip(ip) {
            bad_ips = true;
            errs.push(FieldError::invalid(
                ips_path.index(i),
                BadValue::Str(ip.clone()),
                IP_MESSAGE,
            ));
        }
    }
    if ips.len() > 2 {
        errs.push(invalid_go(
            ips_path.clone(),
            &go_strings(&ips),
            "may only hold up to 2 values",
        ));
    }
    if bad_ips {
        return;
    }
    let v6 = |ip: &str| ip.parse::<std::net::IpAddr>().is_ok_and(|a| a.is_ipv6());
    if ips.len() > 1 && v6(&ips[0]) == v6(&ips[1]) {
        errs.push(invalid_go(
            ips_path.clone(),
            &go_strings(&ips),
            "may specify no more than one IP for each IP family",
        ));
    }
    if !headless(svc) {
        for (i, (ip, fam)) in ips.iter().zip(&families).enumerate() {
            let want_v6 = fam == "IPv6";
            if (fam == "IPv4" || want_v6) && v6(ip) != want_v6 {
                errs.push(FieldError::invalid(
                    ips_path.index(i),
                    BadValue::Str(ip.clone()),
                    format!("expected an {fam} value as indicated by `ipFamilies[{i}]`"),
                ));
            }
        }
    }
}

/// `validateServiceExternalTrafficPolicy` and the internal traffic policy's checks.
fn traffic_policies(svc: &Value, errs: &mut ErrorList) {
    let spec_v = &svc["spec"];
    let external = str_at(spec_v, "externalTrafficPolicy");
    let path = spec().child("externalTrafficPolicy");
    if !externally_accessible(svc) {
        if !external.is_empty() {
            errs.push(FieldError::invalid(
                path,
                BadValue::Str(external.into()),
                "may only be set for externally-accessible services",
            ));
        }
    } else {
        one_of(external, &TRAFFIC_POLICIES, path, errs);
    }
    let hc = spec_v["healthCheckNodePort"].as_i64().unwrap_or(0);
    if !needs_health_check(svc) && hc != 0 {
        errs.push(FieldError::invalid(
            spec().child("healthCheckNodePort"),
            BadValue::Int(hc),
            "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
        ));
    }
    let internal_path = spec().child("internalTrafficPolicy");
    match spec_v["internalTrafficPolicy"].as_str() {
        None if matches!(
            str_at(spec_v, "type"),
            "NodePort" | "LoadBalancer" | "ClusterIP"
        ) =>
        {
            errs.push(FieldError::required(internal_path, ""));
        }
        Some(p) if !TRAFFIC_POLICIES.contains(&p) => {
            errs.push(FieldError::not_supported(
                internal_path,
                BadValue::Str(p.into()),
                &TRAFFIC_POLICIES,
            ));
        }
        _ => {}
    }
}

/// `ValidateServiceUpdate`'s checks of what may not change, then `ValidateService`.
pub fn validate_update(svc: &Value, old: &Value, errs: &mut ErrorList) {
    let ty = str_at(&svc["spec"], "type");
    let old_ty = str_at(&old["spec"], "type");
    if ty != "ExternalName" && old_ty != "ExternalName" {
        let new_ips = strings(&svc["spec"]["clusterIPs"]);
        let old_ips = strings(&old["spec"]["clusterIPs"]);
        let path = spec().child("clusterIPs");
        if old_ips.len() == new_ips.len() {
            for (i, ip) in old_ips.iter().enumerate() {
                if *ip != new_ips[i] {
                    errs.push(invalid_go(
                        path.index(i),
                        &go_strings(&new_ips),
                        "field is immutable",
                    ));
                }
            }
        } else if old_ips.len() > new_ips.len() {
            if new_ips.is_empty() {
                errs.push(invalid_go(
                    path.index(0),
                    &go_strings(&new_ips),
                    "primary clusterIP can not be unset",
                ));
            } else if new_ips[0] != old_ips[0] {
                errs.push(invalid_go(
                    path.index(0),
                    &go_strings(&new_ips),
                    "field is immutable",
                ));
            }
        } else if !old_ips.is_empty() && old_ips[0] != new_ips[0] {
            errs.push(invalid_go(
                path.index(0),
                &go_strings(&new_ips),
                "field is immutable",
            ));
        }
        let new_fams = strings(&svc["spec"]["ipFamilies"]);
        let old_fams = strings(&old["spec"]["ipFamilies"]);
        if let (Some(n), Some(o)) = (new_fams.first(), old_fams.first())
            && n != o
        {
            errs.push(invalid_go(
                spec().child("ipFamilies").index(0),
                &format!(
                    "[]core.IPFamily{{{}}}",
                    new_fams
                        .iter()
                        .map(|f| crd_runtime::__private::go::quote(f))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                "field is immutable",
            ));
        }
    }
    let class = |s: &Value| s["spec"]["loadBalancerClass"].as_str().map(str::to_string);
    if ty == "LoadBalancer" && old_ty == "LoadBalancer" && class(svc) != class(old) {
        errs.push(FieldError::invalid(
            spec().child("loadBalancerClass"),
            class(svc).map_or(BadValue::Json(Value::Null), BadValue::Str),
            "may not change once set",
        ));
    }
    validate(svc, errs);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn svc(spec: Value) -> Value {
        json!({"metadata": {"name": "s", "namespace": "default"}, "spec": spec})
    }

    #[test]
    fn services_are_checked_with_the_servers_messages() {
        let mut errs = ErrorList::new();
        let s = svc(json!({"type": "ClusterIP", "sessionAffinity": "None",
            "internalTrafficPolicy": "Cluster", "clusterIP": "None", "clusterIPs": ["None"]}));
        validate(&s, &mut errs);
        assert!(
            errs.is_empty(),
            "headless needs no ports: {:?}",
            errs.strings()
        );

        let mut errs = ErrorList::new();
        let s = svc(json!({"type": "ClusterIP", "sessionAffinity": "None",
            "internalTrafficPolicy": "Cluster",
            "ports": [{"port": 80, "protocol": "TCP", "targetPort": 80},
                      {"name": "Bad", "port": 70000, "protocol": "HTTP", "targetPort": "x--y", "nodePort": 30001},
                      {"name": "b", "port": 80, "protocol": "TCP", "targetPort": 80}]}));
        validate(&s, &mut errs);
        let out = errs.strings();
        assert_eq!(out[0], "spec.ports[0].name: Required value");
        assert!(
            out[1].starts_with(
                "spec.ports[1].name: Invalid value: \"Bad\": a lowercase RFC 1123 label"
            ),
            "{out:?}"
        );
        assert_eq!(
            out[2],
            "spec.ports[1].port: Invalid value: 70000: must be between 1 and 65535, inclusive"
        );
        assert_eq!(
            out[3],
            "spec.ports[1].protocol: Unsupported value: \"HTTP\": supported values: \"SCTP\", \"TCP\", \"UDP\""
        );
        assert_eq!(
            out[4],
            "spec.ports[1].targetPort: Invalid value: \"x--y\": must not contain consecutive hyphens"
        );
        assert_eq!(
            out[5],
            "spec.ports[1].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"
        );
        assert!(
            out[6].starts_with(
                "spec.ports[2]: Duplicate value: core.ServicePort{Name:\"\", Protocol:\"TCP\""
            ),
            "{out:?}"
        );
        assert_eq!(out.len(), 7, "{out:?}");

        let mut errs = ErrorList::new();
        validate(
            &svc(
                json!({"type": "ClusterIP", "sessionAffinity": "None", "internalTrafficPolicy": "Cluster"}),
            ),
            &mut errs,
        );
        assert_eq!(errs.strings(), ["spec.ports: Required value"]);
    }

    #[test]
    fn a_cluster_ip_may_not_change() {
        let base = json!({"type": "ClusterIP", "sessionAffinity": "None", "internalTrafficPolicy": "Cluster",
            "ports": [{"port": 80, "protocol": "TCP", "targetPort": 80}],
            "clusterIP": "10.0.0.5", "clusterIPs": ["10.0.0.5"], "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack"});
        let old = svc(base.clone());
        let mut new = svc(base);
        new["spec"]["clusterIP"] = json!("10.0.0.6");
        new["spec"]["clusterIPs"] = json!(["10.0.0.6"]);
        let mut errs = ErrorList::new();
        validate_update(&new, &old, &mut errs);
        assert_eq!(
            errs.strings(),
            ["spec.clusterIPs[0]: Invalid value: []string{\"10.0.0.6\"}: field is immutable"]
        );
    }
}
