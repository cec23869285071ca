//! Core v1 defaulting of a PodSpec and what it holds, as the generated defaulters run
//! `SetDefaults_PodSpec`, `SetDefaults_Container`, `SetDefaults_Probe`, the volume
//! sources' defaults and the declarative ones (`protocol: TCP`, `fieldRef.apiVersion`),
//! and `SetDefaults_Pod` for Pods only. Quantities are written canonically, resource
//! lists rounded up to milli units.

use serde_json::{Map, Value, json};

use crate::api::kinds::builtin::default_field;
use crate::api::kinds::builtin::quantity::{canonicalize, canonicalize_list};

/// The container lists of a PodSpec.
pub const CONTAINER_LISTS: [&str; 3] = ["initContainers", "containers", "ephemeralContainers"];

fn each_mut<'a>(obj: &'a mut Value, field: &str) -> impl Iterator<Item = &'a mut Value> {
    obj.get_mut(field)
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
}

/// `SetDefaults_PodSpec` and everything nested in a PodSpec.
pub fn pod_spec(spec: &mut Value) -> Result<(), String> {
    if !spec.is_object() {
        return Ok(());
    }
    default_field(spec, "dnsPolicy", json!("ClusterFirst"));
    default_field(spec, "restartPolicy", json!("Always"));
    if spec.get("securityContext").is_none_or(Value::is_null) {
        spec["securityContext"] = json!({});
    }
    if spec
        .get("terminationGracePeriodSeconds")
        .is_none_or(Value::is_null)
    {
        spec["terminationGracePeriodSeconds"] = json!(30);
    }
    default_field(spec, "schedulerName", json!("default-scheduler"));
    for list in CONTAINER_LISTS {
        for c in each_mut(spec, list) {
            container(c)?;
        }
    }
    for v in each_mut(spec, "volumes") {
        volume(v)?;
    }
    canonicalize_list(spec.get_mut("overhead"))?;
    if let Some(r) = spec.get_mut("resources") {
        resources(r)?;
    }
    Ok(())
}

/// `SetDefaults_Pod`: requests from limits, service links, host ports on the host
/// network (after the PodSpec defaults, which it does not repeat).
pub fn pod(spec: &mut Value) {
    for list in ["containers", "initContainers"] {
        for c in each_mut(spec, list) {
            let Some(limits) = c.pointer("/resources/limits").and_then(Value::as_object) else {
                continue;
            };
            let limits = limits.clone();
            let requests = &mut c["resources"]["requests"];
            if !requests.is_object() {
                *requests = json!({});
            }
            for (k, v) in limits {
                if requests.get(&k).is_none() {
                    requests[k.as_str()] = v;
                }
            }
        }
    }
    if spec.get("enableServiceLinks").is_none_or(Value::is_null) {
        spec["enableServiceLinks"] = json!(true);
    }
    if spec.get("hostNetwork") == Some(&Value::Bool(true)) {
        for list in ["containers", "initContainers"] {
            for c in each_mut(spec, list) {
                for p in each_mut(c, "ports") {
                    let container_port = p.get("containerPort").cloned().unwrap_or(json!(0));
                    if p.get("hostPort").and_then(Value::as_i64).unwrap_or(0) == 0 {
                        p["hostPort"] = container_port;
                    }
                }
            }
        }
    }
}

/// The tag `parsers.ParseImageName` finds (`latest` when there is neither tag nor
/// digest; none when the reference does not parse).
fn image_tag(image: &str) -> Option<&str> {
    if image.is_empty() || image.chars().any(|c| c.is_whitespace()) {
        return None;
    }
    let (name, digest) = match image.split_once('@') {
        Some((n, d)) => (n, Some(d)),
        None => (image, None),
    };
    let last = name.rsplit('/').next().unwrap_or(name);
    let tag = last.split_once(':').map(|(_, t)| t);
    // A repository path must be lower case (the domain part may not be).
    let path = name.split_once('/').map_or(name, |(first, rest)| {
        if first.contains(['.', ':']) || first == "localhost" {
            rest
        } else {
            name
        }
    });
    let repo = path.rsplit_once(':').map_or(path, |(r, _)| r);
    if repo.chars().any(|c| c.is_ascii_uppercase()) {
        return None;
    }
    match (tag, digest) {
        (Some(t), _) => Some(t),
        (None, None) => Some("latest"),
        (None, Some(_)) => Some(""),
    }
}

/// An empty or absent pull policy (`policy`) of the image named at `image`: `Always` for
/// `:latest` (or no tag), else `IfNotPresent` (containers and image volumes alike).
fn default_pull_policy(obj: &mut Value, image: &str, policy: &str) {
    if !obj
        .get(policy)
        .and_then(Value::as_str)
        .unwrap_or("")
        .is_empty()
    {
        return;
    }
    let reference = obj.get(image).and_then(Value::as_str).unwrap_or("");
    let default = if image_tag(reference) == Some("latest") {
        "Always"
    } else {
        "IfNotPresent"
    };
    obj[policy] = json!(default);
}

