//! cel-go's estimates for `ext.Lists` v3 (`estimateListSlice`, `…Flatten`,
//! `…Range`, `…Reverse`, `…Distinct`, `…Sort`): every call allocates a list
//! (`estimateAllocatingListCall`: size × factor, plus 1 for the call and 10 for
//! the list), and the result has that size.

use kube_cel::cel::common::ast::{Expr, IdedExpr, LiteralValue};

use super::{Estimator, Range, STRING_TRAVERSAL};
use crate::cel::check::Ty;

/// cel-go's `ListCreateBaseCost` plus the call.
const ALLOCATING_CALL: u64 = 11;

impl<'a> Estimator<'a, '_> {
    /// The estimate of an `ext.Lists` call, or `None` when `name` is none of
    /// them (or the call has the wrong shape, which cel-go does not estimate).
    pub(super) fn ext_lists(
        &self,
        name: &str,
        target: Option<&IdedExpr>,
        args: &[IdedExpr],
    ) -> Option<(Range, Option<Range>)> {
        let allocating = |factor: f64, size: Range| {
            (
                size.factor(factor).add(Range::fixed(ALLOCATING_CALL)),
                Some(size),
            )
        };
        let target_size = || target.map(|t| self.size_or_unknown(t));
        Some(match (name, args.len()) {
            ("slice", 2) => {
                let sz = target_size()?;
                let start = literal_uint(&args[0]).unwrap_or(0);
                let end = literal_uint(&args[1]).unwrap_or(sz.max);
                allocating(1.0, Range::fixed(end.saturating_sub(start)))
            }
            ("lists.range", 1) if target.is_none() => allocating(
                1.0,
                Range::fixed(literal_uint(&args[0]).unwrap_or(u64::MAX)),
            ),
            ("reverse", 0) => allocating(1.0, target_size()?),
            ("flatten", 0 | 1) => {
                let depth = args.first().map_or(Some(1), literal_uint);
                allocating(depth.unwrap_or(u64::MAX) as f64, target_size()?)
            }
            ("distinct", 0) => {
                let sz = target_size()?;
                allocating(2.0, sz.mul(sz))
            }
            ("sort", 0) => {
                let t = target?;
                let sz = self.size_or_unknown(t);
                let factor = match self.ty(t) {
                    Ty::List(e) if matches!(*e, Ty::String | Ty::Bytes) => 2.0 + STRING_TRAVERSAL,
                    _ => 2.0,
                };
                allocating(factor, sz.mul(sz))
            }
            _ => return None,
        })
    }
}

/// `nodeAsUintValue`: an int literal (negative ones as 0), else `None`.
fn literal_uint(e: &IdedExpr) -> Option<u64> {
    match &e.expr {
        Expr::Literal(LiteralValue::Int(n)) => Some((*n.inner()).max(0) as u64),
        _ => None,
    }
}
