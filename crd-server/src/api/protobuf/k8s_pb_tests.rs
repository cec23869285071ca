//! Objects built with k8s-pb and encoded by prost (an encoder independent of this
//! server's), decoded into the JSON kube-apiserver writes for them (written out by
//! hand); malformed bodies refused with a 400, never a panic.

use std::collections::BTreeMap;

use crate::api::status::assert_answer;

use k8s_pb::api::apps::v1 as apps;
use k8s_pb::api::batch::v1 as batch;
use k8s_pb::api::core::v1 as core;
use k8s_pb::api::events::v1 as events;
use k8s_pb::api::rbac::v1 as rbac;
use k8s_pb::apimachinery::pkg::api::resource::Quantity;
use k8s_pb::apimachinery::pkg::apis::meta::v1 as meta;
use k8s_pb::apimachinery::pkg::runtime::{TypeMeta, Unknown};
use k8s_pb::apimachinery::pkg::util::intstr::IntOrString;
use prost::Message as _;
use serde_json::{Value, json};

use super::{decode_object, message_for};

/// The body a Go client sends: `k8s\0` and a `runtime.Unknown` holding the object.
fn body(api_version: &str, kind: &str, object: &impl prost::Message) -> Vec<u8> {
    let unknown = Unknown {
        type_meta: Some(TypeMeta {
            api_version: Some(api_version.into()),
            kind: Some(kind.into()),
        }),
        raw: Some(object.encode_to_vec()),
        content_encoding: Some(String::new()),
        content_type: Some("application/vnd.kubernetes.protobuf".into()),
    };
    [b"k8s\x00".to_vec(), unknown.encode_to_vec()].concat()
}

fn decode(definition: &str, kind: &str, body: &[u8]) -> Value {
    let message = message_for(definition).expect("a generated message");
    decode_object(body, kind, message).unwrap()
}

/// `object` as a Go client sends it, decoded with the message of `definition`.
fn decode_sent(
    definition: &str,
    api_version: &str,
    kind: &str,
    object: &impl prost::Message,
) -> Value {
    decode(definition, kind, &body(api_version, kind, object))
}

fn s(v: &str) -> Option<String> {
    Some(v.into())
}

