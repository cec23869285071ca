//! What evaluating a rule costs, in cel-go's units, before and while it runs.
//!
//! - `estimate`: the static cost estimate of a rule when a CRD or policy is written
//!   (cel-go's `checker.Cost` with Kubernetes' library cost estimator), from the
//!   size bounds of the data below each schema node (`sizes`);
//! - `limits`: the API server's limits on those estimates;
//! - `budget`: the cost and time limits while rules run ([`Budget`], [`Limits`]),
//!   charged per node as cel-go's runtime cost tracker does (`step`).

pub(in crate::cel) mod budget;
pub(in crate::cel) mod estimate;
pub(in crate::cel) mod limits;
pub(in crate::cel) mod sizes;
pub(in crate::cel) mod step;

pub use budget::{Budget, Limits};
pub use limits::{EstimatedCost, STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT};
