//! Tests of the patches (see README.md): two-variable comprehensions, optional
//! types and `sortBy`, each enabled by its parser option as cel-go's libraries
//! add them.

use crate::common::ast::{Expr, IdedExpr};
use crate::objects::{OptionalValue, Value};
use crate::parser::Parser;
use crate::Context;
use std::sync::Arc;

fn parser() -> Parser {
    Parser::new()
        .enable_optional_syntax(true)
        .enable_two_var_comprehensions(true)
        .enable_sort_by(true)
}

fn parse(src: &str) -> IdedExpr {
    parser().parse(src).unwrap_or_else(|e| panic!("{src}: {e}"))
}

fn eval_in(src: &str, ctx: &Context) -> Result<Value, String> {
    Value::resolve(&parse(src), ctx).map_err(|e| match e {
        crate::ExecutionError::FunctionError { message, .. } => message,
        other => other.to_string(),
    })
}

fn eval(src: &str) -> Result<Value, String> {
    eval_in(src, &Context::default())
}

fn ok(src: &str) -> Value {
    eval(src).unwrap_or_else(|e| panic!("{src}: {e}"))
}

fn parse_error(p: Parser, src: &str) -> String {
    match p.parse(src) {
        Ok(e) => panic!("{src} parsed: {e:?}"),
        Err(e) => e
            .errors
            .iter()
            .map(|e| e.msg.clone())
            .collect::<Vec<_>>()
            .join("; "),
    }
}

fn strings(items: &[&str]) -> Value {
    Value::List(Arc::new(items.iter().map(|s| Value::from(*s)).collect()))
}

#[test]
fn quantifiers_bind_index_and_element_of_lists() {
    assert_eq!(ok("[10, 20, 30].all(i, v, v > i)"), Value::Bool(true));
    assert_eq!(ok("[1, 2].all(i, v, i == v)"), Value::Bool(false));
    assert_eq!(ok("[0, 1].all(i, v, i == v)"), Value::Bool(true));
    assert_eq!(
        ok("['x', 'y', 'z'].exists(i, v, i == 2 && v == 'z')"),
        Value::Bool(true)
    );
    assert_eq!(ok("['x'].exists(i, v, i == 1)"), Value::Bool(false));
    assert_eq!(ok("[5, 5, 7].existsOne(i, v, v == 7)"), Value::Bool(true));
    assert_eq!(ok("[5, 5, 7].existsOne(i, v, v == 5)"), Value::Bool(false));
    assert_eq!(ok("[5, 5, 7].exists_one(i, v, i == 0)"), Value::Bool(true));
    assert_eq!(ok("[].all(i, v, false)"), Value::Bool(true));
}

#[test]
fn quantifiers_bind_key_and_value_of_maps() {
    assert_eq!(
        ok("{'a': 1, 'bb': 2}.all(k, v, v == k.size())"),
        Value::Bool(true)
    );
    assert_eq!(ok("{'a': 'b'}.exists(k, v, k == v)"), Value::Bool(false));
    assert_eq!(
        ok("{'a': 1, 'b': 1, 'c': 2}.existsOne(k, v, v == 2 && k == 'c')"),
        Value::Bool(true)
    );
}

#[test]
fn transform_list_with_and_without_filter() {
    assert_eq!(
        ok("['a', 'b'].transformList(i, v, v + string(i))"),
        strings(&["a0", "b1"])
    );
    assert_eq!(
        ok("[1, 2, 3, 4].transformList(i, v, i % 2 == 0, v * 10)"),
        Value::List(Arc::new(vec![Value::Int(10), Value::Int(30)]))
    );
    assert_eq!(
        ok("{'k': 'v'}.transformList(k, v, k + '=' + v)"),
        strings(&["k=v"])
    );
}

#[test]
fn transform_map_keeps_keys_and_maps_values() {
    assert_eq!(
        ok("{'a': 1, 'b': 2}.transformMap(k, v, v * 2)"),
        ok("{'a': 2, 'b': 4}")
    );
    assert_eq!(
        ok("{'a': 1, 'b': 2}.transformMap(k, v, v > 1, k + '!')"),
        ok("{'b': 'b!'}")
    );
    // A list's keys are its indices.
    assert_eq!(ok("[7, 8].transformMap(i, v, v + i)"), ok("{0: 7, 1: 9}"));
}

