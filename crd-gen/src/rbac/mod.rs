//! Least privilege from an audit log: the requests one user made (read from
//! kube-apiserver's `audit.k8s.io/v1` Event lines, or from crd-server's record), the
//! smallest Roles and ClusterRoles that allow all of them ([`minimal_roles`]), and a
//! comparison of given RBAC objects with those requests ([`check`]): the rules that
//! are missing and the ones never used. `crd-gen rbac` is a thin layer over this.
//!
//! ```
//! let log = r#"{"kind":"Event","apiVersion":"audit.k8s.io/v1","auditID":"1","stage":"ResponseComplete","verb":"list","requestURI":"/api/v1/namespaces/demo/pods","user":{"username":"alice","groups":["system:authenticated"]},"objectRef":{"resource":"pods","namespace":"demo","apiVersion":"v1"},"responseStatus":{"code":200}}"#;
//! let events = crd_gen::rbac::read_audit_log("audit.log", log).unwrap();
//! let requests = crd_gen::rbac::requests_of(&events, "alice");
//! let roles = crd_gen::rbac::minimal_roles(&requests, &crd_gen::rbac::RoleOptions::named("alice"));
//! assert_eq!(roles[0]["kind"], "Role");
//! assert_eq!(roles[0]["rules"][0]["resources"][0], "pods");
//! ```

mod check;
mod generate;

pub use check::{CheckReport, Missing, Unused, check};
pub use generate::{RoleOptions, minimal_roles};

use std::collections::{BTreeMap, BTreeSet};

use crd_runtime::rbac::{Attributes, UserInfo};
use serde::Deserialize;
use serde_json::Value;

/// One audit event: the fields of `audit.k8s.io/v1` `Event` the report reads.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct Event {
    /// The request's id; stages of one request share it.
    #[serde(rename = "auditID", default)]
    pub audit_id: String,
    /// `RequestReceived`, `ResponseStarted`, `ResponseComplete` or `Panic`.
    #[serde(default)]
    pub stage: String,
    /// The authorizer verb (`list`, `get`, ...; a lower-cased HTTP method for
    /// non-resource requests).
    #[serde(default)]
    pub verb: String,
    /// The request URI.
    #[serde(rename = "requestURI", default)]
    pub request_uri: String,
    /// Who made the request.
    #[serde(default)]
    pub user: UserInfo,
    /// Whom the request impersonated: the identity it was authorized as.
    #[serde(rename = "impersonatedUser", default)]
    pub impersonated_user: Option<UserInfo>,
    /// The object (absent for non-resource requests).
    #[serde(rename = "objectRef", default)]
    pub object_ref: Option<ObjectRef>,
    /// The response's status, when the stage has one.
    #[serde(rename = "responseStatus", default)]
    pub response_status: Option<ResponseStatus>,
    /// `authorization.k8s.io/decision` (`allow`/`forbid`) and the like.
    #[serde(default)]
    pub annotations: BTreeMap<String, String>,
}

/// An audit event's `objectRef`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct ObjectRef {
    /// The resource (plural).
    #[serde(default)]
    pub resource: String,
    /// The namespace.
    #[serde(default)]
    pub namespace: String,
    /// The object's name.
    #[serde(default)]
    pub name: String,
    /// The API group.
    #[serde(rename = "apiGroup", default)]
    pub api_group: String,
    /// The API version.
    #[serde(rename = "apiVersion", default)]
    pub api_version: String,
    /// The subresource.
    #[serde(default)]
    pub subresource: String,
}

/// An audit event's `responseStatus` (the code is all the report needs).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct ResponseStatus {
    /// The HTTP status code.
    #[serde(default)]
    pub code: u16,
}

impl Event {
    /// The identity the request was authorized as: the impersonated user, if any.
    pub fn effective_user(&self) -> &UserInfo {
        self.impersonated_user.as_ref().unwrap_or(&self.user)
    }

    /// Whether the authorizer refused the request (the decision annotation, or a
    /// 403 answer).
    pub fn forbidden(&self) -> bool {
        match self.annotations.get("authorization.k8s.io/decision") {
            Some(decision) => decision == "forbid",
            None => self.response_status.as_ref().is_some_and(|s| s.code == 403),
        }
    }

    /// The request as the authorizer saw it.
    pub fn attributes(&self) -> Attributes {
        let user = self.effective_user().clone();
        match &self.object_ref {
            Some(o) => Attributes {
                user,
                verb: self.verb.clone(),
                namespace: o.namespace.clone(),
                api_group: o.api_group.clone(),
                api_version: o.api_version.clone(),
                resource: o.resource.clone(),
                subresource: o.subresource.clone(),
                name: o.name.clone(),
                path: path_of(&self.request_uri),
                resource_request: true,
            },
            None => Attributes {
                user,
                verb: self.verb.clone(),
                path: path_of(&self.request_uri),
                ..Attributes::default()
            },
        }
    }
}

