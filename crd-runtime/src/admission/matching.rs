//! Which requests an admission webhook or policy applies to, as kube-apiserver's
//! `rules.Matcher`, `namespace.Matcher`, `object.Matcher` and the policies'
//! `matching.Matcher` decide: rules (operations, API groups, versions, resources with
//! subresources and `*`, scope), `resourceNames`, `excludeResourceRules`,
//! `matchPolicy: Equivalent` (another version of the same resource), and the
//! namespace and object selectors.
//!
//! Configurations are read as the JSON the server stores (already validated and
//! defaulted), so the functions take [`Value`]s.

use serde_json::{Map, Value};

use super::{Attributes, GroupVersionKind, GroupVersionResource};
use crate::labels;

/// Another version of the request's resource, served from the same storage (the
/// other served versions of a CRD): `matchPolicy: Equivalent` may match through it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Equivalent {
    /// The resource in that version.
    pub resource: GroupVersionResource,
    /// Its kind in that version.
    pub kind: GroupVersionKind,
}

/// How a matched webhook or policy sees the request: the resource and kind it
/// matched, the request's own or an [`Equivalent`] (the object is then converted).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invocation {
    /// The resource matched.
    pub resource: GroupVersionResource,
    /// The kind the object is sent as.
    pub kind: GroupVersionKind,
}

impl Invocation {
    /// Whether the object must be converted to another version first.
    pub fn converts(&self, attrs: &Attributes) -> bool {
        self.resource != attrs.resource
    }
}

/// Why a selector could not be evaluated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SelectorError {
    /// The request's namespace does not exist (kube-apiserver answers its 404).
    NamespaceNotFound(String),
    /// The selector is invalid.
    Invalid(String),
}

fn strings<'a>(v: &'a Value, field: &str) -> impl Iterator<Item = &'a str> {
    v.get(field)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
}

fn listed(v: &Value, field: &str, want: &str) -> bool {
    strings(v, field).any(|s| s == "*" || s == want)
}

/// `rules.Matcher.Matches`: `rule` (a `RuleWithOperations`) holds for the request
/// when addressed as `resource`.
pub fn rule_matches(rule: &Value, attrs: &Attributes, resource: &GroupVersionResource) -> bool {
    scope_matches(rule, attrs)
        && listed(rule, "operations", attrs.op().as_str())
        && listed(rule, "apiGroups", &resource.group)
        && listed(rule, "apiVersions", &resource.version)
        && strings(rule, "resources").any(|r| {
            let (res, sub) = r.split_once('/').unwrap_or((r, ""));
            (res == "*" || res == resource.resource) && (sub == "*" || sub == attrs.subresource)
        })
}

/// A Namespace is cluster-scoped although its requests carry its name as namespace.
fn scope_matches(rule: &Value, attrs: &Attributes) -> bool {
    let namespace_object = attrs.is_namespace();
    match rule.get("scope").and_then(Value::as_str).unwrap_or("*") {
        "Namespaced" => !namespace_object && !attrs.namespace.is_empty(),
        "Cluster" => namespace_object || attrs.namespace.is_empty(),
        _ => true,
    }
}

/// A webhook's `rules` with its `matchPolicy`: the first rule that holds for the
/// request, else (`Equivalent`) the first rule that holds for an equivalent resource,
/// earlier rules first.
pub fn match_webhook_rules(
    rules: &[Value],
    match_policy: &str,
    attrs: &Attributes,
    equivalents: &[Equivalent],
) -> Option<Invocation> {
    if rules
        .iter()
        .any(|r| rule_matches(r, attrs, &attrs.resource))
    {
        return Some(Invocation {
            resource: attrs.resource.clone(),
            kind: attrs.kind.clone(),
        });
    }
    if match_policy != "Equivalent" {
        return None;
    }
    rules.iter().find_map(|r| {
        equivalents
            .iter()
            .filter(|e| e.resource != attrs.resource)
            .find(|e| rule_matches(r, attrs, &e.resource))
            .map(|e| Invocation {
                resource: e.resource.clone(),
                kind: e.kind.clone(),
            })
    })
}

