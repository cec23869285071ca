//! The messages of the built-in kinds read from protobuf bodies.

use super::messages::{Message, OBJECT_META, Ty, f};

/// core/v1 `ObjectReference`.
pub static OBJECT_REFERENCE: Message = Message {
    fields: &[
        f(1, "kind", Ty::String),
        f(2, "namespace", Ty::String),
        f(3, "name", Ty::String),
        f(4, "uid", Ty::String),
        f(5, "apiVersion", Ty::String),
        f(6, "resourceVersion", Ty::String),
        f(7, "fieldPath", Ty::String),
    ],
};

/// core/v1 `LocalObjectReference`.
pub static LOCAL_OBJECT_REFERENCE: Message = Message {
    fields: &[f(1, "name", Ty::String)],
};

/// core/v1 `Namespace` (its spec holds the finalizers; status is the server's).
pub static NAMESPACE: Message = Message {
    fields: &[
        f(1, "metadata", Ty::Msg(&OBJECT_META)),
        f(2, "spec", Ty::Msg(&NAMESPACE_SPEC)),
    ],
};

static NAMESPACE_SPEC: Message = Message {
    fields: &[f(1, "finalizers", Ty::Strings)],
};

/// core/v1 `ConfigMap`.
pub static CONFIG_MAP: Message = Message {
    fields: &[
        f(1, "metadata", Ty::Msg(&OBJECT_META)),
        f(2, "data", Ty::StringMap),
        f(3, "binaryData", Ty::BytesMap),
        f(4, "immutable", Ty::Bool),
    ],
};

/// core/v1 `Secret`.
pub static SECRET: Message = Message {
    fields: &[
        f(1, "metadata", Ty::Msg(&OBJECT_META)),
        f(2, "data", Ty::BytesMap),
        f(3, "type", Ty::String),
        f(4, "stringData", Ty::StringMap),
        f(5, "immutable", Ty::Bool),
    ],
};

/// core/v1 `ServiceAccount`.
pub static SERVICE_ACCOUNT: Message = Message {
    fields: &[
        f(1, "metadata", Ty::Msg(&OBJECT_META)),
        f(2, "secrets", Ty::Messages(&OBJECT_REFERENCE)),
        f(3, "imagePullSecrets", Ty::Messages(&LOCAL_OBJECT_REFERENCE)),
        f(4, "automountServiceAccountToken", Ty::Bool),
    ],
};

/// coordination/v1 `Lease`.
pub static LEASE: Message = Message {
    fields: &[
        f(1, "metadata", Ty::Msg(&OBJECT_META)),
        f(2, "spec", Ty::Msg(&LEASE_SPEC)),
    ],
};

static LEASE_SPEC: Message = Message {
    fields: &[
        f(1, "holderIdentity", Ty::String),
        f(2, "leaseDurationSeconds", Ty::Int),
        f(3, "acquireTime", Ty::MicroTime),
        f(4, "renewTime", Ty::MicroTime),
        f(5, "leaseTransitions", Ty::Int),
        f(6, "strategy", Ty::String),
        f(7, "preferredHolder", Ty::String),
    ],
};

/// core/v1 `Event` (client-go's event recorders send it as protobuf).
pub static EVENT: Message = Message {
    fields: &[
        f(1, "metadata", Ty::Msg(&OBJECT_META)),
        f(2, "involvedObject", Ty::Msg(&OBJECT_REFERENCE)),
        f(3, "reason", Ty::String),
        f(4, "message", Ty::String),
        f(5, "source", Ty::Msg(&EVENT_SOURCE)),
        f(6, "firstTimestamp", Ty::Time),
        f(7, "lastTimestamp", Ty::Time),
        f(8, "count", Ty::Int),
        f(9, "type", Ty::String),
        f(10, "eventTime", Ty::MicroTime),
        f(11, "series", Ty::Msg(&EVENT_SERIES)),
        f(12, "action", Ty::String),
        f(13, "related", Ty::Msg(&OBJECT_REFERENCE)),
        f(14, "reportingComponent", Ty::String),
        f(15, "reportingInstance", Ty::String),
    ],
};

static EVENT_SOURCE: Message = Message {
    fields: &[f(1, "component", Ty::String), f(2, "host", Ty::String)],
};

static EVENT_SERIES: Message = Message {
    fields: &[
        f(1, "count", Ty::Int),
        f(2, "lastObservedTime", Ty::MicroTime),
    ],
};