fn path_of(uri: &str) -> String {
    uri.split(['?', '#']).next().unwrap_or("").to_string()
}

/// Why an audit log could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditLogError {
    /// The log's name.
    pub source: String,
    /// The 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for AuditLogError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.source, self.line, self.message)
    }
}

impl std::error::Error for AuditLogError {}

/// Reads an audit log: one `Event` per line, as kube-apiserver's `--audit-log-path`
/// writes it (an `EventList` object per line is read too). Blank lines are skipped;
/// a line that is not an event is an error naming it.
pub fn read_audit_log(source: &str, text: &str) -> Result<Vec<Event>, AuditLogError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let error = |message: String| AuditLogError {
            source: source.to_string(),
            line: i + 1,
            message,
        };
        let value: Value = crd_runtime::__private::depth::from_json_slice(line.as_bytes())
            .map_err(|e| error(format!("not JSON: {e}")))?;
        let kind = value.get("kind").and_then(Value::as_str).unwrap_or("");
        let api_version = value
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or("");
        if !api_version.starts_with("audit.k8s.io/") {
            return Err(error(format!(
                "not an audit event: apiVersion {:?}, kind {kind:?} (want audit.k8s.io/v1 Event)",
                api_version
            )));
        }
        let items = match kind {
            "Event" => vec![value],
            "EventList" => match value.get("items") {
                Some(Value::Array(items)) => items.clone(),
                _ => return Err(error("an EventList without items".into())),
            },
            other => {
                return Err(error(format!(
                    "not an audit event: kind {other:?} (want Event or EventList)"
                )));
            }
        };
        for item in items {
            out.push(serde_json::from_value(item).map_err(|e| error(format!("bad event: {e}")))?);
        }
    }
    Ok(out)
}

/// One distinct request a user made, with how often and whether it was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// The request as the authorizer saw it.
    pub attributes: Attributes,
    /// How many times it was made.
    pub count: usize,
    /// Whether any of them was refused by the authorizer.
    pub forbidden: bool,
}

/// The distinct requests `user` made (`user` is a user name, e.g. `alice` or
/// `system:serviceaccount:demo:robot`), in first-seen order. The stages of one
/// request count once (by `auditID`); impersonated requests count for the
/// impersonated user.
pub fn requests_of(events: &[Event], user: &str) -> Vec<Request> {
    let mut seen_ids = BTreeSet::new();
    let mut index: BTreeMap<AttrKey, usize> = BTreeMap::new();
    let mut out: Vec<Request> = Vec::new();
    for event in events {
        if event.effective_user().name != user {
            continue;
        }
        if !event.audit_id.is_empty() && !seen_ids.insert(event.audit_id.clone()) {
            // Another stage of a request already counted: it may carry the decision.
            if event.forbidden()
                && let Some(&i) = index.get(&AttrKey::of(&event.attributes()))
            {
                out[i].forbidden = true;
            }
            continue;
        }
        let attributes = event.attributes();
        let key = AttrKey::of(&attributes);
        match index.get(&key) {
            Some(&i) => {
                out[i].count += 1;
                out[i].forbidden |= event.forbidden();
            }
            None => {
                index.insert(key, out.len());
                out.push(Request {
                    attributes,
                    count: 1,
                    forbidden: event.forbidden(),
                });
            }
        }
    }
    out
}

/// What makes two requests the same for authorization (not the user's groups,
/// which may differ between tokens of one user).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct AttrKey([String; 7], bool);

impl AttrKey {
    fn of(a: &Attributes) -> AttrKey {
        AttrKey(
            [
                a.verb.clone(),
                a.namespace.clone(),
                a.api_group.clone(),
                a.resource.clone(),
                a.subresource.clone(),
                a.name.clone(),
                if a.resource_request {
                    String::new()
                } else {
                    a.path.clone()
                },
            ],
            a.resource_request,
        )
    }
}

/// The conventional order of verbs in generated rules.
fn verb_rank(verb: &str) -> (usize, &str) {
    const ORDER: [&str; 8] = [
        "get",
        "list",
        "watch",
        "create",
        "update",
        "patch",
        "delete",
        "deletecollection",
    ];
    (
        ORDER.iter().position(|v| *v == verb).unwrap_or(ORDER.len()),
        verb,
    )
}

#[cfg(test)]
mod tests;
