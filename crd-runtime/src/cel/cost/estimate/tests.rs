//! Estimates worked out by hand from cel-go's and Kubernetes' cost rules.

use kube_cel::cel::parser::Parser;
use serde_json::json;

use super::estimate;
use crate::cel::check::{Checker, Ty};
use crate::cel::cost::sizes::Place;
use crate::cel::schema::CelSchema;
use crate::model::JSONSchemaProps;

/// The estimated (min, max) cost of `rule` on a node with `schema`.
fn cost(schema: serde_json::Value, rule: &str) -> (u64, u64) {
    cost_at(schema, rule, crate::KubeVersion::default().minor())
}

/// [`cost`] as a server of release 1.`release` estimates it.
fn cost_at(schema: serde_json::Value, rule: &str, release: u32) -> (u64, u64) {
    let s: JSONSchemaProps = serde_json::from_value(schema).unwrap();
    let s = CelSchema::new(&s);
    let expr = Parser::new()
        .enable_optional_syntax(true)
        .parse(rule)
        .unwrap();
    let mut checker = Checker::new(Ty::of_schema(&s, false), None);
    checker.check(&expr);
    assert!(checker.problems.is_empty(), "{:?}", checker.problems);
    let r = estimate(&expr, Place::Node(&s, false), &checker.types, release);
    (r.min, r.max)
}

#[test]
fn string_functions_traverse_their_inputs() {
    // maxLength 5000 is 20000 bytes: 2000 units, times ceil(7 × 0.1) for the
    // literal, plus 1 for `self`.
    let s = json!({"type": "string", "maxLength": 5000});
    assert_eq!(cost(s.clone(), "self.contains('keyword')").1, 2001);
    // (40 + 1) × 0.1 → 5, times the regex: 4 × 0.25 → 1; `self.x` costs 2.
    let obj = json!({"type": "object", "properties": {"x": {"type": "string", "maxLength": 10}}});
    assert_eq!(cost(obj.clone(), "self.x.matches('^a+$')").1, 7);
    // Equality traverses the shorter operand: min(40, 3) × 0.1 → 1, plus 2.
    assert_eq!(cost(obj.clone(), "self.x == 'abc'"), (3, 3));
    // Presence tests are free; `self` is not.
    assert_eq!(cost(obj, "has(self.x)"), (1, 1));
    // Without maxLength a string can fill a request (3 MiB minus the quotes).
    let unbounded = json!({"type": "string"});
    assert_eq!(cost(unbounded, "self.startsWith('ab')").1, 2);
}

#[test]
fn loops_multiply_their_body_by_the_range() {
    let list = json!({"type": "array", "maxItems": 10, "items": {"type": "integer"}});
    // range 1 + result 1 + 10 × (condition 2 + step 1 + 2).
    assert_eq!(cost(list.clone(), "self.all(x, x > 0)").1, 52);
    // An unbounded list of integers: (3 MiB - 2) / 2 items.
    let unbounded = json!({"type": "array", "items": {"type": "integer"}});
    let n = (3 * 1024 * 1024 - 2) / 2;
    assert_eq!(cost(unbounded, "self.all(x, x > 0)").1, 2 + n * 5);
    // `map` appends to a list: + 1, the accumulator 1, the literal 10, `x` 1.
    assert_eq!(
        cost(list, "self.map(x, x).size() == 0").1,
        // range 1 + init 10 + result 1 + 10 × (cond 0 + step 13) + size 1
        // + equality (min(10, 1) → 1) + 0
        1 + 10 + 1 + 10 * 13 + 1 + 1
    );
}

#[test]
fn concatenation_grows_and_bind_is_an_empty_loop() {
    let list = json!({"type": "array", "items": {"type": "string"}});
    let s = 3 * 1024 * 1024 - 2u64;
    let add = |n: u64| (n * s).div_ceil(10);
    // self[0] + self[1]: each index costs 2, the sum traverses both strings.
    // (Equality with '' has size 0: no traversal.)
    assert_eq!(cost(list.clone(), "self[0] + self[1] == ''").1, add(2) + 4);
    // Unknown sizes (string() of a string): traversing them costs a tenth of
    // the largest integer.
    assert_eq!(
        cost(list, "string(self[0]) + string(self[1]) == ''").1,
        (u64::MAX as f64 * 0.1).ceil() as u64 + 6
    );
    let obj = json!({"type": "object", "properties": {"s": {"type": "string", "maxLength": 1}}});
    // 10 (empty range) + init 2 + body (size 1 + x 1, > 1 + 2).
    assert_eq!(cost(obj, "cel.bind(x, self.s, x.size() > 0)").1, 15);
}

