//! Behaviour tests of the CEL module as a whole (compile + evaluate).

use std::time::Duration;

use serde_json::{Value as Json, json};

use super::*;
use crate::field::Path;
use crate::model::JSONSchemaProps;

fn schema(v: Json) -> JSONSchemaProps {
    serde_json::from_value(v).expect("schema")
}

/// Compiles `s` (as a resource root) and validates `obj` against it.
fn run(s: &JSONSchemaProps, obj: Json, old: Option<Json>) -> Vec<String> {
    run_in(s, obj, old, CelEnvironment::NEWEST)
}

/// [`run`] with the rules compiled in `env`; the errors sorted.
pub(super) fn run_in(
    s: &JSONSchemaProps,
    obj: Json,
    old: Option<Json>,
    env: CelEnvironment,
) -> Vec<String> {
    let (v, errs) = Validator::new_in(s, true, env);
    assert!(errs.is_empty(), "compile errors: {errs:?}");
    let v = v.expect("rules");
    let mut out: Vec<String> = v
        .validate(&obj, old.as_ref())
        .iter()
        .map(ToString::to_string)
        .collect();
    out.sort();
    out
}

fn compile_errors(s: &JSONSchemaProps) -> Vec<String> {
    let (_, errs) = Validator::new(s, true);
    errs.iter()
        .map(|e| {
            e.to_field_error(&Path::new("spec.validation.openAPIV3Schema"))
                .to_string()
        })
        .collect()
}

fn rules(rules: Json) -> JSONSchemaProps {
    schema(json!({"type": "object", "properties": {"spec": {
        "type": "object",
        "properties": {
            "replicas": {"type": "integer"},
            "min": {"type": "integer"},
            "name": {"type": "string"},
            "list": {"type": "array", "items": {"type": "string"}},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}}
        },
        "x-kubernetes-validations": rules
    }}}))
}

/// A string `field` that must be `x` and a `spec` object whose `a` must be positive.
fn field_and_spec() -> JSONSchemaProps {
    schema(json!({"type": "object", "properties": {
        "field": {"type": "string", "x-kubernetes-validations": [{"rule": "self == 'x'"}]},
        "spec": {"type": "object", "properties": {"a": {"type": "integer"}},
                 "x-kubernetes-validations": [{"rule": "self.a > 0", "message": "a must be positive"}]}
    }}))
}

#[test]
fn up_to_1_34_objects_print_their_type() {
    let s = field_and_spec();
    let obj = json!({"field": "y", "spec": {"a": 0}});
    let strings = |minor| run_in(&s, obj.clone(), None, CelEnvironment::for_version(1, minor));
    assert_eq!(
        strings(34),
        vec![
            r#"field: Invalid value: "y": failed rule: self == 'x'"#,
            r#"spec: Invalid value: "object": a must be positive"#,
        ]
    );
    assert_eq!(strings(35)[1], "spec: Invalid value: a must be positive");
}

#[test]
fn scalar_failures_print_the_value_and_objects_their_type() {
    let s = field_and_spec();
    assert_eq!(
        run(&s, json!({"field": "y", "spec": {"a": 0}}), None),
        vec![
            r#"field: Invalid value: "y": failed rule: self == 'x'"#,
            r#"spec: Invalid value: a must be positive"#,
        ]
    );
    assert!(run(&s, json!({"field": "x", "spec": {"a": 1}}), None).is_empty());
}

#[test]
fn message_expression_reason_and_field_path() {
    let s = rules(json!([
        {"rule": "self.replicas >= self.min",
         "messageExpression": "'replicas ' + string(self.replicas) + ' below ' + string(self.min)",
         "fieldPath": ".replicas"},
        {"rule": "self.name != 'forbidden'", "reason": "FieldValueForbidden", "message": "name is forbidden"},
        {"rule": "!has(self.labels) || !('x' in self.labels)", "reason": "FieldValueRequired",
         "fieldPath": ".labels['x']"},
        {"rule": "self.replicas < 100", "messageExpression": "''", "message": "too many"}
    ]));
    assert_eq!(
        run(
            &s,
            json!({"spec": {"replicas": 100, "min": 101, "name": "forbidden", "labels": {"x": "1"}}}),
            None
        ),
        vec![
            "spec.labels[x]: Required value: failed rule: !has(self.labels) || !('x' in self.labels)",
            r#"spec.replicas: Invalid value: replicas 100 below 101"#,
            "spec: Forbidden: name is forbidden",
            r#"spec: Invalid value: too many"#,
        ]
    );
}

