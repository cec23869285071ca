//! A Service's cluster IP fields before allocation, as kube-apiserver's service REST
//! prepares them: what a type change leaves behind wiped (`dropTypeDependentFields`),
//! what an update leaves out taken from the old object (`patchAllocatedValues`),
//! `clusterIP` and `clusterIPs` in step (`normalizeClusterIPs`), and the IP family fields
//! initialized on a single-stack cluster (`initIPFamilyFields`).

use std::collections::{HashMap, HashSet};

use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use serde_json::{Value, json};

use crate::api::kinds::builtin::checks::{go_strings, invalid_go, strings};
use crate::api::kinds::builtin::core::service::alloc::node_ports;
use crate::api::kinds::builtin::core::service::ip_range::Cidr;
use crate::api::kinds::builtin::core::service::validation::{
    cluster_ip_fields, externally_accessible, needs_health_check,
};

pub fn ty(svc: &Value) -> &str {
    svc["spec"]["type"].as_str().unwrap_or("")
}

/// Every type but ExternalName has a cluster IP (or `None`).
pub fn needs_cluster_ip(svc: &Value) -> bool {
    ty(svc) != "ExternalName"
}

/// NodePort and LoadBalancer Services have node ports.
pub fn needs_node_port(svc: &Value) -> bool {
    matches!(ty(svc), "NodePort" | "LoadBalancer")
}

/// `normalizeClusterIPs`: `clusterIPs` follows a `clusterIP` set or changed alone.
pub fn normalize(svc: &mut Value, old: Option<&Value>) {
    let ip = svc["spec"]["clusterIP"].as_str().unwrap_or("").to_string();
    let ips = strings(&svc["spec"]["clusterIPs"]);
    match old {
        None => {
            if !ip.is_empty() && ips.is_empty() {
                svc["spec"]["clusterIPs"] = json!([ip]);
            }
        }
        Some(old) => {
            let old_ip = old["spec"]["clusterIP"].as_str().unwrap_or("");
            let old_ips = strings(&old["spec"]["clusterIPs"]);
            if ip != old_ip && ips == old_ips {
                // The singular changed alone: the plural follows (cleared with it).
                svc["spec"]["clusterIPs"] = if ip.is_empty() {
                    Value::Null
                } else {
                    json!([ip])
                };
            } else if !ip.is_empty() && ips.is_empty() {
                svc["spec"]["clusterIPs"] = json!([ip]);
            }
        }
    }
    if svc["spec"]["clusterIPs"].is_null()
        && let Some(spec) = svc["spec"].as_object_mut()
    {
        spec.remove("clusterIPs");
    }
}

/// `dropTypeDependentFields`: a type change wipes what the new type has no use for,
/// when the update left it as it was (the server may have set it).
pub fn drop_type_dependent(svc: &mut Value, old: &Value) {
    let same = |svc: &Value, field: &str| svc["spec"][field] == old["spec"][field];
    let remove = |svc: &mut Value, field: &str| {
        if let Some(spec) = svc["spec"].as_object_mut() {
            spec.remove(field);
        }
    };
    if needs_cluster_ip(old) && !needs_cluster_ip(svc) {
        if same(svc, "clusterIPs") && same(svc, "clusterIP") {
            remove(svc, "clusterIP");
            remove(svc, "clusterIPs");
        }
        for field in ["ipFamilies", "ipFamilyPolicy"] {
            if same(svc, field) {
                remove(svc, field);
            }
        }
    }
    if needs_node_port(old)
        && !needs_node_port(svc)
        && node_ports(svc) == node_ports(old)
        && let Some(ports) = svc["spec"]["ports"].as_array_mut()
    {
        for p in ports.iter_mut().filter_map(Value::as_object_mut) {
            p.remove("nodePort");
        }
    }
    if needs_health_check(old) && !needs_health_check(svc) && same(svc, "healthCheckNodePort") {
        remove(svc, "healthCheckNodePort");
    }
    if ty(old) == "LoadBalancer" && ty(svc) != "LoadBalancer" {
        for field in ["allocateLoadBalancerNodePorts", "loadBalancerClass"] {
            if same(svc, field) {
                remove(svc, field);
            }
        }
    }
    let external = |s: &Value| externally_accessible(s);
    if external(old) && !external(svc) && same(svc, "externalTrafficPolicy") {
        remove(svc, "externalTrafficPolicy");
    }
}