#[test]
fn library_functions_use_kubernetes_estimates() {
    let obj = json!({"type": "object", "properties": {
        "s": {"type": "string", "maxLength": 25},
        "l": {"type": "array", "maxItems": 4, "items": {"type": "string", "maxLength": 5}}
    }});
    // lowerAscii: 100 × 0.1; == with the literal: min(100, 1) → 1; self.s 2.
    assert_eq!(
        cost(obj.clone(), "self.s.lowerAscii() == 'a'").1,
        2 + 10 + 1
    );
    // isSorted over 4 strings of 20 bytes: 4 × (1 + 2) + self.l 2.
    assert_eq!(cost(obj.clone(), "self.l.isSorted()").1, 2 + 12);
    // sets.contains: 4 × 1 + 1, arguments 2 + 10.
    assert_eq!(cost(obj, "sets.contains(self.l, ['a'])").1, 4 + 1 + 2 + 10);
}

#[test]
fn converted_strings_have_no_size_bound() {
    // kubernetes/kubernetes#124234: the API server rejects this messageExpression
    // ("estimated messageExpression cost exceeds budget by factor of more than 100x").
    let obj = json!({"type": "object", "properties": {"attempts": {"type": "integer"}}});
    let (_, max) = cost(obj, "'invalid attempts: ' + string(self.attempts)");
    // Unbounded: 100 times the per-expression limit (`cost_limits`) and more.
    assert!(max > 100 * 10_000_000, "{max}");
}

#[test]
fn list_library_estimates_follow_cel_go_and_kubernetes() {
    let ints = json!({"type": "array", "maxItems": 10, "items": {"type": "integer"}});
    let strings = json!({"type": "array", "maxItems": 10,
        "items": {"type": "string", "maxLength": 5}});
    // `includes` (library.Lists v1), from cost_test.go: the literal 10 plus one
    // comparison per element; a string target is traversed once per byte.
    assert_eq!(cost(ints.clone(), "[1, 2, 3, 4, 5].includes(3)"), (15, 15));
    let fifty = format!("'{}'.includes('123')", "0123456789".repeat(5));
    assert_eq!(cost(ints.clone(), &fifty), (50, 50));
    // ext.Lists v3: size × factor + 11, `self` 1; sort compares every pair.
    assert_eq!(cost(ints.clone(), "self.sort()"), (12, 212));
    assert_eq!(cost(strings, "self.sort()"), (12, 222));
    assert_eq!(cost(ints.clone(), "self.distinct()"), (12, 212));
    assert_eq!(cost(ints.clone(), "self.reverse()"), (12, 22));
    assert_eq!(cost(ints.clone(), "self.slice(1, 3)"), (14, 14));
    assert_eq!(cost(ints.clone(), "lists.range(5)"), (16, 16));
    let nested = json!({"type": "array", "maxItems": 10,
        "items": {"type": "array", "maxItems": 3, "items": {"type": "integer"}}});
    assert_eq!(cost(nested.clone(), "self.flatten()"), (12, 22));
    assert_eq!(cost(nested, "self.flatten(2)"), (12, 32));
}

/// Unbounded: a tenth of the largest integer, as cel-go's traversal of a value
/// of unknown size.
const UNBOUNDED_TRAVERSAL: u64 = 1_844_674_407_370_955_264;

