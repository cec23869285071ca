//! Rewrites of a parsed rule before it is evaluated.
//!
//! - Every comprehension's loop condition `c` becomes `@crd.tick(n, c, m)`:
//!   each iteration charges what cel-go charges for the condition (`n`) and,
//!   when it lets the step run, for the step (`m`); the right operand of
//!   `&&`/`||` and the branches of `?:` become `@crd.tick(n, x)` (see
//!   [`super::budget`] and [`super::step_cost`]).
//! - `cel.bind(x, init, body)` becomes the comprehension cel-go expands it to
//!   (an empty loop whose accumulator `x` is `init` and whose result is `body`);
//!   the `cel` crate has no such macro.

use super::step_cost;
use kube_cel::cel::common::ast::{
    CallExpr, ComprehensionExpr, EntryExpr, Expr, IdedExpr, ListExpr, LiteralValue,
};

/// Name of the metering function inserted into comprehensions.
pub(crate) const TICK: &str = "@crd.tick";

/// Number of nodes in `e` (a static cost: every node is evaluated at least once).
pub(crate) fn node_count(e: &IdedExpr) -> u64 {
    let mut n = 1;
    for_each_child(e, &mut |c| n += node_count(c));
    n
}

/// Calls `f` on each direct sub-expression of `e`.
pub(crate) fn for_each_child<'a>(e: &'a IdedExpr, f: &mut dyn FnMut(&'a IdedExpr)) {
    match &e.expr {
        Expr::Call(c) => {
            if let Some(t) = &c.target {
                f(t);
            }
            c.args.iter().for_each(f);
        }
        Expr::Comprehension(c) => {
            for x in [
                &c.iter_range,
                &c.accu_init,
                &c.loop_cond,
                &c.loop_step,
                &c.result,
            ] {
                f(x);
            }
        }
        Expr::List(l) => l.elements.iter().for_each(f),
        Expr::Map(m) => {
            for entry in &m.entries {
                if let EntryExpr::MapEntry(me) = &entry.expr {
                    f(&me.key);
                    f(&me.value);
                }
            }
        }
        Expr::Select(s) => f(&s.operand),
        Expr::Struct(s) => {
            for entry in &s.entries {
                if let EntryExpr::StructField(sf) = &entry.expr {
                    f(&sf.value);
                }
            }
        }
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => {}
    }
}

/// Calls `f` on each direct sub-expression of `e`, mutably.
pub(crate) fn for_each_child_mut(e: &mut IdedExpr, f: &mut dyn FnMut(&mut IdedExpr)) {
    match &mut e.expr {
        Expr::Call(c) => {
            if let Some(t) = &mut c.target {
                f(t);
            }
            c.args.iter_mut().for_each(f);
        }
        Expr::Comprehension(c) => {
            let c = &mut **c;
            for x in [
                &mut c.iter_range,
                &mut c.accu_init,
                &mut c.loop_cond,
                &mut c.loop_step,
                &mut c.result,
            ] {
                f(x);
            }
        }
        Expr::List(l) => l.elements.iter_mut().for_each(f),
        Expr::Map(m) => {
            for entry in &mut m.entries {
                if let EntryExpr::MapEntry(me) = &mut entry.expr {
                    f(&mut me.key);
                    f(&mut me.value);
                }
            }
        }
        Expr::Select(s) => f(&mut s.operand),
        Expr::Struct(s) => {
            for entry in &mut s.entries {
                if let EntryExpr::StructField(sf) = &mut entry.expr {
                    f(&mut sf.value);
                }
            }
        }
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => {}
    }
}

/// Whether `e` is `cel.bind(<ident>, init, body)`.
pub(crate) fn as_bind(c: &CallExpr) -> Option<&str> {
    let target_is_cel =
        matches!(c.target.as_deref(), Some(IdedExpr { expr: Expr::Ident(t), .. }) if t == "cel");
    if c.func_name != "bind" || !target_is_cel || c.args.len() != 3 {
        return None;
    }
    match &c.args[0].expr {
        Expr::Ident(name) => Some(name),
        _ => None,
    }
}

/// Applies the rewrites to `e` in place.
pub(crate) fn instrument(e: &mut IdedExpr) {
    let _ = instrument_costed(e);
}

