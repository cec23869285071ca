//! The same types with crd-derive, attribute by attribute (docs/migrate-from-kube-derive.md).
//! Where kube-derive's output is kept only so the two CRDs compare equal (its root
//! `title` naming the Rust type, its boilerplate root description), the attribute says so.

#![allow(dead_code)]

/// examples/crd_derive.rs
pub mod crd_derive {
    use crd_runtime::{CrdSchema, CustomResource, JSONSchemaProps};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
    use serde::{Deserialize, Serialize};

    /// Custom resource representing a Foo
    #[derive(CustomResource, Serialize, Deserialize, Default, Debug, PartialEq, Eq, Clone)]
    #[crd(
        group = "clux.dev",
        version = "v1",
        kind = "Foo",
        plural = "fooz",
        root_type = FooCrd,
        namespaced,
        status = FooStatus,
        derive = [PartialEq, Default],
        short_names = ["f"],
        // No `scale`: kube-derive's `.spec.replicas` names no field of the spec, so the
        // API server would prune what `kubectl scale` writes; crd-derive refuses it.
        printcolumn(name = "Spec", type = "string", description = "name of foo", json_path = ".spec.name"),
        // kube-derive's "spec.name" is refused by the API server: JSONPaths start with `.`.
        selectable_field = ".spec.name",
        // Kept for the comparison: kube-derive's title is the Rust root type's name.
        root(title = "FooCrd"),
        // kube-derive puts the spec struct's doc on `spec` and `doc = ...` on the root;
        // crd-derive puts the doc comment on the root.
        spec_schema(description = "Our spec for Foo\n\nA struct with our chosen Kind will be created for us, using the following kube attrs")
    )]
    pub struct MyFoo {
        name: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        info: Option<String>,
    }

    #[derive(CrdSchema, Debug, Clone, Serialize, Deserialize, PartialEq)]
    pub struct FooStatus {
        is_bad: bool,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        #[crd(schema_with = conditions)]
        pub conditions: Vec<Condition>,
    }

    // The original's hand-written schema, kept; without `schema_with` crd-derive would
    // give controller-gen's Condition schema (crd-runtime feature `kube`).
    fn conditions() -> JSONSchemaProps {
        serde_json::from_value(serde_json::json!({
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
                "required": ["lastTransitionTime", "message", "reason", "status", "type"],
            },
        }))
        .expect("a literal schema of the model")
    }
}

/// examples/crd_derive_schema.rs
pub mod crd_derive_schema {
    use crd_runtime::{CrdSchema, CustomResource};
    use serde::{Deserialize, Serialize};

