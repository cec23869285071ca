//! The authorizer chain of `--authorization-mode`, as kube-apiserver builds it: the
//! privileged group `system:masters` first (always allowed), then each mode in order;
//! the first mode that allows or denies decides, and a request no mode allows is
//! refused with the reasons they gave. RBAC decides with the followed policy
//! ([`super::rbac_follow`]) through `crd_runtime::rbac`; the `Webhook` mode asks a
//! SubjectAccessReview webhook ([`super::authz_webhook`]), whose errors make a request no
//! later mode allows a 500.

use std::sync::Arc;

use crd_runtime::rbac::{Attributes, Policy, PolicyRule, UserInfo};

use super::authz_webhook::{AuthzWebhook, Verdict};
use super::rbac_follow::{LabelMatcher, RbacPolicy};
use super::{AuthorizationMode, MASTERS};
use crate::auth::ConfigError;
use crate::store::Store;

/// An authorizer's decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Allowed.
    Allow,
    /// Explicitly refused.
    Deny,
    /// No authorizer allowed it (refused too).
    NoOpinion,
}

impl Decision {
    /// The `authorization.k8s.io/decision` audit annotation.
    pub fn annotation(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Deny | Decision::NoOpinion => "forbid",
        }
    }
}

/// What AlwaysDeny answers.
const EVERYTHING_IS_FORBIDDEN: &str = "Everything is forbidden.";

/// The authorizers of a server.
pub struct Authorizer {
    modes: Vec<AuthorizationMode>,
    rbac: Option<Arc<RbacPolicy>>,
    webhook: Option<AuthzWebhook>,
}

/// A decision with its reasons, and the errors of the authorizers that could not decide.
pub struct Outcome {
    pub decision: Decision,
    pub reason: String,
    pub errors: Vec<String>,
}

impl Authorizer {
    /// The chain of `modes`; RBAC's objects are read before the server serves
    /// (`matches`: the label selector matching of aggregated ClusterRoles).
    pub async fn start(
        modes: &[AuthorizationMode],
        webhook: Option<AuthzWebhook>,
        store: Arc<dyn Store>,
        matches: LabelMatcher,
    ) -> Result<Authorizer, ConfigError> {
        if modes.contains(&AuthorizationMode::Webhook) && webhook.is_none() {
            return Err(ConfigError(
                "authorization-mode Webhook's authorization config file not passed".into(),
            ));
        }
        if modes.is_empty() {
            return Err(ConfigError(
                "--authorization-mode: at least one authorization mode must be passed".into(),
            ));
        }
        let rbac = if modes.contains(&AuthorizationMode::Rbac) {
            Some(
                RbacPolicy::start(store, matches)
                    .await
                    .map_err(|e| ConfigError(format!("RBAC: {e}")))?,
            )
        } else {
            None
        };
        Ok(Authorizer {
            modes: modes.to_vec(),
            rbac,
            webhook,
        })
    }

    /// Whether every request is allowed (no check is needed).
    pub fn always_allows(&self) -> bool {
        self.modes.first() == Some(&AuthorizationMode::AlwaysAllow)
    }

    /// The RBAC policy now (an empty one without RBAC).
    pub fn policy(&self) -> Arc<Policy> {
        self.rbac.as_ref().map(|r| r.current()).unwrap_or_default()
    }

    /// The decision on `attrs` with the policy as followed; the webhook mode answers
    /// from its cache only (no opinion on a miss): what synchronous callers (admission
    /// policies' `authorizer`) can ask.
    pub fn authorize(&self, attrs: &Attributes) -> (Decision, String) {
        let outcome = self.chain(attrs, |webhook, attrs| {
            Ok(webhook
                .cached(attrs)
                .unwrap_or(Verdict::NoOpinion(String::new())))
        });
        (outcome.decision, outcome.reason)
    }

    /// The chain of modes, the webhook's verdicts from `ask`.
    fn chain(
        &self,
        attrs: &Attributes,
        mut ask: impl FnMut(&AuthzWebhook, &Attributes) -> Result<Verdict, String>,
    ) -> Outcome {
        let decided = |decision, reason: String, errors| Outcome {
            decision,
            reason,
            errors,
        };
        if attrs.user.groups.iter().any(|g| g == MASTERS) {
            return decided(Decision::Allow, String::new(), Vec::new());
        }
        let mut reasons: Vec<String> = Vec::new();
        let mut errors: Vec<String> = Vec::new();
        for mode in &self.modes {
            match mode {
                AuthorizationMode::AlwaysAllow => {
                    return decided(Decision::Allow, String::new(), errors);
                }
                AuthorizationMode::AlwaysDeny => reasons.push(EVERYTHING_IS_FORBIDDEN.into()),
                AuthorizationMode::Rbac => {
                    let policy = self.policy();
                    match policy.authorize(attrs) {
                        Ok(reason) => return decided(Decision::Allow, reason, errors),
                        Err(reason) => reasons.push(reason),
                    }
                }
                AuthorizationMode::Webhook => {
                    let Some(webhook) = &self.webhook else {
                        continue;
                    };
                    match ask(webhook, attrs) {
                        Ok(Verdict::Allow(reason)) => {
                            return decided(Decision::Allow, reason, errors);
                        }
                        Ok(Verdict::Deny(reason)) => {
                            return decided(Decision::Deny, reason, errors);
                        }
                        Ok(Verdict::NoOpinion(reason)) => reasons.push(reason),
                        Err(e) => errors.push(e),
                    }
                }
            }
        }
        reasons.retain(|r| !r.is_empty());
        decided(Decision::NoOpinion, reasons.join("\n"), errors)
    }

