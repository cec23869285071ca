//! Costs of what the extension macros expand to: the iteration variables of
//! two-variable comprehensions and `sortBy`'s sort.

use kube_cel::cel::common::ast::{ComprehensionExpr, IdedExpr};

use super::{Entry, Estimator, Local, Range, extend};
use crate::cel::check::Ty;
use crate::cel::cost::sizes::Step;
use crate::cel::environment::syntax::sort_by_factor;

impl Estimator<'_, '_> {
    /// cel-go's `pushIterKey`/`pushIterValue`: the first variable is a list's
    /// index (no schema node: an int, size 1) or a map's key; the second the item
    /// or value. Returns the number of variables pushed.
    pub(super) fn push_two_vars(
        &mut self,
        c: &ComprehensionExpr,
        second: &str,
        is_list: bool,
        range_entry: Option<Entry>,
    ) -> usize {
        let base = self.path(&c.iter_range);
        let (key_path, value_step) = if is_list {
            (None, Step::Items)
        } else {
            (Some(extend(base.clone(), Step::Keys)), Step::Values)
        };
        self.locals.push(Local {
            name: c.iter_var.clone(),
            path: key_path,
            size: range_entry.map(|en| en.key),
            entry: None,
            kind: None,
        });
        self.locals.push(Local {
            name: second.to_string(),
            path: Some(extend(base, value_step)),
            size: range_entry.map(|en| en.val),
            entry: None,
            kind: self.item_kind(&c.iter_range).filter(|_| is_list),
        });
        2
    }

    /// `sortBy`'s sort: cel-go's `estimateListSortBy` over the keys list (n² at
    /// [`sort_by_factor`], plus the call and the list), whose n² it also gives as
    /// the result's size.
    pub(super) fn sort_by(&mut self, keys: &IdedExpr, arg_sum: Range) -> (Range, Option<Range>) {
        let n = self.size_or_unknown(keys);
        let strings = matches!(
            self.ty(keys),
            Ty::List(k) if matches!(*k, Ty::String | Ty::Bytes)
        );
        let squared = n.mul(n);
        let cost = squared
            .factor(sort_by_factor(strings))
            .add(Range::fixed(1 + 10));
        (cost.add(arg_sum), Some(squared))
    }
}