fn name_listed(named_rule: &Value, attrs: &Attributes) -> bool {
    let mut names = strings(named_rule, "resourceNames").peekable();
    names.peek().is_none() || names.any(|n| n == attrs.name)
}

/// `matchesResourceRules`: `NamedRuleWithOperations` (a rule plus `resourceNames`).
fn match_named_rules(
    rules: &[Value],
    match_policy: &str,
    attrs: &Attributes,
    equivalents: &[Equivalent],
) -> Option<Invocation> {
    for r in rules {
        if rule_matches(r, attrs, &attrs.resource) && name_listed(r, attrs) {
            return Some(Invocation {
                resource: attrs.resource.clone(),
                kind: attrs.kind.clone(),
            });
        }
    }
    if match_policy != "Equivalent" {
        return None;
    }
    for r in rules {
        for e in equivalents {
            if e.resource.version == attrs.resource.version {
                continue;
            }
            if rule_matches(r, attrs, &e.resource) && name_listed(r, attrs) {
                return Some(Invocation {
                    resource: e.resource.clone(),
                    kind: e.kind.clone(),
                });
            }
        }
    }
    None
}

/// `namespace.Matcher.MatchNamespaceSelector`. `namespace` is the request's namespace
/// object when it exists. Cluster-scoped requests (other than for Namespaces) always
/// match; a Namespace being created or updated is judged by its own new labels.
pub fn namespace_selected(
    namespace_selector: Option<&Value>,
    attrs: &Attributes,
    namespace: Option<&Value>,
) -> Result<bool, SelectorError> {
    if attrs.namespace.is_empty() && !attrs.is_namespace() {
        return Ok(true);
    }
    if labels::is_empty(namespace_selector) {
        return Ok(true);
    }
    let sel = namespace_selector.unwrap_or(&Value::Null);
    let namespace_labels: Map<String, Value> = if attrs.is_namespace()
        && attrs.subresource.is_empty()
        && matches!(
            attrs.op(),
            super::Operation::Create | super::Operation::Update
        ) {
        attrs
            .object
            .as_ref()
            .map(labels::labels_of)
            .unwrap_or_default()
    } else {
        match namespace {
            Some(ns) => labels::labels_of(ns),
            None => return Err(SelectorError::NamespaceNotFound(attrs.namespace.clone())),
        }
    };
    labels::matches(sel, &namespace_labels).map_err(SelectorError::Invalid)
}

