//! Macros of cel-go's extension libraries (patch of the vendored crate):
//! - `ext.TwoVarComprehensions`: `all`, `exists`, `existsOne`/`exists_one` with
//!   two iteration variables, `transformList`, `transformMap`,
//!   `transformMapEntry` (with an optional filter argument);
//! - `OptionalTypes`: `optMap` and `optFlatMap`;
//! - `ext.Lists` (version 2 and later): `sortBy`.
//!
//! Each expands to the same comprehension cel-go builds, so the interpreter and
//! any static analysis see the same shape as in cel-go.

use crate::common::ast::{
    operators, CallExpr, ComprehensionExpr, EntryExpr, Expr, IdedEntryExpr, IdedExpr, ListExpr,
    LiteralValue, MapEntryExpr, MapExpr, SelectExpr, StructExpr, StructFieldExpr,
};
use crate::parser::{MacroExprHelper, ParseError};

use super::macros::{extract_ident, map_macro_expander, MacroExpander, MacroSet};

/// Name of the accumulator cel-go's macros use.
pub const ACCUMULATOR: &str = "@result";
/// The accumulator name of older cel-go parsers, also reserved.
const LEGACY_ACCUMULATOR: &str = "__result__";
/// Global function inserting into the accumulated map of `transformMap` and
/// `transformMapEntry`: `cel.@mapInsert(map, key, value)` and `cel.@mapInsert(map, map)`.
pub const MAP_INSERT: &str = "cel.@mapInsert";
/// Member function sorting a list by a list of keys (`sortBy`).
pub const SORT_BY_ASSOCIATED_KEYS: &str = "@sortByAssociatedKeys";
/// The variable `sortBy` binds its target to.
const SORT_BY_INPUT: &str = "@__sortBy_input__";
/// The iteration variable of the empty loops `optMap`, `optFlatMap` and `sortBy` bind with.
const UNUSED_ITER_VAR: &str = "#unused";

pub(super) fn find_expander(
    func_name: &str,
    target: Option<&IdedExpr>,
    args: &[IdedExpr],
    set: MacroSet,
) -> Option<MacroExpander> {
    target?;
    let two_var = set.two_var_comprehensions;
    match (func_name, args.len()) {
        ("all", 3) if two_var => Some(all_two_var),
        ("exists", 3) if two_var => Some(exists_two_var),
        ("existsOne" | "exists_one", 3) if two_var => Some(exists_one_two_var),
        ("transformList", 3 | 4) if two_var => Some(transform_list),
        ("transformMap", 3 | 4) if two_var => Some(transform_map),
        ("transformMapEntry", 3 | 4) if two_var => Some(transform_map_entry),
        ("optMap", 2) if set.optional => Some(opt_map),
        ("optFlatMap", 2) if set.optional => Some(opt_flat_map),
        ("sortBy", 2) if set.sort_by => Some(sort_by),
        _ => None,
    }
}

fn error_at(helper: &MacroExprHelper, id: u64, msg: &str) -> ParseError {
    ParseError {
        source: None,
        pos: helper.pos_for(id).unwrap_or_default(),
        msg: msg.to_string(),
        expr_id: 0,
        source_info: None,
    }
}

fn ident(helper: &mut MacroExprHelper, name: &str) -> IdedExpr {
    helper.next_expr(Expr::Ident(name.to_string()))
}

fn accu(helper: &mut MacroExprHelper) -> IdedExpr {
    ident(helper, ACCUMULATOR)
}

fn literal(helper: &mut MacroExprHelper, value: LiteralValue) -> IdedExpr {
    helper.next_expr(Expr::Literal(value))
}

fn call(helper: &mut MacroExprHelper, name: &str, args: Vec<IdedExpr>) -> IdedExpr {
    helper.next_expr(Expr::Call(CallExpr {
        func_name: name.to_string(),
        target: None,
        args,
    }))
}

/// The two iteration variables, with cel-go's errors for names that are not
/// simple, equal, or the accumulator's.
fn iter_vars(
    helper: &mut MacroExprHelper,
    first: IdedExpr,
    second: IdedExpr,
) -> Result<(String, String), ParseError> {
    let (first_id, second_id) = (first.id, second.id);
    let v1 = extract_ident(first, helper)?;
    let v2 = extract_ident(second, helper)?;
    if v1 == v2 {
        return Err(error_at(
            helper,
            second_id,
            &format!("duplicate variable name: {v1}"),
        ));
    }
    for (name, id) in [(&v1, first_id), (&v2, second_id)] {
        if name == ACCUMULATOR || name == LEGACY_ACCUMULATOR {
            return Err(error_at(
                helper,
                id,
                "iteration variable overwrites accumulator variable",
            ));
        }
    }
    Ok((v1, v2))
}

