//! `==` and `!=` on `x-kubernetes-list-type: set`/`map` lists, as the API
//! server compares them (see [`crate::cel::library::equality`]).

use serde_json::{Value as Json, json};

use super::*;
use crate::model::JSONSchemaProps;

/// A resource whose `spec` has a set, an atomic list, a map list and an object
/// holding a set, each with the rules `rules(field)`.
fn resource(rules: impl Fn(&str) -> Json) -> JSONSchemaProps {
    let string = json!({"type": "string"});
    let set = |field: &str| {
        json!({"type": "array", "x-kubernetes-list-type": "set", "items": string,
               "x-kubernetes-validations": rules(field)})
    };
    let s = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "tags": set("tags"),
        "items": {"type": "array", "items": string, "x-kubernetes-validations": rules("items")},
        "entries": {"type": "array", "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    "items": {"type": "object", "properties": {
                        "name": string, "value": {"type": "integer"}}},
                    "x-kubernetes-validations": rules("entries")},
        "nested": {"type": "object", "properties": {
                       "tags": set("nested.tags"), "n": {"type": "integer"}},
                   "x-kubernetes-validations": rules("nested")}
    }, "x-kubernetes-validations": rules("spec")}}});
    serde_json::from_value(s).expect("schema")
}

/// The paths of the failed rules (the message is the field the rule is on).
fn failures(s: &JSONSchemaProps, spec: Json, old_spec: Option<Json>) -> Vec<String> {
    let (v, errs) = Validator::new(s, true);
    assert!(errs.is_empty(), "compile errors: {errs:?}");
    let v = v.expect("rules");
    let old = old_spec.map(|o| json!({"spec": o}));
    let mut out: Vec<String> = v
        .validate(&json!({"spec": spec}), old.as_ref())
        .iter()
        .map(ToString::to_string)
        .collect();
    out.sort();
    out
}

fn immutable(field: &str) -> Json {
    json!([{"rule": "self == oldSelf", "message": format!("{field} is immutable")}])
}

fn old_spec() -> Json {
    json!({"tags": ["a", "b"], "items": ["x", "y"],
           "entries": [{"name": "a", "value": 1}, {"name": "b", "value": 2}],
           "nested": {"tags": ["p", "q"], "n": 1}})
}

#[test]
fn reordering_sets_and_map_lists_keeps_them_equal() {
    let s = resource(immutable);
    let new = json!({"tags": ["b", "a"], "items": ["x", "y"],
                     "entries": [{"name": "b", "value": 2}, {"name": "a", "value": 1}],
                     "nested": {"tags": ["q", "p"], "n": 1}});
    assert_eq!(failures(&s, new, Some(old_spec())), Vec::<String>::new());
}

#[test]
fn atomic_lists_compare_in_order() {
    let s = resource(immutable);
    let mut new = old_spec();
    new["items"] = json!(["y", "x"]);
    assert_eq!(
        failures(&s, new, Some(old_spec())),
        vec![
            "spec.items: Invalid value: items is immutable",
            "spec: Invalid value: spec is immutable",
        ]
    );
}

#[test]
fn different_elements_or_values_are_not_equal() {
    let s = resource(immutable);
    let mut new = old_spec();
    new["tags"] = json!(["a", "c"]);
    new["entries"] = json!([{"name": "b", "value": 2}, {"name": "a", "value": 3}]);
    new["nested"]["tags"] = json!(["p", "p"]);
    assert_eq!(
        failures(&s, new, Some(old_spec())),
        vec![
            "spec.entries: Invalid value: entries is immutable",
            "spec.nested.tags: Invalid value: nested.tags is immutable",
            "spec.nested: Invalid value: nested is immutable",
            "spec.tags: Invalid value: tags is immutable",
            "spec: Invalid value: spec is immutable",
        ]
    );
    // A map list with an entry that has another key.
    let mut new = old_spec();
    new["entries"] = json!([{"name": "a", "value": 1}, {"name": "c", "value": 2}]);
    assert_eq!(
        failures(&s, new, Some(old_spec())),
        vec![
            "spec.entries: Invalid value: entries is immutable",
            "spec: Invalid value: spec is immutable",
        ]
    );
}