fn map<V>(pairs: &[(&str, V)]) -> BTreeMap<String, V>
where
    V: Clone,
{
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

fn quantity(v: &str) -> Quantity {
    Quantity { string: s(v) }
}

/// Metadata as Go writes it: the zero creation time is an empty message.
fn meta(name: &str, namespace: &str) -> meta::ObjectMeta {
    meta::ObjectMeta {
        name: s(name),
        namespace: s(namespace),
        generation: Some(0),
        creation_timestamp: Some(meta::Time::default()),
        ..Default::default()
    }
}

fn deployment() -> apps::Deployment {
    let labels = map(&[("app", "web".to_string())]);
    let container = core::Container {
        name: s("nginx"),
        image: s("nginx:1.27"),
        ports: vec![core::ContainerPort {
            container_port: Some(80),
            protocol: s("TCP"),
            // A non-pointer zero: Go writes it, its JSON leaves it out.
            host_port: Some(0),
            ..Default::default()
        }],
        resources: Some(core::ResourceRequirements {
            limits: map(&[("cpu", quantity("500m")), ("memory", quantity("128Mi"))]),
            requests: map(&[("cpu", quantity("250m"))]),
            ..Default::default()
        }),
        env: vec![
            core::EnvVar {
                name: s("MODE"),
                value: s("prod"),
                value_from: None,
            },
            core::EnvVar {
                name: s("POD_IP"),
                value: s(""),
                value_from: Some(core::EnvVarSource {
                    field_ref: Some(core::ObjectFieldSelector {
                        api_version: None,
                        field_path: s("status.podIP"),
                    }),
                    ..Default::default()
                }),
            },
        ],
        volume_mounts: vec![core::VolumeMount {
            name: s("data"),
            mount_path: s("/data"),
            read_only: Some(false),
            ..Default::default()
        }],
        stdin: Some(false),
        tty: Some(false),
        termination_message_path: s(""),
        ..Default::default()
    };
    let volumes = vec![
        core::Volume {
            name: s("data"),
            volume_source: Some(core::VolumeSource {
                empty_dir: Some(core::EmptyDirVolumeSource {
                    medium: s(""),
                    size_limit: Some(quantity("1Gi")),
                }),
                ..Default::default()
            }),
        },
        core::Volume {
            name: s("cfg"),
            volume_source: Some(core::VolumeSource {
                config_map: Some(core::ConfigMapVolumeSource {
                    local_object_reference: Some(core::LocalObjectReference {
                        name: s("settings"),
                    }),
                    default_mode: Some(0o644),
                    ..Default::default()
                }),
                ..Default::default()
            }),
        },
    ];
    apps::Deployment {
        metadata: Some(meta::ObjectMeta {
            labels: labels.clone(),
            ..meta("web", "default")
        }),
        spec: Some(apps::DeploymentSpec {
            // A pointer: its zero is a value.
            replicas: Some(0),
            selector: Some(meta::LabelSelector {
                match_labels: labels.clone(),
                match_expressions: vec![],
            }),
            template: Some(core::PodTemplateSpec {
                metadata: Some(meta::ObjectMeta {
                    labels,
                    creation_timestamp: Some(meta::Time::default()),
                    ..Default::default()
                }),
                spec: Some(core::PodSpec {
                    containers: vec![container],
                    volumes,
                    termination_grace_period_seconds: Some(30),
                    host_ipc: Some(true),
                    host_network: Some(false),
                    ..Default::default()
                }),
            }),
            strategy: Some(apps::DeploymentStrategy {
                r#type: s("RollingUpdate"),
                rolling_update: Some(apps::RollingUpdateDeployment {
                    max_surge: Some(IntOrString {
                        r#type: Some(1),
                        int_val: Some(0),
                        str_val: s("25%"),
                    }),
                    max_unavailable: Some(IntOrString {
                        r#type: Some(0),
                        int_val: Some(1),
                        str_val: s(""),
                    }),
                }),
            }),
            ..Default::default()
        }),
        status: Some(apps::DeploymentStatus::default()),
    }
}

#[test]
fn a_deployment() {
    let v = decode_sent(
        "io.k8s.api.apps.v1.Deployment",
        "apps/v1",
        "Deployment",
        &deployment(),
    );
    let expected = json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"},
                     "creationTimestamp": null},
        "spec": {
            "replicas": 0,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}, "creationTimestamp": null},
                "spec": {
                    "containers": [{
                        "name": "nginx",
                        "image": "nginx:1.27",
                        "ports": [{"containerPort": 80, "protocol": "TCP"}],
                        "env": [
                            {"name": "MODE", "value": "prod"},
                            {"name": "POD_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}}
                        ],
                        "resources": {"limits": {"cpu": "500m", "memory": "128Mi"},
                                      "requests": {"cpu": "250m"}},
                        "volumeMounts": [{"name": "data", "mountPath": "/data"}]
                    }],
                    "volumes": [
                        {"name": "data", "emptyDir": {"sizeLimit": "1Gi"}},
                        {"name": "cfg", "configMap": {"name": "settings", "defaultMode": 420}}
                    ],
                    "terminationGracePeriodSeconds": 30,
                    "hostIPC": true
                }
            },
            "strategy": {"type": "RollingUpdate",
                         "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 1}}
        },
        "status": {}
    });
    assert_eq!(v, expected);
}

