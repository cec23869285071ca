//! The kube-derive originals, as in kube-rs/kube's examples (see the header of
//! `kube_derive_port.rs` for the source and commit). Left out: `main` and the client
//! code, garde (client-side validation, no effect on the CRD), and crd_derive.rs's
//! `attr = "cfg_attr(docsrs, ...)"` (docs.rs only). crd_derive_multi.rs's
//! `status = "v1::ManyDeriveStatus"` reads `super::v1::...` in this module layout.

#![allow(dead_code)]

/// examples/crd_derive.rs
pub mod crd_derive {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
    use kube::CustomResource;
    use schemars::{JsonSchema, json_schema};
    use serde::{Deserialize, Serialize};

    /// Our spec for Foo
    ///
    /// A struct with our chosen Kind will be created for us, using the following kube attrs
    #[derive(
        CustomResource, Serialize, Deserialize, Default, Debug, PartialEq, Eq, Clone, JsonSchema,
    )]
    #[kube(
        group = "clux.dev",
        version = "v1",
        kind = "Foo",
        plural = "fooz",
        root = "FooCrd",
        namespaced,
        doc = "Custom resource representing a Foo",
        status = "FooStatus",
        derive = "PartialEq",
        derive = "Default",
        attr = "allow(deprecated)",
        shortname = "f",
        scale(
            spec_replicas_path = ".spec.replicas",
            status_replicas_path = ".status.replicas"
        ),
        printcolumn(
            name = "Spec",
            type_ = "string",
            description = "name of foo",
            json_path = ".spec.name",
        ),
        selectable = "spec.name"
    )]
    pub struct MyFoo {
        name: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        info: Option<String>,
    }

    #[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
    pub struct FooStatus {
        is_bad: bool,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        #[schemars(schema_with = "conditions")]
        pub conditions: Vec<Condition>,
    }

    fn conditions(_: &mut schemars::generate::SchemaGenerator) -> schemars::Schema {
        json_schema!({
            "type": "array",
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["type"],
            "items": {
                "type": "object",
                "properties": {
                    "lastTransitionTime": { "format": "date-time", "type": "string" },
                    "message": { "type": "string" },
                    "observedGeneration": { "type": "integer", "format": "int64", "default": 0 },
                    "reason": { "type": "string" },
                    "status": { "type": "string" },
                    "type": { "type": "string" }
                },
                "required": [
                    "lastTransitionTime",
                    "message",
                    "reason",
                    "status",
                    "type"
                ],
            },
        })
    }
}

/// examples/crd_derive_schema.rs (comments shortened)
pub mod crd_derive_schema {
    use kube::{CustomResource, KubeSchema};
    use schemars::json_schema;
    use serde::{Deserialize, Serialize};

