//! Kubernetes' library cost estimates (`k8s.io/apiserver/pkg/cel/library`
//! `CostEstimator.EstimateCallCost`) and the sets extension's, which take
//! precedence over cel-go's own. They are picked by function name; some only
//! apply to the receiver-style call, exactly as upstream checks for a target.

use kube_cel::cel::common::ast::{Expr, IdedExpr, LiteralValue};

use super::{Estimator, REGEX_CHAR, Range, STRING_TRAVERSAL, extend};
use crate::cel::check::Ty;
use crate::cel::cost::sizes::Step;

impl<'a> Estimator<'a, '_> {
    /// The library estimate of a call, without its argument costs (the caller
    /// adds them), and the size of its result when known.
    pub(super) fn library(
        &self,
        name: &str,
        target: Option<&IdedExpr>,
        args: &[IdedExpr],
    ) -> Option<(Range, Option<Range>)> {
        let size = |i: usize| self.size_or_unknown(&args[i]);
        let one = Range::fixed(1);
        let t = target.map(|t| (t, self.size_or_unknown(t)));
        let release = self.release;
        Some(match name {
            // cel-go's sets extension: each pair compared once, twice for
            // `equivalent` (both directions).
            "sets.contains" | "sets.intersects" if args.len() == 2 => {
                (size(0).mul(size(1)).add(one), None)
            }
            "sets.equivalent" if args.len() == 2 => {
                (size(0).mul(size(1)).factor(2.0).add(one), None)
            }
            "_==_" if args.len() == 2 && release >= 32 => {
                return self.library_equality(&args[0], &args[1]).map(|c| (c, None));
            }
            "check" if target.is_some() => (Range::fixed(350_000), None),
            "serviceAccount" | "path" | "group" | "resource" | "subresource" | "namespace"
            | "name" | "allowed" | "reason" | "error" | "errored"
                if target.is_some() =>
            {
                (one, None)
            }
            "fieldSelector" | "labelSelector" if args.len() == 1 && release >= 31 => {
                (selector_cost(size(0)), None)
            }
            "isSorted" | "sum" | "max" | "min" | "indexOf" | "lastIndexOf" | "includes" => {
                let (t, sz) = t?;
                match self.ty(t) {
                    Ty::List(elem) => {
                        let mut el = one;
                        if matches!(*elem, Ty::String | Ty::Bytes) {
                            let items = self.path(t).map(|p| extend(Some(p), Step::Items));
                            el = el.add(self.place_size(&items).factor(STRING_TRAVERSAL));
                        }
                        (sz.mul(el), None)
                    }
                    // A dynamic target may be a list: one comparison per element.
                    _ if name == "includes" => (sz, None),
                    _ => (sz.factor(STRING_TRAVERSAL), None),
                }
            }
            // The result's size is the argument's from 1.32 on.
            "url" if args.len() == 1 && target.is_none() => {
                let sz = size(0);
                (sz.factor(STRING_TRAVERSAL), (release >= 32).then_some(sz))
            }
            "jsonpatch.escapeKey" if args.len() == 1 && release >= 32 => {
                let sz = size(0);
                (sz.factor(STRING_TRAVERSAL), Some(sz))
            }
            "lowerAscii" | "upperAscii" | "substring" | "trim" => {
                let (_, sz) = t?;
                (sz.factor(STRING_TRAVERSAL), Some(sz))
            }
            "replace" if args.len() >= 2 => {
                let (_, sz) = t?;
                let result = replace_size(sz, size(0), size(1));
                (sz.factor(2.0 * STRING_TRAVERSAL), Some(result))
            }
            "split" => {
                let (_, sz) = t?;
                let mut max = sz.max;
                if let Some(IdedExpr {
                    expr: Expr::Literal(LiteralValue::Int(n)),
                    ..
                }) = args.get(1)
                {
                    max = *n.inner() as u64;
                }
                (
                    sz.factor(2.0 * STRING_TRAVERSAL),
                    Some(Range { min: 0, max }),
                )
            }
            "join" => {
                let (t, list) = t?;
                let mut sz = Range::default();
                if matches!(self.ty(t), Ty::List(_)) {
                    let items = self.path(t).map(|p| extend(Some(p), Step::Items));
                    sz = list.mul(self.place_size(&items));
                }
                if !args.is_empty() {
                    let seps = Range {
                        min: list.min.saturating_sub(1),
                        max: list.max.saturating_sub(1),
                    };
                    sz = sz.add(size(0).mul(seps));
                }
                (sz.factor(STRING_TRAVERSAL), Some(sz))
            }
            "find" | "findAll" if !args.is_empty() => {
                let (_, sz) = t?;
                let s = sz.add(one).factor(STRING_TRAVERSAL);
                let r = size(0).factor(REGEX_CHAR);
                (
                    s.mul(r),
                    Some(Range {
                        min: 0,
                        max: sz.max,
                    }),
                )
            }
            // Parsers traverse their string argument.
            "cidr" | "isIP" | "isCIDR" | "quantity" | "isQuantity" if !args.is_empty() => {
                (size(0).factor(STRING_TRAVERSAL), None)
            }
            "semver" | "isSemver" if !args.is_empty() && release >= 33 => {
                (size(0).factor(STRING_TRAVERSAL), None)
            }
            // `cidr.ip()` reads a field.
            "ip" if target.is_some() => (one, None),
            "ip" if !args.is_empty() => (size(0).factor(STRING_TRAVERSAL), None),
            // Parsed, then compared with the original.
            "ip.isCanonical" if !args.is_empty() => (size(0).factor(2.0 * STRING_TRAVERSAL), None),
            // A format's regex is at most `cel.MaxNameFormatRegexSize` (128) long.
            "validate" if target.is_some() && !args.is_empty() && release >= 31 => (
                size(0).factor(STRING_TRAVERSAL).factor(128.0 * REGEX_CHAR),
                None,
            ),
            "masked"
            | "prefixLength"
            | "family"
            | "isUnspecified"
            | "isLoopback"
            | "isLinkLocalMulticast"
            | "isLinkLocalUnicast"
            | "isGlobalUnicast"
            | "format.named"
            | "major"
            | "minor"
            | "patch"
            | "getScheme"
            | "getHostname"
            | "getHost"
            | "getPort"
            | "getEscapedPath"
            | "getQuery"
            | "sign"
            | "asInteger"
            | "isInteger"
            | "asApproximateFloat"
            | "isGreaterThan"
            | "isLessThan"
            | "compareTo"
            | "add"
            | "sub" => (one, None),
            "containsIP" | "containsCIDR" if !args.is_empty() => {
                t?;
                let ip = Range { min: 4, max: 16 };
                let mut c = ip.add(ip).factor(STRING_TRAVERSAL);
                if name == "containsCIDR" {
                    c = c.add(ip.factor(STRING_TRAVERSAL)).add(one);
                }
                if matches!(self.ty(&args[0]), Ty::String) {
                    c = c.add(size(0).factor(STRING_TRAVERSAL));
                }
                (c, None)
            }
            _ => return None,
        })
    }
}

