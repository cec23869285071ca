//! `--audit-policy-file`: an `audit.k8s.io/v1` Policy — rules matched in order by
//! users, user groups, verbs, resources, namespaces and non-resource URLs, the first
//! match giving the level (`None`, `Metadata`, `Request`, `RequestResponse`) and the
//! stages to leave out — read and checked as kube-apiserver reads it.

use std::path::Path;

use crd_runtime::rbac::Attributes;
use serde::Deserialize;

/// How much of a request is recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
pub enum Level {
    None,
    Metadata,
    Request,
    RequestResponse,
}

impl Level {
    /// Its name in events.
    pub fn name(self) -> &'static str {
        match self {
            Level::None => "None",
            Level::Metadata => "Metadata",
            Level::Request => "Request",
            Level::RequestResponse => "RequestResponse",
        }
    }
}

/// A stage of a request's life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    RequestReceived,
    ResponseStarted,
    ResponseComplete,
    Panic,
}

impl Stage {
    /// Its name in events and policies.
    pub fn name(self) -> &'static str {
        match self {
            Stage::RequestReceived => "RequestReceived",
            Stage::ResponseStarted => "ResponseStarted",
            Stage::ResponseComplete => "ResponseComplete",
            Stage::Panic => "Panic",
        }
    }

    fn parse(s: &str) -> Option<Stage> {
        [
            Stage::RequestReceived,
            Stage::ResponseStarted,
            Stage::ResponseComplete,
            Stage::Panic,
        ]
        .into_iter()
        .find(|st| st.name() == s)
    }
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct GroupResources {
    #[serde(default)]
    group: String,
    #[serde(default)]
    resources: Vec<String>,
    #[serde(default, rename = "resourceNames")]
    resource_names: Vec<String>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    level: String,
    #[serde(default)]
    users: Vec<String>,
    #[serde(default, rename = "userGroups")]
    user_groups: Vec<String>,
    #[serde(default)]
    verbs: Vec<String>,
    #[serde(default)]
    resources: Vec<GroupResources>,
    #[serde(default)]
    namespaces: Vec<String>,
    #[serde(default, rename = "nonResourceURLs")]
    non_resource_urls: Vec<String>,
    #[serde(default, rename = "omitStages")]
    omit_stages: Vec<String>,
    #[serde(default, rename = "omitManagedFields")]
    _omit_managed_fields: Option<bool>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPolicy {
    #[serde(rename = "apiVersion")]
    api_version: String,
    kind: String,
    #[serde(default)]
    metadata: serde_json::Value,
    #[serde(default)]
    rules: Vec<RawRule>,
    #[serde(default, rename = "omitStages")]
    omit_stages: Vec<String>,
    #[serde(default, rename = "omitManagedFields")]
    _omit_managed_fields: Option<bool>,
}

#[derive(Clone, Debug)]
struct Rule {
    level: Level,
    raw: RawRule,
    omit: Vec<Stage>,
}

/// A checked audit policy.
#[derive(Clone, Debug)]
pub struct Policy {
    rules: Vec<Rule>,
    omit: Vec<Stage>,
}

fn stages(list: &[String], path: &str) -> Result<Vec<Stage>, String> {
    list.iter()
        .enumerate()
        .map(|(i, s)| {
            Stage::parse(s).ok_or_else(|| {
                format!(
                    "{path}[{i}]: Unsupported value: {s:?}: supported values: \"RequestReceived\", \"ResponseStarted\", \"ResponseComplete\", \"Panic\""
                )
            })
        })
        .collect()
}

impl Policy {
    /// Records every request at `Metadata` (a test server's record).
    pub fn metadata_for_all() -> Policy {
        Policy {
            rules: vec![Rule {
                level: Level::Metadata,
                raw: RawRule {
                    level: "Metadata".into(),
                    users: vec![],
                    user_groups: vec![],
                    verbs: vec![],
                    resources: vec![],
                    namespaces: vec![],
                    non_resource_urls: vec![],
                    omit_stages: vec![],
                    _omit_managed_fields: None,
                },
                omit: vec![],
            }],
            omit: vec![Stage::RequestReceived],
        }
    }

    /// Reads a policy file.
    pub fn read(path: &Path) -> Result<Policy, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Policy::parse(&path.display().to_string(), &text)
    }

    /// Reads a policy's YAML or JSON text.
    pub fn parse(source: &str, text: &str) -> Result<Policy, String> {
        let docs = crd_runtime::parse_documents(source, text).map_err(|e| e.to_string())?;
        let [doc] = docs.as_slice() else {
            return Err(format!(
                "{source}: holds {} documents, not one audit Policy",
                docs.len()
            ));
        };
        let raw: RawPolicy = serde_json::from_value(doc.clone())
            .map_err(|e| format!("{source}: not an audit Policy: {e}"))?;
        if raw.api_version != "audit.k8s.io/v1" || raw.kind != "Policy" {
            return Err(format!(
                "{source}: not an audit.k8s.io/v1 Policy (apiVersion {:?}, kind {:?})",
                raw.api_version, raw.kind
            ));
        }
        let _ = raw.metadata;
        let bad = |e: String| format!("{source}: {e}");
        let omit = stages(&raw.omit_stages, "omitStages").map_err(bad)?;
        let mut rules = Vec::new();
        for (i, r) in raw.rules.into_iter().enumerate() {
            let level = match r.level.as_str() {
                "None" => Level::None,
                "Metadata" => Level::Metadata,
                "Request" => Level::Request,
                "RequestResponse" => Level::RequestResponse,
                other => {
                    return Err(bad(format!(
                        "rules[{i}].level: Unsupported value: {other:?}: supported values: \"None\", \"Metadata\", \"Request\", \"RequestResponse\""
                    )));
                }
            };
            if !r.non_resource_urls.is_empty()
                && (!r.resources.is_empty() || !r.namespaces.is_empty())
            {
                return Err(bad(format!(
                    "rules[{i}].nonResourceURLs: Invalid value: {:?}: rules cannot apply to both regular resources and non-resource URLs",
                    r.non_resource_urls
                )));
            }
            for (j, url) in r.non_resource_urls.iter().enumerate() {
                if !url.starts_with('/') && url != "*" {
                    return Err(bad(format!(
                        "rules[{i}].nonResourceURLs[{j}]: Invalid value: {url:?}: non-resource URL rules must begin with a '/' character"
                    )));
                }
            }
            let omit = stages(&r.omit_stages, &format!("rules[{i}].omitStages")).map_err(bad)?;
            rules.push(Rule {
                level,
                raw: r,
                omit,
            });
        }
        Ok(Policy { rules, omit })
    }

    /// The level of a request and the stages left out (the policy's and the rule's).
    pub fn level_of(&self, attrs: &Attributes) -> (Level, Vec<Stage>) {
        for rule in &self.rules {
            if matches(&rule.raw, attrs) {
                let mut omit = self.omit.clone();
                omit.extend(rule.omit.iter().copied());
                return (rule.level, omit);
            }
        }
        (Level::None, Vec::new())
    }
}