#[test]
fn evaluation_errors_are_reported_like_the_server() {
    let s = rules(json!([{"rule": "self.name.size() > 0"}, {"rule": "self.list[5] == 'a'"}]));
    assert_eq!(
        run(&s, json!({"spec": {"list": ["a"]}}), None),
        vec![
            r#"spec: Invalid value: "object": index out of bounds: 5 evaluating rule: self.list[5] == 'a'"#,
            r#"spec: Invalid value: "object": no such key: name evaluating rule: self.name.size() > 0"#,
        ]
    );
}

/// Found by the engine_admit fuzz target: a bad duration string was reported
/// with the `cel` crate's parser-internal Debug text.
#[test]
fn conversion_errors_are_worded_like_cel_go() {
    let s = schema(json!({"type": "object", "properties": {
        // With a message, the server names the rule by its message.
        "timeout": {"type": "string", "x-kubernetes-validations": [
            {"rule": "duration(self) > duration('1ms')", "message": "must be a valid duration greater than 1ms"}
        ]},
        "at": {"type": "string", "x-kubernetes-validations": [
            {"rule": "timestamp(self) > timestamp('2000-01-01T00:00:00Z')"}
        ]},
        "count": {"type": "string", "x-kubernetes-validations": [{"rule": "int(self) > 0"}]}
    }}));
    assert_eq!(
        run(
            &s,
            json!({"timeout": "string", "at": "yesterday", "count": "many"}),
            None
        ),
        vec![
            r#"at: Invalid value: "string": type conversion error from 'string' to 'google.protobuf.Timestamp' evaluating rule: timestamp(self) > timestamp('2000-01-01T00:00:00Z')"#,
            r#"count: Invalid value: "string": type conversion error from 'string' to 'int' evaluating rule: int(self) > 0"#,
            r#"timeout: Invalid value: "string": type conversion error from 'string' to 'google.protobuf.Duration' evaluating rule: must be a valid duration greater than 1ms"#,
        ]
    );
    assert!(
        run(
            &s,
            json!({"timeout": "2s", "at": "2020-01-01T00:00:00Z", "count": "3"}),
            None
        )
        .is_empty()
    );
    assert_eq!(
        run(&s, json!({"timeout": "1s trailing"}), None),
        vec![
            r#"timeout: Invalid value: "string": type conversion error from 'string' to 'google.protobuf.Duration' evaluating rule: must be a valid duration greater than 1ms"#,
        ]
    );
}

