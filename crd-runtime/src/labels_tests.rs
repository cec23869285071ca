use super::*;
use serde_json::json;

fn labels(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

#[test]
fn labels_and_expressions_all_hold() {
    let l = labels(json!({"app": "web", "tier": "front"}));
    assert!(matches(&json!({}), &l).unwrap());
    assert!(matches(&json!({"matchLabels": {"app": "web"}}), &l).unwrap());
    assert!(!matches(&json!({"matchLabels": {"app": "db"}}), &l).unwrap());
    let sel = |op: &str, values: Value| json!({"matchExpressions": [{"key": "tier", "operator": op, "values": values}]});
    assert!(matches(&sel("In", json!(["front", "back"])), &l).unwrap());
    assert!(!matches(&sel("NotIn", json!(["front"])), &l).unwrap());
    assert!(matches(&sel("Exists", json!([])), &l).unwrap());
    assert!(!matches(&sel("DoesNotExist", json!([])), &l).unwrap());
    // NotIn holds for an absent label, In does not.
    let none = Map::new();
    assert!(matches(&sel("NotIn", json!(["front"])), &none).unwrap());
    assert!(!matches(&sel("In", json!(["front"])), &none).unwrap());
    assert_eq!(
        matches(&sel("Bogus", json!([])), &l),
        Err("\"Bogus\" is not a valid label selector operator".into())
    );
    assert_eq!(
        labels_of(&json!({"metadata": {"labels": {"a": "b"}}})),
        labels(json!({"a": "b"}))
    );
    assert!(labels_of(&json!({"metadata": {}})).is_empty());
}

#[test]
fn empty_selectors_select_everything() {
    assert!(is_empty(None));
    assert!(is_empty(Some(&json!({}))));
    assert!(is_empty(Some(
        &json!({"matchLabels": {}, "matchExpressions": []})
    )));
    assert!(!is_empty(Some(&json!({"matchLabels": {"a": "b"}}))));
}

#[test]
fn selectors_print_sorted_like_label_selector_string() {
    let sel = json!({"matchLabels": {"tier": "fe", "app": "web"},
                     "matchExpressions": [{"key": "env", "operator": "In", "values": ["prod", "dev", "dev"]},
                                          {"key": "gone", "operator": "DoesNotExist"},
                                          {"key": "has", "operator": "Exists"}]});
    assert_eq!(
        selector_string(&sel),
        "app=web,env in (dev,prod),!gone,has,tier=fe"
    );
    assert_eq!(selector_string(&json!({})), "");
}

#[test]
fn validation_speaks_apimachinerys_words() {
    let sel = json!({
        "matchLabels": {"a": "b c"},
        "matchExpressions": [
            {"key": "k", "operator": "In"},
            {"key": "k", "operator": "Exists", "values": ["x"]},
            {"key": "k", "operator": "Near"},
            {"key": "bad key", "operator": "In", "values": ["ok", "not ok"]}
        ]
    });
    let mut errs = ErrorList::new();
    validate_selector(&sel, SelectorOptions::default(), &Path::new("s"), &mut errs);
    let out = errs.strings();
    assert!(
        out[0].starts_with("s.matchLabels: Invalid value: \"b c\": a valid label must be"),
        "{out:?}"
    );
    assert_eq!(
        out[1..4],
        [
            "s.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
            "s.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            "s.matchExpressions[2].operator: Invalid value: \"Near\": not a valid selector operator",
        ]
    );
    assert!(
        out[4].starts_with("s.matchExpressions[3].key: Invalid value: \"bad key\": name part must")
    );
    assert!(
        out[5].starts_with(
            "s.matchExpressions[3].values[1]: Invalid value: \"not ok\": a valid label"
        )
    );
    assert_eq!(out.len(), 6);

    let mut errs = ErrorList::new();
    let allow = SelectorOptions {
        allow_invalid_label_value_in_selector: true,
    };
    validate_selector(&sel, allow, &Path::new("s"), &mut errs);
    assert_eq!(errs.len(), 5, "{:?}", errs.strings());
}
