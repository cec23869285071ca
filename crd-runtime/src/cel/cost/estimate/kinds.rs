//! Which Kubernetes library type a sub-expression has, for the API server's
//! equality estimate (`library.CostEstimator`, `_==_`, from 1.32). Our checker
//! types all library values as one opaque type, so the estimator tells them
//! apart by the call that built them.

use kube_cel::cel::common::ast::{Expr, IdedExpr};

use super::{Estimator, Range, STRING_TRAVERSAL};

/// A Kubernetes library type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Lib {
    Quantity,
    Ip,
    Cidr,
    Semver,
    Url,
    Format,
    /// `format.named(...)`: an optional format.
    OptionalFormat,
    Authorizer,
    PathCheck,
    GroupCheck,
    ResourceCheck,
    Decision,
}

/// `cel.MaxFormatSize`: the longest format name.
const MAX_FORMAT_SIZE: u64 = 64;

impl Estimator<'_, '_> {
    pub(super) fn kind(&self, e: &IdedExpr) -> Option<Lib> {
        if let Expr::Ident(name) = &e.expr
            && let Some(l) = self.local(name)
        {
            return l.kind;
        }
        self.kinds.get(&e.id).copied()
    }

    /// The library type a call to `name` returns, when it returns one.
    pub(super) fn call_kind(
        &self,
        name: &str,
        target: Option<&IdedExpr>,
        args: &[IdedExpr],
    ) -> Option<Lib> {
        let on = target.and_then(|t| self.kind(t));
        Some(match (name, on) {
            ("quantity", None) if target.is_none() => Lib::Quantity,
            ("add" | "sub", Some(Lib::Quantity)) => Lib::Quantity,
            ("ip", None) if target.is_none() => Lib::Ip,
            ("ip", Some(Lib::Cidr)) => Lib::Ip,
            ("cidr", None) if target.is_none() => Lib::Cidr,
            ("masked", Some(Lib::Cidr)) => Lib::Cidr,
            ("url", None) if target.is_none() => Lib::Url,
            ("semver", None) if target.is_none() => Lib::Semver,
            ("format.named", None) => Lib::OptionalFormat,
            ("value", Some(Lib::OptionalFormat)) => Lib::Format,
            (n, None) if target.is_none() && args.is_empty() && n.starts_with("format.") => {
                Lib::Format
            }
            ("serviceAccount", _) if target.is_some() => Lib::Authorizer,
            ("path", _) if target.is_some() => Lib::PathCheck,
            ("group", _) if target.is_some() => Lib::GroupCheck,
            ("resource", _) if target.is_some() => Lib::ResourceCheck,
            ("subresource" | "namespace" | "name", Some(Lib::ResourceCheck)) => Lib::ResourceCheck,
            ("check", Some(Lib::PathCheck | Lib::ResourceCheck)) => Lib::Decision,
            ("_[_]", _) if args.len() == 2 => self.item_kind(&args[0])?,
            ("_?_:_", _) if args.len() == 3 => {
                let k = self.kind(&args[1])?;
                if self.kind(&args[2]) != Some(k) {
                    return None;
                }
                k
            }
            _ => return None,
        })
    }

    /// The library type of the items of a list literal whose items all have
    /// the same one (the checker then types the list as a list of it).
    pub(super) fn item_kind(&self, list: &IdedExpr) -> Option<Lib> {
        let Expr::List(l) = &list.expr else {
            return None;
        };
        let first = self.kind(l.elements.first()?)?;
        l.elements
            .iter()
            .all(|x| self.kind(x) == Some(first))
            .then_some(first)
    }

    /// The library estimate of `a == b` on two values of the same Kubernetes
    /// type, without the operands' costs; `None` leaves it to cel-go.
    pub(super) fn library_equality(&self, a: &IdedExpr, b: &IdedExpr) -> Option<Range> {
        let k = self.kind(a)?;
        if self.kind(b) != Some(k) {
            return None;
        }
        Some(match k {
            Lib::Format => Range {
                min: 1,
                max: MAX_FORMAT_SIZE,
            }
            .factor(STRING_TRAVERSAL),
            // Upstream reads the right operand's size twice (not the left's).
            Lib::Url => {
                let max = self.size(b).map_or(1, |s| s.max);
                Range { min: 1, max }.factor(STRING_TRAVERSAL)
            }
            Lib::OptionalFormat => return None,
            _ => Range::fixed(1),
        })
    }
}
