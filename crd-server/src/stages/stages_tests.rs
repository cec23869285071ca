use serde_json::json;

use super::*;

fn stage(spec: Value) -> Value {
    json!({"apiVersion": "kwok.x-k8s.io/v1alpha1", "kind": "Stage",
           "metadata": {"name": "s"}, "spec": spec})
}

fn errors(spec: Value) -> Vec<String> {
    Stage::parse(&stage(spec)).unwrap_err().strings()
}

#[test]
fn the_default_stages_parse() {
    let names: Vec<String> = defaults::stages().into_iter().map(|s| s.name).collect();
    assert_eq!(names, ["pod-ready", "pod-complete", "pod-delete"]);
    for (file, text) in defaults::SOURCES {
        assert_eq!(load::stages_of(file, text).unwrap().len(), 1, "{file}");
    }
}

#[test]
fn selectors_match_labels_annotations_and_keys() {
    let s = Stage::parse(&stage(json!({
        "resourceRef": {"apiGroup": "v1", "kind": "Pod"},
        "selector": {
            "matchLabels": {"app": "crash"},
            "matchAnnotations": {"a": "b"},
            "matchExpressions": [
                {"key": ".metadata.deletionTimestamp", "operator": "DoesNotExist"},
                {"key": ".status.conditions.[] | select( .type == \"Ready\" ) | .status",
                 "operator": "NotIn", "values": ["True"]},
                {"jq": {"key": ".spec.containers[0].name", "operator": "In", "values": ["c"]}},
            ]},
        "next": {"statusTemplate": "phase: Running"},
    })))
    .unwrap();
    let mut pod = json!({"metadata": {"labels": {"app": "crash"}, "annotations": {"a": "b"}},
                         "spec": {"containers": [{"name": "c"}]},
                         "status": {"conditions": [{"type": "Ready", "status": "False"}]}});
    assert!(s.selector.matches(&pod));
    pod["status"]["conditions"][0]["status"] = json!("True");
    assert!(!s.selector.matches(&pod));
    pod["status"]["conditions"][0]["status"] = json!("False");
    pod["metadata"]["labels"]["app"] = json!("web");
    assert!(!s.selector.matches(&pod));
}

#[test]
fn invalid_stages_name_the_field() {
    assert_eq!(
        errors(
            json!({"resourceRef": {"kind": "Pod"}, "selector": {"matchExpressions": [
            {"key": ".status.phase", "operator": "Equals", "values": ["x"]}]}})
        ),
        [
            "spec.selector.matchExpressions[0].operator: Unsupported value: \"Equals\": supported values: \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\""
        ]
    );
    let e = errors(json!({"resourceRef": {"kind": "Pod"},
                          "delay": {"durationMilliseconds": -5}}));
    assert_eq!(
        e,
        ["spec.delay.durationMilliseconds: Invalid value: -5: must be greater than or equal to 0"]
    );
    // Each spec and the start of its first error.
    let cases = [
        (
            json!({"resourceRef": {"kind": "Pod"}, "delay": {"durationMilliseconds": "1s"}}),
            "spec.delay.durationMilliseconds: Invalid value",
        ),
        (
            json!({"resourceRef": {"kind": "Pod"},
                   "next": {"statusTemplate": "phase: {{ Env \"X\" }}"}}),
            "spec.next.statusTemplate: Invalid value",
        ),
        (
            json!({"resourceRef": {"kind": "Pod"}, "selector": {"matchExpressions": [
                {"key": "status.phase", "operator": "Exists"}]}}),
            "spec.selector.matchExpressions[0].key: Invalid value",
        ),
        (
            json!({"resourceRef": {"kind": "Pod"}, "selector": {"matchExpressions": [
                {"key": ".status.phase", "operator": "In"}]}}),
            "spec.selector.matchExpressions[0].values: Required value",
        ),
        (json!({}), "spec.resourceRef.kind: Required value"),
    ];
    for (spec, want) in cases {
        let e = errors(spec);
        assert!(e[0].starts_with(want), "{e:?}");
    }
    let e = errors(json!({"resourceRef": {"kind": "Pod"},
                          "next": {"statusTemplate": "phase: {{ Env \"X\" }}"}}));
    assert!(
        e[0].contains("template: function \"Env\" not defined"),
        "{e:?}"
    );
    assert!(
        errors(json!({"resourceRef": {"kind": "Node"}}))[0].contains("Unsupported value: \"Node\"")
    );
}

#[test]
fn files_are_refused_with_file_stage_and_field() {
    let text = "apiVersion: kwok.x-k8s.io/v1alpha1\nkind: Stage\nmetadata:\n  name: bad\nspec:\n  resourceRef:\n    kind: Pod\n  weight: -1\n";
    let e = load::stages_of("stages.yaml", text).unwrap_err();
    assert!(
        e.starts_with("stages.yaml: Stage \"bad\": spec.weight: Invalid value: -1"),
        "{e}"
    );
    let e = load::stages_of(
        "x.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n",
    )
    .unwrap_err();
    assert!(e.contains("x.yaml: document 1: want kind Stage"), "{e}");
    let e = StageSet::load(&[PathBuf::from("/nonexistent/stages.yaml")]).unwrap_err();
    assert!(e.starts_with("/nonexistent/stages.yaml: "), "{e}");
}

#[test]
fn queries() {
    let q = |t: &str| query::Query::parse(t).unwrap();
    let obj =
        json!({"metadata": {"annotations": {"x/y": "5s"}, "ownerReferences": [{"kind": "Job"}]}});
    assert_eq!(
        q(".metadata.annotations[\"x/y\"]")
            .first_text(&obj)
            .as_deref(),
        Some("5s")
    );
    assert_eq!(
        q(".metadata.ownerReferences.[].kind").eval(&obj),
        [json!("Job")]
    );
    assert_eq!(
        q(".metadata.ownerReferences[].kind").eval(&obj),
        [json!("Job")]
    );
    assert!(q(".metadata.none").eval(&obj).is_empty());
    assert!(query::Query::parse(".a | select( .b > 1 )").is_err());
    assert!(query::Query::parse(".a[").is_err());
}
