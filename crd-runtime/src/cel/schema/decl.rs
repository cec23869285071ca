//! How a schema node looks to CEL (`k8s.io/apiserver/pkg/cel/common` `SchemaDeclType`).
//!
//! A node is one of: a scalar (`string` — or `bytes`, `timestamp`, `duration` by
//! `format` —, `int`, `double`, `bool`), `x-kubernetes-int-or-string` (dynamic),
//! a list, a map (`additionalProperties`), an object (`properties`, or an object
//! with `x-kubernetes-preserve-unknown-fields` and nothing declared: an object
//! without fields), or nothing CEL can see (`None`: rules on such nodes cannot
//! refer to `self`'s content).
//!
//! At the root of a resource and in `x-kubernetes-embedded-resource` objects,
//! `apiVersion`, `kind` and `metadata.name`/`metadata.generateName` are always
//! visible, and nothing else of `metadata` is.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use crate::cel::schema::CelSchema;

use crate::cel::schema::escape::{escape, is_reserved};

/// The CEL view of a schema node.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Decl<'a> {
    /// `string` (any format without a CEL type of its own).
    String,
    /// `format: byte`.
    Bytes,
    /// `format: date` / `date-time`.
    Timestamp,
    /// `format: duration`.
    Duration,
    /// `integer`.
    Int,
    /// `number`.
    Double,
    /// `boolean`.
    Bool,
    /// `x-kubernetes-int-or-string` (checked at run time only).
    IntOrString,
    /// An array with its items schema.
    List(&'a CelSchema),
    /// `additionalProperties` with a schema: a map from string keys.
    Map(&'a CelSchema),
    /// An object with declared properties (`root`: a resource root or embedded resource).
    Object(&'a CelSchema, bool),
}

/// The CEL view of `s`, or `None` when CEL cannot see the node.
pub(crate) fn decl(s: &CelSchema, resource_root: bool) -> Option<Decl<'_>> {
    if s.is_int_or_string() {
        return Some(Decl::IntOrString);
    }
    let root = resource_root || s.is_embedded_resource();
    match s.type_str() {
        "object" => {
            if s.properties.is_some() || root {
                Some(Decl::Object(s, root))
            } else if let Some(ap) = s.additional_properties_schema() {
                Some(Decl::Map(ap))
            } else if s.preserves_unknown_fields() {
                Some(Decl::Object(s, false))
            } else {
                None
            }
        }
        "array" => s.items_schema().map(Decl::List),
        "string" => Some(match s.format.as_deref() {
            Some("byte") => Decl::Bytes,
            Some("date") | Some("date-time") => Decl::Timestamp,
            Some("duration") => Decl::Duration,
            _ => Decl::String,
        }),
        "integer" => Some(Decl::Int),
        "number" => Some(Decl::Double),
        "boolean" => Some(Decl::Bool),
        "" if root => Some(Decl::Object(s, true)),
        _ => None,
    }
}

/// One field of an object as CEL sees it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Field<'a> {
    /// The JSON property name.
    pub(crate) json_name: &'a str,
    /// The property's schema.
    pub(crate) schema: &'a CelSchema,
}

/// The fields of an object node, by escaped CEL name. Properties whose name cannot
/// be escaped are left out, as the API server does.
pub(crate) fn fields(s: &CelSchema, resource_root: bool) -> BTreeMap<String, Field<'_>> {
    let mut out = BTreeMap::new();
    if let Some(props) = &s.properties {
        for (name, schema) in props {
            if resource_root && matches!(name.as_str(), "apiVersion" | "kind" | "metadata") {
                continue;
            }
            let field = Field {
                json_name: name,
                schema,
            };
            if is_reserved(name) {
                out.insert(name.clone(), field);
            }
            if let Some(escaped) = escape(name) {
                out.insert(escaped, field);
            }
        }
    }
    if resource_root {
        let implicit = implicit();
        for (name, schema) in [
            ("apiVersion", &implicit.string),
            ("kind", &implicit.string),
            ("metadata", &implicit.metadata),
        ] {
            out.insert(
                name.to_string(),
                Field {
                    json_name: name,
                    schema,
                },
            );
        }
    }
    out
}

/// Looks up one field by its escaped CEL name, or by its own name when that is
/// a CEL keyword (the newest environment).
pub(crate) fn field<'a>(s: &'a CelSchema, resource_root: bool, name: &str) -> Option<Field<'a>> {
    field_in(s, resource_root, name, true)
}

/// [`field`]; `keywords`: property names that are CEL keywords are recognized
/// unescaped (Kubernetes 1.31 and later; before, only `__if__` reaches `if`).
pub(crate) fn field_in<'a>(
    s: &'a CelSchema,
    resource_root: bool,
    name: &str,
    keywords: bool,
) -> Option<Field<'a>> {
    if resource_root {
        let implicit = implicit();
        match name {
            "apiVersion" | "kind" => {
                return Some(Field {
                    json_name: if name == "kind" { "kind" } else { "apiVersion" },
                    schema: &implicit.string,
                });
            }
            "metadata" => {
                return Some(Field {
                    json_name: "metadata",
                    schema: &implicit.metadata,
                });
            }
            _ => {}
        }
    }
    let props = s.properties.as_ref()?;
    if keywords
        && is_reserved(name)
        && let Some((k, v)) = props.get_key_value(name)
    {
        return Some(Field {
            json_name: k,
            schema: v,
        });
    }
    // Fast path: most names need no escaping.
    if let Some((k, v)) = props.get_key_value(name)
        && escape(k).as_deref() == Some(name)
    {
        return Some(Field {
            json_name: k,
            schema: v,
        });
    }
    props.iter().find_map(|(k, v)| {
        (escape(k).as_deref() == Some(name)).then_some(Field {
            json_name: k,
            schema: v,
        })
    })
}

/// Schemas of the fields every resource root has.
struct Implicit {
    string: CelSchema,
    metadata: CelSchema,
}

fn implicit() -> &'static Implicit {
    static IMPLICIT: OnceLock<Implicit> = OnceLock::new();
    IMPLICIT.get_or_init(|| {
        // The API server caps the names at the longest valid name (a DNS-1123
        // subdomain; a generated suffix takes at least one byte), which bounds
        // the estimated cost of rules that read them.
        let capped = |max_length| {
            let mut s = CelSchema::of_type("string");
            s.bounds.max_length = Some(max_length);
            Arc::new(s)
        };
        let metadata = CelSchema::object(BTreeMap::from([
            ("name".to_string(), capped(253)),
            ("generateName".to_string(), capped(252)),
        ]));
        Implicit {
            string: CelSchema::of_type("string"),
            metadata,
        }
    })
}