#[test]
fn transition_rules_need_an_old_object_unless_optional() {
    let s = schema(json!({"type": "object", "properties": {
        "field": {"type": "string", "x-kubernetes-validations": [
            {"rule": "self == oldSelf", "message": "immutable"},
            {"rule": "!oldSelf.hasValue() || oldSelf.value() != 'frozen'", "optionalOldSelf": true,
             "message": "frozen"},
            {"rule": "oldSelf.hasValue() || self != 'new'", "optionalOldSelf": true,
             "message": "no new on create"}
        ]}
    }}));
    assert_eq!(
        run(&s, json!({"field": "new"}), None),
        vec![r#"field: Invalid value: "new": no new on create"#]
    );
    assert!(run(&s, json!({"field": "x"}), None).is_empty());
    assert_eq!(
        run(&s, json!({"field": "y"}), Some(json!({"field": "frozen"}))),
        vec![
            r#"field: Invalid value: "y": frozen"#,
            r#"field: Invalid value: "y": immutable"#
        ]
    );
}

#[test]
fn map_lists_correlate_by_key_and_other_lists_do_not() {
    let item = |rule: &str| {
        json!({"type": "object", "properties": {
            "k": {"type": "string"},
            "v": {"type": "integer", "x-kubernetes-validations": [{"rule": rule}]}}})
    };
    let s = schema(json!({"type": "object", "properties": {
        "m": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"],
              "items": item("self >= oldSelf")},
        "a": {"type": "array", "items": item("self >= 0")}
    }}));
    let old = json!({"m": [{"k": "a", "v": 5}, {"k": "b", "v": 1}], "a": [{"k": "a", "v": 5}]});
    let new = json!({"m": [{"k": "b", "v": 2}, {"k": "a", "v": 4}], "a": [{"k": "a", "v": -1}]});
    assert_eq!(
        run(&s, new, Some(old)),
        vec![
            "a[0].v: Invalid value: -1: failed rule: self >= 0",
            "m[1].v: Invalid value: 4: failed rule: self >= oldSelf",
        ]
    );
    // A transition rule below a list that is not a map list can never run.
    let s = schema(
        json!({"type": "object", "properties": {"a": {"type": "array", "items": item("self >= oldSelf")}}}),
    );
    assert_eq!(
        compile_errors(&s),
        vec![
            "spec.validation.openAPIV3Schema.properties[a].items.properties[v].x-kubernetes-validations[0].rule: Invalid value: \"self >= oldSelf\": oldSelf cannot be used on the uncorrelatable portion of the schema within spec.validation.openAPIV3Schema.properties[a].items"
        ]
    );
}