    /// The decision on a request: every mode asked in order, the webhook over the wire
    /// when its cache has no answer; RBAC objects written since the last read are read
    /// before refusing (a request sees the bindings written before it).
    pub async fn decide(&self, attrs: &Attributes) -> Outcome {
        // The chain is synchronous: the webhook's verdict is fetched first, when no mode
        // before it decides (later modes are only asked if it has no opinion).
        let verdict = match &self.webhook {
            Some(webhook) if self.reaches_webhook(attrs) => Some(webhook.authorize(attrs).await),
            _ => None,
        };
        let ask = |_: &AuthzWebhook, _: &Attributes| {
            verdict
                .clone()
                .unwrap_or(Ok(Verdict::NoOpinion(String::new())))
        };
        let outcome = self.chain(attrs, ask);
        if outcome.decision != Decision::NoOpinion {
            return outcome;
        }
        match &self.rbac {
            Some(rbac) if rbac.refresh().await => self.chain(attrs, ask),
            _ => outcome,
        }
    }

    /// Whether no mode before `Webhook` decides on `attrs` (RBAC as followed now).
    fn reaches_webhook(&self, attrs: &Attributes) -> bool {
        if attrs.user.groups.iter().any(|g| g == MASTERS) {
            return false;
        }
        for mode in &self.modes {
            match mode {
                AuthorizationMode::Webhook => return true,
                AuthorizationMode::AlwaysAllow => return false,
                AuthorizationMode::AlwaysDeny => {}
                AuthorizationMode::Rbac => {
                    if self.policy().authorize(attrs).is_ok() {
                        return false;
                    }
                }
            }
        }
        false
    }

    /// [`decide`](Self::decide) as a decision and its reasons (an error refuses).
    pub async fn authorize_fresh(&self, attrs: &Attributes) -> (Decision, String) {
        let outcome = self.decide(attrs).await;
        (outcome.decision, outcome.reason)
    }

    /// Reads RBAC objects written since the last read.
    pub async fn refresh(&self) {
        if let Some(rbac) = &self.rbac {
            rbac.refresh().await;
        }
    }

    /// The rules `user` holds in `namespace` with the policy as followed (a rules
    /// review): (rules, whether the list is incomplete, the evaluation error).
    pub fn rules_now(&self, user: &UserInfo, namespace: &str) -> (Vec<PolicyRule>, bool, String) {
        let policy = self.policy();
        let mut rules = Vec::new();
        let mut errors = Vec::new();
        if user.groups.iter().any(|g| g == MASTERS) || self.always_allows() {
            let star = || vec!["*".to_string()];
            rules.push(PolicyRule {
                verbs: star(),
                api_groups: star(),
                resources: star(),
                ..PolicyRule::default()
            });
            rules.push(PolicyRule {
                verbs: star(),
                non_resource_urls: star(),
                ..PolicyRule::default()
            });
        } else if self.rbac.is_none() {
            // AlwaysDeny alone: no rules, and no way to list them.
            return (Vec::new(), true, String::new());
        }
        policy.visit_rules_for(user, namespace, &mut |v| {
            match v {
                crd_runtime::rbac::Visited::Rule(_, rule) => rules.push(rule.clone()),
                crd_runtime::rbac::Visited::Error(e) => errors.push(e.to_string()),
            }
            true
        });
        let incomplete = !errors.is_empty() || self.modes.contains(&AuthorizationMode::AlwaysDeny);
        (rules, incomplete, errors.join(", "))
    }
}

/// The `authorizer` variable of admission policies asks the server's authorizer
/// (kube-apiserver gives its CEL library the whole chain, privileged group included).
impl crd_runtime::admission::Authorize for Authorizer {
    fn authorize(&self, attrs: &Attributes) -> crd_runtime::admission::AuthzDecision {
        let (decision, reason) = Authorizer::authorize(self, attrs);
        crd_runtime::admission::AuthzDecision {
            allowed: decision == Decision::Allow,
            reason,
            // The authorizers here decide or have no opinion; none fails.
            error: String::new(),
        }
    }
}
