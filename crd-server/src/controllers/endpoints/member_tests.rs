use std::sync::Arc;

use serde_json::json;

use super::member::*;
use super::slices::{MAX_ENDPOINTS, desired};
use super::subsets::subsets;

fn pod(name: &str, ip: &str, ready: bool) -> serde_json::Value {
    json!({
        "metadata": {"name": name, "namespace": "default", "uid": format!("uid-{name}"), "labels": {"app": "web"}},
        "spec": {"nodeName": "n1", "containers": [{"name": "c", "ports": [
            {"name": "http", "containerPort": 8080, "protocol": "TCP"},
            {"name": "dns", "containerPort": 53, "protocol": "UDP"},
        ]}]},
        "status": {"phase": "Running", "podIP": ip, "podIPs": [{"ip": ip}],
            "conditions": [{"type": "Ready", "status": if ready {"True"} else {"False"}}]},
    })
}

fn service(ports: serde_json::Value) -> serde_json::Value {
    json!({
        "metadata": {"name": "web", "namespace": "default", "labels": {"tier": "front"}},
        "spec": {"selector": {"app": "web"}, "ports": ports, "ipFamilies": ["IPv4"], "clusterIP": "10.0.0.1"},
    })
}

#[test]
fn target_ports_resolve_by_number_and_by_name_and_protocol() {
    let p = pod("a", "10.244.0.2", true);
    assert_eq!(
        find_port(&p, &json!({"port": 80, "targetPort": 9000})),
        Some(9000)
    );
    assert_eq!(find_port(&p, &json!({"port": 80})), Some(80));
    assert_eq!(
        find_port(&p, &json!({"port": 80, "targetPort": "http"})),
        Some(8080)
    );
    // The name must come with the same protocol.
    assert_eq!(
        find_port(&p, &json!({"port": 53, "targetPort": "dns"})),
        None
    );
    assert_eq!(
        find_port(
            &p,
            &json!({"port": 53, "targetPort": "dns", "protocol": "UDP"})
        ),
        Some(53)
    );
    assert_eq!(
        find_port(&p, &json!({"port": 80, "targetPort": "nope"})),
        None
    );
}

#[test]
fn pods_without_ip_or_finished_are_not_listed() {
    let mut p = pod("a", "10.244.0.2", true);
    assert!(listed(&p, false));
    p["metadata"]["deletionTimestamp"] = json!("2026-01-01T00:00:00Z");
    assert!(!listed(&p, false));
    assert!(listed(&p, true));
    let mut done = pod("b", "10.244.0.3", false);
    done["status"]["phase"] = json!("Succeeded");
    assert!(!listed(&done, true));
    let mut pending = pod("c", "", false);
    pending["status"] = json!({"phase": "Pending"});
    assert!(!listed(&pending, true));
    assert_eq!(
        ip(&pod("d", "fd00::5", true), Some("IPv6")),
        Some("fd00::5")
    );
    assert_eq!(ip(&pod("d", "fd00::5", true), Some("IPv4")), None);
}

#[test]
fn subsets_split_ready_from_not_ready_and_group_by_ports() {
    let svc =
        service(json!([{"name": "web", "port": 80, "targetPort": "http", "protocol": "TCP"}]));
    let pods = vec![
        Arc::new(pod("b", "10.244.0.3", false)),
        Arc::new(pod("a", "10.244.0.2", true)),
    ];
    let (subsets, left_out) = subsets(&svc, &pods);
    assert_eq!(left_out, 0);
    assert_eq!(subsets.len(), 1);
    assert_eq!(subsets[0]["addresses"][0]["ip"], "10.244.0.2");
    assert_eq!(subsets[0]["notReadyAddresses"][0]["ip"], "10.244.0.3");
    assert_eq!(
        subsets[0]["ports"],
        json!([{"name": "web", "port": 8080, "protocol": "TCP"}])
    );
    assert_eq!(subsets[0]["addresses"][0]["targetRef"]["uid"], "uid-a");
    // publishNotReadyAddresses: every pod is an address.
    let mut publish = svc.clone();
    publish["spec"]["publishNotReadyAddresses"] = json!(true);
    let (all, _) = super::subsets::subsets(&publish, &pods);
    assert_eq!(all[0]["addresses"].as_array().unwrap().len(), 2);
    assert!(all[0].get("notReadyAddresses").is_none());
}

#[test]
fn slices_hold_at_most_the_maximum_and_keep_a_placeholder() {
    let svc = service(json!([{"name": "", "port": 80, "targetPort": 8080, "protocol": "TCP"}]));
    let no_zone = |_: &str| None;
    let empty = desired(&svc, &[], &no_zone);
    assert_eq!(empty.len(), 1);
    assert!(empty[0].endpoints.is_empty() && empty[0].ports.is_empty());
    let many: Vec<_> = (0..MAX_ENDPOINTS + 5)
        .map(|i| {
            Arc::new(pod(
                &format!("p{i:03}"),
                &format!("10.244.{}.{}", i / 200, i % 200 + 1),
                true,
            ))
        })
        .collect();
    let slices = desired(&svc, &many, &no_zone);
    assert_eq!(slices.len(), 2);
    assert_eq!(slices[0].endpoints.len(), MAX_ENDPOINTS);
    assert_eq!(slices[1].endpoints.len(), 5);
    assert_eq!(slices[0].address_type, "IPv4");
    // A terminating pod is listed but neither ready nor, here, serving-less.
    let mut going = pod("t", "10.244.0.9", true);
    going["metadata"]["deletionTimestamp"] = json!("2026-01-01T00:00:00Z");
    let zone = |_: &str| Some("z1".to_string());
    let one = desired(&svc, &[Arc::new(going)], &zone);
    assert_eq!(
        one[0].endpoints[0]["conditions"],
        json!({"ready": false, "serving": true, "terminating": true})
    );
    assert_eq!(one[0].endpoints[0]["zone"], "z1");
}

#[test]
fn headless_services_label_their_endpoints() {
    let mut svc = service(json!([]));
    assert!(!labels(&svc).contains_key(HEADLESS));
    svc["spec"]["clusterIP"] = json!("None");
    assert_eq!(labels(&svc)[HEADLESS], "");
    let slice_labels = super::slices::labels(&svc);
    assert_eq!(slice_labels["kubernetes.io/service-name"], "web");
    assert_eq!(slice_labels["tier"], "front");
}
