//! What the upstream Go types declare with markers that k8s-openapi's generated code does
//! not carry, written the way controller-gen emits it into CRDs. Each entry names the
//! marker it stands for; the corpus comparison in `src/k8s/` checks them against
//! controller-gen's copies.

use serde_json::{Value, json};

/// `+structType=atomic` (or `+mapType=atomic`) on the type: controller-gen emits
/// `x-kubernetes-map-type: atomic` on every field of it.
const ATOMIC_STRUCTS: &[&str] = &[
    "io.k8s.api.admissionregistration.v1.MatchResources",
    "io.k8s.api.admissionregistration.v1.NamedRuleWithOperations",
    "io.k8s.api.admissionregistration.v1.ParamRef",
    "io.k8s.api.admissionregistration.v1alpha1.MatchResources",
    "io.k8s.api.admissionregistration.v1alpha1.NamedRuleWithOperations",
    "io.k8s.api.admissionregistration.v1alpha1.ParamRef",
    "io.k8s.api.admissionregistration.v1beta1.MatchResources",
    "io.k8s.api.admissionregistration.v1beta1.NamedRuleWithOperations",
    "io.k8s.api.admissionregistration.v1beta1.ParamRef",
    "io.k8s.api.core.v1.ConfigMapKeySelector",
    "io.k8s.api.core.v1.EndpointAddress",
    "io.k8s.api.core.v1.FileKeySelector",
    "io.k8s.api.core.v1.LocalObjectReference",
    "io.k8s.api.core.v1.NodeSelector",
    "io.k8s.api.core.v1.NodeSelectorTerm",
    "io.k8s.api.core.v1.ObjectFieldSelector",
    "io.k8s.api.core.v1.ObjectReference",
    "io.k8s.api.core.v1.ResourceFieldSelector",
    "io.k8s.api.core.v1.SecretKeySelector",
    "io.k8s.api.core.v1.TopologySelectorTerm",
    "io.k8s.api.core.v1.TypedLocalObjectReference",
    "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector",
    "io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference",
];

/// `+listMapKey` markers k8s-openapi reduces to the strategic-merge key:
/// (type, field, keys).
const LIST_MAP_KEYS: &[(&str, &str, &[&str])] = &[
    (
        "io.k8s.api.core.v1.Container",
        "ports",
        &["containerPort", "protocol"],
    ),
    (
        "io.k8s.api.core.v1.EphemeralContainer",
        "ports",
        &["containerPort", "protocol"],
    ),
    (
        "io.k8s.api.core.v1.ServiceSpec",
        "ports",
        &["port", "protocol"],
    ),
];

/// `+default=` markers: (type, field, default).
fn defaults() -> Vec<(&'static str, &'static str, Value)> {
    vec![
        ("io.k8s.api.core.v1.ContainerPort", "protocol", json!("TCP")),
        ("io.k8s.api.core.v1.ServicePort", "protocol", json!("TCP")),
        (
            "io.k8s.api.core.v1.FileKeySelector",
            "optional",
            json!(false),
        ),
        (
            "io.k8s.api.core.v1.AzureDiskVolumeSource",
            "fsType",
            json!("ext4"),
        ),
        (
            "io.k8s.api.core.v1.AzureDiskVolumeSource",
            "readOnly",
            json!(false),
        ),
        (
            "io.k8s.api.core.v1.ISCSIVolumeSource",
            "iscsiInterface",
            json!("default"),
        ),
        (
            "io.k8s.api.core.v1.ISCSIPersistentVolumeSource",
            "iscsiInterface",
            json!("default"),
        ),
        ("io.k8s.api.core.v1.RBDVolumeSource", "pool", json!("rbd")),
        ("io.k8s.api.core.v1.RBDVolumeSource", "user", json!("admin")),
        (
            "io.k8s.api.core.v1.RBDVolumeSource",
            "keyring",
            json!("/etc/ceph/keyring"),
        ),
        (
            "io.k8s.api.core.v1.RBDPersistentVolumeSource",
            "pool",
            json!("rbd"),
        ),
        (
            "io.k8s.api.core.v1.RBDPersistentVolumeSource",
            "user",
            json!("admin"),
        ),
        (
            "io.k8s.api.core.v1.RBDPersistentVolumeSource",
            "keyring",
            json!("/etc/ceph/keyring"),
        ),
        (
            "io.k8s.api.core.v1.ScaleIOVolumeSource",
            "fsType",
            json!("xfs"),
        ),
        (
            "io.k8s.api.core.v1.ScaleIOVolumeSource",
            "storageMode",
            json!("ThinProvisioned"),
        ),
        (
            "io.k8s.api.core.v1.ScaleIOPersistentVolumeSource",
            "fsType",
            json!("xfs"),
        ),
        (
            "io.k8s.api.core.v1.ScaleIOPersistentVolumeSource",
            "storageMode",
            json!("ThinProvisioned"),
        ),
    ]
}