#[test]
fn transform_map_entry_merges_entries_and_refuses_duplicate_keys() {
    assert_eq!(
        ok("{'a': 'x', 'b': 'y'}.transformMapEntry(k, v, {v: k})"),
        ok("{'x': 'a', 'y': 'b'}")
    );
    assert_eq!(
        ok("{'a': 'x', 'b': 'y'}.transformMapEntry(k, v, k != 'a', {v: k, k: v})"),
        ok("{'y': 'b', 'b': 'y'}")
    );
    assert_eq!(
        eval("['p', 'p'].transformMapEntry(i, v, {v: i})"),
        Err("insert failed: key p already exists".to_string())
    );
    assert_eq!(
        eval("[1, 2].transformMapEntry(i, v, {1: v})"),
        Err("insert failed: key 1 already exists".to_string())
    );
}

#[test]
fn two_var_macros_report_bad_variables_like_cel_go() {
    assert_eq!(
        parse_error(parser(), "[1].all(i, i, true)"),
        "duplicate variable name: i"
    );
    assert_eq!(
        parse_error(parser(), "[1].exists(__result__, v, true)"),
        "iteration variable overwrites accumulator variable"
    );
    assert_eq!(
        parse_error(parser(), "[1].transformList(i, v.w, v)"),
        "argument must be a simple name"
    );
}

#[test]
fn two_var_macros_are_plain_calls_without_the_extension() {
    let e = Parser::new().parse("[1].all(i, v, v > 0)").unwrap();
    assert!(matches!(&e.expr, Expr::Call(c) if c.func_name == "all" && c.args.len() == 3));
    // The one-variable forms stay macros.
    let e = Parser::new().parse("[1].all(v, v > 0)").unwrap();
    assert!(matches!(&e.expr, Expr::Comprehension(c) if c.iter_var2.is_none()));
    let e = parse("[1].all(i, v, v > 0)");
    assert!(matches!(&e.expr, Expr::Comprehension(c) if c.iter_var2.as_deref() == Some("v")));
}

#[test]
fn opt_map_and_opt_flat_map() {
    assert_eq!(ok("optional.of(2).optMap(x, x * 3).value()"), Value::Int(6));
    assert_eq!(
        ok("optional.none().optMap(x, x * 3).hasValue()"),
        Value::Bool(false)
    );
    let flat = "optional.of(N).optFlatMap(x, x > 1 ? optional.of(x) : optional.none())";
    assert_eq!(
        ok(&format!("{}.value()", flat.replace('N', "2"))),
        Value::Int(2)
    );
    assert_eq!(
        ok(&format!("{}.hasValue()", flat.replace('N', "1"))),
        Value::Bool(false)
    );
    assert_eq!(
        parse_error(parser(), "optional.of(1).optMap(x.y, 1)"),
        "optMap() variable name must be a simple identifier"
    );
    assert_eq!(
        parse_error(parser(), "optional.of(1).optFlatMap(1, 1)"),
        "optFlatMap() variable name must be a simple identifier"
    );
}

#[test]
fn opt_map_gives_the_target_copy_fresh_ids() {
    let e = parse("a.b.optMap(x, x)");
    let mut ids = Vec::new();
    collect_ids(&e, &mut ids);
    let n = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), n, "duplicate ids in {e:?}");
}

fn collect_ids(e: &IdedExpr, ids: &mut Vec<u64>) {
    ids.push(e.id);
    match &e.expr {
        Expr::Call(c) => {
            c.target.iter().for_each(|t| collect_ids(t, ids));
            c.args.iter().for_each(|a| collect_ids(a, ids));
        }
        Expr::Comprehension(c) => {
            for x in [
                &c.iter_range,
                &c.accu_init,
                &c.loop_cond,
                &c.loop_step,
                &c.result,
            ] {
                collect_ids(x, ids);
            }
        }
        Expr::Select(s) => collect_ids(&s.operand, ids),
        Expr::List(l) => l.elements.iter().for_each(|x| collect_ids(x, ids)),
        _ => {}
    }
}

