//! Two-variable comprehensions, optional types and `sortBy` (see [`crate::cel::environment::syntax`]):
//! when they compile, their types, results and costs.

use serde_json::{Value as Json, json};

use super::*;
use crate::cel::check::{Checker, Ty};
use crate::cel::cost::estimate::estimate;
use crate::cel::cost::sizes::Place;
use crate::cel::environment::syntax::{SORT_BY_SINCE, TWO_VAR_COMPREHENSIONS_SINCE};
use crate::cel::schema::CelSchema;
use crate::field::Path;
use crate::model::JSONSchemaProps;

fn schema(v: Json) -> JSONSchemaProps {
    serde_json::from_value(v).expect("schema")
}

/// A resource whose `spec` has a map `m`, a list `l` and an int `n`, with `rules`.
fn spec_with(rules: Json) -> JSONSchemaProps {
    schema(json!({"type": "object", "properties": {"spec": {
        "type": "object",
        "properties": {
            "m": {"type": "object", "maxProperties": 10,
                  "additionalProperties": {"type": "string", "maxLength": 10}},
            "l": {"type": "array", "maxItems": 10, "items": {"type": "string", "maxLength": 10}},
            "n": {"type": "integer", "x-kubernetes-validations": [
                {"rule": "oldSelf.optMap(o, o == self).orValue(true)", "optionalOldSelf": true,
                 "message": "n is immutable"}
            ]}
        },
        "x-kubernetes-validations": rules
    }}}))
}

/// The environment whose libraries are those of `1.libraries` (what
/// `CelEnvironment::for_kube(1.(libraries+1))` compiles new rules in).
fn env(libraries: u32) -> CelEnvironment {
    CelEnvironment {
        libraries,
        ..CelEnvironment::NEWEST
    }
}

fn compile_errors(s: &JSONSchemaProps, env: CelEnvironment) -> Vec<String> {
    let (_, errs) = Validator::new_in(s, true, env);
    errs.iter()
        .map(|e| e.to_field_error(&Path::new("schema")).to_string())
        .collect()
}

fn validate(s: &JSONSchemaProps, obj: Json, old: Option<Json>) -> Vec<String> {
    super::tests::run_in(s, obj, old, env(TWO_VAR_COMPREHENSIONS_SINCE))
}

/// The rules of issue 34, as rules (a rule must be a bool).
fn issue_rules() -> Json {
    json!([
        {"rule": "self.m.all(k, v, v.size() > 0)", "message": "empty value"},
        {"rule": "self.l.exists(i, v, i < 5 && v == 'a')", "message": "no early a"},
        {"rule": "self.l.transformList(i, v, v + string(i)).all(s, s != 'b1')",
         "message": "b at 1"},
        {"rule": "self.m.transformMap(k, v, v + 'x').all(k, self.m[k] + 'x' != 'zx')",
         "message": "z value"}
    ])
}

#[test]
fn issue_rules_compile_from_the_1_32_environment_and_not_before() {
    let s = spec_with(issue_rules());
    for libraries in [TWO_VAR_COMPREHENSIONS_SINCE, 33, 37] {
        let errs = compile_errors(&s, env(libraries));
        assert!(errs.is_empty(), "1.{libraries}: {errs:?}");
    }
    let errs = compile_errors(&s, env(TWO_VAR_COMPREHENSIONS_SINCE - 1));
    assert_eq!(errs.len(), 4, "{errs:?}");
    // Without the library, `all(k, v, p)` is a call of an undeclared function with
    // undeclared arguments, as cel-go's checker reports it.
    assert!(
        errs[0].starts_with(
            "schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: \"self.m.all(k, v, v.size() > 0)\": compilation failed: ERROR: <input>:1:"
        ),
        "{errs:?}"
    );
    // `v.size()` is a method of an undeclared `v`, not a function `v.size`.
    assert!(!errs[0].contains("'v.size'"), "{errs:?}");
    for (i, part) in [
        (0, "undeclared reference to 'k' (in container '')"),
        (0, "undeclared reference to 'all' (in container '')"),
        (0, "undeclared reference to 'v' (in container '')"),
        (2, "undeclared reference to 'transformList'"),
        (3, "undeclared reference to 'transformMap'"),
    ] {
        assert!(errs[i].contains(part), "{part}: {errs:?}");
    }
    // The optional rule of kube-rs compiles in every supported environment.
    assert!(errs.iter().all(|e| !e.contains("optMap")), "{errs:?}");
}

#[test]
fn issue_rules_evaluate_on_objects() {
    let s = spec_with(issue_rules());
    let good = json!({"spec": {"m": {"a": "b"}, "l": ["x", "a"]}});
    assert!(validate(&s, good, None).is_empty());
    let bad = json!({"spec": {"m": {"a": "", "q": "z"}, "l": ["x", "b", "c", "d", "e", "a"]}});
    let msgs = validate(&s, bad, None);
    assert_eq!(
        msgs,
        vec![
            "spec: Invalid value: b at 1",
            "spec: Invalid value: empty value",
            "spec: Invalid value: no early a",
            "spec: Invalid value: z value",
        ]
    );
}

