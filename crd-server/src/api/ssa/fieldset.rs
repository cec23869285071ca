//! Field sets for server-side apply: which fields of an object a manager owns, as a
//! tree shaped like `metadata.managedFields[].fieldsV1` (`f:name`, `k:{"key":…}` for
//! list-map items, `v:value` for set items, `.` for a node that is itself owned).
//!
//! What a node is comes from the CRD schema, with the extensions crd-derive emits:
//! `x-kubernetes-list-type` (`atomic` by default, `set`, `map` with
//! `x-kubernetes-list-map-keys`) and `x-kubernetes-map-type` (`atomic` or granular).
//! Structs (`properties`) own nothing themselves, only their fields; granular maps and
//! list-map items own themselves and their entries; everything else is a leaf.

use std::collections::BTreeMap;

use crd_runtime::model::{JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool};
use serde_json::{Map, Value};

/// A set of field paths.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FieldSet {
    /// This node itself is in the set.
    pub member: bool,
    /// Children by FieldsV1 key.
    pub children: BTreeMap<String, FieldSet>,
}

/// How a node merges.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape<'a> {
    /// An object with declared properties: fields merge one by one.
    Struct(&'a JSONSchemaProps),
    /// A granular map: entries merge one by one.
    Map(Option<&'a JSONSchemaProps>),
    /// A list of objects keyed by these fields.
    ListMap(&'a [String], Option<&'a JSONSchemaProps>),
    /// A list of distinct scalars.
    Set,
    /// Replaced whole.
    Leaf,
}

/// The shape of a node with `schema` holding `value`.
pub fn shape<'a>(schema: Option<&'a JSONSchemaProps>, value: &Value) -> Shape<'a> {
    let Some(s) = schema else {
        // Unknown (preserved) content: objects merge by key, lists are atomic.
        return if value.is_object() {
            Shape::Map(None)
        } else {
            Shape::Leaf
        };
    };
    if s.x_kubernetes_map_type.as_deref() == Some("atomic") {
        return Shape::Leaf;
    }
    match value {
        Value::Object(_) if s.properties.as_ref().is_some_and(|p| !p.is_empty()) => {
            Shape::Struct(s)
        }
        Value::Object(_) if s.x_kubernetes_embedded_resource == Some(true) => Shape::Leaf,
        Value::Object(_) => Shape::Map(match s.additional_properties.as_deref() {
            Some(JSONSchemaPropsOrBool::Schema(v)) => Some(v),
            _ => None,
        }),
        Value::Array(_) => {
            let items = match s.items.as_deref() {
                Some(JSONSchemaPropsOrArray::Schema(i)) => Some(i),
                _ => None,
            };
            match s.x_kubernetes_list_type.as_deref() {
                Some("set") => Shape::Set,
                Some("map") => Shape::ListMap(
                    s.x_kubernetes_list_map_keys.as_deref().unwrap_or(&[]),
                    items,
                ),
                _ => Shape::Leaf,
            }
        }
        _ => Shape::Leaf,
    }
}

/// The schema of a struct's or map's entry `key`.
pub fn child_schema<'a>(shape: Shape<'a>, key: &str) -> Option<&'a JSONSchemaProps> {
    match shape {
        Shape::Struct(s) => s
            .properties
            .as_ref()
            .and_then(|p| p.get(key))
            .map(|b| &**b)
            .or(match s.additional_properties.as_deref() {
                Some(JSONSchemaPropsOrBool::Schema(v)) => Some(v),
                _ => None,
            }),
        Shape::Map(values) => values,
        _ => None,
    }
}

/// The FieldsV1 key of a list-map item: `k:{"name":"a"}` (keys in the schema's order).
pub fn item_key(keys: &[String], item: &Value) -> String {
    let mut m = Map::new();
    for k in keys {
        if let Some(v) = item.get(k) {
            m.insert(k.clone(), v.clone());
        }
    }
    format!("k:{}", Value::Object(m))
}

/// `config` with every list-map item's missing key fields set to their schema default,
/// as structured-merge-diff reads keys (a container port applied without `protocol` is
/// the item `{"containerPort":80,"protocol":"TCP"}` the server stored, not a new one).
pub fn with_default_keys(config: &Value, schema: Option<&JSONSchemaProps>) -> Value {
    let mut out = config.clone();
    default_keys(&mut out, schema);
    out
}