#[test]
fn a_service_with_target_ports() {
    let service = core::Service {
        metadata: Some(meta("web", "default")),
        spec: Some(core::ServiceSpec {
            ports: vec![
                core::ServicePort {
                    name: s("http"),
                    protocol: s("TCP"),
                    port: Some(80),
                    target_port: Some(IntOrString {
                        r#type: Some(1),
                        int_val: Some(0),
                        str_val: s("http"),
                    }),
                    node_port: Some(0),
                    ..Default::default()
                },
                core::ServicePort {
                    name: s("metrics"),
                    port: Some(9090),
                    target_port: Some(IntOrString {
                        r#type: Some(0),
                        int_val: Some(9091),
                        str_val: s(""),
                    }),
                    ..Default::default()
                },
            ],
            selector: map(&[("app", "web".to_string())]),
            cluster_ips: vec!["10.0.0.10".into()],
            r#type: s("ClusterIP"),
            ip_families: vec!["IPv4".into()],
            session_affinity: s(""),
            internal_traffic_policy: s("Cluster"),
            publish_not_ready_addresses: Some(false),
            ..Default::default()
        }),
        status: None,
    };
    let v = decode_sent("io.k8s.api.core.v1.Service", "v1", "Service", &service);
    assert_eq!(
        v["spec"],
        json!({
            "ports": [
                {"name": "http", "protocol": "TCP", "port": 80, "targetPort": "http"},
                {"name": "metrics", "port": 9090, "targetPort": 9091}
            ],
            "selector": {"app": "web"},
            "clusterIPs": ["10.0.0.10"],
            "type": "ClusterIP",
            "ipFamilies": ["IPv4"],
            "internalTrafficPolicy": "Cluster"
        })
    );
}

#[test]
fn a_cron_job_with_times() {
    let job = batch::CronJob {
        metadata: Some(meta("tick", "ops")),
        spec: Some(batch::CronJobSpec {
            schedule: s("*/5 * * * *"),
            time_zone: s("Etc/UTC"),
            concurrency_policy: s("Forbid"),
            suspend: Some(false),
            successful_jobs_history_limit: Some(3),
            job_template: Some(batch::JobTemplateSpec {
                metadata: Some(meta::ObjectMeta {
                    creation_timestamp: Some(meta::Time::default()),
                    ..Default::default()
                }),
                spec: Some(batch::JobSpec {
                    backoff_limit: Some(2),
                    template: Some(core::PodTemplateSpec {
                        metadata: None,
                        spec: Some(core::PodSpec {
                            restart_policy: s("OnFailure"),
                            containers: vec![core::Container {
                                name: s("tick"),
                                image: s("busybox"),
                                command: vec!["sh".into(), "-c".into(), "date".into()],
                                ..Default::default()
                            }],
                            ..Default::default()
                        }),
                    }),
                    ..Default::default()
                }),
            }),
            ..Default::default()
        }),
        status: Some(batch::CronJobStatus {
            // kube-apiserver keeps a Time's seconds only.
            last_schedule_time: Some(meta::Time {
                seconds: Some(1_700_000_000),
                nanos: Some(5),
            }),
            ..Default::default()
        }),
    };
    let v = decode_sent("io.k8s.api.batch.v1.CronJob", "batch/v1", "CronJob", &job);
    assert_eq!(
        v["spec"],
        json!({
            "schedule": "*/5 * * * *",
            "timeZone": "Etc/UTC",
            "concurrencyPolicy": "Forbid",
            "suspend": false,
            "successfulJobsHistoryLimit": 3,
            "jobTemplate": {
                "metadata": {"creationTimestamp": null},
                "spec": {
                    "backoffLimit": 2,
                    "template": {"spec": {
                        "restartPolicy": "OnFailure",
                        "containers": [{"name": "tick", "image": "busybox",
                                        "command": ["sh", "-c", "date"]}]
                    }}
                }
            }
        })
    );
    assert_eq!(
        v["status"],
        json!({"lastScheduleTime": "2023-11-14T22:13:20Z"})
    );
}

#[test]
fn a_role_with_rules() {
    let role = rbac::Role {
        metadata: Some(meta("reader", "team")),
        rules: vec![
            rbac::PolicyRule {
                verbs: vec!["get".into(), "list".into()],
                api_groups: vec!["".into()],
                resources: vec!["pods".into(), "pods/log".into()],
                ..Default::default()
            },
            rbac::PolicyRule {
                verbs: vec!["get".into()],
                non_resource_ur_ls: vec!["/healthz".into()],
                ..Default::default()
            },
        ],
    };
    let v = decode_sent(
        "io.k8s.api.rbac.v1.Role",
        "rbac.authorization.k8s.io/v1",
        "Role",
        &role,
    );
    assert_eq!(
        v,
        json!({
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": {"name": "reader", "namespace": "team", "creationTimestamp": null},
            "rules": [
                {"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods", "pods/log"]},
                {"verbs": ["get"], "nonResourceURLs": ["/healthz"]}
            ]
        })
    );
}