#[test]
fn optional_old_self_rule_of_kube_rs() {
    let s = spec_with(json!([]));
    let obj = |n: i64| json!({"spec": {"n": n}});
    // Created (no old object), unchanged, changed.
    assert!(validate(&s, obj(1), None).is_empty());
    assert!(validate(&s, obj(1), Some(obj(1))).is_empty());
    assert_eq!(
        validate(&s, obj(2), Some(obj(1))),
        vec!["spec.n: Invalid value: 2: n is immutable"]
    );
}

#[test]
fn transform_map_entry_and_its_duplicate_key_error() {
    let s = spec_with(json!([
        {"rule": "self.m.transformMapEntry(k, v, {v: k}).size() == self.m.size()",
         "message": "not injective"}
    ]));
    assert!(validate(&s, json!({"spec": {"m": {"a": "x", "b": "y"}}}), None).is_empty());
    let msgs = validate(&s, json!({"spec": {"m": {"a": "x", "b": "x"}}}), None);
    assert_eq!(msgs.len(), 1, "{msgs:?}");
    assert_eq!(
        msgs[0],
        "spec: Invalid value: \"object\": insert failed: key x already exists evaluating rule: not injective"
    );
}

#[test]
fn sort_by_from_the_1_34_environment() {
    let s = spec_with(json!([
        {"rule": "self.l.sortBy(e, -e.size())[0].size() >= self.l[0].size()"}
    ]));
    assert!(compile_errors(&s, env(SORT_BY_SINCE)).is_empty());
    let errs = compile_errors(&s, env(SORT_BY_SINCE - 1));
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(
        errs[0].contains("undeclared reference to 'sortBy'"),
        "{errs:?}"
    );
    let (v, _) = Validator::new_in(&s, true, env(SORT_BY_SINCE));
    let v = v.expect("rules");
    assert!(
        v.validate(&json!({"spec": {"l": ["a", "ccc", "bb"]}}), None)
            .is_empty()
    );
    // Keys that cannot be sorted are refused as cel-go's checker does.
    let lists = spec_with(json!([{"rule": "self.l.sortBy(e, [e]).size() > 0"}]));
    let errs = compile_errors(&lists, env(SORT_BY_SINCE));
    assert!(
        errs[0].contains("found no matching overload for '@sortByAssociatedKeys'"),
        "{errs:?}"
    );
}

/// The type cel-go's checker gives `src` with `self` of `schema`.
fn type_of(schema: Json, src: &str) -> Result<String, Vec<String>> {
    let s = self::schema(schema);
    let s = CelSchema::new(&s);
    let expr = crate::cel::environment::syntax::parser(u32::MAX)
        .parse(src)
        .expect("parses");
    let mut checker = Checker::new(Ty::of_schema(&s, false), None);
    let t = checker.check(&expr);
    if checker.problems.is_empty() {
        Ok(t.name())
    } else {
        Err(checker.problems.iter().map(|p| p.message.clone()).collect())
    }
}

/// Checks each `(expression, expected type or the one checker error)` with
/// `self` of `schema`.
fn assert_types(schema: &Json, cases: &[(&str, Result<&str, &str>)]) {
    for &(src, want) in cases {
        let want = want.map(String::from).map_err(|e| vec![e.to_string()]);
        assert_eq!(type_of(schema.clone(), src), want, "{src}");
    }
}

#[test]
fn iteration_variables_and_results_are_typed() {
    let list = json!({"type": "array", "items": {"type": "string"}});
    let map = json!({"type": "object", "additionalProperties": {"type": "integer"}});
    // The index is an int and the element a string; the key a string and the
    // value an int.
    assert_types(
        &list,
        &[
            (
                "self.transformList(i, v, v + string(i))",
                Ok("list(string)"),
            ),
            ("self.transformList(i, v, i > 0, i)", Ok("list(int)")),
            (
                "self.transformMapEntry(i, v, {v: i})",
                Ok("map(string, int)"),
            ),
            ("self.map(v, v.size())", Ok("list(int)")),
            (
                "self.all(i, v, v == 1)",
                Err("found no matching overload for '_==_' applied to '(string, int)'"),
            ),
            (
                "self.all(i, v, i == 'a')",
                Err("found no matching overload for '_==_' applied to '(int, string)'"),
            ),
        ],
    );
    assert_types(
        &map,
        &[
            ("self.transformMap(k, v, v > 0)", Ok("map(string, bool)")),
            (
                "self.exists(k, v, k == v)",
                Err("found no matching overload for '_==_' applied to '(string, int)'"),
            ),
        ],
    );
}

