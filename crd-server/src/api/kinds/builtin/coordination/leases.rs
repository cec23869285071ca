//! Leases (coordination.k8s.io/v1, what leader election takes), as kube-apiserver
//! validates and prints them.

use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use serde_json::{Value, json};

use crate::api::kinds::builtin::behaviour::*;
use crate::api::table::Column;

/// Leases.
pub struct Leases;

defaults!(Leases: Defaulter, Preparer, Serving, Deleter, AllocateStrategy);

impl Validator for Leases {
    fn validate(&self, obj: &Value, _old: Option<&Value>, errs: &mut ErrorList) {
        let spec = Path::new("spec");
        if let Some(d) = obj
            .pointer("/spec/leaseDurationSeconds")
            .and_then(Value::as_i64)
            && d <= 0
        {
            errs.push(FieldError::invalid(
                spec.child("leaseDurationSeconds"),
                BadValue::Int(d),
                "must be greater than 0",
            ));
        }
        if let Some(t) = obj
            .pointer("/spec/leaseTransitions")
            .and_then(Value::as_i64)
            && t < 0
        {
            errs.push(FieldError::invalid(
                spec.child("leaseTransitions"),
                BadValue::Int(t),
                "must be greater than or equal to 0",
            ));
        }
        let has = |p: &str| {
            obj.pointer(p)
                .and_then(Value::as_str)
                .is_some_and(|s| !s.is_empty())
        };
        if has("/spec/preferredHolder") && !has("/spec/strategy") {
            errs.push(FieldError::forbidden(
                spec.child("preferredHolder"),
                "may only be specified if `strategy` is defined",
            ));
        }
    }
}

impl Printer for Leases {
    fn columns(&self) -> Vec<Column> {
        vec![
            Column::computed("Holder", "string", "The holder of the lease", |o| {
                o.pointer("/spec/holderIdentity")
                    .cloned()
                    .unwrap_or(json!(""))
            }),
            Column::builtin_age(),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lease_spec_is_checked_like_the_server() {
        let mut errs = ErrorList::new();
        let lease = json!({"spec": {"leaseDurationSeconds": 0, "leaseTransitions": -1, "preferredHolder": "a"}});
        Leases.validate(&lease, None, &mut errs);
        assert_eq!(
            errs.strings(),
            [
                "spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0",
                "spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0",
                "spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined"
            ]
        );
    }
}