fn default_keys(value: &mut Value, schema: Option<&JSONSchemaProps>) {
    let node = shape(schema, value);
    match (node, value) {
        (Shape::Struct(_) | Shape::Map(_), Value::Object(m)) => {
            for (k, v) in m.iter_mut() {
                default_keys(v, child_schema(node, k));
            }
        }
        (Shape::ListMap(keys, items), Value::Array(list)) => {
            let props = items.and_then(|i| i.properties.as_ref());
            for item in list {
                if let (Value::Object(m), Some(props)) = (&mut *item, props) {
                    for k in keys {
                        let default = props.get(k).and_then(|p| p.default.as_ref());
                        if let (false, Some(d)) = (m.contains_key(k), default) {
                            m.insert(k.clone(), d.clone());
                        }
                    }
                }
                default_keys(item, items);
            }
        }
        _ => {}
    }
}

/// The FieldsV1 key of a set item: `v:"a"`.
pub fn set_key(value: &Value) -> String {
    format!("v:{value}")
}

/// The fields of an object's content that server-side apply tracks: everything but
/// `apiVersion`, `kind` and the identity in `metadata` (its labels, annotations,
/// finalizers and owner references are tracked).
pub fn of_object(object: &Value, schema: Option<&JSONSchemaProps>) -> FieldSet {
    let mut set = FieldSet::default();
    let Some(map) = object.as_object() else {
        return set;
    };
    for (k, v) in map {
        match k.as_str() {
            "apiVersion" | "kind" => {}
            "metadata" => {
                let mut meta = FieldSet::default();
                for (mk, mv) in v.as_object().into_iter().flatten() {
                    let child = match (mk.as_str(), mv) {
                        ("labels" | "annotations", Value::Object(_)) => {
                            of_value(mv, Shape::Map(None))
                        }
                        ("finalizers", Value::Array(_)) => of_value(mv, Shape::Set),
                        ("ownerReferences", _) => leaf(),
                        _ => continue,
                    };
                    meta.children.insert(format!("f:{mk}"), child);
                }
                if !meta.children.is_empty() {
                    set.children.insert("f:metadata".into(), meta);
                }
            }
            _ => {
                let s = schema.and_then(|s| child_schema(Shape::Struct(s), k));
                set.children
                    .insert(format!("f:{k}"), of_value(v, shape(s, v)));
            }
        }
    }
    set
}

fn leaf() -> FieldSet {
    FieldSet {
        member: true,
        children: BTreeMap::new(),
    }
}

/// The fields of one value of shape `shape`.
pub fn of_value(value: &Value, shape: Shape<'_>) -> FieldSet {
    match (shape, value) {
        (Shape::Struct(_), Value::Object(map)) | (Shape::Map(_), Value::Object(map)) => {
            let mut set = FieldSet {
                member: matches!(shape, Shape::Map(_)),
                children: BTreeMap::new(),
            };
            for (k, v) in map {
                let s = child_schema(shape, k);
                set.children
                    .insert(format!("f:{k}"), of_value(v, self::shape(s, v)));
            }
            if set.children.is_empty() {
                set.member = true;
            }
            set
        }
        (Shape::ListMap(keys, items), Value::Array(list)) => {
            let mut set = FieldSet::default();
            for item in list {
                let mut child = of_value(item, self::shape(items, item));
                child.member = true;
                set.children.insert(item_key(keys, item), child);
            }
            if set.children.is_empty() {
                set.member = true;
            }
            set
        }
        (Shape::Set, Value::Array(list)) => {
            let mut set = FieldSet::default();
            for item in list {
                set.children.insert(set_key(item), leaf());
            }
            if set.children.is_empty() {
                set.member = true;
            }
            set
        }
        _ => leaf(),
    }
}

impl FieldSet {
    /// FieldsV1 JSON.
    pub fn into_json(self) -> Value {
        let mut m = Map::new();
        if self.member && !self.children.is_empty() {
            m.insert(".".into(), Value::Object(Map::new()));
        }
        // The keys move into the JSON: a create writes its whole field set this way.
        for (k, c) in self.children {
            m.insert(k, c.into_json());
        }
        Value::Object(m)
    }