/// `SetDefaults_Container` with its ports, env, resources and probes.
fn container(c: &mut Value) -> Result<(), String> {
    if !c.is_object() {
        return Ok(());
    }
    default_pull_policy(c, "image", "imagePullPolicy");
    default_field(c, "terminationMessagePath", json!("/dev/termination-log"));
    default_field(c, "terminationMessagePolicy", json!("File"));
    for p in each_mut(c, "ports") {
        default_field(p, "protocol", json!("TCP"));
    }
    for e in each_mut(c, "env") {
        if let Some(f) = e.pointer_mut("/valueFrom/fieldRef") {
            default_field(f, "apiVersion", json!("v1"));
        }
        if let Some(r) = e.pointer_mut("/valueFrom/resourceFieldRef/divisor") {
            canonicalize(r, None)?;
        }
    }
    if let Some(r) = c.get_mut("resources") {
        resources(r)?;
    }
    for probe_field in ["livenessProbe", "readinessProbe", "startupProbe"] {
        if let Some(p) = c.get_mut(probe_field).filter(|p| p.is_object()) {
            probe(p);
        }
    }
    for hook in ["postStart", "preStop"] {
        if let Some(h) = c.pointer_mut(&format!("/lifecycle/{hook}/httpGet")) {
            http_get(h);
        }
    }
    Ok(())
}

fn resources(r: &mut Value) -> Result<(), String> {
    canonicalize_list(r.get_mut("limits"))?;
    canonicalize_list(r.get_mut("requests"))
}

fn http_get(h: &mut Value) {
    if h.is_object() {
        default_field(h, "path", json!("/"));
        default_field(h, "scheme", json!("HTTP"));
    }
}

/// `SetDefaults_Probe` and its handler's defaults.
fn probe(p: &mut Value) {
    for (field, value) in [
        ("timeoutSeconds", 1),
        ("periodSeconds", 10),
        ("successThreshold", 1),
        ("failureThreshold", 3),
    ] {
        if p.get(field).and_then(Value::as_i64).unwrap_or(0) == 0 {
            p[field] = json!(value);
        }
    }
    if let Some(h) = p.get_mut("httpGet") {
        http_get(h);
    }
    if let Some(g) = p.get_mut("grpc").filter(|g| g.is_object())
        && g.get("service").is_none_or(Value::is_null)
    {
        g["service"] = json!("");
    }
}

/// The volume sources a Volume may name (all optional pointers in Go).
const SOURCES: [&str; 30] = [
    "hostPath",
    "emptyDir",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "gitRepo",
    "secret",
    "nfs",
    "iscsi",
    "glusterfs",
    "persistentVolumeClaim",
    "rbd",
    "flexVolume",
    "cinder",
    "cephfs",
    "flocker",
    "downwardAPI",
    "fc",
    "azureFile",
    "configMap",
    "vsphereVolume",
    "quobyte",
    "azureDisk",
    "photonPersistentDisk",
    "projected",
    "portworxVolume",
    "scaleIO",
    "storageos",
    "csi",
    "ephemeral",
    "image",
];

/// The volume sources a Volume names.
pub fn volume_sources(v: &Value) -> Vec<&'static str> {
    SOURCES
        .iter()
        .copied()
        .filter(|s| v.get(*s).is_some_and(|x| !x.is_null()))
        .collect()
}

fn set_default(obj: Option<&mut Value>, fields: &[(&str, Value)]) {
    let Some(obj) = obj.filter(|o| o.is_object()) else {
        return;
    };
    for (f, v) in fields {
        if obj.get(*f).is_none_or(Value::is_null) {
            obj[*f] = v.clone();
        }
    }
}

fn downward_items(items: Option<&mut Value>) {
    for item in items.and_then(Value::as_array_mut).into_iter().flatten() {
        if let Some(f) = item.get_mut("fieldRef").filter(|f| f.is_object()) {
            default_field(f, "apiVersion", json!("v1"));
        }
    }
}

