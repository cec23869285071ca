//! rbac.authorization.k8s.io/v1 Roles, ClusterRoles and their bindings, as
//! `pkg/apis/rbac/validation` checks them: rules need verbs and either resources or
//! (ClusterRoles only) non-resource URLs; aggregation rules need selectors; a
//! binding's `roleRef` names a Role or ClusterRole of the RBAC group and can never
//! change; subjects are ServiceAccounts, Users or Groups. Defaults as `rbac/v1`:
//! the RBAC group for `roleRef` and for User and Group subjects.
//!
//! kube-apiserver also refuses a role that grants more than its writer holds, and a
//! binding to a role its writer could not grant (RBAC escalation): the write path
//! makes those checks as the caller (`crate::api::write`, `crate::auth::escalation`).

use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use crd_runtime::names::dns_subdomain_name;
use serde_json::{Value, json};

use crate::api::kinds::builtin::behaviour::*;
use crate::api::selectors::label;
use crate::api::table::Column;

const GROUP: &str = "rbac.authorization.k8s.io";

fn strings(obj: &Value, field: &str) -> Vec<String> {
    obj.get(field)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|v| v.as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

fn text<'a>(obj: &'a Value, field: &str) -> &'a str {
    obj.get(field).and_then(Value::as_str).unwrap_or("")
}

fn created_at() -> Column {
    Column::computed(
        "Created At",
        "date",
        "CreationTimestamp is a timestamp representing the server time when this object was created.",
        |o| {
            o.pointer("/metadata/creationTimestamp")
                .cloned()
                .unwrap_or(Value::Null)
        },
    )
}

/// Roles (`cluster: false`) and ClusterRoles.
pub struct Roles {
    pub cluster: bool,
}

defaults!(Roles: Defaulter, Preparer, Serving, Deleter, AllocateStrategy);

impl Validator for Roles {
    fn validate(&self, obj: &Value, _old: Option<&Value>, errs: &mut ErrorList) {
        let rules = obj.get("rules").and_then(Value::as_array);
        for (i, rule) in rules.into_iter().flatten().enumerate() {
            policy_rule(rule, !self.cluster, &Path::new("rules").index(i), errs);
        }
        let aggregation = obj.get("aggregationRule").filter(|v| !v.is_null());
        if let (true, Some(agg)) = (self.cluster, aggregation) {
            let path = Path::new("aggregationRule").child("clusterRoleSelectors");
            let selectors = agg.get("clusterRoleSelectors").and_then(Value::as_array);
            let selectors = selectors.map_or(&[][..], Vec::as_slice);
            if selectors.is_empty() {
                errs.push(FieldError::required(
                    path.clone(),
                    "at least one clusterRoleSelector required if aggregationRule is non-nil",
                ));
            }
            for (i, sel) in selectors.iter().enumerate() {
                label::validate(sel, label::Options::default(), &path.index(i), errs);
            }
        }
    }
}

impl Printer for Roles {
    fn columns(&self) -> Vec<Column> {
        vec![created_at()]
    }
}

/// `validatePolicyRule`.
fn policy_rule(rule: &Value, namespaced: bool, path: &Path, errs: &mut ErrorList) {
    if strings(rule, "verbs").is_empty() {
        errs.push(FieldError::required(
            path.child("verbs"),
            "verbs must contain at least one value",
        ));
    }
    let urls = strings(rule, "nonResourceURLs");
    let (groups, resources) = (strings(rule, "apiGroups"), strings(rule, "resources"));
    let names = strings(rule, "resourceNames");
    if !urls.is_empty() {
        let value = || BadValue::Json(json!(urls));
        if namespaced {
            errs.push(FieldError::invalid(
                path.child("nonResourceURLs"),
                value(),
                "namespaced rules cannot apply to non-resource URLs",
            ));
        }
        if !groups.is_empty() || !resources.is_empty() || !names.is_empty() {
            errs.push(FieldError::invalid(
                path.child("nonResourceURLs"),
                value(),
                "rules cannot apply to both regular resources and non-resource URLs",
            ));
        }
        return;
    }
    if groups.is_empty() {
        errs.push(FieldError::required(
            path.child("apiGroups"),
            "resource rules must supply at least one api group",
        ));
    }
    if resources.is_empty() {
        errs.push(FieldError::required(
            path.child("resources"),
            "resource rules must supply at least one resource",
        ));
    }
    if !names.is_empty() && resources.len() > 1 {
        errs.push(FieldError::required(
            path.child("resourceNames"),
            "resource names cannot apply to multiple resources",
        ));
    }
}

/// RoleBindings (`cluster: false`) and ClusterRoleBindings.
pub struct Bindings {
    pub cluster: bool,
}

defaults!(Bindings: Preparer, Serving, Deleter, AllocateStrategy);

impl Defaulter for Bindings {
    fn decode(&self, obj: &mut Value) -> Result<(), String> {
        if let Some(role_ref) = obj.get_mut("roleRef").filter(|v| v.is_object())
            && text(role_ref, "apiGroup").is_empty()
        {
            role_ref["apiGroup"] = json!(GROUP);
        }
        if let Some(Value::Array(subjects)) = obj.get_mut("subjects") {
            for s in subjects.iter_mut().filter(|s| s.is_object()) {
                if text(s, "apiGroup").is_empty() && matches!(text(s, "kind"), "User" | "Group") {
                    s["apiGroup"] = json!(GROUP);
                }
            }
        }
        Ok(())
    }
}