    /// From FieldsV1 JSON (unknown shapes read as empty).
    pub fn from_json(v: &Value) -> FieldSet {
        let Some(map) = v.as_object() else {
            return FieldSet::default();
        };
        let mut set = FieldSet {
            member: map.is_empty() || map.contains_key("."),
            children: BTreeMap::new(),
        };
        for (k, c) in map {
            if k != "." {
                set.children.insert(k.clone(), FieldSet::from_json(c));
            }
        }
        set
    }

    /// Whether nothing is in the set.
    pub fn is_empty(&self) -> bool {
        !self.member && self.children.values().all(FieldSet::is_empty)
    }

    /// Every member path, as lists of keys.
    pub fn paths(&self) -> Vec<Vec<String>> {
        let mut out = Vec::new();
        self.walk(&mut Vec::new(), &mut out);
        out
    }

    fn walk(&self, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
        if self.member {
            out.push(prefix.clone());
        }
        for (k, c) in &self.children {
            prefix.push(k.clone());
            c.walk(prefix, out);
            prefix.pop();
        }
    }

    /// Whether `path` is a member.
    pub fn has(&self, path: &[String]) -> bool {
        match path.split_first() {
            None => self.member,
            Some((k, rest)) => self.children.get(k).is_some_and(|c| c.has(rest)),
        }
    }

    /// Adds `path`.
    pub fn insert(&mut self, path: &[String]) {
        match path.split_first() {
            None => self.member = true,
            Some((k, rest)) => self.children.entry(k.clone()).or_default().insert(rest),
        }
    }

    /// Removes `path` (not its children).
    pub fn remove(&mut self, path: &[String]) {
        match path.split_first() {
            None => self.member = false,
            Some((k, rest)) => {
                if let Some(c) = self.children.get_mut(k) {
                    c.remove(rest);
                    if c.is_empty() {
                        self.children.remove(k);
                    }
                }
            }
        }
    }

    /// Removes the subtree at `path` (field names, without their `f:`) and the nodes
    /// that held nothing else on the way to it.
    pub fn remove_fields(&mut self, path: &[&str]) {
        let Some((first, rest)) = path.split_first() else {
            *self = FieldSet::default();
            return;
        };
        let key = format!("f:{first}");
        if rest.is_empty() {
            self.children.remove(&key);
        } else if let Some(child) = self.children.get_mut(&key) {
            child.remove_fields(rest);
            if child.is_empty() {
                self.children.remove(&key);
            }
        }
    }

    /// Everything in `self` or `other` (merged node by node: nodes of `other` that
    /// hold no member are not copied, as adding its paths one by one would not).
    pub fn union(&mut self, other: &FieldSet) {
        self.member |= other.member;
        for (k, c) in &other.children {
            if c.is_empty() {
                continue;
            }
            match self.children.get_mut(k) {
                Some(mine) => mine.union(c),
                None => {
                    let mut mine = FieldSet::default();
                    mine.union(c);
                    self.children.insert(k.clone(), mine);
                }
            }
        }
    }
}

/// `set` with the named fields on the way to its members made members too (a struct
/// field is owned when anything in it is; a map entry or list item is not), as
/// structured-merge-diff's `EnsureNamedFieldsAreMembers`. Apply compares these sets to
/// remove what a manager stops applying, so a struct left holding nothing anyone owns
/// goes too. `metadata` itself is identity, never removed.
pub fn with_named_fields(set: &FieldSet, schema: Option<&JSONSchemaProps>) -> FieldSet {
    let mut out = set.clone();
    for (k, child) in &mut out.children {
        let Some(field) = k.strip_prefix("f:") else {
            continue;
        };
        if field == "metadata" {
            for meta_child in child.children.values_mut() {
                meta_child.member = true;
            }
            continue;
        }
        child.member = true;
        let s = schema
            .and_then(|s| s.properties.as_ref())
            .and_then(|p| p.get(field));
        ensure_named(child, s.map(|b| &**b));
    }
    out
}

