//! A fault rule as written on the command line (`--fault RULE`) or given to a
//! `TestServer`: comma-separated `key=value` pairs, what requests it matches and what it
//! does to them. Every mistake is refused with the key it is about.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use crate::duration::parse_duration;

/// The verbs a rule can match (`*`: any).
pub const VERBS: [&str; 8] = [
    "get",
    "list",
    "watch",
    "create",
    "update",
    "patch",
    "delete",
    "deletecollection",
];

/// The HTTP codes a rule can answer with, each with kube-apiserver's `Status`.
pub const CODES: [u16; 6] = [409, 410, 429, 500, 503, 504];

/// The keys a rule takes.
pub const KEYS: [&str; 13] = [
    "verb",
    "resource",
    "namespace",
    "name",
    "user",
    "code",
    "count",
    "after",
    "probability",
    "seed",
    "delay",
    "close-after",
    "retry-after",
];

/// Which resource a rule matches: `plural`, `plural.group`, either with `/subresource`
/// (`/*`: the resource and every subresource; none: the resource itself only).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceMatch {
    /// The plural name.
    pub plural: String,
    /// The group (`None`: any group; `Some("")`: the core group).
    pub group: Option<String>,
    /// The subresource (`None`: none; `Some("*")`: any or none).
    pub subresource: Option<String>,
}

/// One fault rule (see `docs/testing-faults.md`).
#[derive(Clone, Debug, PartialEq)]
pub struct FaultRule {
    text: String,
    /// The verb matched (`None`: any).
    pub verb: Option<String>,
    /// The resource matched (`None`: any).
    pub resource: Option<ResourceMatch>,
    /// The namespace matched (`None`: any).
    pub namespace: Option<String>,
    /// The object name matched (`None`: any).
    pub name: Option<String>,
    /// The requesting user matched (`None`: any).
    pub user: Option<String>,
    /// The code answered instead of serving the request.
    pub code: Option<u16>,
    /// How many matching requests the rule acts on (`None`: all).
    pub count: Option<u64>,
    /// How many matching requests pass untouched before the rule acts.
    pub after: u64,
    /// The chance that the rule acts on a matching request (1: always).
    pub probability: f64,
    /// The seed of the rule's pseudo-random choices (the same seed, the same choices).
    pub seed: u64,
    /// How long to wait before answering.
    pub delay: Option<Duration>,
    /// For watches: the stream ends after this many events.
    pub close_after: Option<u64>,
    /// `Retry-After` (seconds) of a 429, 503 or 504 (429: 1 when not given).
    pub retry_after: Option<u32>,
}

/// Why a rule was refused: the rule, the key at fault (when one is) and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("fault rule {rule:?}: {}{message}", key.as_ref().map(|k| format!("{k}: ")).unwrap_or_default())]
pub struct FaultRuleError {
    /// The rule as written.
    pub rule: String,
    /// The key the mistake is about.
    pub key: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for FaultRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

fn number<T: FromStr>(value: &str, what: &str) -> Result<T, String> {
    value
        .parse()
        .map_err(|_| format!("{value:?} is not {what}"))
}

fn resource(value: &str) -> Result<ResourceMatch, String> {
    let (resource, subresource) = match value.split_once('/') {
        Some((r, s)) => (r, Some(s)),
        None => (value, None),
    };
    let (plural, group) = match resource.split_once('.') {
        Some((p, g)) => (p, Some(g.to_string())),
        None => (resource, None),
    };
    let word = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    };
    if !word(plural)
        || group.as_deref().is_some_and(|g| !g.split('.').all(word))
        || subresource.is_some_and(|s| s != "*" && !word(s))
    {
        return Err(format!(
            "{value:?} is not plural, plural.group or plural/subresource (e.g. deployments.apps/scale)"
        ));
    }
    Ok(ResourceMatch {
        plural: plural.into(),
        group,
        subresource: subresource.map(str::to_string),
    })
}

impl FromStr for FaultRule {
    type Err = FaultRuleError;