#[test]
fn optional_operations_are_typed() {
    let obj = json!({"type": "object", "properties": {
        "a": {"type": "integer"},
        "m": {"type": "object", "additionalProperties": {"type": "string"}}
    }});
    assert_types(
        &obj,
        &[
            ("self.?a", Ok("optional_type(int)")),
            ("self.?a.orValue(0)", Ok("int")),
            ("self.m[?'k']", Ok("optional_type(string)")),
            ("self.?m.?k", Ok("optional_type(string)")),
            ("self.?a.optMap(x, x > 1)", Ok("optional_type(bool)")),
            (
                "self.?a.optFlatMap(x, optional.of(string(x)))",
                Ok("optional_type(string)"),
            ),
            ("self.?a.hasValue()", Ok("bool")),
            ("self.?b", Err("undefined field 'b'")),
        ],
    );
}

/// The estimated (min, max) cost of `rule` with `self` of `schema`.
fn cost(schema: Json, rule: &str) -> (u64, u64) {
    let s = self::schema(schema);
    let s = CelSchema::new(&s);
    let expr = crate::cel::environment::syntax::parser(u32::MAX)
        .parse(rule)
        .expect("parses");
    let ty = Ty::of_schema(&s, false);
    let mut checker = Checker::new(ty.clone(), Some(Ty::Optional(Box::new(ty))));
    checker.check(&expr);
    assert!(checker.problems.is_empty(), "{:?}", checker.problems);
    let r = estimate(
        &expr,
        Place::Node(&s, false),
        &checker.types,
        crate::KubeVersion::default().minor(),
    );
    (r.min, r.max)
}

#[test]
fn costs_follow_cel_go() {
    let list = json!({"type": "array", "maxItems": 10, "items": {"type": "integer"}});
    let map = json!({"type": "object", "maxProperties": 10,
                     "additionalProperties": {"type": "integer"}});
    // The second variable costs nothing more than the one of `all(x, ...)`:
    // range 1 + result 1 + 10 × (condition 2 + step 1 + 2).
    assert_eq!(cost(list.clone(), "self.all(i, x, x > 0)").1, 52);
    assert_eq!(cost(map.clone(), "self.all(k, v, v > 0)").1, 52);
    // Reading the index: the step's comparison reads two variables.
    assert_eq!(cost(list.clone(), "self.all(i, x, i < x)").1, 62);
    // range 1 + `[]` 10 + result 1 + 10 × (`+` 1 + accumulator 1 + `[..]` 10 + 2).
    assert_eq!(cost(list.clone(), "self.transformList(i, v, v + 1)").1, 152);
    // range 1 + `{}` 30 + result 1 + 10 × (insert 1 + accumulator 1 + key 1 + 2).
    assert_eq!(cost(map.clone(), "self.transformMap(k, v, v + 1)").1, 82);
    // The result has as many entries as the range: `size()` is 1 more.
    assert_eq!(cost(map, "self.transformMap(k, v, v + 1).size()").1, 83);
    // hasValue 2; optional.of 1 + loop (`[]` 10 + value() 2 + `o == self` 2: an
    // integer node has no size, so comparing it traverses nothing); optional.none 1;
    // orValue 1.
    let int = json!({"type": "integer"});
    assert_eq!(
        cost(int, "oldSelf.optMap(o, o == self).orValue(true)"),
        (4, 18)
    );
    // sortBy binds the list (`[]` 10 + `self` 1) and sorts it (its name 1) by its
    // keys (the map loop: 1 + `[]` 10 + result 1 + 10 × (`+` 1 + 1 + `[..]` 10 + 2)
    // = 152) at 10² × 2 + 1 + 10.
    assert_eq!(cost(list, "self.sortBy(x, -x)").1, 10 + 1 + 1 + 152 + 211);
}

#[test]
fn run_time_costs_stop_hostile_loops_and_sorts() {
    let s = schema(json!({"type": "object", "properties": {
        "l": {"type": "array", "items": {"type": "integer"},
              "x-kubernetes-validations": [
                {"rule": "self.all(i, a, self.all(j, b, self.all(k, c, i + j + k >= 0)))"}]},
        "s": {"type": "array", "items": {"type": "integer"},
              "x-kubernetes-validations": [{"rule": "self.sortBy(x, -x).size() >= 0"}]}
    }}));
    let (v, errs) = Validator::new_in(&s, true, env(SORT_BY_SINCE));
    assert!(errs.is_empty(), "{errs:?}");
    let v = v.expect("rules");
    let limit = |errs: &[_]| {
        let errs: Vec<String> = errs.iter().map(ToString::to_string).collect::<Vec<_>>();
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(errs[0].contains("actual cost limit exceeded"), "{errs:?}");
    };
    let items = |n: i64| json!((0..n).collect::<Vec<_>>());
    // 200³ iterations of the innermost loop.
    limit(&v.validate(&json!({"l": items(200)}), None));
    // Sorting 800 keys costs 800² × 2 + 11 > 1,000,000; 600 keys 720,011.
    limit(&v.validate(&json!({"s": items(800)}), None));
    assert!(v.validate(&json!({"s": items(600)}), None).is_empty());
}
