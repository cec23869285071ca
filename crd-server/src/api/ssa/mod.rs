//! Server-side apply and `metadata.managedFields`, as kube-apiserver keeps them.
//!
//! Every write of a custom object records which fields its manager set: creates,
//! updates and patches as `operation: Update` entries (the fields they changed, taken
//! from every other manager), applies as `operation: Apply` entries (exactly the fields
//! of the applied configuration). An apply merges the configuration into the object by
//! the schema ([`super::fieldset`]), removes the fields the manager applied before and
//! no longer applies (unless another manager owns them), and fails with 409 when it
//! would change a field another manager owns, unless `force=true` takes it over.

use crd_runtime::model::JSONSchemaProps;
use serde_json::{Map, Value, json};

use crate::api::object::now;
use crate::api::status::{ApiError, Qualified};

pub mod fieldset;

use fieldset::{FieldSet, Shape};

/// Top-level field paths a strategy resets on an endpoint (`status` on the main
/// endpoint, `spec` on `/status`): never owned through it.
pub type Reset<'a> = &'a [&'a [&'a str]];

/// Whether `path` (FieldsV1 keys) is at or below one of the reset paths.
fn is_reset(path: &[String], reset: Reset<'_>) -> bool {
    reset.iter().any(|r| {
        r.len() <= path.len()
            && r.iter()
                .zip(path)
                .all(|(want, key)| key.strip_prefix("f:") == Some(*want))
    })
}

/// `set` without the reset paths.
fn without_reset(mut set: FieldSet, reset: Reset<'_>) -> FieldSet {
    for r in reset {
        set.remove_fields(r);
    }
    set
}

/// One `managedFields` entry.
#[derive(Clone, Debug)]
struct Entry {
    manager: String,
    operation: String,
    api_version: String,
    time: String,
    subresource: Option<String>,
    fields: FieldSet,
}

impl Entry {
    fn into_json(self) -> Value {
        let mut m = Map::new();
        m.insert("manager".into(), Value::String(self.manager));
        m.insert("operation".into(), Value::String(self.operation));
        m.insert("apiVersion".into(), Value::String(self.api_version));
        m.insert("time".into(), Value::String(self.time));
        m.insert("fieldsType".into(), Value::from("FieldsV1"));
        m.insert("fieldsV1".into(), self.fields.into_json());
        if let Some(s) = self.subresource {
            m.insert("subresource".into(), Value::String(s));
        }
        Value::Object(m)
    }

    /// How kube-apiserver names a manager in a conflict.
    fn describe(&self) -> String {
        let quote = crd_runtime::__private::go::quote;
        let mut out = quote(&self.manager);
        if let Some(s) = &self.subresource {
            out = format!("{out} with subresource {}", quote(s));
        }
        if self.operation == "Update" {
            out = format!("{out} using {} at {}", self.api_version, self.time);
        }
        out
    }
}

fn entries(object: Option<&Value>) -> Vec<Entry> {
    let Some(list) = object
        .and_then(|o| o.pointer("/metadata/managedFields"))
        .and_then(Value::as_array)
    else {
        return Vec::new();
    };
    list.iter()
        .map(|e| {
            let s = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            Entry {
                manager: s("manager"),
                operation: s("operation"),
                api_version: s("apiVersion"),
                time: s("time"),
                subresource: e
                    .get("subresource")
                    .and_then(Value::as_str)
                    .map(String::from),
                fields: FieldSet::from_json(e.get("fieldsV1").unwrap_or(&Value::Null)),
            }
        })
        .collect()
}

fn store_entries(object: &mut Value, entries: Vec<Entry>) {
    let list: Vec<Value> = entries
        .into_iter()
        .filter(|e| !e.fields.is_empty())
        .map(Entry::into_json)
        .collect();
    if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        if list.is_empty() {
            meta.remove("managedFields");
        } else {
            meta.insert("managedFields".into(), Value::Array(list));
        }
    }
}

/// Who writes, in which version and through which endpoint.
pub struct Writer<'a> {
    /// `fieldManager`.
    pub manager: &'a str,
    /// The request's `group/version`.
    pub api_version: &'a str,
    /// `status` for the status subresource.
    pub subresource: Option<&'a str>,
}