#[test]
fn an_event_with_micro_time() {
    let event = events::Event {
        metadata: Some(meta("web.1", "default")),
        event_time: Some(meta::MicroTime {
            seconds: Some(1_700_000_000),
            nanos: Some(123_456_789),
        }),
        reporting_controller: s("example.com/ctl"),
        reporting_instance: s("ctl-1"),
        action: s("Sync"),
        reason: s("Synced"),
        regarding: Some(core::ObjectReference {
            kind: s("Deployment"),
            name: s("web"),
            ..Default::default()
        }),
        r#type: s("Normal"),
        deprecated_count: Some(0),
        ..Default::default()
    };
    let v = decode_sent(
        "io.k8s.api.events.v1.Event",
        "events.k8s.io/v1",
        "Event",
        &event,
    );
    assert_eq!(v["eventTime"], "2023-11-14T22:13:20.123456Z");
    assert_eq!(v["regarding"], json!({"kind": "Deployment", "name": "web"}));
    assert_eq!(v["reportingController"], "example.com/ctl");
    assert!(v.get("deprecatedCount").is_none(), "{v}");
}

/// A field number unknown to the tables, as a newer client sends it.
fn with_unknown_fields(mut raw: Vec<u8>) -> Vec<u8> {
    raw.extend([0x98, 0x06, 0x80, 0x01]); // field 99, varint 128
    raw.extend([0x92, 0x06, 0x02, 0x01, b'x']); // field 98, two bytes
    raw.extend([0x8d, 0x06, 1, 2, 3, 4]); // field 97, fixed32
    raw
}

#[test]
fn unknown_fields_are_skipped() {
    let config = core::ConfigMap {
        metadata: Some(meta("settings", "default")),
        data: map(&[("color", "blue".to_string())]),
        ..Default::default()
    };
    let raw = with_unknown_fields(config.encode_to_vec());
    let unknown = Unknown {
        type_meta: Some(TypeMeta {
            api_version: s("v1"),
            kind: s("ConfigMap"),
        }),
        raw: Some(raw),
        ..Default::default()
    };
    let body = [b"k8s\x00".to_vec(), unknown.encode_to_vec()].concat();
    let v = decode("io.k8s.api.core.v1.ConfigMap", "ConfigMap", &body);
    assert_eq!(v["data"], json!({"color": "blue"}));
    assert_eq!(v["metadata"]["name"], "settings");
}

#[test]
fn malformed_bodies_are_400s_never_panics() {
    let message = message_for("io.k8s.api.apps.v1.Deployment").unwrap();
    let good = body("apps/v1", "Deployment", &deployment());
    let check = |b: &[u8]| {
        if let Err(e) = decode_object(b, "Deployment", message) {
            assert_eq!(e.code, http::StatusCode::BAD_REQUEST, "{}", e.message);
        }
    };
    for len in 0..good.len() {
        check(&good[..len]);
    }
    for at in 0..good.len() {
        for bit in 0..8 {
            let mut b = good.clone();
            b[at] ^= 1 << bit;
            check(&b);
        }
    }
    // A length running past the end, a wire type 3, nesting beyond any object.
    assert!(decode_object(b"k8s\x00\x12\x7f", "Deployment", message).is_err());
    assert!(decode_object(b"k8s\x00\x13", "Deployment", message).is_err());
    let mut deep: Vec<u8> = Vec::new();
    for _ in 0..10_000 {
        // `not` (field 28) of `not` of …, each wrapping the previous.
        let mut next = vec![0xe2, 0x01];
        let mut len = deep.len();
        while len >= 0x80 {
            next.push((len as u8) | 0x80);
            len >>= 7;
        }
        next.push(len as u8);
        next.extend(&deep);
        deep = next;
    }
    let crd =
        message_for("io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps")
            .unwrap();
    let e = super::messages::decode(crd, &deep).unwrap_err();
    assert_answer(&e, 400, |m| m.ends_with("messages nested too deeply"));
}