fn matches(r: &RawRule, a: &Attributes) -> bool {
    if !r.users.is_empty() && !r.users.contains(&a.user.name) {
        return false;
    }
    if !r.user_groups.is_empty() && !a.user.groups.iter().any(|g| r.user_groups.contains(g)) {
        return false;
    }
    if !r.verbs.is_empty() && !r.verbs.contains(&a.verb) {
        return false;
    }
    if !r.namespaces.is_empty() || !r.resources.is_empty() {
        if !a.resource_request {
            return false;
        }
        if !r.namespaces.is_empty() && !r.namespaces.contains(&a.namespace) {
            return false;
        }
        if !r.resources.is_empty() && !r.resources.iter().any(|gr| resource_matches(gr, a)) {
            return false;
        }
    }
    if !r.non_resource_urls.is_empty() {
        if a.resource_request {
            return false;
        }
        return r
            .non_resource_urls
            .iter()
            .any(|u| match u.strip_suffix('*') {
                Some(prefix) => a.path.starts_with(prefix),
                None => *u == a.path,
            });
    }
    true
}

fn resource_matches(gr: &GroupResources, a: &Attributes) -> bool {
    if gr.group != a.api_group {
        return false;
    }
    if !gr.resource_names.is_empty() && !gr.resource_names.contains(&a.name) {
        return false;
    }
    if gr.resources.is_empty() {
        return true;
    }
    let combined = a.combined_resource();
    gr.resources.iter().any(|r| {
        *r == combined
            || r == "*"
            || (!a.subresource.is_empty() && *r == format!("*/{}", a.subresource))
            || *r == format!("{}/*", a.resource)
    })
}

#[cfg(test)]
#[path = "policy_tests.rs"]
mod tests;