#[test]
fn schema_typing_of_special_values() {
    let s = schema(
        json!({"type": "object", "properties": {"spec": {"type": "object",
        "properties": {
            "ios": {"x-kubernetes-int-or-string": true},
            "at": {"type": "string", "format": "date-time"},
            "timeout": {"type": "string", "format": "duration"},
            "ratio": {"type": "number"},
            "foo-bar": {"type": "string"},
            "namespace": {"type": "string"},
            "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
            "template": {"type": "object", "x-kubernetes-embedded-resource": true,
                         "x-kubernetes-preserve-unknown-fields": true}
        },
        "x-kubernetes-validations": [
            {"rule": "type(self.ios) == string ? self.ios.endsWith('%') : self.ios < 10"},
            {"rule": "self.at > timestamp('2020-01-01T00:00:00Z')"},
            {"rule": "self.timeout <= duration('1h')"},
            {"rule": "self.ratio < 1.5"},
            {"rule": "self.foo__dash__bar == self.__namespace__"},
            {"rule": "self.template.kind == 'Pod' && self.template.metadata.name.startsWith('p')"}
        ]}}}),
    );
    let ok = json!({"spec": {"ios": "5%", "at": "2024-05-01T10:00:00Z", "timeout": "30m",
        "ratio": 1, "foo-bar": "x", "namespace": "x", "extra": {"anything": 1},
        "template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p1"}}}});
    assert_eq!(run(&s, ok, None), Vec::<String>::new());
    let bad = json!({"spec": {"ios": 12, "at": "2019-05-01T10:00:00Z", "timeout": "2h",
        "ratio": 2, "foo-bar": "x", "namespace": "y",
        "template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "q"}}}});
    assert_eq!(run(&s, bad, None).len(), 6);
    // The root of a resource sees apiVersion, kind and metadata.name.
    let root = schema(json!({"type": "object", "x-kubernetes-validations": [
        {"rule": "self.metadata.name.startsWith(self.kind.lowerAscii())"}]}));
    assert!(
        run(
            &root,
            json!({"kind": "Foo", "metadata": {"name": "foo-1"}}),
            None
        )
        .is_empty()
    );
    assert_eq!(
        run(
            &root,
            json!({"kind": "Foo", "metadata": {"name": "bar"}}),
            None
        )
        .len(),
        1
    );
}

#[test]
fn cel_bind_and_kubernetes_libraries() {
    let s = rules(json!([
        {"rule": "cel.bind(n, self.name, n.size() > 2 && n.size() < 10)"},
        {"rule": "self.list.all(x, x.matches('^[a-z]+$')) && quantity('1Gi').isGreaterThan(quantity('1Mi'))"},
        {"rule": "!format.dns1123Label().validate(self.name).hasValue()"}
    ]));
    assert!(
        run(
            &s,
            json!({"spec": {"name": "abc", "list": ["a", "b"]}}),
            None
        )
        .is_empty()
    );
    assert_eq!(
        run(
            &s,
            json!({"spec": {"name": "A_B_C_D_E_F", "list": ["1"]}}),
            None
        )
        .len(),
        3
    );
}

#[test]
fn compile_errors_name_the_rule() {
    let s = rules(json!([
        {"rule": "self.nope == 1"},
        {"rule": "self.replicas == 'a'"},
        {"rule": "self.name"},
        {"rule": "self.name.startsWith("},
        {"rule": "self.replicas > 0", "messageExpression": "self.replicas"},
        {"rule": "self.replicas > 0", "fieldPath": ".missing"},
        {"rule": "self.replicas > 0", "reason": "Bogus"},
        {"rule": "self.replicas > 0", "optionalOldSelf": true},
        {"rule": "Foo{a: 1}"},
        {"rule": "self.replicas.startsWith('a')"},
        {"rule": "unknownFn(self)"},
        {"rule": " "}
    ]));
    let errs = compile_errors(&s);
    let p = "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations";
    let expect = [
        format!(
            "{p}[0].rule: Invalid value: \"self.nope == 1\": compilation failed: ERROR: <input>:1:5: undefined field 'nope'"
        ),
        format!(
            "{p}[1].rule: Invalid value: \"self.replicas == 'a'\": compilation failed: ERROR: <input>:1:1: found no matching overload for '_==_' applied to '(int, string)'"
        ),
        format!(
            "{p}[2].rule: Invalid value: \"self.name\": cel expression must evaluate to a bool"
        ),
        format!(
            "{p}[3].rule: Invalid value: \"self.name.startsWith(\": compilation failed: ERROR: <input>:1:"
        ),
        format!(
            "{p}[4].messageExpression: Invalid value: \"self.replicas > 0\": messageExpression must evaluate to a string"
        ),
        format!("{p}[5].fieldPath: Invalid value: \".missing\": fieldPath must be a valid path"),
        format!(
            "{p}[6].reason: Unsupported value: \"Bogus\": supported values: \"FieldValueDuplicate\""
        ),
        format!(
            "{p}[7].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule"
        ),
        format!(
            "{p}[8].rule: Invalid value: \"Foo{{a: 1}}\": compilation failed: ERROR: <input>:1:4: undeclared reference to 'Foo'"
        ),
        format!(
            "{p}[9].rule: Invalid value: \"self.replicas.startsWith('a')\": compilation failed: ERROR: <input>:1:25: found no matching overload for 'startsWith' applied to 'int.(string)'"
        ),
        format!(
            "{p}[10].rule: Invalid value: \"unknownFn(self)\": compilation failed: ERROR: <input>:1:10: undeclared reference to 'unknownFn'"
        ),
        format!("{p}[11].rule: Required value: rule is not specified"),
    ];
    assert_eq!(errs.len(), expect.len(), "{errs:#?}");
    for (got, want) in errs.iter().zip(&expect) {
        assert!(got.starts_with(want.as_str()), "got  {got}\nwant {want}");
    }
}

#[test]
fn hostile_rules_hit_the_cost_limit() {
    let s = schema(json!({"type": "object", "properties": {
        "l": {"type": "array", "items": {"type": "integer"},
              "x-kubernetes-validations": [
                {"rule": "self.all(a, self.all(b, self.all(c, a + b + c >= 0)))"},
                {"rule": "self.size() >= 0"}]},
        "s": {"type": "string", "x-kubernetes-validations": [
                {"rule": "self.replace('a', self).replace('a', self).replace('a', self).size() > 0"}]}
    }}));
    let (v, errs) = Validator::new(&s, true);
    assert!(errs.is_empty(), "{errs:?}");
    let v = v.expect("rules");
    let big: Vec<i64> = (0..200).collect();
    let errs = v.validate(&json!({"l": big}), None);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(
        errs[0].to_string(),
        "l: Invalid value: \"array\": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.all(a, self.all(b, self.all(c, a + b + c >= 0)))"
    );
    let errs = v.validate(&json!({"s": "a".repeat(2000)}), None);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0].detail.contains("cost limit exceeded"));
    // A small per-object budget stops after the first rules.
    let mut budget = Budget::new(Limits {
        per_expression: 1_000_000,
        per_object: 30,
        time_per_object: Duration::from_secs(10),
    });
    let errs = v.validate_with(
        &json!({"l": [1, 2, 3, 4, 5]}),
        None,
        &Path::root(),
        &mut budget,
    );
    assert!(budget.is_exhausted());
    assert!(
        errs.iter()
            .any(|e| e.detail.contains("running out of cost budget")),
        "{errs:?}"
    );
}