#[test]
fn a_custom_resource_definition_with_its_schema() {
    use k8s_pb::apiextensions_apiserver::pkg::apis::apiextensions::v1 as ext;
    let props = |ty: &str| ext::JsonSchemaProps {
        r#type: s(ty),
        ..Default::default()
    };
    let replicas = ext::JsonSchemaProps {
        minimum: Some(1.0),
        maximum: Some(10.5),
        default: Some(ext::Json {
            raw: Some(b"3".to_vec()),
        }),
        ..props("integer")
    };
    let tags = ext::JsonSchemaProps {
        items: Some(Box::new(ext::JsonSchemaPropsOrArray {
            schema: Some(Box::new(props("string"))),
            j_son_schemas: vec![],
        })),
        x_kubernetes_list_type: s("set"),
        ..props("array")
    };
    let labels = ext::JsonSchemaProps {
        additional_properties: Some(Box::new(ext::JsonSchemaPropsOrBool {
            allows: Some(true),
            schema: Some(Box::new(props("string"))),
        })),
        ..props("object")
    };
    let spec = ext::JsonSchemaProps {
        properties: map(&[("replicas", replicas), ("tags", tags), ("labels", labels)]),
        required: vec!["replicas".into()],
        r#enum: vec![],
        ..props("object")
    };
    let root = ext::JsonSchemaProps {
        properties: map(&[("spec", spec)]),
        x_kubernetes_preserve_unknown_fields: Some(false),
        nullable: Some(false),
        ..props("object")
    };
    let crd = ext::CustomResourceDefinition {
        metadata: Some(meta("widgets.example.com", "")),
        spec: Some(ext::CustomResourceDefinitionSpec {
            group: s("example.com"),
            names: Some(ext::CustomResourceDefinitionNames {
                plural: s("widgets"),
                kind: s("Widget"),
                ..Default::default()
            }),
            scope: s("Namespaced"),
            versions: vec![ext::CustomResourceDefinitionVersion {
                name: s("v1"),
                served: Some(true),
                storage: Some(true),
                schema: Some(ext::CustomResourceValidation {
                    open_apiv3_schema: Some(root),
                }),
                ..Default::default()
            }],
            ..Default::default()
        }),
        status: None,
    };
    let v = decode_sent(
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition",
        "apiextensions.k8s.io/v1",
        "CustomResourceDefinition",
        &crd,
    );
    assert_eq!(
        v["spec"]["versions"],
        json!([{
            "name": "v1", "served": true, "storage": true,
            "schema": {"openAPIV3Schema": {
                "type": "object",
                "x-kubernetes-preserve-unknown-fields": false,
                "properties": {"spec": {
                    "type": "object",
                    "required": ["replicas"],
                    "properties": {
                        "replicas": {"type": "integer", "minimum": 1, "maximum": 10.5, "default": 3},
                        "tags": {"type": "array", "items": {"type": "string"},
                                 "x-kubernetes-list-type": "set"},
                        "labels": {"type": "object", "additionalProperties": {"type": "string"}}
                    }
                }}
            }}
        }])
    );
    assert_eq!(
        v["spec"]["names"],
        json!({"plural": "widgets", "kind": "Widget"})
    );
}

#[test]
fn delete_options_as_client_go_sends_them() {
    let options = meta::DeleteOptions {
        // Pointers: a zero grace period (delete now) is a value.
        grace_period_seconds: Some(0),
        preconditions: Some(meta::Preconditions {
            uid: s("u-1"),
            resource_version: None,
        }),
        propagation_policy: s("Foreground"),
        dry_run: vec!["All".into()],
        ..Default::default()
    };
    let b = body("meta.k8s.io/v1", "DeleteOptions", &options);
    assert_eq!(
        super::decode_delete_options(&b).unwrap(),
        json!({"apiVersion": "meta.k8s.io/v1", "kind": "DeleteOptions",
               "gracePeriodSeconds": 0, "preconditions": {"uid": "u-1"},
               "propagationPolicy": "Foreground", "dryRun": ["All"]})
    );
}
