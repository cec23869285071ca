//! Delegated authorization, as k8s.io/apiserver's: the cluster decides with a
//! `SubjectAccessReview` for the authenticated user, remembered for
//! [`CACHE_TTL`] (allowed or denied), and users in `system:masters` are never asked
//! about (upstream's privileged group).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crd_webhook::aggregated::AuthenticatedUser;
use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, SubjectAccessReview, SubjectAccessReviewSpec,
};
use kube::Api;
use kube::api::PostParams;

use super::{ApiError, GROUP, RESOURCE, VERSION};

/// How long a decision is remembered.
pub const CACHE_TTL: Duration = Duration::from_secs(10);

/// The group whose members skip the review.
const PRIVILEGED_GROUP: &str = "system:masters";

/// Who asked what: the user (all of it, as the review is about all of it) and the
/// verb and name.
type Key = (
    String,
    String,
    Vec<String>,
    Vec<(String, Vec<String>)>,
    String,
    String,
);

/// A decision (`Err`: denied, with the authorizer's reason) and when it was made.
type Decisions = HashMap<Key, (Instant, Result<(), String>)>;

/// Asks the cluster whether a user may read NodeMetrics.
pub struct Authorizer {
    client: kube::Client,
    decisions: Mutex<Decisions>,
}

impl Authorizer {
    /// Asks with `client`.
    pub fn new(client: kube::Client) -> Self {
        Authorizer {
            client,
            decisions: Mutex::new(HashMap::new()),
        }
    }

    /// `Ok` when `user` may `verb` the NodeMetrics `name` (empty: the collection);
    /// a denial is `403` with kube-apiserver's message.
    pub async fn check(
        &self,
        user: &AuthenticatedUser,
        verb: &str,
        name: &str,
    ) -> Result<(), ApiError> {
        if user.in_group(PRIVILEGED_GROUP) {
            return Ok(());
        }
        let key: Key = (
            user.name.clone(),
            user.uid.clone(),
            user.groups.clone(),
            user.extra.clone().into_iter().collect(),
            verb.to_string(),
            name.to_string(),
        );
        let cached = self
            .lock()
            .get(&key)
            .and_then(|(at, decision)| (at.elapsed() < CACHE_TTL).then(|| decision.clone()));
        let decision = match cached {
            Some(d) => d,
            None => {
                let d = self.review(user, verb, name).await?;
                let mut decisions = self.lock();
                // Expired decisions go, so that the map stays as small as the users.
                decisions.retain(|_, (at, _)| at.elapsed() < CACHE_TTL);
                decisions.insert(key, (Instant::now(), d.clone()));
                d
            }
        };
        decision.map_err(|reason| {
            // As kube-apiserver does: the authorizer's reason, when it gave one.
            let mut message = forbidden_message(&user.name, verb, name);
            if !reason.is_empty() {
                message = format!("{message}: {reason}");
            }
            ApiError::Forbidden(message, name.to_string())
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Decisions> {
        // A panic while holding the map leaves it usable: at worst a stale entry.
        self.decisions.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The cluster's decision (`Err`: denied, with its reason).
    async fn review(
        &self,
        user: &AuthenticatedUser,
        verb: &str,
        name: &str,
    ) -> Result<Result<(), String>, ApiError> {
        let review = SubjectAccessReview {
            spec: SubjectAccessReviewSpec {
                user: Some(user.name.clone()),
                uid: (!user.uid.is_empty()).then(|| user.uid.clone()),
                groups: Some(user.groups.clone()),
                extra: Some(user.extra.clone()),
                resource_attributes: Some(ResourceAttributes {
                    verb: Some(verb.to_string()),
                    group: Some(GROUP.to_string()),
                    version: Some(VERSION.to_string()),
                    resource: Some(RESOURCE.to_string()),
                    name: (!name.is_empty()).then(|| name.to_string()),
                    ..ResourceAttributes::default()
                }),
                ..SubjectAccessReviewSpec::default()
            },
            ..SubjectAccessReview::default()
        };
        let answer = Api::<SubjectAccessReview>::all(self.client.clone())
            .create(&PostParams::default(), &review)
            .await
            .map_err(|e| {
                ApiError::Cluster(format!("cannot ask the cluster for authorization: {e}"))
            })?;
        let status = answer.status.unwrap_or_default();
        Ok(if status.allowed && status.denied != Some(true) {
            Ok(())
        } else {
            Err(status.reason.unwrap_or_default())
        })
    }
}

/// kube-apiserver's wording of a refusal.
fn forbidden_message(user: &str, verb: &str, name: &str) -> String {
    let object = if name.is_empty() {
        format!("{RESOURCE}.{GROUP}")
    } else {
        format!("{RESOURCE}.{GROUP} \"{name}\"")
    };
    format!(
        "{object} is forbidden: User \"{user}\" cannot {verb} resource \"{RESOURCE}\" in API group \"{GROUP}\" at the cluster scope"
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn refusals_are_worded_as_kube_apiservers() {
        assert_eq!(
            super::forbidden_message("alice", "list", ""),
            r#"nodemetrics.metrics.example.com is forbidden: User "alice" cannot list resource "nodemetrics" in API group "metrics.example.com" at the cluster scope"#
        );
        assert_eq!(
            super::forbidden_message("alice", "get", "n1"),
            r#"nodemetrics.metrics.example.com "n1" is forbidden: User "alice" cannot get resource "nodemetrics" in API group "metrics.example.com" at the cluster scope"#
        );
    }
}