/// Records a create (`old` is `None`), update or patch in `new`'s `managedFields`: the
/// fields it changed become the writer's, and no one else's; removed fields are no
/// one's. What the client sent as `managedFields` is not taken.
pub fn track_update(
    old: Option<&Value>,
    new: &mut Value,
    schema: Option<&JSONSchemaProps>,
    w: &Writer<'_>,
    reset: Reset<'_>,
) {
    let mut list = entries(old);
    let new_set = fieldset::of_object(new, schema);
    let (changed, removed) = match old {
        // A create changes every field it sets: the set as it is, no path by path.
        None => (without_reset(new_set, reset), Vec::new()),
        Some(o) => {
            let old_set = fieldset::of_object(o, schema);
            let mut changed = FieldSet::default();
            for p in new_set.paths() {
                let differs =
                    !old_set.has(&p) || fieldset::value_at(o, &p) != fieldset::value_at(new, &p);
                if differs && !is_reset(&p, reset) {
                    changed.insert(&p);
                }
            }
            let removed: Vec<Vec<String>> = old_set
                .paths()
                .into_iter()
                .filter(|p| !new_set.has(p))
                .collect();
            (changed, removed)
        }
    };
    if !list.is_empty() {
        let dropped = changed.paths();
        for e in &mut list {
            for p in dropped.iter().chain(&removed) {
                e.fields.remove(p);
            }
        }
    }
    if !changed.is_empty() {
        let now = now();
        let subresource = w.subresource.map(String::from);
        match list.iter_mut().find(|e| {
            e.manager == w.manager
                && e.operation == "Update"
                && e.subresource == subresource
                && e.api_version == w.api_version
        }) {
            Some(e) => {
                e.fields.union(&changed);
                e.time = now;
            }
            None => list.push(Entry {
                manager: w.manager.to_string(),
                operation: "Update".into(),
                api_version: w.api_version.to_string(),
                time: now,
                subresource,
                fields: changed,
            }),
        }
    }
    store_entries(new, list);
}

/// Applies `config` (already checked: apiVersion, kind, name) over `live` (`None`
/// creates): the merged object with its `managedFields`, or the 409 conflict.
pub fn apply(
    q: &Qualified,
    live: Option<&Value>,
    config: &Value,
    schema: Option<&JSONSchemaProps>,
    w: &Writer<'_>,
    force: bool,
    reset: Reset<'_>,
) -> Result<Value, ApiError> {
    let config = &fieldset::with_default_keys(config, schema);
    let mut list = entries(live);
    let applied = without_reset(fieldset::of_object(config, schema), reset);
    let is_mine = |e: &Entry| {
        e.manager == w.manager
            && e.operation == "Apply"
            && e.subresource.as_deref() == w.subresource
    };
    let empty = json!({});
    let current = live.unwrap_or(&empty);
    let mut conflicts: Vec<(usize, Vec<String>)> = Vec::new();
    for (i, e) in list.iter().enumerate().filter(|(_, e)| !is_mine(e)) {
        for p in applied.paths() {
            let owned = e.fields.has(&p);
            // A map or list item owns itself only as a container: its entries conflict.
            let container = fieldset::value_at(config, &p)
                .is_some_and(|v| v.is_object() || v.is_array())
                && applied_has_children(&applied, &p);
            if owned
                && !container
                && fieldset::value_at(current, &p) != fieldset::value_at(config, &p)
            {
                conflicts.push((i, p));
            }
        }
    }
    if !conflicts.is_empty() && !force {
        return Err(conflict_error(q, &list, &conflicts));
    }
    for (i, p) in &conflicts {
        list[*i].fields.remove(p);
    }
    let mut merged = live.cloned().unwrap_or_else(|| {
        json!({"apiVersion": config["apiVersion"], "kind": config["kind"], "metadata": {
            "name": config.pointer("/metadata/name").cloned().unwrap_or(Value::Null),
        }})
    });
    if live.is_none()
        && let Some(ns) = config.pointer("/metadata/namespace")
    {
        merged["metadata"]["namespace"] = ns.clone();
    }
    merge_object(&mut merged, config, schema);
    // Fields this manager applied before and no longer applies go, unless owned by
    // another manager, and with them the structs left holding nothing anyone owns;
    // containers first (a list item goes with its key fields, which must still be
    // there to find it).
    let named = |set: &FieldSet| fieldset::with_named_fields(set, schema);
    let previous = list
        .iter()
        .find(|e| is_mine(e))
        .map(|e| named(&e.fields))
        .unwrap_or_default();
    let now_applied = named(&applied);
    let mut others = FieldSet::default();
    for e in list.iter().filter(|e| !is_mine(e)) {
        others.union(&named(&e.fields));
    }
    let mut gone: Vec<Vec<String>> = previous
        .paths()
        .into_iter()
        .filter(|p| !now_applied.has(p) && !others.has(p) && !is_reset(p, reset))
        .collect();
    gone.sort_by_key(Vec::len);
    for p in &gone {
        fieldset::remove_at(&mut merged, p);
    }
    list.retain(|e| !is_mine(e));
    list.push(Entry {
        manager: w.manager.to_string(),
        operation: "Apply".into(),
        api_version: w.api_version.to_string(),
        time: now(),
        subresource: w.subresource.map(String::from),
        fields: applied,
    });
    store_entries(&mut merged, list);
    Ok(merged)
}

