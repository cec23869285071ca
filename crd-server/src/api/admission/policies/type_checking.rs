//! `status.typeChecking` of ValidatingAdmissionPolicies, as kube-controller-manager's
//! `validatingadmissionpolicy-status-controller` keeps it: once a policy's
//! `metadata.generation` is newer than its `status.observedGeneration`, its
//! expressions' type-checking warnings and the generation are written to its status.
//!
//! This module decides what to write; the write itself goes through the server's
//! write path, which the caller (the controller) hands in, so admission does not
//! depend on the write path that calls it.

use std::future::Future;
use std::time::Duration;

use serde_json::{Value, json};

use crd_runtime::admission::policy::SchemaOf;
use crd_runtime::model::JSONSchemaProps;

use super::follow::Followed;
use super::{Compiled, Policies};
use crate::api::object::int_at;

/// The longest wait before a failed write is tried again.
const MAX_RETRY: Duration = Duration::from_secs(30);

/// One policy's status to write.
#[derive(Clone, Debug, PartialEq)]
pub struct Pending {
    pub name: String,
    pub generation: i64,
    /// The `status` fields: `observedGeneration` and `typeChecking`.
    pub status: Value,
}

/// The status a policy's type checking gives (`expressionWarnings` left out when
/// empty, as the controller's apply configuration omits it).
pub fn desired(generation: i64, warnings: Vec<Value>) -> Value {
    let mut type_checking = json!({});
    if !warnings.is_empty() {
        type_checking["expressionWarnings"] = Value::Array(warnings);
    }
    json!({"observedGeneration": generation, "typeChecking": type_checking})
}

/// Whether `stored` (a policy as stored) still needs `generation`'s status.
pub fn outdated(stored: &Value, generation: i64) -> bool {
    let current = int_at(stored, "/metadata/generation");
    let observed = int_at(stored, "/status/observedGeneration");
    current == generation && generation > observed
}

/// The policies whose status is behind their generation. `schema_of` gives the kind
/// and structural schema of a served resource (the expressions are type-checked
/// against each kind a policy names).
pub fn pending(compiled: &Compiled, schema_of: SchemaOf) -> Vec<Pending> {
    let stored = &compiled.objects.kinds[Followed::ValidatingPolicy as usize];
    let behind = stored.values().any(|p| {
        let generation = p.pointer("/metadata/generation").and_then(Value::as_i64);
        generation.is_some_and(|g| outdated(p, g))
    });
    if !behind {
        return Vec::new();
    }
    compiled
        .validating
        .type_checking_with(schema_of)
        .into_iter()
        .filter(|(name, generation, _)| stored.get(name).is_some_and(|p| outdated(p, *generation)))
        .map(|(name, generation, warnings)| Pending {
            name,
            generation,
            status: desired(generation, warnings),
        })
        .collect()
}

/// Writes the pending statuses whenever the policies change, until the task is
/// aborted. `write` stores one (`Err`: tried again after a backoff).
pub async fn run<S, W, F>(policies: &Policies, schema_of: &S, write: W)
where
    S: Fn(&str, &str, &str) -> Option<(String, JSONSchemaProps)> + Sync,
    W: Fn(Pending) -> F,
    F: Future<Output = Result<(), String>>,
{
    let mut changes = policies.changes();
    let mut retry = Duration::from_millis(50);
    loop {
        let mut failed = false;
        let todo = pending(&policies.current(), schema_of);
        for p in todo {
            if write(p).await.is_err() {
                failed = true;
            }
        }
        if failed {
            tokio::time::sleep(retry).await;
            retry = (retry * 2).min(MAX_RETRY);
            continue;
        }
        retry = Duration::from_millis(50);
        if changes.changed().await.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_newer_generation_is_written() {
        let policy = json!({"metadata": {"generation": 2}, "status": {"observedGeneration": 1}});
        assert!(outdated(&policy, 2));
        assert!(!outdated(&policy, 1), "a stale compilation is not written");
        let done = json!({"metadata": {"generation": 2}, "status": {"observedGeneration": 2}});
        assert!(!outdated(&done, 2));
        assert!(outdated(&json!({"metadata": {"generation": 1}}), 1));
    }

    #[test]
    fn warnings_only_when_any() {
        assert_eq!(
            desired(3, Vec::new()),
            json!({"observedGeneration": 3, "typeChecking": {}})
        );
        let w = json!({"fieldRef": "spec.validations[0].expression", "warning": "x"});
        assert_eq!(
            desired(1, vec![w.clone()])["typeChecking"]["expressionWarnings"],
            json!([w])
        );
    }
}