/// A field or label selector's parse (`selectorCostEstimate`): the list of
/// requirements (10), a traversal, and a list and a struct (10 + 40) per
/// requirement, at most one per 2 characters.
fn selector_cost(len: Range) -> Range {
    let requirements = len.factor(0.5);
    Range::fixed(10)
        .add(len.factor(STRING_TRAVERSAL))
        .add(requirements.factor(50.0))
}

/// The size of `s.replace(from, to)` (`library.CostEstimator`).
fn replace_size(s: Range, from: Range, to: Range) -> Range {
    // One bound of (replacements, characters kept) from the same bound of `s`: the
    // largest result replaces the shortest `from`, the smallest the longest one.
    let bound = |s: u64, from: u64, no_growth: bool| -> (u64, u64) {
        if from == 0 {
            (s.saturating_add(1), s)
        } else if no_growth {
            (0, s)
        } else {
            ((s as f64 / from as f64).ceil() as u64, 0)
        }
    };
    let (count_max, kept_max) = bound(s.max, from.min, to.max <= from.min);
    let (count_min, kept_min) = bound(s.min, from.max, from.max <= to.min);
    let count = Range {
        min: count_min,
        max: count_max,
    };
    let kept = Range {
        min: kept_min,
        max: kept_max,
    };
    count.mul(to).add(kept)
}
