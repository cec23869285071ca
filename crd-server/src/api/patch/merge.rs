//! The merge itself, as apimachinery's `strategicpatch` applies a patch on the server
//! (`StrategicMergeMapPatch`: parallel lists merged, unmatched nulls dropped): maps
//! merged key by key, `null` deleting; lists by their field's strategy — replaced, or
//! merged (maps by merge key, primitives as a union); the directives `$patch`,
//! `$retainKeys`, `$deleteFromPrimitiveList/<field>` and `$setElementOrder/<field>`.

use serde_json::{Map, Value};

use super::error::{BAD_PRIMITIVE_LIST, BAD_RETAIN_KEYS, BAD_SET_ELEMENT_ORDER, SmpError};
use super::gofmt::{GoType, go_v, type_of};
use super::meta::Schema;
use super::order::{self, DIRECTIVE};

const RETAIN_KEYS: &str = "$retainKeys";
const DELETE_FROM_PRIMITIVE_LIST: &str = "$deleteFromPrimitiveList";
const SET_ELEMENT_ORDER: &str = "$setElementOrder";

type Object = Map<String, Value>;

/// `patch` merged into `original`, both maps of the type `schema` describes.
pub fn merge_map(
    mut original: Object,
    mut patch: Object,
    schema: Schema,
) -> Result<Object, SmpError> {
    if let Some(directive) = patch.get(DIRECTIVE).cloned() {
        return directive_in_map(&directive, patch);
    }
    retain_keys(&mut original, &mut patch)?;
    merge_ordered_lists(&mut original, &mut patch, schema)?;
    for (key, patch_v) in patch {
        let (key, delete_list) = if key.starts_with(DELETE_FROM_PRIMITIVE_LIST) {
            (field_of(&key, DELETE_FROM_PRIMITIVE_LIST)?, true)
        } else {
            (key, false)
        };
        if patch_v.is_null() {
            original.remove(&key);
            continue;
        }
        let Some(slot) = original.get_mut(&key) else {
            if !delete_list {
                set_from_patch(&mut original, key, patch_v);
            }
            continue;
        };
        if type_of(slot) != type_of(&patch_v) {
            if !delete_list {
                set_from_patch(&mut original, key, patch_v);
            }
            continue;
        }
        *slot = match (std::mem::take(slot), patch_v) {
            (Value::Object(o), Value::Object(p)) => {
                let (sub, field) = schema.field(&key)?;
                if strategy(field.strategy)? == "replace" {
                    Value::Object(p)
                } else {
                    Value::Object(merge_map(o, p, sub)?)
                }
            }
            (Value::Array(o), Value::Array(p)) => {
                let (sub, field) = schema.items(&key)?;
                if strategy(field.strategy)? == "merge" || delete_list {
                    Value::Array(merge_slice(o, p, sub, field.merge_key, delete_list)?)
                } else {
                    Value::Array(p)
                }
            }
            (_, scalar) => scalar,
        };
    }
    Ok(original)
}

/// A map with `$patch`: `replace` is the map itself, `delete` an empty map.
fn directive_in_map(directive: &Value, mut patch: Object) -> Result<Object, SmpError> {
    match directive.as_str() {
        Some("replace") => {
            patch.remove(DIRECTIVE);
            Ok(patch)
        }
        Some("delete") => Ok(Object::new()),
        _ => Err(SmpError::bad_patch_type(directive, &patch)),
    }
}

/// A patch value where the original has none (or one of another type): its nulls and
/// directive-marked maps dropped.
fn set_from_patch(original: &mut Object, key: String, mut value: Value) {
    discard_nulls(&mut value);
    match remove_directives(value) {
        Some(v) => {
            original.insert(key, v);
        }
        None => {
            original.remove(&key);
        }
    }
}

fn discard_nulls(value: &mut Value) {
    match value {
        Value::Object(m) => {
            m.retain(|_, v| !v.is_null());
            m.values_mut().for_each(discard_nulls);
        }
        Value::Array(items) => items.iter_mut().for_each(discard_nulls),
        _ => {}
    }
}

/// `value` without the maps that carry `$patch` (`None`: `value` is one).
pub fn remove_directives(value: Value) -> Option<Value> {
    match value {
        Value::Object(m) if m.contains_key(DIRECTIVE) => None,
        Value::Object(m) => Some(Value::Object(
            m.into_iter()
                .filter_map(|(k, v)| remove_directives(v).map(|v| (k, v)))
                .collect(),
        )),
        Value::Array(items) => Some(Value::Array(
            items.into_iter().filter_map(remove_directives).collect(),
        )),
        other => Some(other),
    }
}