#[test]
fn optional_old_self_rule_of_kube_rs() {
    let rule = "oldSelf.optMap(o, o == self).orValue(true)";
    let run = |old: OptionalValue, new: i64| {
        let mut ctx = Context::default();
        ctx.add_variable_from_value("oldSelf", Value::Opaque(Arc::new(old)));
        ctx.add_variable_from_value("self", Value::Int(new));
        eval_in(rule, &ctx).unwrap()
    };
    assert_eq!(run(OptionalValue::none(), 1), Value::Bool(true));
    assert_eq!(run(OptionalValue::of(Value::Int(1)), 1), Value::Bool(true));
    assert_eq!(run(OptionalValue::of(Value::Int(2)), 1), Value::Bool(false));
}

#[test]
fn optional_selection_indexing_and_literals() {
    assert_eq!(ok("{'a': 1}[?'a'].orValue(0)"), Value::Int(1));
    assert_eq!(ok("{'a': 1}[?'b'].orValue(0)"), Value::Int(0));
    assert_eq!(ok("[1, 2][?1].value()"), Value::Int(2));
    assert_eq!(ok("[1, 2][?5].hasValue()"), Value::Bool(false));
    assert_eq!(ok("{'a': {'b': 2}}.?a.?b.orValue(0)"), Value::Int(2));
    assert_eq!(ok("{'a': {'b': 2}}.?x.?b.orValue(0)"), Value::Int(0));
    assert_eq!(ok("{'a': 1}.?b.hasValue()"), Value::Bool(false));
    assert_eq!(ok("optional.of({'a': 1}).?a.orValue(0)"), Value::Int(1));
    assert_eq!(ok("optional.of({'a': 1}).?b.orValue(0)"), Value::Int(0));
    assert_eq!(
        ok("optional.none().or(optional.of(3)).value()"),
        Value::Int(3)
    );
    assert_eq!(
        ok("[?optional.none(), ?optional.of(1), 2]"),
        Value::List(Arc::new(vec![Value::Int(1), Value::Int(2)]))
    );
    assert_eq!(
        ok("{?'a': optional.none(), ?'b': optional.of(2)}"),
        ok("{'b': 2}")
    );
    assert_eq!(
        ok("optional.ofNonZeroValue('').hasValue()"),
        Value::Bool(false)
    );
    assert_eq!(
        eval("optional.none().value()"),
        Err("optional.none() dereference".to_string())
    );
}

#[test]
fn an_optional_kept_in_a_variable_stays_optional() {
    // The accumulator of an empty loop holds the optional itself.
    assert_eq!(
        ok("[].map(x, x).size() == 0 && optional.of(1).optMap(o, optional.of(o)).value().value() == 1"),
        Value::Bool(true)
    );
}

#[test]
fn sort_by_orders_by_the_key_expression() {
    assert_eq!(
        ok("[3, 1, 2].sortBy(x, x)"),
        Value::List(Arc::new(vec![Value::Int(1), Value::Int(2), Value::Int(3)]))
    );
    assert_eq!(
        ok("['bb', 'a', 'ccc'].sortBy(s, -s.size())"),
        strings(&["ccc", "bb", "a"])
    );
    assert_eq!(
        ok("[{'n': 'b', 'k': 2}, {'n': 'a', 'k': 1}].sortBy(e, e.k).map(e, e.n)"),
        strings(&["a", "b"])
    );
    assert_eq!(ok("[].sortBy(x, x)"), Value::List(Arc::new(Vec::new())));
    assert_eq!(ok("[b'b', b'a'].sortBy(x, x)"), ok("[b'a', b'b']"));
}

#[test]
fn sort_by_errors_like_cel_go() {
    assert_eq!(
        eval("[1, 2].sortBy(x, x == 1 ? 'a' : 1)"),
        Err("list elements must have the same type".to_string())
    );
    assert_eq!(
        eval("[[1], [2]].sortBy(x, x)"),
        Err("list elements must be comparable".to_string())
    );
    assert_eq!(
        parse_error(parser(), "1.sortBy(x, x)"),
        "sortBy can only be applied to a list, identifier, comprehension, call or select expression"
    );
    let e = Parser::new().parse("[2, 1].sortBy(x, x)").unwrap();
    assert!(matches!(&e.expr, Expr::Call(c) if c.func_name == "sortBy"));
}