fn ensure_named(node: &mut FieldSet, schema: Option<&JSONSchemaProps>) {
    let Some(s) = schema else { return };
    let items = match s.items.as_deref() {
        Some(JSONSchemaPropsOrArray::Schema(i)) => Some(i),
        _ => None,
    };
    let values = match s.additional_properties.as_deref() {
        Some(JSONSchemaPropsOrBool::Schema(v)) => Some(v),
        _ => None,
    };
    for (k, child) in &mut node.children {
        if let Some(field) = k.strip_prefix("f:") {
            match s.properties.as_ref().and_then(|p| p.get(field)) {
                Some(prop) => {
                    child.member = true;
                    ensure_named(child, Some(prop));
                }
                None => ensure_named(child, values),
            }
        } else if k.starts_with("k:") {
            ensure_named(child, items);
        }
    }
}

/// A path as kube-apiserver prints it: `.spec.ports[name="http"].port`,
/// `.metadata.finalizers[="a"]`.
pub fn display(path: &[String]) -> String {
    let mut out = String::new();
    for k in path {
        if let Some(f) = k.strip_prefix("f:") {
            out.push('.');
            out.push_str(f);
        } else if let Some(keys) = k.strip_prefix("k:") {
            let parsed: Map<String, Value> = serde_json::from_str(keys).unwrap_or_default();
            let parts: Vec<String> = parsed.iter().map(|(k, v)| format!("{k}={v}")).collect();
            out.push_str(&format!("[{}]", parts.join(",")));
        } else if let Some(v) = k.strip_prefix("v:") {
            out.push_str(&format!("[={v}]"));
        } else if let Some(i) = k.strip_prefix("i:") {
            out.push_str(&format!("[{i}]"));
        }
    }
    out
}

/// The value at `path` in `object`, if any.
pub fn value_at<'a>(object: &'a Value, path: &[String]) -> Option<&'a Value> {
    let Some((k, rest)) = path.split_first() else {
        return Some(object);
    };
    let next = if let Some(f) = k.strip_prefix("f:") {
        object.get(f)?
    } else if let Some(keys) = k.strip_prefix("k:") {
        let want: Map<String, Value> = serde_json::from_str(keys).ok()?;
        object
            .as_array()?
            .iter()
            .find(|item| want.iter().all(|(wk, wv)| item.get(wk) == Some(wv)))?
    } else if let Some(v) = k.strip_prefix("v:") {
        let want: Value = serde_json::from_str(v).ok()?;
        object.as_array()?.iter().find(|item| **item == want)?
    } else {
        return None;
    };
    value_at(next, rest)
}