/// The strategy of a struct tag besides `retainKeys` (`extractRetainKeysPatchStrategy`).
fn strategy(tag: &str) -> Result<&str, SmpError> {
    let parts: Vec<&str> = tag.split(',').collect();
    match parts.as_slice() {
        [one] if *one == "retainKeys" => Ok(""),
        [one] => Ok(one),
        [a, b] if *a == "retainKeys" => Ok(b),
        [a, b] if *b == "retainKeys" => Ok(a),
        _ => Err(SmpError::internal(format!(
            "unexpected patch strategy: [{}]",
            parts.join(" ")
        ))),
    }
}

/// The field a `<prefix>/<field>` directive names.
fn field_of(key: &str, prefix: &str) -> Result<String, SmpError> {
    match key.split_once('/') {
        Some((p, field)) if p == prefix => Ok(field.to_string()),
        _ if prefix == DELETE_FROM_PRIMITIVE_LIST => Err(SmpError::BadRequest(BAD_PRIMITIVE_LIST)),
        _ => Err(SmpError::BadRequest(BAD_SET_ELEMENT_ORDER)),
    }
}

/// `$retainKeys`: the original keeps only the listed keys, and the patch may set no
/// other.
fn retain_keys(original: &mut Object, patch: &mut Object) -> Result<(), SmpError> {
    let Some(list) = patch.remove(RETAIN_KEYS) else {
        return Ok(());
    };
    let Value::Array(list) = list else {
        return Err(SmpError::BadRequest(BAD_RETAIN_KEYS));
    };
    let keep: Vec<&str> = list.iter().filter_map(Value::as_str).collect();
    let outside = patch.iter().any(|(k, v)| {
        !v.is_null()
            && !k.starts_with(DELETE_FROM_PRIMITIVE_LIST)
            && !k.starts_with(SET_ELEMENT_ORDER)
            && !keep.contains(&k.as_str())
    });
    if outside {
        return Err(SmpError::BadRequest(BAD_RETAIN_KEYS));
    }
    original.retain(|k, _| keep.contains(&k.as_str()));
    Ok(())
}

/// Two lists merged by the field's strategy (`mergeSlice`): maps by merge key with
/// their `$patch` elements, primitives as a union (or a removal, for the parallel
/// `$deleteFromPrimitiveList`), then put in order.
fn merge_slice(
    original: Vec<Value>,
    patch: Vec<Value>,
    schema: Schema,
    key: &str,
    delete_list: bool,
) -> Result<Vec<Value>, SmpError> {
    if original.is_empty() && patch.is_empty() {
        return Ok(original);
    }
    let maps = order::element_type(&[&original, &patch])? == GoType::Map;
    let (original, patch, merged) = if !maps {
        if delete_list {
            return Ok(order::delete_values(original, &patch));
        }
        let both = original.iter().chain(&patch).cloned().collect();
        (original, patch, order::dedupe(both))
    } else {
        if key.is_empty() {
            return Err(SmpError::internal(format!(
                "cannot merge lists without merge key for {}",
                schema.name()
            )));
        }
        let (original, patch) = special_elements(original, patch, key)?;
        let merged = merge_by_key(original.clone(), &patch, key, schema)?;
        (original, patch, merged)
    };
    let (named, server_only) = order::partition(merged, &patch, key)?;
    order::normalize(named, server_only, &patch, &original, key, maps)
}

/// The `$patch` elements of a list of maps applied: `delete` removes the original's
/// items with that key, `replace` makes the rest of the patch the list.
fn special_elements(
    mut original: Vec<Value>,
    patch: Vec<Value>,
    key: &str,
) -> Result<(Vec<Value>, Vec<Value>), SmpError> {
    let mut rest = Vec::with_capacity(patch.len());
    let mut replace = false;
    for v in patch {
        let Some(directive) = v.get(DIRECTIVE) else {
            rest.push(v);
            continue;
        };
        let m = v.as_object().ok_or_else(|| SmpError::not_a_map(&v))?;
        match directive.as_str() {
            Some("delete") => {
                let value = m.get(key).ok_or_else(|| SmpError::no_merge_key(m, key))?;
                original = order::delete_matching(original, key, value)?;
            }
            Some("replace") => replace = true,
            Some("merge") => {
                return Err(SmpError::internal(
                    "merging lists cannot yet be specified in the patch",
                ));
            }
            _ => return Err(SmpError::bad_patch_type(directive, m)),
        }
    }
    Ok(if replace {
        (rest, Vec::new())
    } else {
        (original, rest)
    })
}

