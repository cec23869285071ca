//! How large the data below a schema node can be, as the API server's CEL
//! declarations (`k8s.io/apiserver/pkg/cel/common` `SchemaDeclType`) bound it
//! for the static cost estimator:
//! - strings: `maxLength` × 4 (a code point takes up to 4 bytes), else the
//!   longest `enum` value, else the largest request (3 MiB) minus the quotes;
//!   formats with a fixed shape (`date`, `date-time`, `duration`) have fixed bounds;
//! - lists and maps: `maxItems` / `maxProperties`, else how many of the
//!   smallest possible items fit into the largest request;
//! - scalars and objects have no elements.
//!
//! A node's *minimum serialized size* (`{}` plus every required property without
//! a default) gives the number of times a node may repeat in one request when no
//! list or map above it is bounded ([`max_cardinality`]).

use crate::cel::schema::CelSchema;
use crate::cel::schema::decl::field;

/// The largest request the API server accepts, in bytes.
pub(crate) const MAX_REQUEST_SIZE: i64 = 3 * 1024 * 1024;

const MIN_STRING_SIZE: i64 = 2;
const MIN_BOOL_SIZE: i64 = 4;
const MIN_NUMBER_SIZE: i64 = 1;
const MIN_DURATION_SIZE: i64 = 3;
const DATE_SIZE: i64 = 12;
const MIN_DATETIME_SIZE: i64 = 21;
const MAX_DATETIME_SIZE: i64 = 32;
const MAX_DURATION_SIZE: i64 = 32;

/// One step of a path through the data, from a rule's `self`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Step {
    /// A property (by its escaped CEL name).
    Field(String),
    /// The items of a list.
    Items,
    /// The values of a map.
    Values,
    /// The keys of a map.
    Keys,
}

/// A place in the data a path can reach.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Place<'a> {
    /// A schema node (`true`: the root of a resource or an embedded resource).
    Node(&'a CelSchema, bool),
    /// The keys of a map (strings without a declared bound).
    MapKey,
}

impl<'a> Place<'a> {
    /// Where `steps` lead from here, if the declarations have such a place.
    pub(crate) fn follow(self, steps: &[Step]) -> Option<Place<'a>> {
        steps.iter().try_fold(self, |p, step| p.child(step))
    }

    fn child(self, step: &Step) -> Option<Place<'a>> {
        let Place::Node(s, root) = self else {
            return None;
        };
        min_size(s, root)?;
        let next = match step {
            Step::Field(name) => {
                if is_map(s) || s.is_int_or_string() {
                    return None;
                }
                let f = field(s, root, name)?;
                Place::Node(f.schema, f.schema.is_embedded_resource())
            }
            Step::Items if s.type_str() == "array" => {
                let items = s.items_schema()?;
                Place::Node(items, items.is_embedded_resource())
            }
            Step::Values if is_map(s) => {
                let v = s.additional_properties_schema()?;
                Place::Node(v, v.is_embedded_resource())
            }
            Step::Keys if is_map(s) => Place::MapKey,
            _ => return None,
        };
        match next {
            Place::Node(n, r) => min_size(n, r).map(|_| next),
            Place::MapKey => Some(next),
        }
    }

    /// The declared bound on the size of the data here (`MaxElements`).
    pub(crate) fn max_elements(self) -> Option<u64> {
        match self {
            Place::Node(s, root) => max_elements(s, root).map(|n| n.max(0) as u64),
            Place::MapKey => Some(0),
        }
    }
}

fn is_map(s: &CelSchema) -> bool {
    s.type_str() == "object" && s.additional_properties_schema().is_some()
}

/// The smallest JSON a value of this node serializes to, or `None` when CEL
/// has no declaration for the node.
pub(crate) fn min_size(s: &CelSchema, root: bool) -> Option<i64> {
    if s.is_int_or_string() {
        return Some(1);
    }
    match s.type_str() {
        "array" => {
            let items = s.items_schema()?;
            min_size(items, items.is_embedded_resource()).map(|_| 2)
        }
        "object" => {
            if let Some(v) = s.additional_properties_schema() {
                return min_size(v, v.is_embedded_resource()).map(|_| 2);
            }
            let mut size = 2;
            for (name, prop) in s.properties.iter().flatten() {
                if !s.bounds.required.contains(name) || prop.bounds.has_default {
                    continue;
                }
                if let Some(m) = min_size(prop, prop.is_embedded_resource()) {
                    size += name.len() as i64 + m + 4;
                }
            }
            Some(size)
        }
        "string" => Some(match s.format.as_deref() {
            Some("duration") => MIN_DURATION_SIZE,
            Some("date") => DATE_SIZE,
            Some("date-time") => MIN_DATETIME_SIZE,
            _ => MIN_STRING_SIZE,
        }),
        "boolean" => Some(MIN_BOOL_SIZE),
        "number" | "integer" => Some(MIN_NUMBER_SIZE),
        "" if root => Some(2),
        _ => None,
    }
}

