//! core/v1 ServiceAccounts, as kube-apiserver prints them.

use serde_json::json;

use crate::api::kinds::builtin::behaviour::*;
use crate::api::kinds::builtin::columns::length;
use crate::api::table::Column;

/// ServiceAccounts.
pub struct ServiceAccounts;

defaults!(ServiceAccounts: Defaulter, Validator, Preparer, Serving, Deleter, AllocateStrategy);

impl Printer for ServiceAccounts {
    fn columns(&self) -> Vec<Column> {
        vec![
            Column::computed(
                "Secrets",
                "string",
                "Secrets is a list of the secrets in the same namespace",
                |o| json!(length(o, "/secrets")),
            ),
            Column::builtin_age(),
        ]
    }
}
