//! The list helpers of a strategic merge that do not recurse: element types, lookups by
//! merge key, union and removal of primitives, and the order of a merged list — the
//! items the patch names in its order (or `$setElementOrder`'s), the items only the
//! server has in theirs, interleaved as the live list had them.

use serde_json::{Map, Value};

use super::error::SmpError;
use super::gofmt::{GoType, go_v, type_of};

/// The `$patch` directive key.
pub const DIRECTIVE: &str = "$patch";

/// The one type all elements of `lists` share (`sliceElementType`).
pub fn element_type(lists: &[&[Value]]) -> Result<GoType, SmpError> {
    let mut first: Option<GoType> = None;
    for v in lists.iter().flat_map(|l| l.iter()) {
        let t = type_of(v);
        match first {
            None if t == GoType::Slice => return Err(SmpError::ListOfLists),
            None => first = Some(t),
            Some(f) if f != t => {
                let all = Value::Array(lists.iter().map(|l| Value::Array(l.to_vec())).collect());
                return Err(SmpError::internal(format!(
                    "list element types are not identical: {}",
                    go_v(&all)
                )));
            }
            Some(_) => {}
        }
    }
    first.ok_or_else(|| SmpError::internal("no elements in any of the given slices"))
}

/// The index of the first map in `list` whose `key` is `value`; an element that is not
/// a map is an error (`findMapInSliceBasedOnKeyValue`).
pub fn find_by_key(list: &[Value], key: &str, value: &Value) -> Result<Option<usize>, SmpError> {
    for (i, v) in list.iter().enumerate() {
        let Value::Object(m) = v else {
            return Err(SmpError::internal(format!(
                "value for key {i} is not a map"
            )));
        };
        if m.get(key) == Some(value) {
            return Ok(Some(i));
        }
    }
    Ok(None)
}

/// `list` without the maps whose `key` is `value`.
pub fn delete_matching(
    mut list: Vec<Value>,
    key: &str,
    value: &Value,
) -> Result<Vec<Value>, SmpError> {
    while let Some(i) = find_by_key(&list, key, value)? {
        list.remove(i);
    }
    Ok(list)
}

/// `current` without the values of `to_delete` (`$deleteFromPrimitiveList`).
pub fn delete_values(current: Vec<Value>, to_delete: &[Value]) -> Vec<Value> {
    current
        .into_iter()
        .filter(|v| !to_delete.contains(v))
        .collect()
}

/// Each value once (the order is set afterwards).
pub fn dedupe(values: Vec<Value>) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::with_capacity(values.len());
    for v in values {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

fn as_map(v: &Value) -> Result<&Map<String, Value>, SmpError> {
    v.as_object().ok_or_else(|| SmpError::not_a_map(v))
}

/// Every item of every list is a map with `key` (`validateMergeKeyInLists`).
pub fn check_merge_keys(key: &str, lists: &[&[Value]]) -> Result<(), SmpError> {
    for v in lists.iter().flat_map(|l| l.iter()) {
        let m = as_map(v)?;
        if !m.contains_key(key) {
            return Err(SmpError::no_merge_key(m, key));
        }
    }
    Ok(())
}

/// The items of `merged` that `by` names, and the others (`partition*ByPresentInList`).
pub fn partition(
    merged: Vec<Value>,
    by: &[Value],
    key: &str,
) -> Result<(Vec<Value>, Vec<Value>), SmpError> {
    let (mut named, mut others) = (Vec::new(), Vec::new());
    for v in merged {
        let present = if key.is_empty() {
            by.contains(&v)
        } else {
            let m = as_map(&v)?;
            let value = m.get(key).ok_or_else(|| SmpError::no_merge_key(m, key))?;
            find_by_key(by, key, value)?.is_some()
        };
        if present {
            named.push(v);
        } else {
            others.push(v);
        }
    }
    Ok((named, others))
}

/// Where `v` is in `list`: by merge key for maps, by value otherwise.
fn position(list: &[Value], v: &Value, key: &str, maps: bool) -> Option<usize> {
    if !maps {
        return list.iter().position(|x| x == v);
    }
    let of = |x: &Value| x.as_object().and_then(|m| m.get(key)).cloned();
    let wanted = of(v);
    list.iter().position(|x| of(x) == wanted)
}

/// `to_sort` in the order of `order` (stable; items of `$patch: delete` last).
fn sort_by_order(
    to_sort: Vec<Value>,
    order: &[Value],
    key: &str,
    maps: bool,
) -> Result<Vec<Value>, SmpError> {
    let (mut items, mut deletes) = (to_sort, Vec::new());
    if maps {
        check_merge_keys(key, &[&items, order])?;
        let (kept, gone): (Vec<Value>, Vec<Value>) = items
            .into_iter()
            .partition(|v| v.get(DIRECTIVE).and_then(Value::as_str) != Some("delete"));
        items = kept;
        deletes = gone;
    }
    // Items the order does not name (none in practice) go first, as Go's sort leaves them.
    items.sort_by_key(|v| position(order, v, key, maps).map_or(0, |i| i + 1));
    items.extend(deletes);
    Ok(items)
}

/// The merged list's order (`normalizeElementOrder`): the patch's items as `patch_order`
/// has them, the server's own as `server_order` has them, each server item placed
/// before the first patch item the live list had after it.
pub fn normalize(
    patch_items: Vec<Value>,
    server_only: Vec<Value>,
    patch_order: &[Value],
    server_order: &[Value],
    key: &str,
    maps: bool,
) -> Result<Vec<Value>, SmpError> {
    let right = sort_by_order(patch_items, patch_order, key, maps)?;
    let left = sort_by_order(server_only, server_order, key, maps)?;
    let at = |v: &Value| position(server_order, v, key, maps);
    let mut out = Vec::with_capacity(left.len() + right.len());
    let (mut left, mut right) = (left.into_iter().peekable(), right.into_iter().peekable());
    loop {
        let take_left = match (left.peek(), right.peek()) {
            (None, None) => break,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(l), Some(r)) => matches!((at(l), at(r)), (Some(li), Some(ri)) if li < ri),
        };
        let next = if take_left { left.next() } else { right.next() };
        out.extend(next);
    }
    Ok(out)
}