    #[derive(CustomResource, Serialize, Deserialize, Default, Debug, PartialEq, Eq, Clone)]
    #[crd(
        group = "clux.dev",
        version = "v1",
        kind = "Foo",
        namespaced,
        derive = [PartialEq, Default],
        root(
            validation = "self.metadata.name != 'forbidden'",
            // Kept for the comparison (kube-derive's boilerplate and type name).
            title = "Foo",
            description = "Auto-generated derived type for FooSpec via `CustomResource`"
        ),
        spec_schema(validation = "self.nonNullable == oldSelf.nonNullable")
    )]
    #[serde(rename_all = "camelCase")]
    pub struct FooSpec {
        non_nullable: String,

        // serde's default is a function call: the schema's `default` is written out.
        #[serde(default = "default_value")]
        #[crd(default = "default_value")]
        non_nullable_with_default: String,

        // This example is about `null`: it keeps `nullable` (crd-derive's Option fields are
        // not nullable unless asked, see the `nullable` differences in the test).
        #[serde(skip_serializing_if = "Option::is_none")]
        #[crd(nullable)]
        nullable_skipped: Option<String>,
        #[crd(nullable)]
        nullable: Option<String>,

        #[serde(skip_serializing_if = "Option::is_none")]
        #[serde(default = "default_nullable")]
        #[crd(nullable, default = "default_nullable")]
        nullable_skipped_with_default: Option<String>,

        #[serde(default = "default_nullable")]
        #[crd(nullable, default = "default_nullable")]
        nullable_with_default: Option<String>,

        /// Default listable field
        #[serde(default)]
        #[crd(default = [])]
        default_listable: Vec<u32>,

        #[serde(default)]
        #[crd(default = [], list_type = "set")]
        set_listable: Vec<u32>,

        #[serde(default = "default_legal")]
        #[crd(
            nullable,
            default = "legal",
            validation(
                rule = "self != 'illegal'",
                message_expression = "'string cannot be illegal'",
                reason = "FieldValueForbidden"
            ),
            validation(rule = "self != 'not legal'", reason = "FieldValueInvalid")
        )]
        cel_validated: Option<String>,

        /// Immutable field that uses optionalOldSelf
        #[serde(default)]
        #[crd(
            nullable,
            validation(
                rule = "oldSelf.optMap(o, o == self).orValue(true)",
                optional_old_self = true,
                message = "Immutable after creation"
            )
        )]
        immutable: Option<String>,

        #[crd(
            nullable,
            validation(rule = "self == oldSelf", message = "is immutable")
        )]
        foo_sub_spec: Option<FooSubSpec>,

        #[serde(default = "FooSpec::default_value")]
        #[crd(default = true)]
        associated_default: bool,
    }

    #[derive(CrdSchema, Serialize, Deserialize, Default, Debug, PartialEq, Eq, Clone)]
    pub struct FooSubSpec {
        /// Heterogenous CEL rule set
        #[crd(
            validation = "self != 'not legal'",
            validation = "self != 'not that'",
            validation(rule = "self != 'also not that'", message = "some pretty good reason")
        )]
        field: String,

        #[crd(nullable)]
        other: Option<String>,
    }

    impl FooSpec {
        fn default_value() -> bool {
            true
        }
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

/// examples/crd_api.rs
pub mod crd_api {
    use crd_runtime::{CrdSchema, CustomResource};
    use serde::{Deserialize, Serialize};

    #[derive(CustomResource, Deserialize, Serialize, Clone, Debug)]
    #[crd(
        group = "clux.dev",
        version = "v1",
        kind = "Foo",
        namespaced,
        status = FooStatus,
        scale(spec_replicas_path = ".spec.replicas", status_replicas_path = ".status.replicas"),
        // The spec has no `metadata` field, so the column is always empty; crd-derive
        // refuses such a path at compile time unless told (the API server accepts it).
        printcolumn(name = "Team", json_path = ".spec.metadata.team", type = "string", unchecked_path),
        root(title = "Foo", description = "Auto-generated derived type for FooSpec via `CustomResource`")
    )]
    pub struct FooSpec {
        // schemars' `length(min = 3)` (and garde's, client side) is `min_length`.
        #[crd(min_length = 3)]
        name: String,
        info: String,
        // schemars writes `format: int32` for i32; crd-derive only when asked.
        #[crd(format = "int32")]
        replicas: i32,
    }

    #[derive(CrdSchema, Deserialize, Serialize, Clone, Debug, Default)]
    pub struct FooStatus {
        is_bad: bool,
        #[crd(format = "int32")]
        replicas: i32,
    }
}

/// examples/crd_derive_multi.rs: `merge_crds(crds, "v1")` becomes `storage = false` on
/// v2 and `crd_runtime::merge_versions`.
pub mod crd_derive_multi {
    pub mod v1 {
        use crd_runtime::{CrdSchema, CustomResource};
        use serde::{Deserialize, Serialize};

        #[derive(CustomResource, Serialize, Deserialize, Default, Debug, Clone)]
        #[crd(
            group = "kube.rs",
            version = "v1",
            kind = "ManyDerive",
            status = ManyDeriveStatus,
            namespaced,
            root(title = "ManyDerive", description = "Auto-generated derived type for ManyDeriveSpec via `CustomResource`")
        )]
        pub struct ManyDeriveSpec {
            pub name: String,
            pub oldprop: u32,
        }

        #[derive(CrdSchema, Serialize, Deserialize, Default, Debug, Clone)]
        pub struct ManyDeriveStatus {
            pub condition: Option<bool>,
        }
    }

    pub mod v2 {
        use crd_runtime::CustomResource;
        use serde::{Deserialize, Serialize};

        #[derive(CustomResource, Serialize, Deserialize, Default, Debug, Clone)]
        #[crd(
            group = "kube.rs",
            version = "v2",
            kind = "ManyDerive",
            namespaced,
            storage = false,
            status = super::v1::ManyDeriveStatus,
            root(title = "ManyDerive", description = "Auto-generated derived type for ManyDeriveSpec via `CustomResource`")
        )]
        pub struct ManyDeriveSpec {
            pub name: String,
            pub extra: Option<String>,
        }
    }
}