/// `object.Matcher.MatchObjectSelector`: the new or the old object's labels match.
pub fn object_selected(
    object_selector: Option<&Value>,
    attrs: &Attributes,
) -> Result<bool, SelectorError> {
    if labels::is_empty(object_selector) {
        return Ok(true);
    }
    let sel = object_selector.unwrap_or(&Value::Null);
    for obj in [&attrs.object, &attrs.old_object].into_iter().flatten() {
        if obj.is_null() {
            continue;
        }
        if labels::matches(sel, &labels::labels_of(obj)).map_err(SelectorError::Invalid)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// A webhook's `rules`, `matchPolicy`, `namespaceSelector` and `objectSelector`
/// (`ShouldCallHook` before its match conditions): how it is invoked, or `None`.
/// Selector errors count only for a webhook whose rules match.
pub fn match_webhook(
    webhook: &Value,
    attrs: &Attributes,
    namespace: Option<&Value>,
    equivalents: &[Equivalent],
) -> Result<Option<Invocation>, SelectorError> {
    selected_then(webhook, attrs, namespace, |policy| {
        match_webhook_rules(rules_at(webhook, "rules"), policy, attrs, equivalents)
    })
}

/// A policy's `matchConstraints` or a binding's `matchResources`
/// (`matching.Matcher.Matches`): selectors, then `excludeResourceRules`, then
/// `resourceRules` (none: every resource). Selector errors count only when the rest
/// matches.
pub fn match_resources(
    match_resources: &Value,
    attrs: &Attributes,
    namespace: Option<&Value>,
    equivalents: &[Equivalent],
) -> Result<Option<Invocation>, SelectorError> {
    selected_then(match_resources, attrs, namespace, |policy| {
        let excluded = rules_at(match_resources, "excludeResourceRules");
        if match_named_rules(excluded, policy, attrs, equivalents).is_some() {
            return None;
        }
        let rules = rules_at(match_resources, "resourceRules");
        if rules.is_empty() {
            Some(Invocation {
                resource: attrs.resource.clone(),
                kind: attrs.kind.clone(),
            })
        } else {
            match_named_rules(rules, policy, attrs, equivalents)
        }
    })
}

/// The part webhooks and policies share: `None` when the `namespaceSelector` or
/// `objectSelector` of `spec` rejects the request, else what `rules` (given the
/// `matchPolicy`) makes of it. A selector that failed to evaluate is an error only
/// when the rules match, as kube-apiserver reports it.
fn selected_then(
    spec: &Value,
    attrs: &Attributes,
    namespace: Option<&Value>,
    rules: impl FnOnce(&str) -> Option<Invocation>,
) -> Result<Option<Invocation>, SelectorError> {
    let ns = namespace_selected(spec.get("namespaceSelector"), attrs, namespace);
    if ns == Ok(false) {
        return Ok(None);
    }
    let obj = object_selected(spec.get("objectSelector"), attrs);
    if obj == Ok(false) {
        return Ok(None);
    }
    let policy = spec
        .get("matchPolicy")
        .and_then(Value::as_str)
        .unwrap_or("Equivalent");
    let Some(invocation) = rules(policy) else {
        return Ok(None);
    };
    ns?;
    obj?;
    Ok(Some(invocation))
}

/// The rule list at `field` of `spec` (empty when absent).
fn rules_at<'a>(spec: &'a Value, field: &str) -> &'a [Value] {
    spec.get(field)
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice)
}

#[cfg(test)]
mod tests {
    use super::super::Operation;
    use super::*;
    use serde_json::json;

    fn gvr(g: &str, v: &str, r: &str) -> GroupVersionResource {
        GroupVersionResource {
            group: g.into(),
            version: v.into(),
            resource: r.into(),
        }
    }

    fn gvk(g: &str, v: &str, k: &str) -> GroupVersionKind {
        GroupVersionKind {
            group: g.into(),
            version: v.into(),
            kind: k.into(),
        }
    }

    fn crontab(op: Operation, ns: &str, sub: &str) -> Attributes {
        Attributes {
            operation: Some(op),
            kind: gvk("stable.example.com", "v1", "CronTab"),
            resource: gvr("stable.example.com", "v1", "crontabs"),
            subresource: sub.into(),
            name: "a".into(),
            namespace: ns.into(),
            object: Some(json!({"metadata": {"name": "a", "labels": {"app": "web"}}})),
            ..Default::default()
        }
    }

    fn rule(ops: &[&str], resources: &[&str], scope: &str) -> Value {
        json!({"operations": ops, "apiGroups": ["stable.example.com"], "apiVersions": ["*"],
            "resources": resources, "scope": scope})
    }

    #[test]
    fn operations_resources_subresources_and_scope() {
        let a = crontab(Operation::Create, "default", "");
        let res = &a.resource;
        for (rule, want) in [
            (rule(&["CREATE"], &["crontabs"], "*"), true),
            (rule(&["*"], &["*"], "Namespaced"), true),
            (rule(&["UPDATE"], &["crontabs"], "*"), false),
            (rule(&["CREATE"], &["crontabs"], "Cluster"), false),
        ] {
            assert_eq!(rule_matches(&rule, &a, res), want, "{rule}");
        }
        let status = crontab(Operation::Update, "default", "status");
        for (resource, want) in [
            ("crontabs", false),
            ("*", false),
            ("crontabs/*", true),
            ("*/status", true),
            ("*/*", true),
            ("*/scale", false),
        ] {
            let rule = rule(&["*"], &[resource], "*");
            assert_eq!(rule_matches(&rule, &status, res), want, "{resource}");
        }
    }

