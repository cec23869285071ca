//! Cost and time limits for rule evaluation.
//!
//! The `cel` interpreter has no cost tracker, so the units cel-go's tracker
//! would count are charged from outside it: the cost of the part of a rule that
//! always runs is charged when it starts ([`Budget::meter`]), operands that may
//! not run and loop iterations charge through `@crd.tick` (see
//! [`crate::cel::compile::rewrite`] and [`crate::cel::cost::step`]), and the functions whose cost
//! depends on their arguments charge it when they run ([`charge`]). The limits
//! default to the API server's (`PerCallLimit` = 1,000,000 per expression,
//! `RuntimeCELCostBudget` = 10,000,000 per object); the wall-clock limit is ours.

use std::cell::RefCell;
use std::time::{Duration, Instant};

use kube_cel::cel::ExecutionError;

/// Limits for evaluating the rules of one object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Maximum cost of one expression (rule or messageExpression).
    pub per_expression: u64,
    /// Maximum total cost of all rules of one object.
    pub per_object: u64,
    /// Maximum wall-clock time for all rules of one object.
    pub time_per_object: Duration,
}

impl Default for Limits {
    /// The API server's cost limits and a 2-second wall-clock limit per object.
    fn default() -> Self {
        Limits {
            per_expression: 1_000_000,
            per_object: 10_000_000,
            time_per_object: Duration::from_secs(2),
        }
    }
}

/// Why an evaluation was stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Exceeded {
    /// The expression used more than [`Limits::per_expression`].
    Expression,
    /// The object's rules used more than [`Limits::per_object`].
    Object,
    /// The object's rules ran longer than [`Limits::time_per_object`].
    Time,
}

/// The running account of one object's evaluation: create one per object and
/// pass it to every evaluation of that object's rules.
#[derive(Debug)]
pub struct Budget {
    limits: Limits,
    deadline: Instant,
    /// Cost spent by finished expressions of this object.
    spent: u64,
    /// Set once a limit stopped evaluation: no further rule of the object runs.
    pub(crate) stopped: bool,
}

impl Budget {
    /// A fresh budget; the time limit starts now.
    pub fn new(limits: Limits) -> Budget {
        Budget {
            limits,
            deadline: Instant::now() + limits.time_per_object,
            spent: 0,
            stopped: false,
        }
    }

    /// Total cost spent so far.
    pub fn spent(&self) -> u64 {
        self.spent
    }

    /// Whether a limit was hit and the remaining rules were skipped.
    pub fn is_exhausted(&self) -> bool {
        self.stopped
    }

    /// Whether the per-object cost budget is already used up.
    pub(crate) fn used_up(&self) -> bool {
        self.spent >= self.limits.per_object
    }

    /// Runs `f` with a fresh per-expression meter charged against this budget.
    /// Returns `f`'s result, the expression's cost and whether a limit was hit.
    pub(crate) fn meter<T>(
        &mut self,
        static_cost: u64,
        f: impl FnOnce() -> T,
    ) -> (T, Option<Exceeded>) {
        let remaining = self.limits.per_object.saturating_sub(self.spent);
        let meter = Meter {
            used: 0,
            expr_limit: self.limits.per_expression,
            object_remaining: remaining,
            deadline: self.deadline,
            calls: 0,
            exceeded: None,
        };
        let previous = METER.with(|m| m.borrow_mut().replace(meter));
        // The static cost (one unit per node) is charged up front, like cel-go
        // charges every evaluated node.
        let _ = charge(static_cost);
        let out = f();
        let meter = METER.with(|m| std::mem::replace(&mut *m.borrow_mut(), previous));
        let (used, exceeded) = meter.map_or((0, None), |m| (m.used, m.exceeded));
        self.spent = self.spent.saturating_add(used);
        (out, exceeded)
    }
}

/// The meter of the expression being evaluated on this thread.
#[derive(Debug)]
struct Meter {
    used: u64,
    expr_limit: u64,
    object_remaining: u64,
    deadline: Instant,
    calls: u32,
    exceeded: Option<Exceeded>,
}

thread_local! {
    static METER: RefCell<Option<Meter>> = const { RefCell::new(None) };
}

/// The message cel-go gives when an expression exceeds its cost limit; the API
/// server matches on this prefix.
pub(crate) const COST_LIMIT_EXCEEDED: &str = "operation cancelled: actual cost limit exceeded";

/// Charges `cost` units to the current expression. Fails once a limit is exceeded;
/// outside a metered evaluation it does nothing.
pub(crate) fn charge(cost: u64) -> Result<(), ExecutionError> {
    METER.with(|m| {
        let mut m = m.borrow_mut();
        let Some(m) = m.as_mut() else { return Ok(()) };
        if let Some(e) = m.exceeded {
            return Err(exceeded_error(e));
        }
        m.used = m.used.saturating_add(cost);
        m.calls = m.calls.wrapping_add(1);
        let exceeded = if m.used > m.expr_limit {
            Some(Exceeded::Expression)
        } else if m.used > m.object_remaining {
            Some(Exceeded::Object)
        } else if m.calls % 64 == 0 && Instant::now() > m.deadline {
            Some(Exceeded::Time)
        } else {
            None
        };
        match exceeded {
            Some(e) => {
                m.exceeded = Some(e);
                Err(exceeded_error(e))
            }
            None => Ok(()),
        }
    })
}

/// Charges cel-go's cost of traversing `s` `factor` times
/// (`ceil(len × factor × StringTraversalCostFactor)`, `len` in code points):
/// the call cost the API server gives its parsing functions.
pub(crate) fn charge_traversal(s: &str, factor: f64) -> Result<(), ExecutionError> {
    charge((s.chars().count() as f64 * factor * 0.1).ceil() as u64)
}

fn exceeded_error(e: Exceeded) -> ExecutionError {
    let msg = match e {
        Exceeded::Expression | Exceeded::Object => COST_LIMIT_EXCEEDED,
        Exceeded::Time => "operation cancelled: evaluation time limit exceeded",
    };
    ExecutionError::function_error("cost", msg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metering_stops_at_the_expression_limit() {
        let mut b = Budget::new(Limits {
            per_expression: 10,
            per_object: 100,
            time_per_object: Duration::from_secs(60),
        });
        let (r, e) = b.meter(1, || {
            (0..20).map(|_| charge(1)).filter(|r| r.is_err()).count()
        });
        assert_eq!(e, Some(Exceeded::Expression));
        assert!(r > 0);
        // Charging is a no-op outside an evaluation.
        assert!(charge(u64::MAX).is_ok());
    }

    #[test]
    fn metering_accumulates_per_object() {
        let mut b = Budget::new(Limits {
            per_expression: 10,
            per_object: 15,
            time_per_object: Duration::from_secs(60),
        });
        let (_, e) = b.meter(0, || charge(8));
        assert_eq!(e, None);
        assert_eq!(b.spent(), 8);
        let (_, e) = b.meter(0, || charge(8));
        assert_eq!(e, Some(Exceeded::Object));
    }

    #[test]
    fn metering_stops_at_the_deadline() {
        let mut b = Budget::new(Limits {
            per_expression: u64::MAX,
            per_object: u64::MAX,
            time_per_object: Duration::ZERO,
        });
        std::thread::sleep(Duration::from_millis(2));
        let (_, e) = b.meter(0, || (0..128).all(|_| charge(1).is_ok()));
        assert_eq!(e, Some(Exceeded::Time));
    }
}