#[test]
fn blocking_errors_stop_cel() {
    let e = crate::field::FieldError::required(Path::new("spec.x"), "");
    assert_eq!(
        blocking_error(&[e]).expect("blocking").to_string(),
        "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"
    );
    let e =
        crate::field::FieldError::invalid(Path::new("spec.x"), crate::field::BadValue::Int(1), "x");
    assert!(blocking_error(&[e]).is_none());
}

#[test]
fn keywords_are_field_names_from_compatibility_version_1_31() {
    let s = schema(json!({"type": "object", "properties": {"if": {"type": "integer"}}}));
    let errors = |rule: &str, env: CelEnvironment| {
        let mut s = s.clone();
        s.x_kubernetes_validations =
            Some(vec![serde_json::from_value(json!({"rule": rule})).unwrap()]);
        Validator::new_in(&s, true, env).1.len()
    };
    // A 1.31 server compiles new rules at 1.30: only the escaped name works.
    let new_1_31 = CelEnvironment::for_version(1, 31);
    assert_eq!(errors("self.__if__ > 0", new_1_31), 0);
    assert_eq!(errors("self.if > 0", new_1_31), 1);
    assert_eq!(errors("self.if > 0", CelEnvironment::for_version(1, 32)), 0);
    // Its stored environment (unbounded compatibility version) has them.
    assert_eq!(
        errors("self.if > 0", CelEnvironment::stored_for_version(1, 31)),
        0
    );
    assert_eq!(
        errors("self.if > 0", CelEnvironment::stored_for_version(1, 30)),
        1
    );
    assert_eq!(errors("self.if > 0", CelEnvironment::NEWEST), 0);
}

#[test]
fn libraries_arrive_with_their_release() {
    let s = rules(json!([
        {"rule": "isSemver(self.name)"},
        {"rule": "!format.dns1123Label().validate(self.name).hasValue()"}
    ]));
    let errors = |env| {
        let (_, errs) = Validator::new_in(&s, true, env);
        errs.iter()
            .map(|e| e.to_field_error(&Path::new("s")).to_string())
            .collect::<Vec<_>>()
    };
    // Semver is base.go's 1.33 library: new rules on 1.34 servers, stored
    // ones on 1.33 servers.
    let new = |minor| errors(CelEnvironment::for_version(1, minor));
    assert!(new(34).is_empty(), "{:?}", new(34));
    assert!(errors(CelEnvironment::stored_for_version(1, 33)).is_empty());
    let e33 = new(33);
    assert_eq!(e33.len(), 1, "{e33:?}");
    assert!(
        e33[0].contains("undeclared reference to 'isSemver' (in container '')"),
        "{e33:?}"
    );
    // Format is 1.31's: a 1.31 server refuses it in a new rule.
    let e31 = new(31);
    assert_eq!(e31.len(), 2, "{e31:?}");
    assert!(
        e31[1].contains("undeclared reference to 'format.dns1123Label'"),
        "{e31:?}"
    );
    assert_eq!(new(32).len(), 1);
}