fn applied_has_children(set: &FieldSet, path: &[String]) -> bool {
    let mut node = set;
    for k in path {
        match node.children.get(k) {
            Some(c) => node = c,
            None => return false,
        }
    }
    !node.children.is_empty()
}

/// The 409 kube-apiserver answers (`Apply failed with 1 conflict: conflict with "m"
/// using v1 at T: .spec.replicas`), one cause per field.
fn conflict_error(q: &Qualified, list: &[Entry], conflicts: &[(usize, Vec<String>)]) -> ApiError {
    let causes: Vec<Value> = conflicts
        .iter()
        .map(|(i, p)| {
            json!({"reason": "FieldManagerConflict",
                   "message": format!("conflict with {}", list[*i].describe()),
                   "field": fieldset::display(p)})
        })
        .collect();
    let message = if let [(i, p)] = conflicts {
        format!(
            "Apply failed with 1 conflict: conflict with {}: {}",
            list[*i].describe(),
            fieldset::display(p)
        )
    } else {
        let mut by_manager: std::collections::BTreeMap<String, Vec<String>> = Default::default();
        for (i, p) in conflicts {
            by_manager
                .entry(list[*i].describe())
                .or_default()
                .push(fieldset::display(p));
        }
        let mut lines = Vec::new();
        for (manager, paths) in by_manager {
            lines.push(format!("conflicts with {manager}:"));
            lines.extend(paths.into_iter().map(|p| format!("- {p}")));
        }
        format!(
            "Apply failed with {} conflicts: {}",
            conflicts.len(),
            lines.join("\n")
        )
    };
    let _ = q;
    ApiError {
        code: http::StatusCode::CONFLICT,
        reason: "Conflict",
        message,
        details: Some(json!({"causes": causes})),
        warnings: Vec::new(),
    }
}

/// Merges an applied object into the live one: tracked metadata, then the rest by
/// the schema.
fn merge_object(live: &mut Value, config: &Value, schema: Option<&JSONSchemaProps>) {
    let Some(cfg) = config.as_object() else {
        return;
    };
    for (k, v) in cfg {
        match k.as_str() {
            "apiVersion" | "kind" => {}
            "metadata" => {
                let meta = live.as_object_mut().map(|m| {
                    m.entry("metadata")
                        .or_insert_with(|| Value::Object(Map::new()))
                });
                let Some(meta) = meta else { continue };
                for field in ["labels", "annotations", "finalizers", "ownerReferences"] {
                    let Some(value) = v.get(field) else { continue };
                    let shape = match field {
                        "labels" | "annotations" => Shape::Map(None),
                        "finalizers" => Shape::Set,
                        _ => Shape::Leaf,
                    };
                    match meta.get_mut(field) {
                        Some(existing) => merge_value(existing, value, shape),
                        None => {
                            meta[field] = value.clone();
                        }
                    }
                }
            }
            _ => {
                let s = schema.and_then(|s| fieldset::child_schema(Shape::Struct(s), k));
                let shape = fieldset::shape(s, v);
                match live.get_mut(k.as_str()) {
                    Some(existing) => merge_value(existing, v, shape),
                    None => {
                        live[k.as_str()] = v.clone();
                    }
                }
            }
        }
    }
}