/// `MaxElements` of the node's declaration: the largest string length, number
/// of items or number of entries.
fn max_elements(s: &CelSchema, root: bool) -> Option<i64> {
    let b = &s.bounds;
    let unbounded_string = MAX_REQUEST_SIZE - 2;
    if s.is_int_or_string() {
        return Some(b.max_length.map_or(unbounded_string, |l| l.max(0) * 4));
    }
    min_size(s, root)?;
    Some(match s.type_str() {
        "array" => match b.max_items {
            Some(n) => n.max(0),
            None => {
                let items = s.items_schema()?;
                let m = min_size(items, items.is_embedded_resource())?;
                (MAX_REQUEST_SIZE - 2) / (m + 1)
            }
        },
        "object" => match s.additional_properties_schema() {
            Some(v) => match b.max_properties {
                Some(n) => n.max(0),
                None => (MAX_REQUEST_SIZE - 2) / (min_size(v, v.is_embedded_resource())? + 6),
            },
            None => 0,
        },
        "string" => match s.format.as_deref() {
            Some("byte") => b.max_length.map_or(unbounded_string, |l| l.max(0)),
            Some("duration") => MAX_DURATION_SIZE,
            Some("date") => DATE_SIZE,
            Some("date-time") => MAX_DATETIME_SIZE,
            _ => match (b.max_length, b.enum_max_len) {
                (Some(l), _) => l.max(0) * 4,
                (None, Some(e)) => e,
                (None, None) => unbounded_string,
            },
        },
        _ => 0,
    })
}

/// How often data of this node can occur in one request when the lists and
/// maps above it are unbounded (`maxCardinality`).
pub(crate) fn max_cardinality(s: &CelSchema, root: bool) -> u64 {
    let m = min_size(s, root).unwrap_or(1);
    (MAX_REQUEST_SIZE / (m + 1)) as u64
}

/// The factor by which `parent` multiplies how often its children can occur:
/// `maxItems` / `maxProperties` for lists and maps, 1 for objects and
/// scalars, `None` for unbounded lists and maps (`extractMaxElements`).
pub(crate) fn child_factor(parent: &CelSchema) -> Option<u64> {
    let b = &parent.bounds;
    match parent.type_str() {
        "object" if b.has_additional_properties => b.max_properties.map(|n| n.max(0) as u64),
        "array" => b.max_items.map(|n| n.max(0) as u64),
        _ => Some(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::JSONSchemaProps;

    fn schema(v: serde_json::Value) -> std::sync::Arc<CelSchema> {
        let s: JSONSchemaProps = serde_json::from_value(v).unwrap();
        CelSchema::new(&s)
    }

    #[test]
    fn strings_lists_and_maps_are_bounded_like_the_server() {
        let s = schema(serde_json::json!({
            "type": "object",
            "required": ["name"],
            "properties": {
                "name": {"type": "string", "maxLength": 10},
                "color": {"type": "string", "enum": ["red", "green"]},
                "free": {"type": "string"},
                "when": {"type": "string", "format": "date-time"},
                "list": {"type": "array", "items": {"type": "integer"}},
                "map": {"type": "object", "maxProperties": 7,
                        "additionalProperties": {"type": "string"}}
            }
        }));
        let root = Place::Node(&s, false);
        let at = |steps: &[Step]| root.follow(steps).and_then(Place::max_elements);
        let f = |n: &str| Step::Field(n.to_string());
        assert_eq!(at(&[f("name")]), Some(40));
        assert_eq!(at(&[f("color")]), Some(5));
        assert_eq!(at(&[f("free")]), Some(3 * 1024 * 1024 - 2));
        assert_eq!(at(&[f("when")]), Some(32));
        assert_eq!(at(&[f("list")]), Some((3 * 1024 * 1024 - 2) / 2));
        assert_eq!(at(&[f("map")]), Some(7));
        assert_eq!(at(&[f("map"), Step::Keys]), Some(0));
        assert_eq!(at(&[f("list"), Step::Values]), None);
        assert_eq!(at(&[f("nope")]), None);
        // {} plus "name": "" (4 + 2 + 4 bytes).
        assert_eq!(min_size(&s, false), Some(12));
        assert_eq!(max_cardinality(&s, false), 3 * 1024 * 1024 / 13);
        assert_eq!(child_factor(&s), Some(1));
    }
}