/// `patchAllocatedValues`: what an update leaves out keeps the old object's values.
pub fn patch_allocated(svc: &mut Value, old: &Value) {
    if needs_cluster_ip(old) && needs_cluster_ip(svc) {
        if svc["spec"]["clusterIP"].as_str().unwrap_or("").is_empty() {
            svc["spec"]["clusterIP"] = old["spec"]["clusterIP"].clone();
        }
        if strings(&svc["spec"]["clusterIPs"]).is_empty()
            && !strings(&old["spec"]["clusterIPs"]).is_empty()
            && svc["spec"]["clusterIP"] == old["spec"]["clusterIP"]
        {
            svc["spec"]["clusterIPs"] = old["spec"]["clusterIPs"].clone();
        }
    }
    if needs_node_port(old) && needs_node_port(svc) {
        let used_new: HashSet<i64> = node_ports(svc).into_iter().collect();
        let used: HashSet<i64> = node_ports(old)
            .into_iter()
            .filter(|p| used_new.contains(p))
            .collect();
        let by_name: HashMap<String, i64> = old["spec"]["ports"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|p| {
                let name = p["name"].as_str().unwrap_or("").to_string();
                (name, p["nodePort"].as_i64().unwrap_or(0))
            })
            .collect();
        if let Some(ports) = svc["spec"]["ports"].as_array_mut() {
            for p in ports {
                if p["nodePort"].as_i64().unwrap_or(0) == 0 {
                    let name = p["name"].as_str().unwrap_or("");
                    let old_port = by_name.get(name).copied().unwrap_or(0);
                    if old_port != 0 && !used.contains(&old_port) {
                        p["nodePort"] = json!(old_port);
                    }
                }
            }
        }
    }
    if needs_health_check(old)
        && needs_health_check(svc)
        && svc["spec"]["healthCheckNodePort"].as_i64().unwrap_or(0) == 0
        && old["spec"]["healthCheckNodePort"].is_i64()
    {
        svc["spec"]["healthCheckNodePort"] = old["spec"]["healthCheckNodePort"].clone();
    }
}

/// `initIPFamilyFields` on a cluster of one IP family (`cidr`'s).
pub fn init_families(svc: &mut Value, old: Option<&Value>, cidr: &Cidr) -> Result<(), ErrorList> {
    if !needs_cluster_ip(svc) {
        return Ok(());
    }
    let family = cidr.family();
    let spec = &mut svc["spec"];
    if !spec["ipFamilyPolicy"].is_string() {
        let from_old = old
            .map(|o| o["spec"]["ipFamilyPolicy"].clone())
            .filter(Value::is_string);
        spec["ipFamilyPolicy"] = match from_old {
            Some(p) => p,
            None if spec["clusterIP"] == "None"
                && spec["selector"].as_object().is_none_or(|m| m.is_empty()) =>
            {
                json!("RequireDualStack")
            }
            None => json!("SingleStack"),
        };
    }
    let mut errs = ErrorList::new();
    cluster_ip_fields(svc, &mut errs);
    if !errs.is_empty() {
        return Err(errs);
    }
    let spec = &mut svc["spec"];
    let policy = spec["ipFamilyPolicy"].as_str().unwrap_or("").to_string();
    let policy_path = Path::new("spec").child("ipFamilyPolicy");
    let ips = strings(&spec["clusterIPs"]);
    let mut families = strings(&spec["ipFamilies"]);
    if policy == "SingleStack" {
        if ips.len() == 2 {
            errs.push(FieldError::invalid(policy_path.clone(), BadValue::Str(policy.clone()),
                "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"));
        }
        if families.len() == 2 {
            errs.push(FieldError::invalid(policy_path.clone(), BadValue::Str(policy.clone()),
                "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"));
        }
    }
    for (i, ip) in ips.iter().enumerate() {
        if ip == "None" {
            break;
        }
        let fam = if ip.parse::<std::net::IpAddr>().is_ok_and(|a| a.is_ipv6()) {
            "IPv6"
        } else {
            "IPv4"
        };
        if i >= families.len() {
            if fam != family {
                errs.push(invalid_go(
                    Path::new("spec").child("clusterIPs").index(i),
                    &go_strings(&ips),
                    &format!("{fam} is not configured on this cluster"),
                ));
            } else {
                families.push(fam.to_string());
            }
        }
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    let selectorless = spec["selector"].as_object().is_none_or(|m| m.is_empty());
    if spec["clusterIP"] == "None" && selectorless {
        if families.is_empty() {
            families.push(family.to_string());
        }
        if families.len() < 2 && policy != "SingleStack" {
            families.push(
                if families[0] == "IPv4" {
                    "IPv6"
                } else {
                    "IPv4"
                }
                .to_string(),
            );
        }
        spec["ipFamilies"] = json!(families);
        return Ok(());
    }
    if policy == "RequireDualStack" {
        errs.push(FieldError::invalid(
            policy_path,
            BadValue::Str(policy.clone()),
            "this cluster is not configured for dual-stack services",
        ));
    }
    for (i, f) in families.iter().enumerate() {
        if f != family {
            errs.push(FieldError::invalid(
                Path::new("spec").child("ipFamilies").index(i),
                BadValue::Str(f.clone()),
                "not configured on this cluster",
            ));
        }
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    if families.is_empty() {
        families.push(family.to_string());
    }
    spec["ipFamilies"] = json!(families);
    Ok(())
}