struct Loop {
    init: IdedExpr,
    cond: IdedExpr,
    step: IdedExpr,
    result: IdedExpr,
}

fn two_var_loop(
    helper: &mut MacroExprHelper,
    target: Option<IdedExpr>,
    vars: (String, String),
    body: Loop,
) -> IdedExpr {
    helper.next_expr(Expr::Comprehension(Box::new(ComprehensionExpr {
        iter_range: target.unwrap_or_default(),
        iter_var: vars.0,
        iter_var2: Some(vars.1),
        accu_var: ACCUMULATOR.to_string(),
        accu_init: body.init,
        loop_cond: body.cond,
        loop_step: body.step,
        result: body.result,
    })))
}

/// Splits the arguments after the two variables into (filter, transform).
fn filter_and_transform(mut rest: Vec<IdedExpr>) -> (Option<IdedExpr>, IdedExpr) {
    let transform = rest.pop().unwrap_or_default();
    (rest.pop(), transform)
}

fn take_vars(
    helper: &mut MacroExprHelper,
    args: Vec<IdedExpr>,
) -> Result<((String, String), Vec<IdedExpr>), ParseError> {
    let mut args = args.into_iter();
    let first = args.next().unwrap_or_default();
    let second = args.next().unwrap_or_default();
    let vars = iter_vars(helper, first, second)?;
    Ok((vars, args.collect()))
}

fn all_two_var(
    helper: &mut MacroExprHelper,
    target: Option<IdedExpr>,
    args: Vec<IdedExpr>,
) -> Result<IdedExpr, ParseError> {
    let (vars, mut rest) = take_vars(helper, args)?;
    let predicate = rest.pop().unwrap_or_default();
    let init = literal(helper, LiteralValue::Boolean(true.into()));
    let a = accu(helper);
    let cond = call(helper, operators::NOT_STRICTLY_FALSE, vec![a]);
    let a = accu(helper);
    let step = call(helper, operators::LOGICAL_AND, vec![a, predicate]);
    let result = accu(helper);
    let body = Loop {
        init,
        cond,
        step,
        result,
    };
    Ok(two_var_loop(helper, target, vars, body))
}

fn exists_two_var(
    helper: &mut MacroExprHelper,
    target: Option<IdedExpr>,
    args: Vec<IdedExpr>,
) -> Result<IdedExpr, ParseError> {
    let (vars, mut rest) = take_vars(helper, args)?;
    let predicate = rest.pop().unwrap_or_default();
    let init = literal(helper, LiteralValue::Boolean(false.into()));
    let a = accu(helper);
    let not = call(helper, operators::LOGICAL_NOT, vec![a]);
    let cond = call(helper, operators::NOT_STRICTLY_FALSE, vec![not]);
    let a = accu(helper);
    let step = call(helper, operators::LOGICAL_OR, vec![a, predicate]);
    let result = accu(helper);
    let body = Loop {
        init,
        cond,
        step,
        result,
    };
    Ok(two_var_loop(helper, target, vars, body))
}

fn exists_one_two_var(
    helper: &mut MacroExprHelper,
    target: Option<IdedExpr>,
    args: Vec<IdedExpr>,
) -> Result<IdedExpr, ParseError> {
    let (vars, mut rest) = take_vars(helper, args)?;
    let predicate = rest.pop().unwrap_or_default();
    let init = literal(helper, LiteralValue::Int(0.into()));
    let cond = literal(helper, LiteralValue::Boolean(true.into()));
    let a = accu(helper);
    let one = literal(helper, LiteralValue::Int(1.into()));
    let plus_one = call(helper, operators::ADD, vec![a, one]);
    let a = accu(helper);
    let step = call(helper, operators::CONDITIONAL, vec![predicate, plus_one, a]);
    let a = accu(helper);
    let one = literal(helper, LiteralValue::Int(1.into()));
    let result = call(helper, operators::EQUALS, vec![a, one]);
    let body = Loop {
        init,
        cond,
        step,
        result,
    };
    Ok(two_var_loop(helper, target, vars, body))
}

/// `filter ? step : @result`, or `step` without a filter.
fn filtered(helper: &mut MacroExprHelper, filter: Option<IdedExpr>, step: IdedExpr) -> IdedExpr {
    match filter {
        Some(filter) => {
            let a = accu(helper);
            call(helper, operators::CONDITIONAL, vec![filter, step, a])
        }
        None => step,
    }
}

