use serde_json::json;

use super::*;

struct Fake;

impl Host for Fake {
    fn now(&self) -> String {
        "2024-01-01T00:00:00Z".into()
    }
    fn pod_ip(&self) -> Result<String, String> {
        Ok("10.244.0.9".into())
    }
    fn node_ip(&self) -> String {
        "172.18.0.2".into()
    }
    fn node_name(&self) -> String {
        "kwok-node-0".into()
    }
    fn qos_class(&self) -> String {
        "BestEffort".into()
    }
}

fn run(text: &str, data: &Value) -> String {
    render(&parse(text).unwrap(), data, &Fake).unwrap()
}

#[test]
fn fields_variables_and_pipelines() {
    let pod = json!({"metadata": {"name": "web", "labels": {"app": "x"}},
                     "spec": {"containers": [{"name": "a"}, {"name": "b"}]}});
    assert_eq!(run("name: {{ .metadata.name }}", &pod), "name: web");
    assert_eq!(
        run("{{ $n := .metadata.name }}{{ $n | Quote }}", &pod),
        "\"web\""
    );
    assert_eq!(run("{{ (index .spec.containers 1).name }}", &pod), "b");
    assert_eq!(run("{{ index .metadata.labels \"app\" }}", &pod), "x");
    assert_eq!(run("{{ .missing.deeper }}|", &pod), "|");
    assert_eq!(
        run("{{ printf \"%s-%d\" .metadata.name 3 }}", &pod),
        "web-3"
    );
    assert_eq!(run("{{ len .spec.containers }}", &pod), "2");
    assert_eq!(
        run("{{ Now }} {{ PodIP }} {{ NodeIP }} {{ NodeName }}", &pod),
        "2024-01-01T00:00:00Z 10.244.0.9 172.18.0.2 kwok-node-0"
    );
    assert_eq!(
        run("{{ StartTime }}", &json!({"status": {"startTime": "t0"}})),
        "t0"
    );
    assert_eq!(run("{{ YAML .metadata.labels }}", &pod), "{\"app\":\"x\"}");
}

#[test]
fn control_structures_and_trimming() {
    let pod = json!({"spec": {"containers": [{"name": "a"}, {"name": "b"}]}, "n": 0});
    assert_eq!(
        run(
            "{{ range $i, $c := .spec.containers }}{{ $i }}={{ $c.name }} {{ end }}",
            &pod
        ),
        "0=a 1=b "
    );
    assert_eq!(
        run("{{ range .spec.containers }}{{ .name }}{{ end }}", &pod),
        "ab"
    );
    assert_eq!(
        run("{{ range .none }}x{{ else }}empty{{ end }}", &pod),
        "empty"
    );
    assert_eq!(
        run(
            "{{ if .n }}yes{{ else if .spec }}spec{{ else }}no{{ end }}",
            &pod
        ),
        "spec"
    );
    assert_eq!(
        run("{{ with .spec }}{{ len .containers }}{{ end }}", &pod),
        "2"
    );
    assert_eq!(
        run("{{ with .none }}x{{ else }}none{{ end }}", &pod),
        "none"
    );
    assert_eq!(run("a  {{- \"b\" -}}  c", &pod), "abc");
    assert_eq!(run("{{/* a comment */}}x", &pod), "x");
    assert_eq!(
        run("{{ if and (eq .n 0) (not .missing) }}ok{{ end }}", &pod),
        "ok"
    );
    assert_eq!(run("{{ $x := 1 }}{{ $x = 2 }}{{ $x }}", &pod), "2");
    assert_eq!(run("{{ or .missing \"default\" }}", &pod), "default");
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
    let e = render(&t, &json!({"list": [1]}), &Fake).unwrap_err();
    assert!(e.contains("index out of range"), "{e}");
    let t = parse("{{ .a | .b }}").unwrap();
    assert!(render(&t, &json!({}), &Fake).is_err());
}