    #[test]
    fn namespaces_are_cluster_scoped() {
        let a = Attributes {
            operation: Some(Operation::Create),
            kind: gvk("", "v1", "Namespace"),
            resource: gvr("", "v1", "namespaces"),
            name: "dev".into(),
            namespace: "dev".into(),
            object: Some(json!({"metadata": {"name": "dev", "labels": {"env": "dev"}}})),
            ..Default::default()
        };
        let r = |scope: &str| json!({"operations": ["*"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["namespaces"], "scope": scope});
        assert!(rule_matches(&r("Cluster"), &a, &a.resource));
        assert!(!rule_matches(&r("Namespaced"), &a, &a.resource));
        // Its own new labels decide the namespace selector.
        let sel = json!({"matchLabels": {"env": "dev"}});
        assert_eq!(namespace_selected(Some(&sel), &a, None), Ok(true));
    }

    #[test]
    fn equivalent_versions_match_only_with_the_equivalent_policy() {
        let a = crontab(Operation::Create, "default", "");
        let v2 = Equivalent {
            resource: gvr("stable.example.com", "v2", "crontabs"),
            kind: gvk("stable.example.com", "v2", "CronTab"),
        };
        let only_v2 = json!({"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["v2"], "resources": ["crontabs"]});
        let rules = [only_v2];
        assert_eq!(
            match_webhook_rules(&rules, "Exact", &a, std::slice::from_ref(&v2)),
            None
        );
        let got = match_webhook_rules(&rules, "Equivalent", &a, std::slice::from_ref(&v2)).unwrap();
        assert_eq!(got.kind.version, "v2");
        assert!(got.converts(&a));
    }

    #[test]
    fn selectors_and_resource_names() {
        let a = crontab(Operation::Update, "default", "");
        let ns = json!({"metadata": {"name": "default", "labels": {"team": "a"}}});
        let webhook = |ns_sel: Value, obj_sel: Value| json!({"rules": [rule(&["*"], &["*"], "*")], "namespaceSelector": ns_sel, "objectSelector": obj_sel});
        let yes = json!({"matchLabels": {"team": "a"}});
        let no = json!({"matchLabels": {"team": "b"}});
        assert!(
            match_webhook(&webhook(yes.clone(), json!({})), &a, Some(&ns), &[])
                .unwrap()
                .is_some()
        );
        assert!(
            match_webhook(&webhook(no, json!({})), &a, Some(&ns), &[])
                .unwrap()
                .is_none()
        );
        let app = json!({"matchLabels": {"app": "web"}});
        assert!(
            match_webhook(&webhook(json!({}), app), &a, None, &[])
                .unwrap()
                .is_some()
        );
        // A missing namespace is an error only for a selector that needs it.
        assert_eq!(
            match_webhook(&webhook(yes, json!({})), &a, None, &[]),
            Err(SelectorError::NamespaceNotFound("default".into()))
        );
        let named = |names: Value| {
            json!({"resourceRules": [{"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["*"],
                "resources": ["crontabs"], "resourceNames": names}]})
        };
        assert!(
            match_resources(&named(json!(["a"])), &a, Some(&ns), &[])
                .unwrap()
                .is_some()
        );
        assert!(
            match_resources(&named(json!(["b"])), &a, Some(&ns), &[])
                .unwrap()
                .is_none()
        );
        let excluded = json!({"excludeResourceRules": [{"operations": ["*"], "apiGroups": ["*"],
            "apiVersions": ["*"], "resources": ["crontabs"]}]});
        assert!(
            match_resources(&excluded, &a, Some(&ns), &[])
                .unwrap()
                .is_none()
        );
        assert!(
            match_resources(&json!({}), &a, Some(&ns), &[])
                .unwrap()
                .is_some()
        );
    }
}
