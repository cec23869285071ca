//! Runtime functions behind the extension macros (patch of the vendored crate;
//! see `parser::macros_ext`): `cel.@mapInsert` of cel-go's two-variable
//! comprehensions and `@sortByAssociatedKeys` of its `sortBy` macro.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::Arc;

use crate::extractors::{Arguments, This};
use crate::objects::{Key, Map, Value, ValueType};
use crate::{ExecutionError, FunctionContext};

type Result<T> = std::result::Result<T, ExecutionError>;

/// `cel.@mapInsert(m, k, v)` adds `k: v` to `m`; `cel.@mapInsert(m, other)` adds
/// every entry of `other`. A key already present is cel-go's error
/// `insert failed: key <k> already exists`.
pub fn map_insert(ftx: &FunctionContext, Arguments(args): Arguments) -> Result<Value> {
    let (target, entries): (&Value, Vec<(Value, Value)>) = match args.as_slice() {
        [target, key, value] => (target, vec![(key.clone(), value.clone())]),
        [target, Value::Map(other)] => (
            target,
            other
                .map
                .iter()
                .map(|(k, v)| (Value::from(k.clone()), v.clone()))
                .collect(),
        ),
        _ => return Err(ExecutionError::NoSuchOverload),
    };
    let Value::Map(target) = target else {
        return Err(ExecutionError::NoSuchOverload);
    };
    let mut map: HashMap<Key, Value> = (*target.map).clone();
    for (key, value) in entries {
        let key: Key = key.try_into().map_err(ExecutionError::UnsupportedKeyType)?;
        if map.contains_key(&key) {
            return Err(ftx.error(format!("insert failed: key {key} already exists")));
        }
        map.insert(key, value);
    }
    Ok(Value::Map(Map { map: Arc::new(map) }))
}

/// `list.@sortByAssociatedKeys(keys)`: `list` reordered as sorting `keys` orders
/// them. cel-go's errors for lists of different sizes and for keys that are not
/// comparable or not all of one type.
pub fn sort_by_associated_keys(
    ftx: &FunctionContext,
    This(list): This<Value>,
    keys: Value,
) -> Result<Value> {
    let (Value::List(list), Value::List(keys)) = (list, keys) else {
        return Err(ExecutionError::NoSuchOverload);
    };
    if list.len() != keys.len() {
        return Err(ftx.error(format!(
            "@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got {} and {} elements respectively",
            list.len(),
            keys.len()
        )));
    }
    let Some(first) = keys.first() else {
        return Ok(Value::List(list));
    };
    if !comparable(first) {
        return Err(ftx.error("list elements must be comparable"));
    }
    let kind = std::mem::discriminant(first);
    if keys.iter().any(|k| std::mem::discriminant(k) != kind) {
        return Err(ftx.error("list elements must have the same type"));
    }
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by(|&a, &b| compare(&keys[a], &keys[b]));
    let sorted = order.into_iter().map(|i| list[i].clone()).collect();
    Ok(Value::List(Arc::new(sorted)))
}

/// The key types cel-go's `sortBy` accepts: int, uint, double, bool, string,
/// bytes, duration, timestamp.
fn comparable(v: &Value) -> bool {
    !matches!(
        v.type_of(),
        ValueType::List
            | ValueType::Map
            | ValueType::Function
            | ValueType::Null
            | ValueType::Opaque
    )
}

fn compare(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Bytes(a), Value::Bytes(b)) => a.cmp(b),
        _ => a.partial_cmp(b).unwrap_or(Ordering::Equal),
    }
}
