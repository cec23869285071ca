use super::*;
use crate::api::status::assert_answer;
use serde_json::json;

#[test]
fn label_selectors_match_like_the_server() {
    let obj = json!({"metadata": {"labels": {"app": "web", "tier": "fe"}}});
    for (s, want) in [
        ("app=web", true),
        ("app==web,tier=fe", true),
        ("app!=web", false),
        ("app in (web, db)", true),
        ("app notin (web)", false),
        ("tier", true),
        ("!tier", false),
        ("missing notin (x)", true),
        ("missing!=x", true),
    ] {
        assert_eq!(LabelSelector::parse(s).unwrap().matches(&obj), want, "{s}");
    }
}

#[test]
fn bad_selectors_are_bad_requests() {
    for s in ["a==b==c", "a in (b", "a b", "=x", "a=b,", "-a=b"] {
        let e = LabelSelector::parse(s).unwrap_err();
        assert_answer(&e, 400, |m| m.starts_with("unable to parse requirement"));
    }
}

#[test]
fn selector_objects_print_sorted_like_label_selector_string() {
    let sel = json!({"matchLabels": {"tier": "fe", "app": "web"},
                     "matchExpressions": [{"key": "env", "operator": "In", "values": ["prod", "dev"]},
                                          {"key": "gone", "operator": "DoesNotExist"}]});
    assert_eq!(
        selector_string(&sel),
        "app=web,env in (dev,prod),!gone,tier=fe"
    );
    assert_eq!(format(Some(&json!({}))), "<none>");
    assert_eq!(
        format(Some(
            &json!({"matchLabels": {"app": "a"}, "matchExpressions": [{"key": "t", "operator": "In", "values": ["y", "x"]}]})
        )),
        "app=a,t in (x,y)"
    );
    let labels = json!({"app": "web", "tier": "fe", "env": "dev"});
    assert!(matches(&sel, labels.as_object()));
    assert!(!matches(&sel, json!({"app": "web"}).as_object()));
    // An operator no selector has matches nothing.
    let odd = json!({"matchExpressions": [{"key": "app", "operator": "Near"}]});
    assert!(!matches(&odd, labels.as_object()));
    assert!(is_empty(&json!({"matchLabels": {}})));
}

#[test]
fn go_rendering_matches_the_servers_messages() {
    assert_eq!(
        go_repr(&json!({"matchLabels": {"app": "a"}})),
        "v1.LabelSelector{MatchLabels:map[string]string{\"app\":\"a\"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}"
    );
}

/// `ValidateLabelSelector`'s messages, in its order: match labels first, then each
/// expression (operator and values, key, each value).
#[test]
fn selectors_are_validated_like_apimachinery() {
    let mut errs = ErrorList::new();
    let sel = json!({
        "matchLabels": {"a": "b c"},
        "matchExpressions": [
            {"key": "k", "operator": "In"},
            {"key": "k", "operator": "Exists", "values": ["x"]},
            {"key": "k", "operator": "Near"},
            {"key": "-k", "operator": "NotIn", "values": ["ok", "not ok"]}
        ]
    });
    validate(
        &sel,
        Options::default(),
        &Path::new("spec").child("selector"),
        &mut errs,
    );
    let out = errs.strings();
    assert!(
        out[0].starts_with(
            "spec.selector.matchLabels: Invalid value: \"b c\": a valid label must be"
        ),
        "{out:?}"
    );
    assert_eq!(
        out[1..4],
        [
            "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
            "spec.selector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            "spec.selector.matchExpressions[2].operator: Invalid value: \"Near\": not a valid selector operator",
        ]
    );
    assert!(
        out[4].starts_with("spec.selector.matchExpressions[3].key: Invalid value: \"-k\": name part must consist of"),
        "{out:?}"
    );
    assert!(
        out[5].starts_with("spec.selector.matchExpressions[3].values[1]: Invalid value: \"not ok\": a valid label must be"),
        "{out:?}"
    );
    assert_eq!(out.len(), 6, "{out:?}");

    // An update whose old selector already held invalid values keeps them.
    let old = json!({"matchExpressions": [{"key": "k", "operator": "In", "values": ["not ok"]}]});
    let opts = Options::for_update(Some(&old));
    assert!(opts.allow_invalid_values);
    let mut errs = ErrorList::new();
    validate(&old, opts, &Path::new("s"), &mut errs);
    assert!(errs.is_empty(), "{:?}", errs.strings());
    assert!(!Options::for_update(None).allow_invalid_values);
}