/// `SetDefaults_Volume` (an empty source is an `emptyDir`) and the sources' defaults.
fn volume(v: &mut Value) -> Result<(), String> {
    if !v.is_object() {
        return Ok(());
    }
    if volume_sources(v).is_empty() {
        v["emptyDir"] = json!({});
    }
    let mode = |v: &mut Value, source: &str| {
        set_default(v.get_mut(source), &[("defaultMode", json!(420))])
    };
    mode(v, "secret");
    mode(v, "configMap");
    mode(v, "downwardAPI");
    mode(v, "projected");
    downward_items(v.pointer_mut("/downwardAPI/items"));
    for s in v
        .pointer_mut("/projected/sources")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        downward_items(s.pointer_mut("/downwardAPI/items"));
        set_default(
            s.get_mut("serviceAccountToken"),
            &[("expirationSeconds", json!(3600))],
        );
    }
    set_default(v.get_mut("hostPath"), &[("type", json!(""))]);
    set_default(v.get_mut("iscsi"), &[("iscsiInterface", json!("default"))]);
    set_default(
        v.get_mut("rbd"),
        &[
            ("pool", json!("rbd")),
            ("user", json!("admin")),
            ("keyring", json!("/etc/ceph/keyring")),
        ],
    );
    set_default(
        v.get_mut("azureDisk"),
        &[
            ("cachingMode", json!("ReadWrite")),
            ("fsType", json!("ext4")),
            ("readOnly", json!(false)),
            ("kind", json!("Shared")),
        ],
    );
    set_default(
        v.get_mut("scaleIO"),
        &[
            ("storageMode", json!("ThinProvisioned")),
            ("fsType", json!("xfs")),
        ],
    );
    if let Some(size) = v.pointer_mut("/emptyDir/sizeLimit") {
        canonicalize(size, None)?;
    }
    if let Some(spec) = v.pointer_mut("/ephemeral/volumeClaimTemplate/spec") {
        claim_spec(spec)?;
    }
    if let Some(image) = v.get_mut("image").filter(|i| i.is_object()) {
        default_pull_policy(image, "reference", "pullPolicy");
    }
    Ok(())
}

/// `SetDefaults_PersistentVolumeClaimSpec` (and its resource lists).
pub fn claim_spec(spec: &mut Value) -> Result<(), String> {
    if !spec.is_object() {
        return Ok(());
    }
    default_field(spec, "volumeMode", json!("Filesystem"));
    if let Some(r) = spec.get_mut("resources") {
        resources(r)?;
    }
    Ok(())
}

/// A PodTemplateSpec's defaults (its `spec`).
pub fn template(template: &mut Value) -> Result<(), String> {
    match template.get_mut("spec") {
        Some(spec) => pod_spec(spec),
        None => Ok(()),
    }
}

/// The labels of a template (`None` when it has none).
pub fn template_labels(template: &Value) -> Option<&Map<String, Value>> {
    template
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pull_policy_follows_the_tag() {
        for (image, tag) in [
            ("nginx", Some("latest")),
            ("nginx:1.25", Some("1.25")),
            ("nginx:latest", Some("latest")),
            ("localhost:5000/app", Some("latest")),
            ("localhost:5000/app:v1", Some("v1")),
            ("nginx@sha256:abc", Some("")),
            ("NGINX", None),
            ("", None),
        ] {
            assert_eq!(image_tag(image), tag, "{image}");
        }
    }

    #[test]
    fn a_pod_spec_gets_every_default() {
        let mut spec = json!({"containers": [{"name": "a", "image": "nginx",
            "ports": [{"containerPort": 80}],
            "resources": {"limits": {"cpu": "0.5", "memory": "1024Mi"}},
            "livenessProbe": {"httpGet": {"port": 80}},
            "env": [{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}]}],
            "volumes": [{"name": "v"}, {"name": "s", "secret": {"secretName": "x"}}]});
        pod_spec(&mut spec).unwrap();
        pod(&mut spec);
        let c = &spec["containers"][0];
        assert_eq!(c["imagePullPolicy"], "Always");
        assert_eq!(c["terminationMessagePath"], "/dev/termination-log");
        assert_eq!(c["ports"][0]["protocol"], "TCP");
        assert_eq!(c["resources"]["limits"]["cpu"], "500m");
        assert_eq!(c["resources"]["requests"]["memory"], "1Gi");
        assert_eq!(
            c["livenessProbe"],
            json!({"httpGet": {"port": 80, "path": "/", "scheme": "HTTP"}, "timeoutSeconds": 1,
                   "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3})
        );
        assert_eq!(c["env"][0]["valueFrom"]["fieldRef"]["apiVersion"], "v1");
        assert_eq!(spec["volumes"][0]["emptyDir"], json!({}));
        assert_eq!(spec["volumes"][1]["secret"]["defaultMode"], 420);
        assert_eq!(spec["restartPolicy"], "Always");
        assert_eq!(spec["dnsPolicy"], "ClusterFirst");
        assert_eq!(spec["schedulerName"], "default-scheduler");
        assert_eq!(spec["terminationGracePeriodSeconds"], 30);
        assert_eq!(spec["securityContext"], json!({}));
        assert_eq!(spec["enableServiceLinks"], true);
    }
}