/// Applies the rewrites to `e` in place and returns what cel-go charges for
/// the parts of `e` that always run (see [`super::step_cost`]); the parts that
/// may not run (right operands of `&&`/`||`, branches of `?:`, loop bodies)
/// get a `@crd.tick` that charges their own cost when they do.
pub(crate) fn instrument_costed(e: &mut IdedExpr) -> u64 {
    if let Expr::Call(c) = &mut e.expr
        && let Some(var) = as_bind(c).map(str::to_string)
    {
        let mut args = std::mem::take(&mut c.args);
        let body = args.pop().unwrap_or_default();
        let init = args.pop().unwrap_or_default();
        e.expr = Expr::Comprehension(Box::new(ComprehensionExpr {
            iter_range: expr(Expr::List(ListExpr::new(Vec::new()))),
            iter_var: "#unused".into(),
            iter_var2: None,
            accu_var: var.clone(),
            accu_init: init,
            loop_cond: expr(Expr::Literal(LiteralValue::Boolean(false.into()))),
            loop_step: expr(Expr::Ident(var)),
            result: body,
        }));
    }
    match &mut e.expr {
        Expr::Comprehension(c) => {
            let c = &mut **c;
            let once = instrument_costed(&mut c.iter_range)
                + instrument_costed(&mut c.accu_init)
                + instrument_costed(&mut c.result);
            let cond_cost = instrument_costed(&mut c.loop_cond);
            let step_cost = instrument_costed(&mut c.loop_step);
            // One tick per iteration: the condition's cost always, the step's
            // when the condition lets it run (cel-go checks it before each step).
            let cond = std::mem::take(&mut c.loop_cond);
            c.loop_cond = tick(vec![int(cond_cost), cond, int(step_cost)]);
            once
        }
        Expr::Call(c) if step_cost::is_short_circuit(c) => {
            let mut args = c.args.iter_mut();
            let mut cost = args.next().map_or(0, instrument_costed);
            for branch in args {
                let branch_cost = instrument_costed(branch);
                if branch_cost > 0 {
                    let b = std::mem::take(branch);
                    *branch = tick(vec![int(branch_cost), b]);
                }
            }
            cost += step_cost::call_cost(c);
            cost
        }
        Expr::Call(c) => {
            let mut cost = step_cost::call_cost(c);
            let namespaced = step_cost::is_namespaced(c);
            if let Some(t) = &mut c.target
                && !namespaced
            {
                cost += instrument_costed(t);
            }
            for a in &mut c.args {
                cost += instrument_costed(a);
            }
            cost
        }
        _ => {
            let mut cost = step_cost::node_cost(e);
            for_each_child_mut(e, &mut |c| cost += instrument_costed(c));
            cost
        }
    }
}

fn tick(args: Vec<IdedExpr>) -> IdedExpr {
    expr(Expr::Call(CallExpr {
        func_name: TICK.into(),
        target: None,
        args,
    }))
}

fn int(n: u64) -> IdedExpr {
    expr(Expr::Literal(LiteralValue::Int(
        (n.min(i64::MAX as u64) as i64).into(),
    )))
}

fn expr(e: Expr) -> IdedExpr {
    IdedExpr { id: 0, expr: e }
}

#[cfg(test)]
mod tests {
    use super::instrument_costed;

    fn cost(src: &str) -> u64 {
        let mut e = super::super::syntax::parser(u32::MAX)
            .parse(src)
            .expect("parses");
        instrument_costed(&mut e)
    }

    #[test]
    fn unconditional_costs_follow_cel_go() {
        assert_eq!(cost("self.a.b == 1"), 4);
        assert_eq!(cost("has(self.a)"), 1);
        assert_eq!(cost("[1, 2].size()"), 11);
        assert_eq!(cost("{'a': 1}"), 30);
        // Only the left operand of `&&` always runs.
        assert_eq!(cost("self.a && self.b.c"), 2);
        assert_eq!(cost("self.a ? self.b : 1"), 2);
        // Namespaces are not identifiers; parsing functions charge when they run.
        assert_eq!(cost("sets.contains([], [1])"), 21);
        assert_eq!(
            cost("ip.isCanonical('::1') && cidr(self.c).ip() == ip('::1')"),
            0
        );
    }
}