    #[derive(
        CustomResource, KubeSchema, Serialize, Deserialize, Default, Debug, PartialEq, Eq, Clone,
    )]
    #[kube(
        group = "clux.dev",
        version = "v1",
        kind = "Foo",
        namespaced,
        derive = "PartialEq",
        derive = "Default",
        validation = "self.metadata.name != 'forbidden'"
    )]
    #[serde(rename_all = "camelCase")]
    #[x_kube(validation = "self.nonNullable == oldSelf.nonNullable")]
    pub struct FooSpec {
        // Non-nullable without default is required.
        non_nullable: String,

        // Non-nullable with default value.
        #[serde(default = "default_value")]
        non_nullable_with_default: String,

        // Nullable without default, skipping None.
        #[serde(skip_serializing_if = "Option::is_none")]
        nullable_skipped: Option<String>,
        // Nullable without default, not skipping None.
        nullable: Option<String>,

        // Nullable with default, skipping None.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[serde(default = "default_nullable")]
        nullable_skipped_with_default: Option<String>,

        // Nullable with default, not skipping None.
        #[serde(default = "default_nullable")]
        nullable_with_default: Option<String>,

        /// Default listable field
        #[serde(default)]
        default_listable: Vec<u32>,

        // Listable field with specified 'set' merge strategy
        #[serde(default)]
        #[schemars(schema_with = "set_listable_schema")]
        set_listable: Vec<u32>,

        // Field with CEL validation
        #[serde(default = "default_legal")]
        #[x_kube(
            validation = Rule::new("self != 'illegal'").message(Message::Expression("'string cannot be illegal'".into())).reason(Reason::FieldValueForbidden),
            validation = Rule::new("self != 'not legal'").reason(Reason::FieldValueInvalid),
        )]
        cel_validated: Option<String>,

        /// Immutable field that uses optionalOldSelf
        #[serde(default)]
        #[x_kube(
            validation = Rule::new("oldSelf.optMap(o, o == self).orValue(true)").optional_old_self(true).message("Immutable after creation")
        )]
        immutable: Option<String>,

        #[x_kube(validation = Rule::new("self == oldSelf").message("is immutable"))]
        foo_sub_spec: Option<FooSubSpec>,

        #[serde(default = "FooSpec::default_value")]
        associated_default: bool,
    }

    #[derive(KubeSchema, Serialize, Deserialize, Default, Debug, PartialEq, Eq, Clone)]
    pub struct FooSubSpec {
        /// Heterogenous CEL rule set
        #[x_kube(validation = "self != 'not legal'", validation = Rule::new("self != 'not that'"))]
        #[x_kube(validation = ("self != 'also not that'", "some pretty good reason"))]
        field: String,

        other: Option<String>,
    }

    impl FooSpec {
        fn default_value() -> bool {
            true
        }
    }

    fn set_listable_schema(_: &mut schemars::generate::SchemaGenerator) -> schemars::Schema {
        json_schema!({
            "type": "array",
            "items": {
                "format": "u32",
                "minimum": 0,
                "type": "integer"
            },
            "x-kubernetes-list-type": "set"
        })
    }

    fn default_value() -> String {
        "default_value".into()
    }

    fn default_legal() -> Option<String> {
        Some("legal".into())
    }

    fn default_nullable() -> Option<String> {
        Some("default_nullable".into())
    }
}

/// examples/crd_api.rs (without garde's `Validate` derive and `#[garde]` attributes)
pub mod crd_api {
    use kube::CustomResource;
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    #[derive(CustomResource, Deserialize, Serialize, Clone, Debug, JsonSchema)]
    #[kube(group = "clux.dev", version = "v1", kind = "Foo", namespaced)]
    #[kube(status = "FooStatus")]
    #[kube(scale(
        spec_replicas_path = ".spec.replicas",
        status_replicas_path = ".status.replicas"
    ))]
    #[kube(printcolumn(name = "Team", json_path = ".spec.metadata.team", type_ = "string"))]
    pub struct FooSpec {
        #[schemars(length(min = 3))]
        name: String,
        info: String,
        replicas: i32,
    }

    #[derive(Deserialize, Serialize, Clone, Debug, Default, JsonSchema)]
    pub struct FooStatus {
        is_bad: bool,
        replicas: i32,
    }
}

/// examples/crd_derive_multi.rs
pub mod crd_derive_multi {
    pub mod v1 {
        use kube::CustomResource;
        use schemars::JsonSchema;
        use serde::{Deserialize, Serialize};

        // spec that is forwards compatible with v2 (can upgrade by truncating)
        #[derive(CustomResource, Serialize, Deserialize, Default, Debug, Clone, JsonSchema)]
        #[kube(
            group = "kube.rs",
            version = "v1",
            kind = "ManyDerive",
            status = "ManyDeriveStatus",
            namespaced
        )]
        pub struct ManyDeriveSpec {
            pub name: String,
            pub oldprop: u32,
        }
        #[derive(Serialize, Deserialize, Default, Debug, Clone, JsonSchema)]
        pub struct ManyDeriveStatus {
            pub condition: Option<bool>,
        }
    }
    pub mod v2 {
        use kube::CustomResource;
        use schemars::JsonSchema;
        use serde::{Deserialize, Serialize};

        // spec that is NOT backwards compatible with v1 (cannot retrieve oldprop if truncated)
        #[derive(CustomResource, Serialize, Deserialize, Default, Debug, Clone, JsonSchema)]
        #[kube(
            group = "kube.rs",
            version = "v2",
            kind = "ManyDerive",
            namespaced,
            status = "super::v1::ManyDeriveStatus" // cross-referencing from v1 module
        )]
        pub struct ManyDeriveSpec {
            pub name: String,
            pub extra: Option<String>,
        }
    }
}
