//! The RBAC storage's escalation and bind checks on a write of a Role, ClusterRole or
//! binding ([`crate::auth::escalation`]), as the request's caller; the server's own
//! writes (no caller) are never checked.

use serde_json::Value;

use crate::api::kinds::Resource;
use crate::api::object::str_at;
use crate::api::status::{ApiError, Qualified};
use crate::auth::context;
use crate::auth::escalation::{self, Refusal, Write};

/// Refuses the write of `obj` (replacing `old`) when its caller would gain rights.
pub async fn check(
    res: &Resource,
    ns: Option<&str>,
    url_name: &str,
    obj: &Value,
    old: Option<&Value>,
) -> Result<(), ApiError> {
    let q = &res.info().q;
    if !escalation::guarded(&q.group, &q.plural) {
        return Ok(());
    }
    let Some(caller) = context::caller() else {
        return Ok(());
    };
    let write = Write {
        resource: &q.plural,
        namespace: ns.unwrap_or(""),
        url_name,
        obj,
        old,
    };
    match escalation::check_write(&caller.authorizer, &caller.user, &write).await {
        Ok(()) => Ok(()),
        Err(Refusal::Forbidden(why)) => Err(ApiError::forbidden_request(
            &q.group,
            &q.plural,
            str_at(obj, "/metadata/name"),
            &why,
        )),
        Err(Refusal::RoleNotFound(plural, name)) => {
            let role = Qualified {
                group: q.group.clone(),
                plural: plural.to_string(),
                kind: if plural == "roles" {
                    "Role"
                } else {
                    "ClusterRole"
                }
                .to_string(),
            };
            Err(ApiError::not_found(&role, &name))
        }
    }
}
