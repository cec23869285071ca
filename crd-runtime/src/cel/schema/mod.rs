//! The part of a schema CEL needs, owned, so that compiled rules live as long as
//! their users want (an engine pass, a cache) without borrowing the CRD.
//!
//! Also how a schema looks to CEL: the declared type of each node (`decl`), the
//! escaping of property names (`escape`) and JSON values typed by the schema
//! (`value`).

pub(in crate::cel) mod decl;
pub(in crate::cel) mod escape;
pub(in crate::cel) mod value;

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::model::{JSONSchemaProps, ValidationRule};

/// The structural skeleton of a schema node plus its rules.
#[derive(Clone, Debug, Default)]
pub struct CelSchema {
    type_: String,
    /// `format`.
    pub(crate) format: Option<String>,
    int_or_string: bool,
    embedded: bool,
    preserve_unknown: bool,
    /// `properties`.
    pub(crate) properties: Option<BTreeMap<String, Arc<CelSchema>>>,
    items: Option<Arc<CelSchema>>,
    additional: Option<Arc<CelSchema>>,
    /// `x-kubernetes-list-type`.
    pub(crate) x_kubernetes_list_type: Option<String>,
    /// `x-kubernetes-list-map-keys`.
    pub(crate) x_kubernetes_list_map_keys: Option<Vec<String>>,
    /// `x-kubernetes-map-type`.
    pub(crate) x_kubernetes_map_type: Option<String>,
    /// `x-kubernetes-validations`.
    pub(crate) x_kubernetes_validations: Option<Vec<ValidationRule>>,
    /// `x-kubernetes-validations` of each `allOf` branch (they apply to this node).
    pub(crate) all_of_rules: Vec<Option<Vec<ValidationRule>>>,
    /// Bounds the static cost estimator reads (see [`crate::cel::cost::sizes`]).
    pub(crate) bounds: Bounds,
}

/// The value validations that bound the size of a node's data.
#[derive(Clone, Debug, Default)]
pub(crate) struct Bounds {
    /// `maxLength`.
    pub(crate) max_length: Option<i64>,
    /// `maxItems`.
    pub(crate) max_items: Option<i64>,
    /// `maxProperties`.
    pub(crate) max_properties: Option<i64>,
    /// Length (in bytes) of the longest string in `enum`, if there is an `enum`.
    pub(crate) enum_max_len: Option<i64>,
    /// `required`.
    pub(crate) required: Vec<String>,
    /// Whether `default` is set.
    pub(crate) has_default: bool,
    /// Whether `additionalProperties` is set at all (a schema or a boolean).
    pub(crate) has_additional_properties: bool,
}

impl CelSchema {
    /// The skeleton of `s` and everything below it.
    pub fn new(s: &JSONSchemaProps) -> Arc<CelSchema> {
        Arc::new(CelSchema {
            type_: s.type_str().to_string(),
            format: s.format.clone(),
            int_or_string: s.is_int_or_string(),
            embedded: s.is_embedded_resource(),
            preserve_unknown: s.preserves_unknown_fields(),
            properties: s.properties.as_ref().map(|p| {
                p.iter()
                    .map(|(k, v)| (k.clone(), CelSchema::new(v)))
                    .collect()
            }),
            items: s.items_schema().map(CelSchema::new),
            additional: s.additional_properties_schema().map(CelSchema::new),
            x_kubernetes_list_type: s.x_kubernetes_list_type.clone(),
            x_kubernetes_list_map_keys: s.x_kubernetes_list_map_keys.clone(),
            x_kubernetes_map_type: s.x_kubernetes_map_type.clone(),
            x_kubernetes_validations: s.x_kubernetes_validations.clone(),
            all_of_rules: s
                .all_of
                .iter()
                .flatten()
                .map(|b| b.x_kubernetes_validations.clone())
                .collect(),
            bounds: Bounds {
                max_length: s.max_length,
                max_items: s.max_items,
                max_properties: s.max_properties,
                enum_max_len: s.enum_.as_ref().filter(|e| !e.is_empty()).map(|e| {
                    e.iter()
                        .filter_map(|v| v.as_str())
                        .map(|v| v.len() as i64)
                        .max()
                        .unwrap_or(0)
                }),
                required: s.required.clone().unwrap_or_default(),
                has_default: s.default.is_some(),
                has_additional_properties: s.additional_properties.is_some(),
            },
        })
    }

    /// A node of type `t` without anything else.
    pub(crate) fn of_type(t: &str) -> CelSchema {
        CelSchema {
            type_: t.to_string(),
            ..Default::default()
        }
    }

    /// An object node with the given properties.
    pub(crate) fn object(props: BTreeMap<String, Arc<CelSchema>>) -> CelSchema {
        CelSchema {
            type_: "object".into(),
            properties: Some(props),
            ..Default::default()
        }
    }

    /// `type` (`""` when absent).
    pub fn type_str(&self) -> &str {
        &self.type_
    }

    /// `x-kubernetes-int-or-string`.
    pub fn is_int_or_string(&self) -> bool {
        self.int_or_string
    }

    /// `x-kubernetes-embedded-resource`.
    pub fn is_embedded_resource(&self) -> bool {
        self.embedded
    }

    /// `x-kubernetes-preserve-unknown-fields`.
    pub fn preserves_unknown_fields(&self) -> bool {
        self.preserve_unknown
    }

    /// `items`.
    pub fn items_schema(&self) -> Option<&CelSchema> {
        self.items.as_deref()
    }

    /// `additionalProperties` given as a schema.
    pub fn additional_properties_schema(&self) -> Option<&CelSchema> {
        self.additional.as_deref()
    }

    /// `items`, shared.
    pub(crate) fn items_arc(&self) -> Option<&Arc<CelSchema>> {
        self.items.as_ref()
    }

    /// `additionalProperties`, shared.
    pub(crate) fn additional_arc(&self) -> Option<&Arc<CelSchema>> {
        self.additional.as_ref()
    }
}

/// Nodes are compared by identity: two types are the same object type when they
/// come from the same schema node.
impl PartialEq for CelSchema {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

impl crate::correlation::Shape for &CelSchema {
    fn field(self, key: &str) -> Option<Self> {
        match self.properties.as_ref().and_then(|p| p.get(key)) {
            Some(p) => Some(p),
            None => self.additional_properties_schema(),
        }
    }

    fn items(self) -> Option<Self> {
        self.items_schema()
    }

    fn list_pairing(&self) -> crate::correlation::ListPairing<'_> {
        use crate::correlation::ListPairing;
        match self.x_kubernetes_list_type.as_deref() {
            Some("map") => {
                ListPairing::MapKeys(self.x_kubernetes_list_map_keys.as_deref().unwrap_or(&[]))
            }
            None => ListPairing::ByIndex,
            Some(_) => ListPairing::None,
        }
    }
}
