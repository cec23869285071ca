//! The other direction (feature `schemars`): derived types implement
//! `schemars::JsonSchema` with the structural schema they have in the CRD, so they
//! nest inside types whose schema comes from schemars (kube-derive's `CustomResource`).
//!
//! The impl is emitted by the derive as a call to [`__impl_json_schema!`](crate::__impl_json_schema),
//! which expands to nothing without this feature: the derive cannot see the features of
//! the crate it expands in.

use schemars::Schema;
use serde_json::Value;

use crate::model::JSONSchemaProps;

/// The schemars form of a derived type's CRD schema. Not a public API.
///
/// The schema is the CRD's node as is (OpenAPI v3 with `x-kubernetes-*`), so a generator
/// with `inline_subschemas` (kube-derive's) embeds exactly the sub-schema
/// `CustomResourceExt::crd()` would.
#[doc(hidden)]
pub fn json_schema_of(schema: &JSONSchemaProps, type_name: &str) -> Schema {
    match serde_json::to_value(schema) {
        Ok(Value::Object(map)) => Schema::from(map),
        // Not reachable for the model's derived `Serialize`; still no panic in a schema
        // generator: an invalid `type` naming the type makes the CRD fail validation.
        other => {
            let why = match other {
                Err(e) => e.to_string(),
                Ok(v) => format!("serialized as {v}, not an object"),
            };
            let mut map = serde_json::Map::new();
            map.insert(
                "type".into(),
                Value::String(format!("(`{type_name}` has no JSON schema: {why})")),
            );
            Schema::from(map)
        }
    }
}

/// `impl schemars::JsonSchema` for a derived type (feature `schemars`). Not a public API:
/// the derive calls it as `__impl_json_schema!([impl generics] [type] [where clause] "Name")`.
#[doc(hidden)]
#[macro_export]
macro_rules! __impl_json_schema {
    ([$($impl_g:tt)*] [$($ty:tt)*] [$($where_c:tt)*] $name:literal) => {
        #[automatically_derived]
        impl $($impl_g)* $crate::schemars_support::__schemars::JsonSchema for $($ty)* $($where_c)* {
            // Inline: the schema is self-contained (CRD schemas have no `$ref`), and a
            // `$ref` would need a generator that resolves definitions.
            fn inline_schema() -> bool {
                true
            }

            fn schema_name() -> $crate::schemars_support::__Cow<'static, str> {
                $crate::schemars_support::__Cow::Borrowed($name)
            }

            fn schema_id() -> $crate::schemars_support::__Cow<'static, str> {
                $crate::schemars_support::__Cow::Borrowed(::core::any::type_name::<Self>())
            }

            fn json_schema(
                _: &mut $crate::schemars_support::__schemars::SchemaGenerator,
            ) -> $crate::schemars_support::__schemars::Schema {
                $crate::schemars_support::json_schema_of(
                    &<Self as $crate::CrdSchema>::crd_schema(),
                    ::core::any::type_name::<Self>(),
                )
            }
        }
    };
}