#[test]
fn comparisons_with_literals_dispatch_on_the_left_operand() {
    let on_spec = |rules: Json| {
        let rules = rules.clone();
        resource(move |f| {
            if f == "spec" {
                rules.clone()
            } else {
                json!([])
            }
        })
    };
    let s = on_spec(json!([
        {"rule": "self.tags == ['b', 'a']", "message": "set == literal"},
        {"rule": "self.tags != ['a', 'c']", "message": "set != literal"},
        {"rule": "!(self.tags != ['b', 'a'])", "message": "not set != literal"},
        // A literal list on the left compares in order (cel-go's list equality).
        {"rule": "['b', 'a'] == self.tags", "message": "literal == set"},
        {"rule": "self.items == ['b', 'a']", "message": "atomic == literal"}
    ]));
    let spec =
        json!({"tags": ["a", "b"], "items": ["a", "b"], "nested": {"tags": ["a", "b"], "n": 1}});
    assert_eq!(
        failures(&s, spec, None),
        vec![
            "spec: Invalid value: atomic == literal",
            "spec: Invalid value: literal == set",
        ]
    );
}

#[test]
fn sets_keep_their_order_for_everything_but_equality() {
    let s = resource(|f| {
        if f == "spec" {
            json!([
                {"rule": "self.tags[0] == 'b'", "message": "first"},
                {"rule": "self.tags.map(t, t + '!')[1] == 'a!'", "message": "map"},
                {"rule": "self.entries[0].name == 'b'", "message": "entry"},
                {"rule": "self.tags == oldSelf.tags", "message": "transition"}
            ])
        } else {
            json!([])
        }
    });
    let spec = json!({"tags": ["b", "a"], "entries": [{"name": "b"}, {"name": "a"}]});
    let old = json!({"tags": ["a", "b"], "entries": []});
    assert_eq!(failures(&s, spec.clone(), Some(old)), Vec::<String>::new());
    let reordered = json!({"tags": ["a", "b"], "entries": [{"name": "a"}, {"name": "b"}]});
    assert_eq!(
        failures(&s, reordered, Some(spec)),
        vec![
            "spec: Invalid value: entry",
            "spec: Invalid value: first",
            "spec: Invalid value: map",
        ]
    );
}

#[test]
fn typed_equality_reaches_through_lists_optionals_and_messages() {
    let s: JSONSchemaProps = serde_json::from_value(json!({"type": "object", "properties": {
        "spec": {"type": "object", "properties": {
            "groups": {"type": "array", "items": {"type": "object", "properties": {
                "tags": {"type": "array", "x-kubernetes-list-type": "set",
                         "items": {"type": "string"}}}}},
            "ports": {"type": "array", "x-kubernetes-list-type": "map",
                      "x-kubernetes-list-map-keys": ["port", "protocol"],
                      "items": {"type": "object", "properties": {
                          "port": {"type": "integer"}, "protocol": {"type": "string"},
                          "name": {"type": "string"}}}},
            "dup": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}
        }, "x-kubernetes-validations": [
            {"rule": "self.groups == oldSelf.groups", "message": "groups"},
            {"rule": "oldSelf.value() == self", "optionalOldSelf": true, "message": "optional"},
            {"rule": "self.groups.all(g, g.tags == oldSelf.groups[0].tags)", "message": "loop"},
            {"rule": "self.ports != oldSelf.ports", "message": "ports",
             "messageExpression": "self.ports == oldSelf.ports ? 'same ports' : 'other ports'"},
            {"rule": "self.dup == ['a', 'b', 'b']", "message": "dup"}
        ]}
    }}))
    .expect("schema");
    let old = json!({"groups": [{"tags": ["a", "b"]}],
                     "ports": [{"port": 80, "protocol": "TCP"}, {"port": 80, "protocol": "UDP"}],
                     "dup": ["a", "a", "b"]});
    let new = json!({"groups": [{"tags": ["b", "a"]}],
                     "ports": [{"port": 80, "protocol": "UDP"}, {"port": 80, "protocol": "TCP"}],
                     "dup": ["a", "a", "b"]});
    // Reordered sets inside an atomic list, a map list with two keys reordered
    // (the `!=` rule fails and its message sees the lists as equal), and a set
    // compared like the server does: same size, every element contained.
    assert_eq!(
        failures(&s, new.clone(), Some(old.clone())),
        vec!["spec: Invalid value: same ports"]
    );
    let mut changed = new;
    changed["groups"] = json!([{"tags": ["b", "c"]}]);
    changed["ports"] = json!([{"port": 80, "protocol": "UDP"}, {"port": 81, "protocol": "TCP"}]);
    assert_eq!(
        failures(&s, changed, Some(old)),
        vec![
            "spec: Invalid value: groups",
            "spec: Invalid value: loop",
            "spec: Invalid value: optional",
        ]
    );
}