#[test]
fn optionals_compare_by_presence_and_value() {
    for src in [
        "optional.none() == optional.none()",
        "optional.of(1) == optional.of(1)",
        "optional.of('a') != optional.of('b')",
        "optional.of('a') != optional.none()",
        "optional.none() != optional.of(0)",
        "{'k': 'v'}[?'x'] == optional.none()",
        "[1][?0] == optional.of(1)",
        "optional.of([1, 2]) == optional.of([1, 2])",
    ] {
        assert_eq!(ok(src), Value::Bool(true), "{src}");
    }
}

#[test]
fn of_non_zero_value_treats_go_zero_values_as_absent() {
    for src in [
        "optional.ofNonZeroValue(0) == optional.none()",
        "optional.ofNonZeroValue(uint(0)) == optional.none()",
        "optional.ofNonZeroValue(0.0) == optional.none()",
        "optional.ofNonZeroValue(false) == optional.none()",
        "optional.ofNonZeroValue(null) == optional.none()",
        "optional.ofNonZeroValue([]) == optional.none()",
        "optional.ofNonZeroValue({}) == optional.none()",
        "optional.ofNonZeroValue(duration('0s')) == optional.none()",
        "optional.ofNonZeroValue(timestamp('0001-01-01T00:00:00Z')) == optional.none()",
        "optional.ofNonZeroValue(timestamp('0001-01-01T00:00:00.000000001Z')).hasValue()",
        "optional.ofNonZeroValue(timestamp('1970-01-01T00:00:00Z')).hasValue()",
        "optional.ofNonZeroValue(1) == optional.of(1)",
    ] {
        assert_eq!(ok(src), Value::Bool(true), "{src}");
    }
}

#[test]
fn numbers_of_different_types_are_equal_at_run_time() {
    // cel-go's heterogeneous equality: the checker rejects `1 == 1.0`, but
    // values typed dyn (or the empty sums of the lists library) compare by number.
    for src in [
        "dyn(0) == 0.0",
        "dyn(1) == 1u",
        "dyn(1u) == 1.0",
        "dyn(1) != 1.5",
        "dyn(-1) != 18446744073709551615u",
        "[1, 2] == [1.0, 2u]",
    ] {
        let mut ctx = Context::default();
        ctx.add_function("dyn", |v: Value| -> crate::ResolveResult { Ok(v) });
        assert_eq!(eval_in(src, &ctx), Ok(Value::Bool(true)), "{src}");
    }
    assert_eq!(ok("1 == 'a'"), Value::Bool(false));
}

#[test]
fn bytes_order_lexicographically() {
    assert_eq!(ok("max([b'a', b'c', b'b']) == b'c'"), Value::Bool(true));
    assert_eq!(ok("min([b'ab', b'a']) == b'a'"), Value::Bool(true));
}

#[test]
fn escaped_quotes_unescape_in_either_kind_of_string() {
    assert_eq!(ok(r#""\'" == "'""#), Value::Bool(true));
    assert_eq!(ok(r#"'\"' == '"'"#), Value::Bool(true));
    assert_eq!(ok(r#""it\'s" == 'it\'s'"#), Value::Bool(true));
}

#[test]
fn quantifiers_absorb_an_error_another_element_decides() {
    // cel-go: the error becomes the accumulator; `error || true` is true and
    // `error && false` is false, otherwise the error is the result.
    assert_eq!(ok("[0, 1].exists(x, 1 / x == 1)"), Value::Bool(true));
    assert_eq!(ok("[1, 0].exists(x, 1 / x == 1)"), Value::Bool(true));
    assert_eq!(ok("[0, 1].all(x, 1 / x == 2)"), Value::Bool(false));
    assert_eq!(ok("[0, 1].exists(i, v, 1 / v == 1)"), Value::Bool(true));
    assert_eq!(
        ok("{'a': 0, 'b': 1}.all(k, v, 1 / v == 2)"),
        Value::Bool(false)
    );
    for src in [
        "[0, 1].exists(x, 1 / x == 2)",
        "[0, 1].all(x, 1 / x == 1)",
        "[0, 1].map(x, 1 / x)",
        "[0, 1].exists_one(x, 1 / x == 1)",
    ] {
        assert!(eval(src).is_err(), "{src}");
    }
}