fn merge_value(live: &mut Value, config: &Value, shape: Shape<'_>) {
    match (shape, &mut *live, config) {
        (Shape::Struct(_) | Shape::Map(_), Value::Object(l), Value::Object(c)) => {
            for (k, v) in c {
                let s = fieldset::child_schema(shape, k);
                match l.get_mut(k) {
                    Some(existing) => merge_value(existing, v, fieldset::shape(s, v)),
                    None => {
                        l.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (Shape::ListMap(keys, items), Value::Array(l), Value::Array(c)) => {
            for item in c {
                let key = fieldset::item_key(keys, item);
                match l.iter_mut().find(|x| fieldset::item_key(keys, x) == key) {
                    Some(existing) => merge_value(existing, item, fieldset::shape(items, item)),
                    None => l.push(item.clone()),
                }
            }
        }
        (Shape::Set, Value::Array(l), Value::Array(c)) => {
            for item in c {
                if !l.contains(item) {
                    l.push(item.clone());
                }
            }
        }
        _ => *live = config.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> JSONSchemaProps {
        serde_json::from_value(json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "replicas": {"type": "integer"}, "image": {"type": "string"},
            "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                      "items": {"type": "object", "properties": {"name": {"type": "string"}, "port": {"type": "integer"}}}}
        }}}}))
        .unwrap()
    }

    fn q() -> Qualified {
        Qualified {
            group: "x".into(),
            plural: "things".into(),
            kind: "Thing".into(),
        }
    }

    fn config(spec: Value) -> Value {
        json!({"apiVersion": "x/v1", "kind": "Thing", "metadata": {"name": "a"}, "spec": spec})
    }

    fn writer(manager: &str) -> Writer<'_> {
        Writer {
            manager,
            api_version: "x/v1",
            subresource: None,
        }
    }

    /// `manager` applies a Thing with `spec` over `live`, with the test schema.
    fn apply_spec(
        live: Option<&Value>,
        spec: Value,
        manager: &str,
        force: bool,
    ) -> Result<Value, ApiError> {
        apply(
            &q(),
            live,
            &config(spec),
            Some(&schema()),
            &writer(manager),
            force,
            &[],
        )
    }

    #[test]
    fn two_managers_own_different_fields_and_conflict_on_a_shared_one() {
        let a = apply_spec(
            None,
            json!({"replicas": 1, "ports": [{"name": "http", "port": 80}]}),
            "a",
            false,
        )
        .unwrap();
        let b = apply_spec(
            Some(&a),
            json!({"image": "img", "ports": [{"name": "metrics", "port": 9090}]}),
            "b",
            false,
        )
        .unwrap();
        assert_eq!(b["spec"]["replicas"], 1);
        assert_eq!(b["spec"]["ports"].as_array().unwrap().len(), 2);
        let err = apply_spec(Some(&b), json!({"replicas": 3}), "b", false).unwrap_err();
        assert_eq!(err.code, http::StatusCode::CONFLICT);
        assert_eq!(
            err.message,
            "Apply failed with 1 conflict: conflict with \"a\": .spec.replicas"
        );
        let forced =
            apply_spec(Some(&b), json!({"replicas": 3, "image": "img"}), "b", true).unwrap();
        assert_eq!(forced["spec"]["replicas"], 3);
        // b's metrics port is no longer applied by b and owned by no one else: removed.
        let ports = forced["spec"]["ports"].as_array().unwrap();
        assert_eq!(ports, &vec![json!({"name": "http", "port": 80})]);
        let managers: Vec<&str> = forced["metadata"]["managedFields"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["manager"].as_str().unwrap())
            .collect();
        assert_eq!(managers, ["a", "b"]);
        // a lost replicas to b.
        assert!(
            forced["metadata"]["managedFields"][0]["fieldsV1"]["f:spec"]
                .get("f:replicas")
                .is_none()
        );
    }

    #[test]
    fn updates_take_the_fields_they_change() {
        let s = schema();
        let a = apply_spec(None, json!({"replicas": 1}), "a", false).unwrap();
        let mut edited = a.clone();
        edited["spec"]["replicas"] = json!(5);
        track_update(
            Some(&a),
            &mut edited,
            Some(&s),
            &writer("kubectl-edit"),
            &[],
        );
        let list = edited["metadata"]["managedFields"].as_array().unwrap();
        assert_eq!(list.len(), 1, "{list:?}");
        assert_eq!(list[0]["manager"], "kubectl-edit");
        assert_eq!(list[0]["operation"], "Update");
        let err = apply_spec(Some(&edited), json!({"replicas": 2}), "a", false).unwrap_err();
        assert!(
            err.message.starts_with(
                "Apply failed with 1 conflict: conflict with \"kubectl-edit\" using x/v1 at "
            ),
            "{}",
            err.message
        );
    }
}