/// Each patch map merged into the original's map with the same key, or appended.
fn merge_by_key(
    mut original: Vec<Value>,
    patch: &[Value],
    key: &str,
    schema: Schema,
) -> Result<Vec<Value>, SmpError> {
    for v in patch {
        let m = v.as_object().ok_or_else(|| SmpError::not_a_map(v))?;
        let value = m.get(key).ok_or_else(|| SmpError::no_merge_key(m, key))?;
        match order::find_by_key(&original, key, value)? {
            Some(i) => {
                let Value::Object(o) = std::mem::take(&mut original[i]) else {
                    return Err(SmpError::not_a_map(&original[i]));
                };
                original[i] = Value::Object(merge_map(o, m.clone(), schema)?);
            }
            None => original.push(v.clone()),
        }
    }
    Ok(original)
}

/// `$setElementOrder/<field>`: the list merged (as its field says) and put in the
/// order the directive gives (`mergePatchIntoOriginal`).
fn merge_ordered_lists(
    original: &mut Object,
    patch: &mut Object,
    schema: Schema,
) -> Result<(), SmpError> {
    let keys: Vec<String> = patch
        .keys()
        .filter(|k| k.starts_with(SET_ELEMENT_ORDER))
        .cloned()
        .collect();
    for directive_key in keys {
        let order_v = patch.remove(&directive_key).unwrap_or_default();
        let Value::Array(order) = order_v else {
            return Err(SmpError::not_a_slice(&order_v));
        };
        let key = field_of(&directive_key, SET_ELEMENT_ORDER)?;
        let list_at = |m: &Object| -> Result<Option<Vec<Value>>, SmpError> {
            match m.get(&key) {
                None => Ok(None),
                Some(Value::Array(l)) => Ok(Some(l.clone())),
                Some(other) => Err(SmpError::not_a_slice(other)),
            }
        };
        let original_list = list_at(original)?;
        let patch_list = list_at(patch)?;
        let (sub, field) = schema.items(&key)?;
        let strategy = strategy(field.strategy)?;
        let merge_key = field.merge_key;
        check_order(patch_list.as_deref().unwrap_or(&[]), &order, merge_key)?;
        let merged = match (&original_list, patch_list.clone()) {
            (None, None) => continue,
            (Some(o), None) => o.clone(),
            (None, Some(p)) => p.into_iter().filter_map(remove_directives).collect(),
            (Some(o), Some(p)) if strategy == "merge" => {
                merge_slice(o.clone(), p, sub, merge_key, false)?
            }
            (Some(_), Some(p)) => p,
        };
        let original_list = original_list.unwrap_or_default();
        let patch_list = patch_list.unwrap_or_default();
        let (named, server_only) = order::partition(merged, &order, merge_key)?;
        let maps = order::element_type(&[&original_list, &patch_list])? == GoType::Map;
        let sorted = order::normalize(named, server_only, &order, &original_list, merge_key, maps)?;
        original.insert(key.clone(), Value::Array(sorted));
        patch.remove(&key);
    }
    Ok(())
}

/// The patch's items appear in `$setElementOrder`'s list, in its order
/// (`validatePatchWithSetOrderList`).
fn check_order(patch: &[Value], order: &[Value], key: &str) -> Result<(), SmpError> {
    if order.is_empty() || patch.is_empty() {
        return Ok(());
    }
    let items: Vec<&Value> = if key.is_empty() {
        patch.iter().collect()
    } else {
        let mut kept = Vec::new();
        for v in patch {
            v.as_object().ok_or_else(|| SmpError::not_a_map(v))?;
            if v.get(DIRECTIVE).and_then(Value::as_str) != Some("delete") {
                kept.push(v);
            }
        }
        kept
    };
    let same = |a: &Value, b: &Value| -> Result<bool, SmpError> {
        if key.is_empty() {
            return Ok(a == b);
        }
        let a = a.as_object().ok_or_else(|| SmpError::not_a_map(a))?;
        let b = b.as_object().ok_or_else(|| SmpError::not_a_map(b))?;
        let ka = a.get(key).ok_or_else(|| SmpError::no_merge_key(a, key))?;
        let kb = b.get(key).ok_or_else(|| SmpError::no_merge_key(b, key))?;
        Ok(ka == kb)
    };
    let (mut p, mut o) = (0, 0);
    while p < items.len() && o < order.len() {
        if items[p].get(DIRECTIVE).is_some() {
            p += 1;
            continue;
        }
        if same(items[p], &order[o])? {
            p += 1;
        }
        o += 1;
    }
    if p < items.len() && o >= order.len() {
        return Err(SmpError::internal(format!(
            "The order in patch list:\n{}\n doesn't match {SET_ELEMENT_ORDER} list:\n{}\n",
            go_v(&Value::Array(patch.to_vec())),
            go_v(&Value::Array(order.to_vec()))
        )));
    }
    Ok(())
}
