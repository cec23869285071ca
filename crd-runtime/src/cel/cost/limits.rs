//! The API server's limits on estimated rule costs, checked when a CRD is
//! written (`ValidateCustomResourceDefinitionOpenAPISchema`):
//! - a rule's cost is its estimated worst case times how often its node can
//!   occur in one object: the product of the `maxItems`/`maxProperties` of the
//!   lists and maps above it, or, if one of them is unbounded, how many of the
//!   node's smallest values fit into the largest request;
//! - a rule (or a `messageExpression`, not multiplied) costing more than
//!   [`STATIC_ESTIMATED_COST_LIMIT`] is forbidden;
//! - all rules and message expressions of a schema together may cost at most
//!   [`STATIC_ESTIMATED_CRD_COST_LIMIT`]; above it the (at most four) most
//!   expensive ones that contribute at least 1% are named, and the schema root.

use crate::field::{FieldError, Path};

/// Largest estimated cost of one expression.
pub const STATIC_ESTIMATED_COST_LIMIT: u64 = 10_000_000;
/// Largest estimated cost of all expressions of one schema.
pub const STATIC_ESTIMATED_CRD_COST_LIMIT: u64 = 100_000_000;

/// The sum of all costs and the most expensive contributors (`TotalCost`).
#[derive(Default)]
struct Total {
    total: u64,
    most_expensive: Vec<(Path, u64)>,
}

impl Total {
    fn observe(&mut self, path: Path, cost: u64) {
        self.total = self.total.saturating_add(cost);
        if cost < STATIC_ESTIMATED_CRD_COST_LIMIT / 100 {
            return;
        }
        self.most_expensive.push((path, cost));
        // Stable, so equal costs keep the order they were visited in.
        self.most_expensive.sort_by_key(|e| std::cmp::Reverse(e.1));
        self.most_expensive.truncate(4);
    }
}

/// `<what> exceeds budget by factor of <f>x (...)`, in the API server's words.
fn cost_error_message(what: &str, cost: u64, limit: u64) -> String {
    let factor = cost as f64 / limit as f64;
    let factor = if factor > 100.0 {
        "more than 100x".to_string()
    } else if factor < 1.5 {
        format!("{factor:.6}x")
    } else {
        format!("{factor:.1}x")
    };
    format!(
        "{what} exceeds budget by factor of {factor} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"
    )
}

/// The estimated cost of one expression of a schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EstimatedCost {
    /// `...x-kubernetes-validations[i].rule` or `...messageExpression`.
    pub path: Path,
    /// Whether the expression is a `messageExpression`.
    pub message_expression: bool,
    /// The worst-case cost, for a rule multiplied by how often its node can occur.
    pub cost: u64,
}

/// The cost errors of a schema at `root` whose expressions cost `costs` (in the
/// order the API server visits them): each over [`STATIC_ESTIMATED_COST_LIMIT`], and
/// the most expensive ones and the root when all together cost more than
/// [`STATIC_ESTIMATED_CRD_COST_LIMIT`].
pub(crate) fn limit_errors(costs: Vec<EstimatedCost>, root: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut total = Total::default();
    for e in costs {
        if e.cost > STATIC_ESTIMATED_COST_LIMIT {
            let what = if e.message_expression {
                "estimated messageExpression cost"
            } else {
                "estimated rule cost"
            };
            errs.push(FieldError::forbidden(
                e.path.clone(),
                cost_error_message(what, e.cost, STATIC_ESTIMATED_COST_LIMIT),
            ));
        }
        total.observe(e.path, e.cost);
    }
    if total.total > STATIC_ESTIMATED_CRD_COST_LIMIT {
        for (path, _) in &total.most_expensive {
            errs.push(FieldError::forbidden(
                path.clone(),
                "contributed to estimated rule & messageExpression cost total exceeding cost limit for entire OpenAPIv3 schema",
            ));
        }
        errs.push(FieldError::forbidden(
            root.clone(),
            cost_error_message(
                "x-kubernetes-validations estimated rule & messageExpression cost total for entire OpenAPIv3 schema",
                total.total,
                STATIC_ESTIMATED_CRD_COST_LIMIT,
            ),
        ));
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factors_are_printed_like_go() {
        let m = |c| cost_error_message("estimated rule cost", c, STATIC_ESTIMATED_COST_LIMIT);
        assert!(m(11_010_041).contains("by factor of 1.101004x (try simplifying"));
        assert!(m(25_000_000).contains("by factor of 2.5x"));
        assert!(m(u64::MAX).contains("by factor of more than 100x"));
    }
}