#[test]
fn unchanged_rules_of_an_update_compile_in_the_stored_environment() {
    let s = rules(json!([
        {"rule": "isSemver(self.name)"},
        {"rule": "isSemver(self.name + '.0')"}
    ]));
    let v = |minor| crate::KubeVersion::new(minor).unwrap();
    let mut old = crate::model::PreexistingExpressions::default();
    old.rules.insert("isSemver(self.name)".into());
    let (_, errs) = Validator::new_for_update(
        &s,
        true,
        CelEnvironment::for_kube(v(33)),
        CelEnvironment::stored_for_kube(v(33)),
        &old,
    );
    let errs: Vec<String> = errs
        .iter()
        .map(|e| e.to_field_error(&Path::new("s")).to_string())
        .collect();
    // The kept semver rule compiles (1.33 has the library); the new one is
    // compiled at 1.32 and refused.
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(
        errs[0].starts_with("s[1]") || errs[0].contains("[1]"),
        "{errs:?}"
    );
    assert!(
        errs[0].contains("undeclared reference to 'isSemver'"),
        "{errs:?}"
    );
}

/// cel-go's parser limits: depth 250 per grammar rule, 100,000 code points, at most
/// 100 errors. Rules just inside the limits compile and run on a 2 MiB thread (a
/// test thread, a tokio worker); rules beyond them fail with cel-go's message.
#[test]
fn parser_limits_hold_on_a_small_stack() {
    let small_stack = std::thread::Builder::new().stack_size(2 << 20);
    small_stack
        .spawn(|| {
            let sum = vec!["self.replicas"; 240].join(" + ");
            let parens = format!("{}self.replicas{}", "(".repeat(240), ")".repeat(240));
            let inside = rules(json!([
                {"rule": format!("{sum} >= 0")},
                {"rule": format!("{parens} >= 0")},
            ]));
            assert!(compile_errors(&inside).is_empty());
            assert!(run(&inside, json!({"spec": {"replicas": 1, "name": "a"}}), None).is_empty());
            // A 240-deep selection is parsed and type-checked (and fails the check).
            let fields = rules(json!([{"rule": format!("self{} != ''", ".name".repeat(240))}]));
            let errs = compile_errors(&fields);
            assert!(errs[0].contains("does not support field selection"), "{errs:?}");

            let deep_sum = vec!["1"; 20_000].join(" + ");
            let deep_select = format!("self{}", ".name".repeat(5_000));
            let deep_list = format!("{}{}", "[".repeat(5_000), "]".repeat(5_000));
            let beyond = rules(json!([
                {"rule": format!("{deep_sum} > 0")},
                {"rule": format!("{deep_select} == ''")},
                {"rule": format!("{deep_list} == []")},
                {"rule": format!("'{}' != ''", "a".repeat(100_001))},
                {"rule": "@ ".repeat(1_000)},
            ]));
            let errs = compile_errors(&beyond);
            assert_eq!(errs.len(), 5, "{errs:#?}");
            let recursion = "compilation failed: ERROR: <input>:-1:0: expression recursion limit exceeded: 250";
            for e in &errs[..3] {
                assert!(e.ends_with(recursion), "{}", &e[e.len() - 200..]);
            }
            assert!(errs[3].ends_with(
                "compilation failed: ERROR: <input>:-1:0: expression code point size exceeds limit: size: 100009, limit 100000"
            ));
            let flood = &errs[4];
            assert!(flood.ends_with("more errors were truncated"), "{flood}");
            assert!(flood.lines().count() <= 100 * 3 + 1, "{}", flood.lines().count());
            assert!(!flood.contains("ParseError {"), "Debug text: {flood}");
        })
        .expect("spawn")
        .join()
        .expect("no stack overflow, no panic");
}