/// The description upstream gives a `name` with `+default=""` (LocalObjectReference and
/// the types that inline it): k8s-openapi makes it a required `String`, controller-gen
/// an optional field defaulting to `""`, and the inlined `+structType=atomic` makes the
/// whole type atomic.
const EMPTY_NAME_ALLOWED: &str = "This field is effectively required, but due to backwards compatibility is allowed to be empty.";

/// The pattern `resource.Quantity` carries in controller-gen's output.
const QUANTITY_PATTERN: &str = r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$";

/// A qualified name (`example.com/CamelCase`): `metav1.Condition.type`'s pattern.
const CONDITION_TYPE_PATTERN: &str = r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$";

/// Applies the markers of `definition` to its schema.
pub fn apply(definition: &str, schema: &mut Value) {
    if ATOMIC_STRUCTS.contains(&definition) {
        schema["x-kubernetes-map-type"] = json!("atomic");
    }
    for (ty, field, keys) in LIST_MAP_KEYS {
        if *ty == definition {
            let property = &mut schema["properties"][*field];
            property["x-kubernetes-list-type"] = json!("map");
            property["x-kubernetes-list-map-keys"] = json!(keys);
        }
    }
    for (ty, field, default) in defaults() {
        if ty == definition {
            schema["properties"][field]["default"] = default;
        }
    }
    let empty_name = schema["properties"]["name"]["description"]
        .as_str()
        .is_some_and(|d| d.contains(EMPTY_NAME_ALLOWED));
    if empty_name {
        schema["properties"]["name"]["default"] = json!("");
        schema["x-kubernetes-map-type"] = json!("atomic");
        if let Some(required) = schema["required"].as_array_mut() {
            required.retain(|r| r != "name");
            if required.is_empty() {
                schema.as_object_mut().unwrap().remove("required");
            }
        }
    }
    match definition {
        // kubebuilder validation markers on metav1.Condition.
        "io.k8s.apimachinery.pkg.apis.meta.v1.Condition" => {
            let p = &mut schema["properties"];
            p["message"]["maxLength"] = json!(32768);
            p["observedGeneration"]["minimum"] = json!(0);
            p["reason"]["maxLength"] = json!(1024);
            p["reason"]["minLength"] = json!(1);
            p["reason"]["pattern"] = json!("^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$");
            p["status"]["enum"] = json!(["True", "False", "Unknown"]);
            p["type"]["maxLength"] = json!(316);
            p["type"]["pattern"] = json!(CONDITION_TYPE_PATTERN);
        }
        // kubebuilder validation markers on `PortStatus.error` (core and networking).
        "io.k8s.api.core.v1.PortStatus" | "io.k8s.api.networking.v1.IngressPortStatus" => {
            let error = &mut schema["properties"]["error"];
            error["maxLength"] = json!(316);
            error["pattern"] = json!(CONDITION_TYPE_PATTERN);
        }
        // `intstr.IntOrString`: `+k8s:openapi-gen=true` with OpenAPISchemaType
        // `int-or-string`, which controller-gen writes as an anyOf of both.
        "io.k8s.apimachinery.pkg.util.intstr.IntOrString" => {
            *schema = json!({
                "anyOf": [{"type": "integer"}, {"type": "string"}],
                "x-kubernetes-int-or-string": true,
            });
        }
        "io.k8s.apimachinery.pkg.api.resource.Quantity" => {
            *schema = json!({
                "anyOf": [{"type": "integer"}, {"type": "string"}],
                "pattern": QUANTITY_PATTERN,
                "x-kubernetes-int-or-string": true,
            });
        }
        // Arbitrary JSON: controller-gen's `runtime.RawExtension` keeps whatever it holds.
        "io.k8s.apimachinery.pkg.runtime.RawExtension" => {
            *schema = json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true});
        }
        // `apiextensionsv1.JSON` is any JSON value; `JSONSchemaProps` is recursive, so
        // a structural schema can only keep it whole.
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON"
        | "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray"
        | "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool"
        | "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray" =>
        {
            *schema = json!({"x-kubernetes-preserve-unknown-fields": true});
        }
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps" => {
            *schema = json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true});
        }
        _ => {}
    }
}
