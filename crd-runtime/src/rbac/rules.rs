//! RBAC policy rules: how one rule matches a request, and whether some rules cover
//! others — kube-apiserver's `RuleAllows` (plugin/pkg/auth/authorizer/rbac) and the
//! escalation check's `Covers` (pkg/registry/rbac/validation), with the same
//! wildcards.

use serde::{Deserialize, Serialize};

use super::Attributes;

/// Any verb, group, resource (`*`) — and any non-resource URL.
pub const ALL: &str = "*";

/// One `rules[]` entry of a Role or ClusterRole (`rbac.authorization.k8s.io/v1`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct PolicyRule {
    /// API groups (`""` is the core group; `*` any).
    #[serde(rename = "apiGroups", default, skip_serializing_if = "Vec::is_empty")]
    pub api_groups: Vec<String>,
    /// Resources, `resource/subresource`, `*/subresource` or `*`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<String>,
    /// Object names the rule is limited to (none: every object).
    #[serde(
        rename = "resourceNames",
        default,
        skip_serializing_if = "Vec::is_empty"
    )]
    pub resource_names: Vec<String>,
    /// Non-resource paths (`/healthz`, a prefix ending in `*`).
    #[serde(
        rename = "nonResourceURLs",
        default,
        skip_serializing_if = "Vec::is_empty"
    )]
    pub non_resource_urls: Vec<String>,
    /// Verbs (`get`, `list`, ..., `*`).
    #[serde(default)]
    pub verbs: Vec<String>,
}

fn has(set: &[String], wanted: &str) -> bool {
    set.iter().any(|s| s == wanted)
}

impl PolicyRule {
    /// `VerbMatches`.
    pub fn verb_matches(&self, verb: &str) -> bool {
        self.verbs.iter().any(|v| v == ALL || v == verb)
    }

    /// `APIGroupMatches`.
    pub fn api_group_matches(&self, group: &str) -> bool {
        self.api_groups.iter().any(|g| g == ALL || g == group)
    }

    /// `ResourceMatches`: `combined` is `resource` or `resource/subresource`.
    pub fn resource_matches(&self, combined: &str, subresource: &str) -> bool {
        self.resources.iter().any(|r| {
            r == ALL
                || r == combined
                || (!subresource.is_empty()
                    && r.len() == subresource.len() + 2
                    && r.starts_with("*/")
                    && r.ends_with(subresource))
        })
    }

    /// `ResourceNameMatches`: no names allows every name.
    pub fn resource_name_matches(&self, name: &str) -> bool {
        self.resource_names.is_empty() || has(&self.resource_names, name)
    }

    /// `NonResourceURLMatches`: exact, `*`, or a prefix ending in `*`.
    pub fn non_resource_url_matches(&self, path: &str) -> bool {
        self.non_resource_urls
            .iter()
            .any(|u| u == ALL || u == path || url_prefix_matches(u, path))
    }

    /// `RuleAllows`: whether this rule alone allows the request.
    pub fn allows(&self, attrs: &Attributes) -> bool {
        if !attrs.resource_request {
            return self.verb_matches(&attrs.verb) && self.non_resource_url_matches(&attrs.path);
        }
        let combined = attrs.combined_resource();
        self.verb_matches(&attrs.verb)
            && self.api_group_matches(&attrs.api_group)
            && self.resource_matches(&combined, &attrs.subresource)
            && self.resource_name_matches(&attrs.name)
    }

    /// The rule as kube-apiserver prints it in escalation errors (`CompactString`):
    /// `{APIGroups:["apps"], Resources:["deployments"], Verbs:["get" "list"]}`.
    pub fn compact_string(&self) -> String {
        let mut parts = Vec::new();
        for (label, list) in [
            ("APIGroups", &self.api_groups),
            ("Resources", &self.resources),
            ("NonResourceURLs", &self.non_resource_urls),
            ("ResourceNames", &self.resource_names),
            ("Verbs", &self.verbs),
        ] {
            if !list.is_empty() {
                parts.push(format!("{label}:{}", go_quoted_list(list)));
            }
        }
        format!("{{{}}}", parts.join(", "))
    }

    /// The rule as single-verb, single-resource (and single-name) rules
    /// (`breakdownRule`): every request the rule allows is allowed by exactly the
    /// pieces it names.
    pub fn breakdown(&self) -> Vec<PolicyRule> {
        let mut out = Vec::new();
        for group in &self.api_groups {
            for resource in &self.resources {
                for verb in &self.verbs {
                    let piece = |names: Vec<String>| PolicyRule {
                        api_groups: vec![group.clone()],
                        resources: vec![resource.clone()],
                        verbs: vec![verb.clone()],
                        resource_names: names,
                        non_resource_urls: Vec::new(),
                    };
                    if self.resource_names.is_empty() {
                        out.push(piece(Vec::new()));
                    } else {
                        for name in &self.resource_names {
                            out.push(piece(vec![name.clone()]));
                        }
                    }
                }
            }
        }
        for url in &self.non_resource_urls {
            for verb in &self.verbs {
                out.push(PolicyRule {
                    non_resource_urls: vec![url.clone()],
                    verbs: vec![verb.clone()],
                    ..PolicyRule::default()
                });
            }
        }
        out
    }

