//! Arrays (`items`, `minItems`, `maxItems`, `uniqueItems`) and objects
//! (`min/maxProperties`, `properties`, `additionalProperties`, `required`).

use serde_json::{Map, Value};

use super::SchemaValidator;
use crate::correlation::{self, ListPairing};
use crate::engine::compiled::{Additional, Node};
use crate::engine::path::PathRef;
use crate::field::{BadValue, FieldError};

impl SchemaValidator<'_> {
    /// Returns the match count of the item validations.
    pub(super) fn check_array(
        &mut self,
        n: &Node,
        items: &[Value],
        old: Option<&Value>,
        path: &PathRef<'_>,
    ) -> u32 {
        let mut count = 0;
        if let Some(it) = n.items {
            let pairing = if old.is_some() {
                n.list_pairing()
            } else {
                ListPairing::None
            };
            for (i, item) in items.iter().enumerate() {
                let old_item = correlation::item(pairing, item, i, old);
                count += self.validate(item, old_item, it, &path.index(i));
            }
        }
        let size = items.len() as i64;
        self.below_min(path, size, n.min_items, "items");
        self.above_max(path, size, n.max_items);
        if n.unique_items && has_duplicates(items) {
            let name = path.openapi_name();
            let msg = format!("{name} in body shouldn't contain duplicates");
            self.invalid_at(name, BadValue::Str(String::new()), msg);
        }
        count
    }

    /// Returns the match count of the property validations (0 on an early size failure).
    pub(super) fn check_object(
        &mut self,
        n: &Node,
        map: &Map<String, Value>,
        old: Option<&Value>,
        path: &PathRef<'_>,
    ) -> u32 {
        let size = map.len() as i64;
        // A size failure stops the object's validation, as in kube-openapi.
        if self.below_min(path, size, n.min_properties, "properties")
            || self.above_max(path, size, n.max_properties)
        {
            return 0;
        }
        let mut count = 0;
        // `apiVersion` and `kind` of the root are never ratcheted.
        let at_root = path.depth() == 0;
        for (k, child) in map {
            let old_child = match old {
                Some(_) if at_root && (k == "apiVersion" || k == "kind") => None,
                old => correlation::field(old, k),
            };
            if let Some(c) = n.property(k) {
                count += self.validate(child, old_child, c, &path.field(k));
            } else {
                match n.additional {
                    Additional::Schema(c) => {
                        count += self.validate(child, old_child, c, &path.key(k))
                    }
                    Additional::Bool(false) => {
                        let name = path.openapi_name();
                        let msg = format!("{name}.{k} in body is a forbidden property");
                        self.invalid_at(name, BadValue::Str(k.clone()), msg);
                    }
                    _ => {}
                }
            }
        }
        for k in &n.required {
            if !map.contains_key(k.as_str()) {
                self.errors
                    .push(FieldError::required(path.field(k).field_path(), ""));
            }
        }
        count
    }

    /// Reports a list or map of `size` entries (`unit`: `items`, `properties`) below
    /// `min`; returns whether it was.
    fn below_min(&mut self, path: &PathRef<'_>, size: i64, min: Option<i64>, unit: &str) -> bool {
        let Some(min) = min.filter(|&min| size < min) else {
            return false;
        };
        let name = path.openapi_name();
        let msg = format!("{name} in body should have at least {min} {unit}");
        self.invalid_at(name, BadValue::Int(size), msg);
        true
    }

    /// Reports a list or map of `size` entries above `max`; returns whether it was.
    fn above_max(&mut self, path: &PathRef<'_>, size: i64, max: Option<i64>) -> bool {
        let Some(max) = max.filter(|&max| size > max) else {
            return false;
        };
        self.errors
            .push(FieldError::too_many(path.field_path(), size, max));
        true
    }
}

/// `reflect.DeepEqual` over decoded JSON: an integer and a float are never equal.
fn has_duplicates(items: &[Value]) -> bool {
    items
        .iter()
        .enumerate()
        .any(|(i, a)| items[..i].iter().any(|b| a == b))
}
