//! The checker's typing of what macros expand to: comprehensions with one or two
//! iteration variables and the accumulators of `map`, `filter`, `transformList`,
//! `transformMap`, `transformMapEntry`; optional selection `x.?f`; `sortBy`'s keys.

use kube_cel::cel::common::ast::{CallExpr, ComprehensionExpr, Expr, IdedExpr, LiteralValue};

use super::{Checker, Ty, unify};
use crate::cel::environment::syntax::Added;

impl<'a> Checker<'a> {
    pub(super) fn comprehension(&mut self, c: &ComprehensionExpr) -> Ty<'a> {
        let range = self.check(&c.iter_range);
        // (key, element): a list's index and item, a map's key and value.
        let (key_ty, elem_ty) = match &range {
            Ty::List(e) => (Ty::Int, (**e).clone()),
            Ty::Map(v) => (Ty::String, (**v).clone()),
            Ty::Dyn => (Ty::Dyn, Ty::Dyn),
            other => {
                let msg = format!(
                    "expression of type '{}' cannot be the range of a comprehension (must be list, map, or dynamic)",
                    other.name()
                );
                (self.problem(msg, None), Ty::Dyn)
            }
        };
        let mut vars = vec![];
        match &c.iter_var2 {
            // One variable: a list's items, a map's keys.
            None if matches!(range, Ty::List(_)) => vars.push((&c.iter_var, elem_ty)),
            None => vars.push((&c.iter_var, key_ty)),
            Some(v2) => vars.extend([(&c.iter_var, key_ty), (v2, elem_ty)]),
        }
        let accu = self.check(&c.accu_init);
        self.scopes.push((c.accu_var.clone(), accu));
        let n = vars.len();
        for (name, ty) in vars {
            self.scopes.push((name.clone(), ty));
        }
        self.check(&c.loop_cond);
        let step = self.check(&c.loop_step);
        self.scopes.truncate(self.scopes.len() - n);
        // The accumulator's type is what the loop step produces.
        let ty = |e: &IdedExpr| self.types.get(&e.id).cloned().unwrap_or(Ty::Dyn);
        let refined = match crate::cel::environment::syntax::accumulated(c) {
            Some(Added::ListItem(x)) => Some(Ty::List(Box::new(ty(x)))),
            Some(Added::MapValue(v)) => Some(Ty::Map(Box::new(ty(v)))),
            Some(Added::Entries(m)) => Some(ty(m)).filter(|t| matches!(t, Ty::Map(_))),
            None => None,
        };
        if let Some(last) = self.scopes.last_mut() {
            match refined {
                Some(t) => last.1 = t,
                None if last.1 != step => last.1 = unify(last.1.clone(), step),
                None => {}
            }
        }
        let t = self.check(&c.result);
        self.scopes.pop();
        t
    }

    /// `x.?f`: the type of field `f` of `x` (or of its value when `x` is
    /// optional), optional.
    pub(super) fn optional_select(&mut self, c: &CallExpr) -> Option<Ty<'a>> {
        let [operand, field] = c.args.as_slice() else {
            return None;
        };
        let Expr::Literal(LiteralValue::String(f)) = &field.expr else {
            return None;
        };
        if c.func_name != "_?._" {
            return None;
        }
        let t = match self.check(operand) {
            Ty::Optional(inner) => *inner,
            t => t,
        };
        self.check(field);
        Some(Ty::Optional(Box::new(self.select(&t, f.inner()))))
    }
}

/// Whether cel-go's `sortBy` accepts keys of type `t` (its comparable types).
pub(super) fn sortable_key(t: &Ty<'_>) -> bool {
    matches!(
        t,
        Ty::Dyn
            | Ty::Int
            | Ty::Uint
            | Ty::Double
            | Ty::Bool
            | Ty::String
            | Ty::Bytes
            | Ty::Timestamp
            | Ty::Duration
    )
}
