use serde_json::json;

use super::*;
use crate::stages::template::fake_host::FakeHost;

/// A Pod at a fixed time, IP and QoS class.
fn fake() -> FakeHost {
    FakeHost {
        now: "2024-01-01T00:00:00Z".into(),
        pod_ip: "10.244.0.9",
        qos_class: "BestEffort".into(),
    }
}

fn run(text: &str, data: &Value) -> String {
    render(&parse(text).unwrap(), data, &fake()).unwrap()
}

/// Each template rendered over `data` and what it must print.
fn assert_renders(data: &Value, cases: &[(&str, &str)]) {
    for (template, want) in cases {
        assert_eq!(run(template, data), *want, "{template}");
    }
}

#[test]
fn fields_variables_and_pipelines() {
    let pod = json!({"metadata": {"name": "web", "labels": {"app": "x"}},
                     "spec": {"containers": [{"name": "a"}, {"name": "b"}]}});
    assert_renders(
        &pod,
        &[
            ("name: {{ .metadata.name }}", "name: web"),
            ("{{ $n := .metadata.name }}{{ $n | Quote }}", "\"web\""),
            ("{{ (index .spec.containers 1).name }}", "b"),
            ("{{ index .metadata.labels \"app\" }}", "x"),
            ("{{ .missing.deeper }}|", "|"),
            ("{{ printf \"%s-%d\" .metadata.name 3 }}", "web-3"),
            ("{{ len .spec.containers }}", "2"),
            (
                "{{ Now }} {{ PodIP }} {{ NodeIP }} {{ NodeName }}",
                "2024-01-01T00:00:00Z 10.244.0.9 172.18.0.2 kwok-node-0",
            ),
            ("{{ YAML .metadata.labels }}", "{\"app\":\"x\"}"),
        ],
    );
    assert_eq!(
        run("{{ StartTime }}", &json!({"status": {"startTime": "t0"}})),
        "t0"
    );
}

#[test]
fn control_structures_and_trimming() {
    let pod = json!({"spec": {"containers": [{"name": "a"}, {"name": "b"}]}, "n": 0});
    assert_renders(
        &pod,
        &[
            (
                "{{ range $i, $c := .spec.containers }}{{ $i }}={{ $c.name }} {{ end }}",
                "0=a 1=b ",
            ),
            ("{{ range .spec.containers }}{{ .name }}{{ end }}", "ab"),
            ("{{ range .none }}x{{ else }}empty{{ end }}", "empty"),
            (
                "{{ if .n }}yes{{ else if .spec }}spec{{ else }}no{{ end }}",
                "spec",
            ),
            ("{{ with .spec }}{{ len .containers }}{{ end }}", "2"),
            ("{{ with .none }}x{{ else }}none{{ end }}", "none"),
            ("a  {{- \"b\" -}}  c", "abc"),
            ("{{/* a comment */}}x", "x"),
            ("{{ if and (eq .n 0) (not .missing) }}ok{{ end }}", "ok"),
            ("{{ $x := 1 }}{{ $x = 2 }}{{ $x }}", "2"),
            ("{{ or .missing \"default\" }}", "default"),
        ],
    );
}

#[test]
fn bad_templates_are_refused_with_the_reason() {
    let err = |t: &str| parse(t).unwrap_err();
    assert_eq!(err("{{ Env \"HOME\" }}"), "function \"Env\" not defined");
    assert!(
        err("{{ if .a }}x").contains("has no {{end}}"),
        "{}",
        err("{{ if .a }}x")
    );
    assert!(err("{{ .a ").contains("unclosed action"));
    assert!(err("{{ end }}").contains("unexpected {{end}}"));
    assert!(err("{{ \"x }}").contains("unclosed action"));
    assert!(err("{{ define \"x\" }}{{ end }}").contains("not supported"));
    // An error while running is an error, not a panic.
    let t = parse("{{ index .list 5 }}").unwrap();
    let e = render(&t, &json!({"list": [1]}), &fake()).unwrap_err();
    assert!(e.contains("index out of range"), "{e}");
    let t = parse("{{ .a | .b }}").unwrap();
    assert!(render(&t, &json!({}), &fake()).is_err());
}