impl Validator for Bindings {
    fn validate(&self, obj: &Value, old: Option<&Value>, errs: &mut ErrorList) {
        let role_ref = obj.get("roleRef").unwrap_or(&Value::Null);
        let path = Path::new("roleRef");
        let group = text(role_ref, "apiGroup");
        if group != GROUP {
            errs.push(FieldError::not_supported(
                path.child("apiGroup"),
                BadValue::Str(group.into()),
                &[GROUP],
            ));
        }
        let kinds: &[&str] = if self.cluster {
            &["ClusterRole"]
        } else {
            &["Role", "ClusterRole"]
        };
        let kind = text(role_ref, "kind");
        if !kinds.contains(&kind) {
            errs.push(FieldError::not_supported(
                path.child("kind"),
                BadValue::Str(kind.into()),
                kinds,
            ));
        }
        let name = text(role_ref, "name");
        if name.is_empty() {
            errs.push(FieldError::required(path.child("name"), ""));
        } else {
            for m in crd_runtime::names::path_segment_name(name, false) {
                errs.push(FieldError::invalid(
                    path.child("name"),
                    BadValue::Str(name.into()),
                    m,
                ));
            }
        }
        let subjects = obj.get("subjects").and_then(Value::as_array);
        for (i, s) in subjects.into_iter().flatten().enumerate() {
            subject(s, !self.cluster, &Path::new("subjects").index(i), errs);
        }
        if let Some(old) = old {
            let old_ref = old.get("roleRef").unwrap_or(&Value::Null);
            if old_ref != role_ref {
                errs.push(FieldError::invalid(
                    path,
                    BadValue::Json(role_ref.clone()),
                    "cannot change roleRef",
                ));
            }
        }
    }
}

impl Printer for Bindings {
    fn columns(&self) -> Vec<Column> {
        let wide = |name: &str, description: &str, compute: fn(&Value) -> Value| {
            let mut c = Column::computed(name, "string", description, compute);
            c.priority = 1;
            c
        };
        vec![
            Column::computed(
                "Role",
                "string",
                "RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable.",
                |o| {
                    let r = o.get("roleRef").unwrap_or(&Value::Null);
                    json!(format!("{}/{}", text(r, "kind"), text(r, "name")))
                },
            ),
            Column::builtin_age(),
            wide("Users", "Users in the roleBinding", |o| {
                subjects_of(o, "User")
            }),
            wide("Groups", "Groups in the roleBinding", |o| {
                subjects_of(o, "Group")
            }),
            wide(
                "ServiceAccounts",
                "ServiceAccounts in the roleBinding",
                |o| subjects_of(o, "ServiceAccount"),
            ),
        ]
    }
}

/// The subjects of one kind, joined as the printer joins them (`ns/name` for
/// ServiceAccounts).
fn subjects_of(o: &Value, kind: &str) -> Value {
    let subjects = o.get("subjects").and_then(Value::as_array);
    let names: Vec<String> = subjects
        .into_iter()
        .flatten()
        .filter(|s| text(s, "kind") == kind)
        .map(|s| match kind {
            "ServiceAccount" => format!("{}/{}", text(s, "namespace"), text(s, "name")),
            _ => text(s, "name").to_string(),
        })
        .collect();
    json!(names.join(", "))
}

/// `validateRoleBindingSubject`.
fn subject(s: &Value, namespaced: bool, path: &Path, errs: &mut ErrorList) {
    let name = text(s, "name");
    let group = text(s, "apiGroup");
    if name.is_empty() {
        errs.push(FieldError::required(path.child("name"), ""));
    }
    let wrong_group = |errs: &mut ErrorList, supported: &str| {
        errs.push(FieldError::not_supported(
            path.child("apiGroup"),
            BadValue::Str(group.into()),
            &[supported],
        ))
    };
    match text(s, "kind") {
        "ServiceAccount" => {
            if !name.is_empty() {
                for m in dns_subdomain_name(name, false) {
                    errs.push(FieldError::invalid(
                        path.child("name"),
                        BadValue::Str(name.into()),
                        m,
                    ));
                }
            }
            if !group.is_empty() {
                wrong_group(errs, "");
            }
            if !namespaced && text(s, "namespace").is_empty() {
                errs.push(FieldError::required(path.child("namespace"), ""));
            }
        }
        kind @ ("User" | "Group") => {
            if name.is_empty() {
                let what = if kind == "User" { "user" } else { "group" };
                errs.push(FieldError::invalid(
                    path.child("name"),
                    BadValue::Str(String::new()),
                    format!("{what} name cannot be empty"),
                ));
            }
            if group != GROUP {
                wrong_group(errs, GROUP);
            }
        }
        other => errs.push(FieldError::not_supported(
            path.child("kind"),
            BadValue::Str(other.into()),
            &["ServiceAccount", "User", "Group"],
        )),
    }
}

#[cfg(test)]
#[path = "roles_tests.rs"]
mod tests;
