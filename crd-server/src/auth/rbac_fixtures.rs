//! Stored RBAC objects and an authorizer over them, for the unit tests of what asks
//! the authorizer (the escalation checks, the access reviews).

use std::sync::Arc;

use serde_json::{Value, json};

use crate::auth::{AuthorizationMode, Authorizer, LabelMatcher};
use crate::store::{MemoryStore, Store};

/// A Role of namespace `ns` with `rules`, at its storage key.
pub fn role(ns: &str, name: &str, rules: Value) -> (String, Value) {
    let role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                      "metadata": {"name": name, "namespace": ns}, "rules": rules});
    (format!("/registry/roles/{ns}/{name}"), role)
}

/// A RoleBinding of namespace `ns` that gives the user `user` the Role `role`, at its
/// storage key.
pub fn user_binding(ns: &str, name: &str, role: &str, user: &str) -> (String, Value) {
    let binding = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
        "metadata": {"name": name, "namespace": ns},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": role},
        "subjects": [{"kind": "User", "name": user, "apiGroup": "rbac.authorization.k8s.io"}]});
    (format!("/registry/rolebindings/{ns}/{name}"), binding)
}

/// The RBAC authorizer of a store holding `objects` (`matches` selects the roles an
/// aggregation rule gathers).
pub async fn rbac_authorizer(objects: &[(String, Value)], matches: LabelMatcher) -> Authorizer {
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    for (key, obj) in objects {
        store
            .create(key, serde_json::to_vec(obj).unwrap().into())
            .await
            .unwrap();
    }
    Authorizer::start(&[AuthorizationMode::Rbac], None, store, matches)
        .await
        .unwrap()
}