    fn from_str(text: &str) -> Result<FaultRule, FaultRuleError> {
        let refuse = |key: Option<&str>, message: String| FaultRuleError {
            rule: text.to_string(),
            key: key.map(str::to_string),
            message,
        };
        let mut rule = FaultRule {
            text: text.trim().to_string(),
            verb: None,
            resource: None,
            namespace: None,
            name: None,
            user: None,
            code: None,
            count: None,
            after: 0,
            probability: 1.0,
            seed: 0,
            delay: None,
            close_after: None,
            retry_after: None,
        };
        let mut seen: Vec<&str> = Vec::new();
        for pair in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let Some((key, value)) = pair.split_once('=') else {
                return Err(refuse(
                    None,
                    format!("{pair:?} is not key=value (keys: {})", KEYS.join(", ")),
                ));
            };
            let (key, value) = (key.trim(), value.trim());
            let Some(known) = KEYS.iter().find(|k| **k == key) else {
                return Err(refuse(
                    Some(key),
                    format!("unknown key (keys: {})", KEYS.join(", ")),
                ));
            };
            if seen.contains(known) {
                return Err(refuse(Some(key), "given twice".into()));
            }
            seen.push(known);
            if value.is_empty() {
                return Err(refuse(Some(key), "empty value".into()));
            }
            let bad = |message: String| refuse(Some(key), message);
            match key {
                "verb" if value == "*" => {}
                "verb" if VERBS.contains(&value) => rule.verb = Some(value.into()),
                "verb" => {
                    return Err(bad(format!(
                        "{value:?} is not one of {}, *",
                        VERBS.join(", ")
                    )));
                }
                "resource" if value == "*" => {}
                "resource" => rule.resource = Some(resource(value).map_err(bad)?),
                "namespace" => rule.namespace = Some(value.into()),
                "name" => rule.name = Some(value.into()),
                "user" => rule.user = Some(value.into()),
                "code" => {
                    let code: u16 = number(value, "an HTTP code").map_err(bad)?;
                    if !CODES.contains(&code) {
                        let codes: Vec<String> = CODES.iter().map(u16::to_string).collect();
                        return Err(bad(format!("{code} is not one of {}", codes.join(", "))));
                    }
                    rule.code = Some(code);
                }
                "count" => rule.count = Some(number(value, "a count").map_err(bad)?),
                "after" => rule.after = number(value, "a count").map_err(bad)?,
                "probability" => {
                    let p: f64 = number(value, "a probability").map_err(bad)?;
                    if !(0.0..=1.0).contains(&p) {
                        return Err(bad(format!("{value} is not between 0 and 1")));
                    }
                    rule.probability = p;
                }
                "seed" => rule.seed = number(value, "a seed (an unsigned integer)").map_err(bad)?,
                "delay" => {
                    let d =
                        parse_duration(value).map_err(|e| bad(format!("{e} (e.g. 500ms, 2s)")))?;
                    rule.delay = Some(d);
                }
                "close-after" => {
                    let n: u64 = number(value, "a count of events").map_err(bad)?;
                    if n == 0 {
                        return Err(bad("must be at least 1".into()));
                    }
                    rule.close_after = Some(n);
                }
                "retry-after" => {
                    rule.retry_after = Some(number(value, "a number of seconds").map_err(bad)?);
                }
                _ => unreachable!("every key of KEYS is handled"),
            }
        }
        if seen.contains(&"seed") && !seen.contains(&"probability") {
            return Err(refuse(Some("seed"), "goes with probability".into()));
        }
        rule.check()
            .map_err(|(key, message)| refuse(key, message))?;
        Ok(rule)
    }
}

impl FaultRule {
    /// What no single key shows: what the rule does, and keys that only make sense
    /// together.
    fn check(&self) -> Result<(), (Option<&'static str>, String)> {
        if self.code.is_none() && self.delay.is_none() && self.close_after.is_none() {
            return Err((None, "does nothing: give code, delay or close-after".into()));
        }
        let watch_only = self.verb.as_deref() == Some("watch");
        if self.code == Some(410) && !watch_only {
            return Err((
                Some("code"),
                "410 is a watch's answer: add verb=watch".into(),
            ));
        }
        if self.close_after.is_some() && !watch_only {
            return Err((
                Some("close-after"),
                "ends watch streams: add verb=watch".into(),
            ));
        }
        if self.close_after.is_some() && self.code.is_some() {
            return Err((
                Some("close-after"),
                "a watch answered with a code has no stream to end".into(),
            ));
        }
        if self.retry_after.is_some() && !matches!(self.code, Some(429 | 503 | 504)) {
            return Err((Some("retry-after"), "goes with code=429, 503 or 504".into()));
        }
        Ok(())
    }

    /// Whether the rule matches a request (everything it names is what the request
    /// has).
    pub(crate) fn matches(&self, req: &super::Request<'_>) -> bool {
        let same = |want: &Option<String>, have: Option<&str>| {
            want.as_deref().is_none_or(|w| have == Some(w))
        };
        same(&self.verb, Some(req.verb))
            && same(&self.namespace, req.namespace)
            && same(&self.name, req.name)
            && same(&self.user, req.user)
            && self.resource.as_ref().is_none_or(|r| {
                r.plural == req.resource
                    && r.group.as_deref().is_none_or(|g| g == req.group)
                    && match r.subresource.as_deref() {
                        None => req.subresource.is_none(),
                        Some("*") => true,
                        Some(s) => req.subresource == Some(s),
                    }
            })
    }
}

#[cfg(test)]
#[path = "rule_tests.rs"]
mod tests;
