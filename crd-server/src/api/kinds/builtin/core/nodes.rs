//! Nodes: `SetDefaults_NodeStatus` (allocatable from capacity), taints and pod CIDRs
//! checked as `ValidateNode`, what `ValidateNodeUpdate` keeps, and the printer's
//! columns (status from the Ready condition, roles from the labels).

use std::collections::BTreeSet;

use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use serde_json::{Value, json};

use crate::api::kinds::builtin::behaviour::*;
use crate::api::kinds::builtin::checks::{one_of, strings};
use crate::api::kinds::builtin::quantity;
use crate::api::table::Column;

const EFFECTS: [&str; 3] = ["NoExecute", "NoSchedule", "PreferNoSchedule"];

/// Nodes.
pub struct Nodes;

fn node_info<'a>(o: &'a Value, field: &str) -> &'a str {
    o["status"]["nodeInfo"][field].as_str().unwrap_or("")
}

fn unknown_if_empty(s: &str) -> Value {
    json!(if s.is_empty() { "<unknown>" } else { s })
}

/// The first address of `kind` (`InternalIP`, `ExternalIP`), `<none>` without one.
fn address(o: &Value, kind: &str) -> Value {
    let found = o["status"]["addresses"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|a| a["type"] == kind)
        .and_then(|a| a["address"].as_str());
    json!(found.unwrap_or("<none>"))
}

/// `Ready`/`NotReady`/`Unknown`, then `SchedulingDisabled` for a cordoned node.
fn status(o: &Value) -> String {
    let ready = o["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == "Ready");
    let mut out = vec![match ready {
        Some(c) if c["status"] == "True" => "Ready",
        Some(_) => "NotReady",
        None => "Unknown",
    }];
    if o["spec"]["unschedulable"] == json!(true) {
        out.push("SchedulingDisabled");
    }
    out.join(",")
}

/// `findNodeRoles`: `node-role.kubernetes.io/<role>` labels and `kubernetes.io/role`.
fn roles(o: &Value) -> String {
    let mut roles = BTreeSet::new();
    for (k, v) in o["metadata"]["labels"].as_object().into_iter().flatten() {
        if let Some(role) = k.strip_prefix("node-role.kubernetes.io/") {
            if !role.is_empty() {
                roles.insert(role.to_string());
            }
        } else if k == "kubernetes.io/role" && v.as_str().is_some_and(|s| !s.is_empty()) {
            roles.insert(v.as_str().unwrap_or("").to_string());
        }
    }
    if roles.is_empty() {
        "<none>".into()
    } else {
        roles.into_iter().collect::<Vec<_>>().join(",")
    }
}

defaults!(Nodes: Preparer, Serving, Deleter, AllocateStrategy);

impl Defaulter for Nodes {
    fn decode(&self, obj: &mut Value) -> Result<(), String> {
        quantity::check_maps(obj, &["/status/capacity", "/status/allocatable"])?;
        if obj["status"]["capacity"].is_object() && obj["status"]["allocatable"].is_null() {
            obj["status"]["allocatable"] = obj["status"]["capacity"].clone();
        }
        Ok(())
    }
}

impl Validator for Nodes {
    fn validate(&self, obj: &Value, old: Option<&Value>, errs: &mut ErrorList) {
        let spec = Path::new("spec");
        for (i, t) in obj["spec"]["taints"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            let p = spec.child("taints").index(i);
            let key = t["key"].as_str().unwrap_or("");
            for m in crd_runtime::names::qualified_name(key) {
                errs.push(FieldError::invalid(
                    p.child("key"),
                    BadValue::Str(key.into()),
                    m,
                ));
            }
            let effect = t["effect"].as_str().unwrap_or("");
            one_of(effect, &EFFECTS, p.child("effect"), errs);
        }
        let cidrs = strings(&obj["spec"]["podCIDRs"]);
        for (i, c) in cidrs.iter().enumerate() {
            if crate::api::kinds::builtin::core::service::ip_range::Cidr::parse(c).is_err() {
                errs.push(FieldError::invalid(
                    spec.child("podCIDRs").index(i),
                    BadValue::Str(c.clone()),
                    "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)",
                ));
            }
        }
        if let Some(old) = old {
            let old_cidrs = strings(&old["spec"]["podCIDRs"]);
            if !old_cidrs.is_empty() && old_cidrs != cidrs {
                errs.push(FieldError::forbidden(
                    spec.child("podCIDRs"),
                    "node updates may not change podCIDR except from \"\" to valid",
                ));
            }
            let old_provider = old["spec"]["providerID"].as_str().unwrap_or("");
            if !old_provider.is_empty() && obj["spec"]["providerID"] != old["spec"]["providerID"] {
                errs.push(FieldError::forbidden(
                    spec.child("providerID"),
                    "node updates may not change providerID except from \"\" to valid",
                ));
            }
        }
    }
}

impl Printer for Nodes {
    fn columns(&self) -> Vec<Column> {
        let wide = |mut c: Column| {
            c.priority = 1;
            c
        };
        vec![
            Column::computed("Status", "string", "The status of the node", |o| {
                json!(status(o))
            }),
            Column::computed("Roles", "string", "The roles of the node", |o| {
                json!(roles(o))
            }),
            Column::builtin_age(),
            Column::computed(
                "Version",
                "string",
                "Kubelet Version reported by the node.",
                |o| json!(node_info(o, "kubeletVersion")),
            ),
            wide(Column::computed(
                "Internal-IP",
                "string",
                "List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status or consumers of the downward API (status.hostIP).",
                |o| address(o, "InternalIP"),
            )),
            wide(Column::computed(
                "External-IP",
                "string",
                "List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status or consumers of the downward API (status.hostIP).",
                |o| address(o, "ExternalIP"),
            )),
            wide(Column::computed(
                "OS-Image",
                "string",
                "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).",
                |o| unknown_if_empty(node_info(o, "osImage")),
            )),
            wide(Column::computed(
                "Kernel-Version",
                "string",
                "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
                |o| unknown_if_empty(node_info(o, "kernelVersion")),
            )),
            wide(Column::computed(
                "Container-Runtime",
                "string",
                "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).",
                |o| unknown_if_empty(node_info(o, "containerRuntimeVersion")),
            )),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_print_status_and_roles() {
        let n = json!({"metadata": {"labels": {"node-role.kubernetes.io/control-plane": "", "kubernetes.io/role": "master"}},
            "spec": {"unschedulable": true},
            "status": {"conditions": [{"type": "Ready", "status": "False"}]}});
        assert_eq!(status(&n), "NotReady,SchedulingDisabled");
        assert_eq!(roles(&n), "control-plane,master");
        assert_eq!(status(&json!({})), "Unknown");
        assert_eq!(
            errors_of(
                &Nodes,
                &json!({"spec": {"taints": [{"key": "a", "effect": "Never"}], "podCIDRs": ["10.0.0.1/24"]}}),
                None
            ),
            [
                "spec.taints[0].effect: Unsupported value: \"Never\": supported values: \"NoExecute\", \"NoSchedule\", \"PreferNoSchedule\"",
                "spec.podCIDRs[0]: Invalid value: \"10.0.0.1/24\": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"
            ]
        );
    }
}
