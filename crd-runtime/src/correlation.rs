//! Pairing the values of an update with the old object's, and comparing them, the
//! way the API server does (`apiserver/pkg/cel/common/equality.go`). Both
//! validation ratcheting and CEL transition rules walk through here.
//!
//! - A field pairs with the old object's field of the same name when both exist
//!   and the schema describes it (a property or `additionalProperties`).
//! - A list item pairs by its `x-kubernetes-list-map-keys` in a `map` list, by
//!   position in a list without `x-kubernetes-list-type`, and never in a `set` or
//!   an explicitly `atomic` list.
//! - Two values are "unchanged" when deep-equal, with `map` lists compared by key
//!   and any field the schema does not describe counting as a change.

use serde_json::Value;

/// How the items of a list pair with the old list's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListPairing<'a> {
    /// `x-kubernetes-list-type: map`: by these keys.
    MapKeys(&'a [String]),
    /// No list type: by position.
    ByIndex,
    /// `set` or `atomic`: not at all.
    None,
}

/// The parts of a schema correlation needs.
pub trait Shape: Copy {
    /// The schema of field `key` (a property, else `additionalProperties`).
    fn field(self, key: &str) -> Option<Self>;
    /// The schema of list items.
    fn items(self) -> Option<Self>;
    /// How list items pair.
    fn list_pairing(&self) -> ListPairing<'_>;
}

/// The old value of field `key`, when `new` and `old` are objects holding it.
pub fn field<'o>(old: Option<&'o Value>, key: &str) -> Option<&'o Value> {
    old?.as_object()?.get(key)
}

/// The old item paired with `new_item` (at `index` in the new list).
pub fn item<'o>(
    pairing: ListPairing<'_>,
    new_item: &Value,
    index: usize,
    old: Option<&'o Value>,
) -> Option<&'o Value> {
    let old_items = old?.as_array()?;
    match pairing {
        ListPairing::MapKeys(keys) => {
            let item = new_item.as_object()?;
            old_items.iter().find(|o| {
                o.as_object()
                    .is_some_and(|o| keys.iter().all(|k| o.get(k) == item.get(k)))
            })
        }
        ListPairing::ByIndex => old_items.get(index),
        ListPairing::None => None,
    }
}

/// Whether `new` is unchanged from `old` (`CachedDeepEqual`).
pub fn unchanged<S: Shape>(shape: S, new: &Value, old: &Value) -> bool {
    match (new, old) {
        (Value::Array(n), Value::Array(o)) => {
            if n.len() != o.len() {
                return false;
            }
            let pairing = shape.list_pairing();
            let items = shape.items();
            for (i, new_item) in n.iter().enumerate() {
                let paired =
                    items.and_then(|s| item(pairing, new_item, i, Some(old)).map(|o| (s, o)));
                match paired {
                    Some((s, o)) => {
                        if !unchanged(s, new_item, o) {
                            return false;
                        }
                    }
                    // An unpaired list compares as a whole; a map list with an
                    // item the old one lacks has changed.
                    None => return !matches!(pairing, ListPairing::MapKeys(_)) && n == o,
                }
            }
            true
        }
        (Value::Object(n), Value::Object(o)) => {
            n.len() == o.len()
                && n.iter().all(|(k, v)| match (o.get(k), shape.field(k)) {
                    (Some(ov), Some(s)) => unchanged(s, v, ov),
                    _ => false,
                })
        }
        (Value::Array(_) | Value::Object(_), _) | (_, Value::Array(_) | Value::Object(_)) => false,
        (n, o) => n == o,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A schema as plain JSON, for the tests.
    #[derive(Clone, Copy)]
    struct J(&'static Value);

    impl Shape for J {
        fn field(self, key: &str) -> Option<Self> {
            self.0["properties"]
                .get(key)
                .or(self.0.get("additionalProperties"))
                .map(|v| J(leak(v)))
        }
        fn items(self) -> Option<Self> {
            self.0.get("items").map(|v| J(leak(v)))
        }
        fn list_pairing(&self) -> ListPairing<'_> {
            match self.0.get("x-kubernetes-list-type").and_then(Value::as_str) {
                Some("map") => {
                    ListPairing::MapKeys(leak_keys(&self.0["x-kubernetes-list-map-keys"]))
                }
                None => ListPairing::ByIndex,
                _ => ListPairing::None,
            }
        }
    }

    fn leak(v: &Value) -> &'static Value {
        Box::leak(Box::new(v.clone()))
    }

    fn leak_keys(v: &Value) -> &'static [String] {
        Box::leak(
            serde_json::from_value::<Vec<String>>(v.clone())
                .unwrap()
                .into_boxed_slice(),
        )
    }

    #[test]
    fn map_lists_compare_by_key_and_unknown_fields_count_as_changed() {
        let s = J(leak(&json!({"properties": {
            "ports": {"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                      "items": {"properties": {"name": {}, "port": {}}}},
            "tags": {"x-kubernetes-list-type": "set", "items": {}},
            "plain": {"items": {}}}})));
        let a = json!({"ports": [{"name": "a", "port": 1}, {"name": "b", "port": 2}]});
        let b = json!({"ports": [{"name": "b", "port": 2}, {"name": "a", "port": 1}]});
        assert!(unchanged(s, &a, &b));
        assert!(!unchanged(
            s,
            &a,
            &json!({"ports": [{"name": "a", "port": 1}, {"name": "c", "port": 2}]})
        ));
        assert!(unchanged(
            s,
            &json!({"tags": [1, 2]}),
            &json!({"tags": [1, 2]})
        ));
        assert!(!unchanged(
            s,
            &json!({"tags": [1, 2]}),
            &json!({"tags": [2, 1]})
        ));
        assert!(!unchanged(
            s,
            &json!({"plain": [1, 2]}),
            &json!({"plain": [2, 1]})
        ));
        assert!(
            !unchanged(s, &json!({"x": 1}), &json!({"x": 1})),
            "no schema: changed"
        );
        assert!(!unchanged(
            s,
            &json!({"plain": [1]}),
            &json!({"plain": [1.0]})
        ));
        let old = json!([{"name": "b", "port": 3}]);
        let pairing = ListPairing::MapKeys(leak_keys(&json!(["name"])));
        assert_eq!(
            item(pairing, &json!({"name": "b"}), 0, Some(&old)),
            Some(&old[0])
        );
        assert_eq!(
            item(ListPairing::ByIndex, &json!(1), 0, Some(&old)),
            Some(&old[0])
        );
        assert_eq!(item(ListPairing::None, &json!(1), 0, Some(&old)), None);
    }
}