fn transform_list(
    helper: &mut MacroExprHelper,
    target: Option<IdedExpr>,
    args: Vec<IdedExpr>,
) -> Result<IdedExpr, ParseError> {
    let (vars, rest) = take_vars(helper, args)?;
    let (filter, transform) = filter_and_transform(rest);
    let a = accu(helper);
    let item = helper.next_expr(Expr::List(ListExpr::new(vec![transform])));
    let step = call(helper, operators::ADD, vec![a, item]);
    let step = filtered(helper, filter, step);
    let init = helper.next_expr(Expr::List(ListExpr::new(Vec::new())));
    let cond = literal(helper, LiteralValue::Boolean(true.into()));
    let result = accu(helper);
    let body = Loop {
        init,
        cond,
        step,
        result,
    };
    Ok(two_var_loop(helper, target, vars, body))
}

fn transform_map(
    helper: &mut MacroExprHelper,
    target: Option<IdedExpr>,
    args: Vec<IdedExpr>,
) -> Result<IdedExpr, ParseError> {
    let (vars, rest) = take_vars(helper, args)?;
    let (filter, transform) = filter_and_transform(rest);
    let a = accu(helper);
    let key = ident(helper, &vars.0);
    let step = call(helper, MAP_INSERT, vec![a, key, transform]);
    map_loop(helper, target, vars, filter, step)
}

fn transform_map_entry(
    helper: &mut MacroExprHelper,
    target: Option<IdedExpr>,
    args: Vec<IdedExpr>,
) -> Result<IdedExpr, ParseError> {
    let (vars, rest) = take_vars(helper, args)?;
    let (filter, transform) = filter_and_transform(rest);
    let a = accu(helper);
    let step = call(helper, MAP_INSERT, vec![a, transform]);
    map_loop(helper, target, vars, filter, step)
}

fn map_loop(
    helper: &mut MacroExprHelper,
    target: Option<IdedExpr>,
    vars: (String, String),
    filter: Option<IdedExpr>,
    step: IdedExpr,
) -> Result<IdedExpr, ParseError> {
    let step = filtered(helper, filter, step);
    let init = helper.next_expr(Expr::Map(MapExpr::default()));
    let cond = literal(helper, LiteralValue::Boolean(true.into()));
    let result = accu(helper);
    let body = Loop {
        init,
        cond,
        step,
        result,
    };
    Ok(two_var_loop(helper, target, vars, body))
}

/// An empty loop binding `var` to `init` while evaluating `body` (cel-go's
/// expansion of `cel.bind`, `optMap`, `sortBy`).
fn bind(helper: &mut MacroExprHelper, var: &str, init: IdedExpr, body: IdedExpr) -> IdedExpr {
    let range = helper.next_expr(Expr::List(ListExpr::new(Vec::new())));
    let cond = literal(helper, LiteralValue::Boolean(false.into()));
    let step = ident(helper, var);
    helper.next_expr(Expr::Comprehension(Box::new(ComprehensionExpr {
        iter_range: range,
        iter_var: UNUSED_ITER_VAR.to_string(),
        iter_var2: None,
        accu_var: var.to_string(),
        accu_init: init,
        loop_cond: cond,
        loop_step: step,
        result: body,
    })))
}

fn member_call(
    helper: &mut MacroExprHelper,
    name: &str,
    target: IdedExpr,
    args: Vec<IdedExpr>,
) -> IdedExpr {
    helper.next_expr(Expr::Call(CallExpr {
        func_name: name.to_string(),
        target: Some(Box::new(target)),
        args,
    }))
}

/// `t.optMap(v, e)` → `t.hasValue() ? optional.of(<bind v = t.value() in e>) : optional.none()`;
/// `optFlatMap` leaves out the `optional.of`.
fn opt_map_like(
    helper: &mut MacroExprHelper,
    target: Option<IdedExpr>,
    mut args: Vec<IdedExpr>,
    name: &str,
    wrap: bool,
) -> Result<IdedExpr, ParseError> {
    let target = target.unwrap_or_default();
    let map_expr = args.pop().unwrap_or_default();
    let var_expr = args.pop().unwrap_or_default();
    let var = match var_expr.expr {
        Expr::Ident(name) => name,
        _ => {
            return Err(error_at(
                helper,
                var_expr.id,
                &format!("{name}() variable name must be a simple identifier"),
            ))
        }
    };
    let copy = copy_expr(helper, &target);
    let value = member_call(helper, "value", copy, Vec::new());
    let bound = bind(helper, &var, value, map_expr);
    let then = if wrap {
        call(helper, "optional.of", vec![bound])
    } else {
        bound
    };
    let has_value = member_call(helper, "hasValue", target, Vec::new());
    let none = call(helper, "optional.none", Vec::new());
    Ok(call(
        helper,
        operators::CONDITIONAL,
        vec![has_value, then, none],
    ))
}

