//! Defaulting (`defaulting/algorithm.go`): top-down, absent keys and nulls of
//! non-nullable fields get a deep copy of the default, then the walk descends into
//! the (possibly new) value so that defaults nest.

use serde_json::Value;

use super::compiled::{Additional, CompiledSchema, NodeId};
use crate::depth::MAX_DEPTH;

pub(crate) fn default(schema: &CompiledSchema, v: &mut Value, id: NodeId, depth: usize) {
    let n = schema.node(id);
    if !n.defaults_below || depth > MAX_DEPTH {
        return;
    }
    match v {
        Value::Object(map) => {
            for (name, c) in &n.defaulted {
                let cn = schema.node(*c);
                let Some(d) = &cn.default else { continue };
                match map.get_mut(name.as_str()) {
                    None => {
                        map.insert(name.clone(), d.clone());
                    }
                    Some(slot) if slot.is_null() && !cn.nullable => *slot = d.clone(),
                    Some(_) => {}
                }
            }
            // Only properties with defaults below them need a visit.
            for (name, c) in &n.default_paths {
                if let Some(child) = map.get_mut(name.as_str()) {
                    default(schema, child, *c, depth + 1);
                }
            }
            if let Additional::Schema(c) = n.additional
                && (schema.node(c).default.is_some() || schema.node(c).defaults_below)
            {
                for (k, child) in map.iter_mut() {
                    if n.property(k).is_none() {
                        fill_null(schema, child, c);
                        default(schema, child, c, depth + 1);
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(c) = n.items {
                for item in items.iter_mut() {
                    fill_null(schema, item, c);
                    default(schema, item, c, depth + 1);
                }
            }
        }
        _ => {}
    }
}

/// A null map value or list item of a non-nullable schema gets that schema's default.
fn fill_null(schema: &CompiledSchema, v: &mut Value, id: NodeId) {
    let n = schema.node(id);
    if v.is_null()
        && !n.nullable
        && let Some(d) = &n.default
    {
        *v = d.clone();
    }
}
