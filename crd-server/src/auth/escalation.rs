//! RBAC's escalation prevention, as kube-apiserver's RBAC storage makes it
//! (pkg/registry/rbac): a user may only write a Role or ClusterRole whose rules they
//! already hold, unless they may `escalate` on the role resource; and may only bind a
//! role whose rules they hold, unless they may `bind` it. `system:masters` is never
//! checked. The write path calls [`check_write`] on the four RBAC kinds.

use crd_runtime::rbac::{
    Attributes, PolicyRule, RBAC_GROUP, RoleRef, UserInfo, Visited, covers, go_quoted_list,
};
use serde_json::Value;

use super::{Authorizer, Decision, MASTERS};

/// What the write checks refuse: the message of a 403 on the written resource, or a
/// missing referenced role (404 on the role's resource).
#[derive(Debug, PartialEq, Eq)]
pub enum Refusal {
    /// `NewForbidden(resource, name, message)`.
    Forbidden(String),
    /// The binding's role does not exist: (role resource plural, role name).
    RoleNotFound(&'static str, String),
}

/// A write of one of the RBAC kinds, as the check sees it.
pub struct Write<'a> {
    /// `roles`, `clusterroles`, `rolebindings` or `clusterrolebindings`.
    pub resource: &'a str,
    /// The request's namespace (empty for the cluster-scoped kinds).
    pub namespace: &'a str,
    /// The name in the URL (empty for a create).
    pub url_name: &'a str,
    /// The object to be written.
    pub obj: &'a Value,
    /// The stored object, for an update.
    pub old: Option<&'a Value>,
}

/// Whether `resource` is one of the four RBAC resources the storage guards.
pub fn guarded(group: &str, resource: &str) -> bool {
    group == RBAC_GROUP
        && matches!(
            resource,
            "roles" | "clusterroles" | "rolebindings" | "clusterrolebindings"
        )
}

/// The checks of a write by `user`; `Ok` when it may go on.
pub async fn check_write(
    authz: &Authorizer,
    user: &UserInfo,
    w: &Write<'_>,
) -> Result<(), Refusal> {
    // `EscalationAllowed`: the privileged group (the API server's own loopback user).
    if user.groups.iter().any(|g| g == MASTERS) {
        return Ok(());
    }
    if let Some(old) = w.old
        && only_gc_fields_change(w.obj, old)
    {
        return Ok(());
    }
    match w.resource {
        "roles" | "clusterroles" => check_role(authz, user, w).await,
        _ => check_binding(authz, user, w).await,
    }
}

async fn check_role(authz: &Authorizer, user: &UserInfo, w: &Write<'_>) -> Result<(), Refusal> {
    // `RoleEscalationAuthorized`: the `escalate` verb on the request's resource.
    let escalate = Attributes {
        user: user.clone(),
        verb: "escalate".into(),
        namespace: w.namespace.into(),
        api_group: RBAC_GROUP.into(),
        api_version: "*".into(),
        resource: w.resource.into(),
        name: w.url_name.into(),
        resource_request: true,
        ..Attributes::default()
    };
    if authz.authorize_fresh(&escalate).await.0 == Decision::Allow {
        return Ok(());
    }
    let rules = rules_of(w.obj);
    confirm_no_escalation(authz, user, w.namespace, &rules).map_err(Refusal::Forbidden)?;
    if w.resource == "clusterroles"
        && (has_aggregation_rule(w.obj) || w.old.is_some_and(has_aggregation_rule))
    {
        // An aggregation rule can gather anything: it needs `*` on everything.
        confirm_no_escalation(authz, user, w.namespace, &full_authority()).map_err(|_| {
            Refusal::Forbidden(
                "must have cluster-admin privileges to use the aggregationRule".into(),
            )
        })?;
    }
    Ok(())
}

async fn check_binding(authz: &Authorizer, user: &UserInfo, w: &Write<'_>) -> Result<(), Refusal> {
    let role_ref: RoleRef =
        serde_json::from_value(w.obj.get("roleRef").cloned().unwrap_or(Value::Null))
            .unwrap_or_default();
    let role_resource = match role_ref.kind.as_str() {
        "ClusterRole" => "clusterroles",
        "Role" => "roles",
        // Validation refuses any other kind after this.
        _ => "",
    };
    // `BindingAuthorized`: the `bind` verb on the referenced role, in the binding's
    // namespace (none for a ClusterRoleBinding).
    if !role_resource.is_empty() {
        let bind = Attributes {
            user: user.clone(),
            verb: "bind".into(),
            namespace: w.namespace.into(),
            api_group: role_ref.api_group.clone(),
            resource: role_resource.into(),
            name: role_ref.name.clone(),
            resource_request: true,
            ..Attributes::default()
        };
        if authz.authorize_fresh(&bind).await.0 == Decision::Allow {
            return Ok(());
        }
    }
    let policy = authz.policy();
    let rules = match policy.role_ref_rules(&role_ref, w.namespace) {
        Ok(rules) => rules.to_vec(),
        Err(_) if role_resource.is_empty() => return Ok(()),
        Err(_) => return Err(Refusal::RoleNotFound(role_resource, role_ref.name)),
    };
    confirm_no_escalation(authz, user, w.namespace, &rules).map_err(Refusal::Forbidden)
}