/// Removes the node at `path` from `object` (a field, a list-map item, a set value).
pub fn remove_at(object: &mut Value, path: &[String]) {
    let Some((k, rest)) = path.split_first() else {
        return;
    };
    if rest.is_empty() {
        if let Some(f) = k.strip_prefix("f:") {
            if let Some(m) = object.as_object_mut() {
                m.remove(f);
            }
        } else if let Some(keys) = k.strip_prefix("k:") {
            let want: Map<String, Value> = serde_json::from_str(keys).unwrap_or_default();
            if let Some(list) = object.as_array_mut() {
                list.retain(|item| !want.iter().all(|(wk, wv)| item.get(wk) == Some(wv)));
            }
        } else if let Some(v) = k.strip_prefix("v:") {
            let want: Value = serde_json::from_str(v).unwrap_or(Value::Null);
            if let Some(list) = object.as_array_mut() {
                list.retain(|item| *item != want);
            }
        }
        return;
    }
    let next = if let Some(f) = k.strip_prefix("f:") {
        object.get_mut(f)
    } else if let Some(keys) = k.strip_prefix("k:") {
        let want: Map<String, Value> = serde_json::from_str(keys).unwrap_or_default();
        object.as_array_mut().and_then(|l| {
            l.iter_mut()
                .find(|item| want.iter().all(|(wk, wv)| item.get(wk) == Some(wv)))
        })
    } else {
        None
    };
    if let Some(next) = next {
        remove_at(next, rest);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> JSONSchemaProps {
        serde_json::from_value(json!({
            "type": "object",
            "properties": {"spec": {"type": "object", "properties": {
                "replicas": {"type": "integer"},
                "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
                "ports": {"type": "array", "x-kubernetes-list-type": "map",
                          "x-kubernetes-list-map-keys": ["name"],
                          "items": {"type": "object", "properties": {"name": {"type": "string"}, "port": {"type": "integer"}}}},
                "args": {"type": "array", "items": {"type": "string"}},
                "env": {"type": "object", "additionalProperties": {"type": "string"}}
            }}}
        }))
        .unwrap()
    }

    #[test]
    fn field_sets_follow_the_schema_and_print_like_fields_v1() {
        let obj = json!({"apiVersion": "x/v1", "kind": "K",
            "metadata": {"name": "a", "labels": {"app": "x"}},
            "spec": {"replicas": 1, "tags": ["a"], "ports": [{"name": "http", "port": 80}],
                     "args": ["-v"], "env": {"A": "1"}}});
        let set = of_object(&obj, Some(&schema()));
        assert_eq!(
            set.clone().into_json(),
            json!({"f:metadata": {"f:labels": {".": {}, "f:app": {}}},
                   "f:spec": {"f:args": {}, "f:env": {".": {}, "f:A": {}},
                              "f:ports": {"k:{\"name\":\"http\"}": {".": {}, "f:name": {}, "f:port": {}}},
                              "f:replicas": {}, "f:tags": {"v:\"a\"": {}}}})
        );
        assert_eq!(FieldSet::from_json(&set.clone().into_json()), set);
        let port: Vec<String> = vec![
            "f:spec".into(),
            "f:ports".into(),
            "k:{\"name\":\"http\"}".into(),
            "f:port".into(),
        ];
        assert!(set.has(&port));
        assert_eq!(display(&port), ".spec.ports[name=\"http\"].port");
        assert_eq!(value_at(&obj, &port), Some(&json!(80)));
        let mut copy = obj.clone();
        remove_at(&mut copy, &port[..3]);
        assert_eq!(copy["spec"]["ports"], json!([]));
    }

    #[test]
    fn list_map_keys_take_their_schema_defaults() {
        let schema: JSONSchemaProps = serde_json::from_value(json!({
            "type": "object", "properties": {"ports": {"type": "array",
                "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["containerPort", "protocol"],
                "items": {"type": "object", "properties": {
                    "containerPort": {"type": "integer"},
                    "protocol": {"type": "string", "default": "TCP"}}}}}
        }))
        .unwrap();
        let config =
            json!({"ports": [{"containerPort": 80}, {"containerPort": 53, "protocol": "UDP"}]});
        let out = with_default_keys(&config, Some(&schema));
        assert_eq!(
            out["ports"],
            json!([{"containerPort": 80, "protocol": "TCP"}, {"containerPort": 53, "protocol": "UDP"}])
        );
    }

    /// The sets the tests merge: shapes from `of_value` and from FieldsV1 JSON.
    fn samples() -> Vec<FieldSet> {
        vec![
            FieldSet::default(),
            of_value(
                &json!({"a": 1, "b": {"c": 2, "d": [1, 2]}}),
                Shape::Map(None),
            ),
            FieldSet::from_json(
                &json!({"f:b": {"f:c": {}, "f:e": {".": {}, "f:x": {}}}, "f:z": {}}),
            ),
            FieldSet::from_json(&json!({".": {}, "f:a": {}})),
        ]
    }

    #[test]
    fn union_merges_as_adding_each_path_would() {
        for a in samples() {
            for b in samples() {
                let mut merged = a.clone();
                merged.union(&b);
                let mut by_paths = a.clone();
                for p in b.paths() {
                    by_paths.insert(&p);
                }
                assert_eq!(merged, by_paths, "{a:?} + {b:?}");
            }
        }
    }

    #[test]
    fn removing_fields_drops_the_subtree_and_what_only_led_to_it() {
        let mut set =
            FieldSet::from_json(&json!({"f:b": {"f:e": {".": {}, "f:x": {}}}, "f:z": {}}));
        set.remove_fields(&["b", "e"]);
        assert_eq!(set.clone().into_json(), json!({"f:z": {}}));
        set.remove_fields(&["missing", "path"]);
        assert_eq!(set.clone().into_json(), json!({"f:z": {}}));
        set.remove_fields(&[]);
        assert!(set.is_empty());
    }
}