fn opt_map(
    helper: &mut MacroExprHelper,
    target: Option<IdedExpr>,
    args: Vec<IdedExpr>,
) -> Result<IdedExpr, ParseError> {
    opt_map_like(helper, target, args, "optMap", true)
}

fn opt_flat_map(
    helper: &mut MacroExprHelper,
    target: Option<IdedExpr>,
    args: Vec<IdedExpr>,
) -> Result<IdedExpr, ParseError> {
    opt_map_like(helper, target, args, "optFlatMap", false)
}

/// `l.sortBy(e, key)` → bind `@__sortBy_input__ = l` in
/// `@__sortBy_input__.@sortByAssociatedKeys(@__sortBy_input__.map(e, key))`.
fn sort_by(
    helper: &mut MacroExprHelper,
    target: Option<IdedExpr>,
    args: Vec<IdedExpr>,
) -> Result<IdedExpr, ParseError> {
    let target = target.unwrap_or_default();
    if !matches!(
        target.expr,
        Expr::List(_) | Expr::Select(_) | Expr::Ident(_) | Expr::Comprehension(_) | Expr::Call(_)
    ) {
        return Err(error_at(
            helper,
            target.id,
            "sortBy can only be applied to a list, identifier, comprehension, call or select expression",
        ));
    }
    let input = ident(helper, SORT_BY_INPUT);
    let keys = map_macro_expander(helper, Some(input), args)?;
    let input = ident(helper, SORT_BY_INPUT);
    let sorted = member_call(helper, SORT_BY_ASSOCIATED_KEYS, input, vec![keys]);
    Ok(bind(helper, SORT_BY_INPUT, target, sorted))
}

/// A deep copy of `e` with fresh ids (cel-go's `Copy`): a macro that uses its
/// target twice must not give two nodes the same id.
fn copy_expr(helper: &mut MacroExprHelper, e: &IdedExpr) -> IdedExpr {
    let expr = match &e.expr {
        Expr::Unspecified => Expr::Unspecified,
        Expr::Ident(name) => Expr::Ident(name.clone()),
        Expr::Literal(l) => Expr::Literal(l.clone()),
        Expr::Call(c) => Expr::Call(CallExpr {
            func_name: c.func_name.clone(),
            target: c.target.as_ref().map(|t| Box::new(copy_expr(helper, t))),
            args: c.args.iter().map(|a| copy_expr(helper, a)).collect(),
        }),
        Expr::Comprehension(c) => Expr::Comprehension(Box::new(ComprehensionExpr {
            iter_range: copy_expr(helper, &c.iter_range),
            iter_var: c.iter_var.clone(),
            iter_var2: c.iter_var2.clone(),
            accu_var: c.accu_var.clone(),
            accu_init: copy_expr(helper, &c.accu_init),
            loop_cond: copy_expr(helper, &c.loop_cond),
            loop_step: copy_expr(helper, &c.loop_step),
            result: copy_expr(helper, &c.result),
        })),
        Expr::List(l) => Expr::List(ListExpr::new_with_optionals(
            l.elements.iter().map(|x| copy_expr(helper, x)).collect(),
            l.optional_indices.clone(),
        )),
        Expr::Map(m) => Expr::Map(MapExpr {
            entries: m.entries.iter().map(|x| copy_entry(helper, x)).collect(),
        }),
        Expr::Select(s) => Expr::Select(SelectExpr {
            operand: Box::new(copy_expr(helper, &s.operand)),
            field: s.field.clone(),
            test: s.test,
        }),
        Expr::Struct(s) => Expr::Struct(StructExpr {
            type_name: s.type_name.clone(),
            entries: s.entries.iter().map(|x| copy_entry(helper, x)).collect(),
        }),
    };
    helper.next_expr(expr)
}

fn copy_entry(helper: &mut MacroExprHelper, e: &IdedEntryExpr) -> IdedEntryExpr {
    let expr = match &e.expr {
        EntryExpr::MapEntry(me) => EntryExpr::MapEntry(MapEntryExpr {
            key: copy_expr(helper, &me.key),
            value: copy_expr(helper, &me.value),
            optional: me.optional,
        }),
        EntryExpr::StructField(sf) => EntryExpr::StructField(StructFieldExpr {
            field: sf.field.clone(),
            value: copy_expr(helper, &sf.value),
            optional: sf.optional,
        }),
    };
    IdedEntryExpr {
        id: helper.next_id(),
        expr,
    }
}