/// `ConfirmNoEscalation`: whether the rules `user` holds in `namespace` (cluster-wide
/// ones only when empty) cover `rules`; else upstream's message listing the missing
/// rules, compacted and sorted.
pub fn confirm_no_escalation(
    authz: &Authorizer,
    user: &UserInfo,
    namespace: &str,
    rules: &[PolicyRule],
) -> Result<(), String> {
    let policy = authz.policy();
    let mut owned = Vec::new();
    let mut errors = Vec::new();
    policy.visit_rules_for(user, namespace, &mut |v| {
        match v {
            Visited::Rule(_, rule) => owned.push(rule.clone()),
            Visited::Error(e) => errors.push(e.to_string()),
        }
        true
    });
    let (ok, missing) = covers(&owned, rules);
    if ok {
        return Ok(());
    }
    Err(escalation_message(user, &missing, &errors))
}

/// The refusal's text: `user "bob" (groups=["system:authenticated"]) is attempting to
/// grant RBAC permissions not currently held:` and one compact rule a line.
pub fn escalation_message(user: &UserInfo, missing: &[PolicyRule], errors: &[String]) -> String {
    let mut lines: Vec<String> = compact_rules(missing)
        .iter()
        .map(PolicyRule::compact_string)
        .collect();
    lines.sort();
    lines.dedup();
    let mut msg = format!(
        "user {} (groups={}) is attempting to grant RBAC permissions not currently held:\n{}",
        crd_runtime::__private::go::quote(&user.name),
        go_quoted_list(&user.groups),
        lines.join("\n")
    );
    if !errors.is_empty() {
        msg.push_str(&format!("; resolution errors: [{}]", errors.join(" ")));
    }
    msg
}

/// `CompactRules`: the rules naming one group and one resource, and nothing but
/// verbs, merged into one rule per group and resource (their verbs in order).
pub fn compact_rules(rules: &[PolicyRule]) -> Vec<PolicyRule> {
    let mut out: Vec<PolicyRule> = Vec::new();
    let mut simple: Vec<PolicyRule> = Vec::new();
    for rule in rules {
        let is_simple = rule.resource_names.is_empty()
            && rule.non_resource_urls.is_empty()
            && rule.api_groups.len() == 1
            && rule.resources.len() == 1;
        if !is_simple {
            out.push(rule.clone());
            continue;
        }
        match simple
            .iter_mut()
            .find(|s| s.api_groups == rule.api_groups && s.resources == rule.resources)
        {
            Some(s) => s.verbs.extend(rule.verbs.iter().cloned()),
            None => simple.push(rule.clone()),
        }
    }
    out.extend(simple);
    out
}

/// `*` on every resource and every non-resource URL (what an aggregation rule needs).
fn full_authority() -> Vec<PolicyRule> {
    let star = || vec!["*".to_string()];
    vec![
        PolicyRule {
            verbs: star(),
            api_groups: star(),
            resources: star(),
            ..PolicyRule::default()
        },
        PolicyRule {
            verbs: star(),
            non_resource_urls: star(),
            ..PolicyRule::default()
        },
    ]
}

fn rules_of(obj: &Value) -> Vec<PolicyRule> {
    // A shape the policy cannot read is refused by validation after this check.
    obj.get("rules")
        .filter(|v| !v.is_null())
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default()
}

fn has_aggregation_rule(obj: &Value) -> bool {
    obj.pointer("/aggregationRule/clusterRoleSelectors")
        .and_then(Value::as_array)
        .is_some_and(|s| !s.is_empty())
}

/// `IsOnlyMutatingGCFields`: the update changes nothing but owner references and
/// finalizers (what the garbage collector writes).
pub fn only_gc_fields_change(obj: &Value, old: &Value) -> bool {
    let strip = |v: &Value| {
        let mut v = v.clone();
        if let Some(meta) = v.get_mut("metadata").and_then(Value::as_object_mut) {
            for k in [
                "ownerReferences",
                "finalizers",
                "resourceVersion",
                "managedFields",
            ] {
                meta.remove(k);
            }
        }
        v
    };
    strip(obj) == strip(old)
}

#[cfg(test)]
#[path = "escalation_tests.rs"]
mod tests;
