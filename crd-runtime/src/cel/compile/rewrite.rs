//! Rewrites of a parsed rule before it is evaluated.
//!
//! - Every comprehension's loop condition `c` becomes `@crd.tick(n, c, m)`:
//!   each iteration charges what cel-go charges for the condition (`n`) and,
//!   when it lets the step run, for the step (`m`); the right operand of
//!   `&&`/`||` and the branches of `?:` become `@crd.tick(n, x)` (see
//!   [`crate::cel::cost::budget`] and [`crate::cel::cost::step`]).
//! - `cel.bind(x, init, body)` becomes the comprehension cel-go expands it to
//!   (an empty loop whose accumulator `x` is `init` and whose result is `body`);
//!   the `cel` crate has no such macro.

use crate::cel::cost::step as step_cost;
use crate::cel::environment::ast::{as_bind, for_each_child_mut};
use kube_cel::cel::common::ast::{
    CallExpr, ComprehensionExpr, Expr, IdedExpr, ListExpr, LiteralValue,
};

/// Name of the metering function inserted into comprehensions.
pub(crate) const TICK: &str = "@crd.tick";

/// Applies the rewrites to `e` in place.
pub(crate) fn instrument(e: &mut IdedExpr) {
    let _ = instrument_costed(e);
}

/// Applies the rewrites to `e` in place and returns what cel-go charges for
/// the parts of `e` that always run (see [`crate::cel::cost::step`]); the parts that
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
        let mut e = crate::cel::environment::syntax::parser(u32::MAX)
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