    /// `ruleCovers`: whether this rule allows everything `piece` (one of
    /// [`PolicyRule::breakdown`]'s) allows.
    pub fn covers_piece(&self, piece: &PolicyRule) -> bool {
        let all_of = |set: &[String], wanted: &[String]| wanted.iter().all(|w| has(set, w));
        let verbs = has(&self.verbs, ALL) || all_of(&self.verbs, &piece.verbs);
        let groups = has(&self.api_groups, ALL) || all_of(&self.api_groups, &piece.api_groups);
        let resources = has(&self.resources, ALL) || all_of(&self.resources, &piece.resources);
        let urls = piece.non_resource_urls.iter().all(|path| {
            self.non_resource_urls
                .iter()
                .any(|owner| owner == path || url_prefix_matches(owner, path))
        });
        let names = if piece.resource_names.is_empty() {
            self.resource_names.is_empty()
        } else {
            self.resource_names.is_empty() || all_of(&self.resource_names, &piece.resource_names)
        };
        verbs && groups && resources && names && urls
    }
}

/// A rule URL ending in `*` matches every path it prefixes.
fn url_prefix_matches(rule: &str, path: &str) -> bool {
    rule.ends_with('*') && path.starts_with(rule.trim_end_matches('*'))
}

/// Go's `%q` of a `[]string`: `["a" "b"]`.
pub fn go_quoted_list(list: &[String]) -> String {
    let quoted: Vec<String> = list.iter().map(|s| crate::go::quote(s)).collect();
    format!("[{}]", quoted.join(" "))
}

/// `Covers`: whether `owner` allows everything `servant` allows, and the pieces
/// ([`PolicyRule::breakdown`]) it does not.
pub fn covers(owner: &[PolicyRule], servant: &[PolicyRule]) -> (bool, Vec<PolicyRule>) {
    let uncovered: Vec<PolicyRule> = servant
        .iter()
        .flat_map(PolicyRule::breakdown)
        .filter(|piece| !owner.iter().any(|o| o.covers_piece(piece)))
        .collect();
    (uncovered.is_empty(), uncovered)
}

/// Whether any of `rules` allows the request (`RulesAllow`).
pub fn rules_allow(attrs: &Attributes, rules: &[PolicyRule]) -> bool {
    rules.iter().any(|r| r.allows(attrs))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(groups: &[&str], resources: &[&str], verbs: &[&str]) -> PolicyRule {
        let v = |l: &[&str]| l.iter().map(|s| s.to_string()).collect();
        PolicyRule {
            api_groups: v(groups),
            resources: v(resources),
            verbs: v(verbs),
            ..PolicyRule::default()
        }
    }

    fn request(verb: &str, group: &str, resource: &str, sub: &str, name: &str) -> Attributes {
        Attributes {
            verb: verb.into(),
            api_group: group.into(),
            resource: resource.into(),
            subresource: sub.into(),
            name: name.into(),
            namespace: "demo".into(),
            resource_request: true,
            ..Attributes::default()
        }
    }

    #[test]
    fn wildcards_and_subresources_match_as_upstream() {
        let pods = rule(&[""], &["pods"], &["get", "list"]);
        assert!(pods.allows(&request("get", "", "pods", "", "x")));
        assert!(!pods.allows(&request("get", "", "pods", "log", "x")));
        assert!(!pods.allows(&request("delete", "", "pods", "", "x")));
        assert!(!pods.allows(&request("get", "apps", "pods", "", "x")));
        let logs = rule(&[""], &["pods/log"], &["get"]);
        assert!(logs.allows(&request("get", "", "pods", "log", "x")));
        assert!(!logs.allows(&request("get", "", "pods", "", "x")));
        let any_status = rule(&["*"], &["*/status"], &["*"]);
        assert!(any_status.allows(&request("patch", "apps", "deployments", "status", "")));
        assert!(!any_status.allows(&request("patch", "apps", "deployments", "", "")));
        let mut named = rule(&[""], &["configmaps"], &["get"]);
        named.resource_names = vec!["cfg".into()];
        assert!(named.allows(&request("get", "", "configmaps", "", "cfg")));
        assert!(!named.allows(&request("get", "", "configmaps", "", "other")));
        // A list has no name: a rule with names does not allow it.
        assert!(!named.allows(&request("get", "", "configmaps", "", "")));
    }

    #[test]
    fn non_resource_urls_match_exactly_or_by_prefix() {
        let r = PolicyRule {
            non_resource_urls: vec!["/healthz".into(), "/apis/*".into()],
            verbs: vec!["get".into()],
            ..PolicyRule::default()
        };
        let path = |p: &str| Attributes {
            verb: "get".into(),
            path: p.into(),
            ..Attributes::default()
        };
        assert!(r.allows(&path("/healthz")));
        assert!(r.allows(&path("/apis/apps/v1")));
        assert!(!r.allows(&path("/healthz/etcd")));
        assert!(!r.allows(&path("/api")));
    }

    #[test]
    fn covers_finds_the_missing_pieces() {
        let owner = vec![rule(&["apps"], &["deployments"], &["get", "list"])];
        let servant = vec![rule(&["apps"], &["deployments", "replicasets"], &["get"])];
        let (ok, missing) = covers(&owner, &servant);
        assert!(!ok);
        assert_eq!(missing, vec![rule(&["apps"], &["replicasets"], &["get"])]);
        assert_eq!(
            missing[0].compact_string(),
            r#"{APIGroups:["apps"], Resources:["replicasets"], Verbs:["get"]}"#
        );
        assert!(covers(&[rule(&["*"], &["*"], &["*"])], &servant).0);
        // Names narrow: an owner limited to names does not cover all names.
        let mut limited = rule(&["apps"], &["deployments"], &["get"]);
        limited.resource_names = vec!["a".into()];
        assert!(!covers(&[limited], &[rule(&["apps"], &["deployments"], &["get"])]).0);
    }
}