#[test]
fn equality_of_library_values_is_constant_from_1_32() {
    let obj = json!({"type": "object", "properties": {
        "a": {"type": "string", "maxLength": 20},
        "u": {"type": "string", "maxLength": 100}
    }});
    // quantity(self.a): self.a 2 + 80 bytes × 0.1; the literal: 4 × 0.1 → 1;
    // `==` 1 (library.CostEstimator, "Fix estimated cost for Kubernetes
    // defined CEL types", 1.32).
    let rule = "quantity(self.a) == quantity('1Gi')";
    assert_eq!(cost_at(obj.clone(), rule, 32), (4, 12));
    // Before, cel-go compared two values of unknown size: the API server of
    // 1.31 refuses such a rule.
    let old = cost_at(obj.clone(), rule, 31);
    assert!(old.1 >= UNBOUNDED_TRAVERSAL, "{old:?}");
    // Only `==` has the library estimate; `!=` stays cel-go's.
    let ne = "quantity(self.a) != quantity('1Gi')";
    assert!(cost_at(obj.clone(), ne, 37).1 >= UNBOUNDED_TRAVERSAL);
    // IP, CIDR and semver values alike; values of different types fall back.
    assert_eq!(
        cost_at(obj.clone(), "ip('10.0.0.1') == cidr('10.0.0.0/8').ip()", 37),
        (1 + 1 + 1 + 1, 1 + 1 + 1 + 1)
    );
    assert_eq!(
        cost_at(
            obj.clone(),
            "cidr(self.a).masked() == cidr('10.0.0.0/8')",
            37
        )
        .1,
        2 + 8 + 1 + 1 + 1
    );
    assert!(
        cost_at(obj.clone(), "dyn(ip('1.2.3.4')) == ip('1.2.3.4')", 37).1 >= UNBOUNDED_TRAVERSAL
    );
    // cel.bind keeps the type of its variable.
    assert_eq!(
        cost_at(obj.clone(), "cel.bind(q, quantity('1'), q == q)", 37),
        (10 + 1 + 1 + 1 + 1, 10 + 1 + 1 + 1 + 1)
    );
    // Items of a list literal of quantities are quantities: the loop variable
    // and an index compare at 1 (without the type, unbounded). The list 10 + 2
    // parses, the index 1, the literal 1, `==` 1.
    let items = "[quantity('1'), quantity('2')].exists(q, q == quantity('1'))";
    assert!(cost_at(obj.clone(), items, 37).1 < 100);
    let index = "[quantity('1'), quantity('2')][1] == quantity('2')";
    assert_eq!(cost_at(obj.clone(), index, 37), (15, 15));
    // URLs compare by the right operand's size (400 bytes × 0.1 → 40); url()
    // traverses its argument.
    assert_eq!(
        cost_at(obj.clone(), "url(self.u) == url(self.u)", 37),
        (2 + 2 + 1, 2 + 40 + 2 + 40 + 40)
    );
    // Formats: at most 64 characters → 7.
    let formats = "format.dns1123Label() == format.named('dns1123Label').value()";
    assert_eq!(cost_at(obj, formats, 37), (1 + 1 + 1 + 1, 1 + 1 + 1 + 7));
}

#[test]
fn parsers_traverse_their_argument() {
    let obj = json!({"type": "object", "properties": {"s": {"type": "string", "maxLength": 25}}});
    // 100 bytes × 0.1 and self.s 2, twice; `==` 1.
    for f in ["quantity", "ip", "cidr"] {
        let rule = format!("{f}(self.s) == {f}(self.s)");
        assert_eq!(cost_at(obj.clone(), &rule, 37).1, 25, "{f}");
    }
    for f in ["isQuantity", "isIP", "isCIDR"] {
        assert_eq!(
            cost_at(obj.clone(), &format!("{f}(self.s)"), 37),
            (2, 12),
            "{f}"
        );
    }
    // URLs compare up to the right one's size: 100 × 0.1.
    let urls = "url(self.s) == url(self.s)";
    assert_eq!(cost_at(obj.clone(), urls, 37).1, 34);
    // Before 1.32 a url() had no size, and neither had the comparison.
    assert!(cost_at(obj.clone(), urls, 31).1 >= UNBOUNDED_TRAVERSAL);
    // Twice for isCanonical (parse, then compare).
    assert_eq!(cost_at(obj.clone(), "ip.isCanonical(self.s)", 37), (2, 22));
    // semver's estimate comes with 1.33; cel-go's 1 before.
    assert_eq!(cost_at(obj.clone(), "isSemver(self.s)", 33), (2, 12));
    assert_eq!(cost_at(obj.clone(), "isSemver(self.s)", 32), (3, 3));
    // validate: the string × 0.1 × (128 × 0.25), from 1.31.
    let validate = "format.dns1123Label().validate(self.s).hasValue()";
    assert_eq!(cost_at(obj, validate, 37), (1 + 2 + 1, 1 + 2 + 320 + 1));
}
