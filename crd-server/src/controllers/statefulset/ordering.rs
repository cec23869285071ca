//! The order in which a StatefulSet's Pods are created, replaced and deleted, as
//! upstream's `updateStatefulSet`: replicas in ordinal order (a failed or succeeded
//! one replaced, a missing one created), then the condemned ones beyond the replicas
//! from the highest ordinal down, then — for a `RollingUpdate` — the Pods not at the
//! update revision from the highest ordinal down to the partition. `OrderedReady`
//! takes one step at a time and waits for every Pod before to be healthy; `Parallel`
//! takes every creation and deletion at once.

use std::sync::Arc;

use serde_json::Value;

use super::identity::{finished, ordinal, revision_of};
use crate::api::object::{is_deleting, str_at};

/// One step of a pass.
#[derive(Debug)]
pub enum Step {
    /// Create the Pod of `ordinal` (with its claims), from the current revision or the
    /// update revision.
    Create { ordinal: i64, from_current: bool },
    /// Delete a failed or succeeded replica (it is created again).
    Replace(Arc<Value>),
    /// Delete a Pod beyond the replicas.
    Condemn { ordinal: i64, pod: Arc<Value> },
    /// Delete a Pod not at the update revision (a rolling update).
    Update(Arc<Value>),
}

/// What the pass works from.
pub struct Params<'a> {
    pub set_name: &'a str,
    pub start: i64,
    pub replicas: i64,
    /// `OrderedReady`.
    pub monotonic: bool,
    /// `RollingUpdate` (not `OnDelete`).
    pub rolling: bool,
    pub partition: i64,
    pub update_revision: &'a str,
}

/// The steps of one pass over the set's Pods `mine`; `healthy`: Running, Ready,
/// available and not terminating.
pub fn plan(p: &Params, mine: &[Arc<Value>], healthy: &dyn Fn(&Value) -> bool) -> Vec<Step> {
    let mut replicas: Vec<Option<Arc<Value>>> = vec![None; p.replicas.max(0) as usize];
    let mut condemned = Vec::new();
    for pod in mine {
        let Some(ord) = ordinal(p.set_name, pod) else {
            continue;
        };
        if (p.start..p.start + p.replicas).contains(&ord) {
            replicas[(ord - p.start) as usize] = Some(pod.clone());
        } else {
            condemned.push((ord, pod.clone()));
        }
    }
    condemned.sort_by_key(|c| std::cmp::Reverse(c.0));
    let mut steps = Vec::new();
    for (i, slot) in replicas.iter().enumerate() {
        match slot {
            Some(pod) if finished(pod) => steps.push(Step::Replace(pod.clone())),
            None => steps.push(Step::Create {
                ordinal: p.start + i as i64,
                from_current: p.rolling && (i as i64) < p.partition,
            }),
            Some(pod) if healthy(pod) || !p.monotonic => continue,
            // OrderedReady: wait for it before going on.
            Some(_) => return steps,
        }
        if p.monotonic {
            return steps;
        }
    }
    let first_unhealthy = replicas
        .iter()
        .flatten()
        // The lowest unhealthy condemned ordinal (condemned is highest first).
        .chain(condemned.iter().rev().map(|(_, pod)| pod))
        .find(|pod| !healthy(pod))
        .map(|pod| str_at(pod, "/metadata/uid").to_string());
    for (ord, pod) in condemned {
        if is_deleting(&pod) {
            if p.monotonic {
                return steps;
            }
            continue;
        }
        if p.monotonic
            && !healthy(&pod)
            && first_unhealthy.as_deref() != Some(str_at(&pod, "/metadata/uid"))
        {
            return steps;
        }
        steps.push(Step::Condemn { ordinal: ord, pod });
        if p.monotonic {
            return steps;
        }
    }
    if !p.rolling {
        return steps;
    }
    for pod in replicas
        .iter()
        .skip(p.partition.max(0) as usize)
        .rev()
        .flatten()
    {
        if revision_of(pod) != p.update_revision && !is_deleting(pod) {
            steps.push(Step::Update(pod.clone()));
            return steps;
        }
        if !healthy(pod) {
            return steps;
        }
    }
    steps
}
