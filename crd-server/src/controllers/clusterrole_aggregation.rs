//! `clusterrole-aggregation`: kube-controller-manager's ClusterRole aggregation
//! controller. Each ClusterRole with an `aggregationRule` gets, in its stored `rules`,
//! the rules of the ClusterRoles its selectors match (by name order, each rule once):
//! `view` gathers what is labelled `aggregate-to-view`, and so on up to `admin`. It
//! writes as `system:serviceaccount:kube-system:clusterrole-aggregation-controller`
//! (allowed to `escalate` on ClusterRoles, as upstream's role is).

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use serde_json::{Value, json};

use super::client::{Client, Mutation};
use super::identity;
use crate::api::kinds::Subresource;
use crate::api::state::Shared;
use crate::store::{ListOptions, WatchItem};

/// The manager the controller writes as.
const MANAGER: &str = "clusterrole-aggregation-controller";
const PREFIX: &str = "/registry/clusterroles/";
/// How long the controller waits before it reads again after a failure.
const RETRY: Duration = Duration::from_millis(200);

/// Runs the controller until the task is aborted.
pub async fn run(shared: Arc<Shared>) {
    let Some(res) = shared
        .registry
        .resolve("rbac.authorization.k8s.io", "v1", "clusterroles")
    else {
        return;
    };
    let client = Client::new(shared.clone(), MANAGER)
        .acting_as(identity::controller("clusterrole-aggregation-controller"));
    loop {
        let Ok(listed) = shared.store.list(PREFIX, ListOptions::default()).await else {
            tokio::time::sleep(RETRY).await;
            continue;
        };
        let roles: Vec<Value> = listed
            .items
            .iter()
            .filter_map(|kv| serde_json::from_slice(&kv.value).ok())
            .collect();
        for (name, rules) in changes(roles) {
            let write = |current: &Value| {
                let mut next = current.clone();
                next["rules"] = rules.clone();
                Mutation::Write(next)
            };
            // A role removed or refused meanwhile is read again with the next change.
            let _ = client
                .update(&res, None, &name, Subresource::Main, write)
                .await;
        }
        let Ok(mut events) = shared.store.watch(PREFIX, listed.revision).await else {
            tokio::time::sleep(RETRY).await;
            continue;
        };
        // Any change of a ClusterRole: read them all again (there are few).
        loop {
            match events.next().await {
                Some(Ok(WatchItem::Event(_))) => break,
                Some(Ok(_)) => continue,
                _ => {
                    tokio::time::sleep(RETRY).await;
                    break;
                }
            }
        }
    }
}

/// The aggregated ClusterRoles whose stored rules differ from what their selectors
/// gather: (name, rules).
pub fn changes(mut roles: Vec<Value>) -> Vec<(String, Value)> {
    let stored: Vec<Value> = roles.iter().map(rules_of).collect();
    crate::auth::aggregate(
        &mut roles,
        crate::api::selectors::label::aggregation_matches,
    );
    roles
        .iter()
        .zip(stored)
        .filter(|(role, _)| role.get("aggregationRule").is_some_and(|a| !a.is_null()))
        .filter(|(role, old)| rules_of(role) != *old)
        .map(|(role, _)| {
            let name = role["metadata"]["name"].as_str().unwrap_or("").to_string();
            (name, rules_of(role))
        })
        .collect()
}

/// The rules, none and `[]` alike (as kube's semantic equality sees them).
fn rules_of(role: &Value) -> Value {
    match role.get("rules") {
        Some(Value::Array(a)) => json!(a),
        _ => json!([]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aggregated_roles_gather_the_rules_they_select_once() {
        let agg = |name: &str, label: &str, own: Option<&str>| {
            let mut r = json!({"metadata": {"name": name},
                "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {label: "true"}}]}});
            if let Some(l) = own {
                r["metadata"]["labels"] = json!({l: "true"});
            }
            r
        };
        let roles = vec![
            agg("edit", "to-edit", None),
            agg("view", "to-view", Some("to-edit")),
            json!({"metadata": {"name": "widgets", "labels": {"to-view": "true"}},
                   "rules": [{"apiGroups": ["example.com"], "resources": ["widgets"], "verbs": ["get"]}]}),
            json!({"metadata": {"name": "plain"}, "rules": [{"verbs": ["get"], "nonResourceURLs": ["/x"]}]}),
        ];
        let rule =
            json!([{"apiGroups": ["example.com"], "resources": ["widgets"], "verbs": ["get"]}]);
        assert_eq!(
            changes(roles.clone()),
            vec![
                ("edit".to_string(), rule.clone()),
                ("view".to_string(), rule.clone())
            ]
        );
        // Written: nothing more to change.
        let mut written = roles;
        written[0]["rules"] = rule.clone();
        written[1]["rules"] = rule;
        assert!(changes(written).is_empty());
        // No rules to gather and none stored: no write.
        assert!(changes(vec![agg("admin", "to-admin", None)]).is_empty());
    }
}
