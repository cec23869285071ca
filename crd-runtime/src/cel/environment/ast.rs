//! Walking a parsed expression: its direct sub-expressions, its size, and the
//! `cel.bind` macro call (which the `cel` crate parses as a plain call).

use kube_cel::cel::common::ast::{CallExpr, EntryExpr, Expr, IdedExpr};

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
