//! Admission policies without a server: ValidatingAdmissionPolicies and
//! MutatingAdmissionPolicies, their bindings and parameter objects read from files,
//! evaluated on objects by crd-runtime's policy engine
//! (`crd_runtime::admission::policy`), the code crd-server runs. This is
//! `crd-gen validate --policy`.
//!
//! Each object is a CREATE (or an UPDATE of an old object) by `system:admin`.
//! `namespaceObject` is the Namespace given among the documents, else a namespace
//! with that name and no labels. Parameters are the documents of the `paramKind`
//! that a binding's `paramRef` selects.
//!
//! ```
//! use crd_gen::policy::{PolicySet, Target};
//! use serde_json::json;
//!
//! let policy = json!({
//!     "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
//!     "metadata": {"name": "max-replicas"},
//!     "spec": {
//!         "matchConstraints": {"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"],
//!             "operations": ["CREATE"], "resources": ["deployments"]}]},
//!         "validations": [{"expression": "object.spec.replicas <= 5"}]}});
//! let binding = json!({
//!     "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
//!     "metadata": {"name": "max-replicas"},
//!     "spec": {"policyName": "max-replicas", "validationActions": ["Deny"]}});
//! let set = PolicySet::load(
//!     vec![("policy.yaml".to_string(), policy), ("policy.yaml".to_string(), binding)],
//!     crd_runtime::KubeVersion::NEWEST,
//! ).unwrap();
//! let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment",
//!     "metadata": {"name": "web", "namespace": "default"}, "spec": {"replicas": 9}});
//! let target = Target::builtin("apps/v1", "Deployment");
//! let outcome = set.validate(&target, &deployment, None);
//! assert!(outcome.denial.is_some());
//! ```

mod kinds;
mod load;
mod params;

use std::borrow::Cow;
use std::collections::HashMap;

use crd_runtime::CustomResourceDefinition;
use crd_runtime::KubeVersion;
use crd_runtime::admission::matching::Equivalent;
use crd_runtime::admission::policy::{MutatingPolicies, ValidatingPolicies};
use crd_runtime::admission::{
    Attributes, GroupVersionKind, GroupVersionResource, Operation, UserInfo,
};
use crd_runtime::model::JSONSchemaProps;
use serde_json::{Value, json};

pub use kinds::builtin_schema;

/// The user every offline request is made by, as crd-server's single user.
const USER: &str = "system:admin";
const GROUPS: [&str; 2] = ["system:masters", "system:authenticated"];

/// What a request addresses: the object's kind and resource, its scope, and the
/// other versions `matchPolicy: Equivalent` may match through.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    /// The object's kind.
    pub kind: GroupVersionKind,
    /// The resource (plural) the request addresses.
    pub resource: GroupVersionResource,
    /// Whether the resource is namespaced.
    pub namespaced: bool,
    /// The other served versions of the same resource (a CRD's).
    pub equivalents: Vec<Equivalent>,
}

impl Target {
    /// A kind of `crd` in `version`.
    pub fn for_crd(crd: &CustomResourceDefinition, version: &str) -> Target {
        let group = &crd.spec.group;
        let resource = |v: &str| GroupVersionResource {
            group: group.clone(),
            version: v.to_string(),
            resource: crd.spec.names.plural.clone(),
        };
        let kind = |v: &str| GroupVersionKind {
            group: group.clone(),
            version: v.to_string(),
            kind: crd.spec.names.kind.clone(),
        };
        let equivalents = crd
            .spec
            .versions
            .iter()
            .filter(|v| v.served && v.name != version)
            .map(|v| Equivalent {
                resource: resource(&v.name),
                kind: kind(&v.name),
            })
            .collect();
        Target {
            kind: kind(version),
            resource: resource(version),
            namespaced: crd.spec.scope == "Namespaced",
            equivalents,
        }
    }

    /// A kind no CRD defines: Kubernetes' built-in kinds by their known plural and
    /// scope; any other kind by kube's plural guess, namespaced.
    pub fn builtin(api_version: &str, kind: &str) -> Target {
        let kind = kinds::gvk(api_version, kind);
        Target {
            resource: kinds::guess_resource(&kind),
            namespaced: kinds::builtin_namespaced(&kind.kind),
            kind,
            equivalents: Vec::new(),
        }
    }
}

/// What the validating policies decided about one object.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// The denial, as kube-apiserver's Status message
    /// (`ValidatingAdmissionPolicy 'P' with binding 'B' denied request: ...`).
    pub denial: Option<String>,
    /// `Warn` actions' warnings, as kubectl prints them after `Warning: `.
    pub warnings: Vec<String>,
}

/// What the mutating policies did to one object.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Mutation {
    /// Whether the object changed.
    pub changed: bool,
    /// Warnings of the mutating policies.
    pub warnings: Vec<String>,
}

/// Policies, bindings, parameter objects and namespaces read from documents.
pub struct PolicySet {
    validating: ValidatingPolicies,
    mutating: MutatingPolicies,
    params: params::Params,
    namespaces: HashMap<String, Value>,
}

impl PolicySet {
    /// Sorts `documents` (each with the name of its file, for messages) into
    /// policies, bindings and the other objects (parameters, Namespaces), and
    /// compiles the policies. Errors name the file, the object and the field of
    /// each policy or binding the server would refuse.
    pub fn load(
        documents: Vec<(String, Value)>,
        version: KubeVersion,
    ) -> Result<PolicySet, Vec<String>> {
        let sorted = load::sort(documents, version)?;
        let param_kinds: Vec<(String, String)> = sorted
            .validating
            .iter()
            .chain(&sorted.mutating)
            .filter_map(|p| p.pointer("/spec/paramKind"))
            .map(|pk| {
                let at = |k: &str| pk.get(k).and_then(Value::as_str).unwrap_or("").to_string();
                (at("apiVersion"), at("kind"))
            })
            .collect();
        let mut namespaces = HashMap::new();
        for o in &sorted.others {
            if is_namespace(o) {
                namespaces.insert(name_of(o).to_string(), o.clone());
            }
        }
        Ok(PolicySet {
            validating: ValidatingPolicies::new(
                &sorted.validating,
                &sorted.validating_bindings,
                version,
            ),
            mutating: MutatingPolicies::new(&sorted.mutating, &sorted.mutating_bindings, version),
            params: params::Params::new(sorted.others, &param_kinds),
            namespaces,
        })
    }

    /// Adds a Namespace (from the objects being validated): requests in it see its
    /// labels. A later one of the same name replaces an earlier one.
    pub fn add_namespace(&mut self, namespace: Value) {
        self.namespaces
            .insert(name_of(&namespace).to_string(), namespace);
    }

    /// Tells the scope of a kind from its CRD, for parameters of that kind.
    pub fn add_crd(&mut self, crd: &CustomResourceDefinition) {
        self.params.add_crd(crd);
    }

    /// Whether some mutating policy is bound.
    pub fn has_mutating(&self) -> bool {
        !self.mutating.is_empty()
    }

    /// The admission attributes of a CREATE of `object` (an UPDATE when `old` is given).
    pub fn attributes(target: &Target, object: Value, old: Option<&Value>) -> Attributes {
        let meta_str = |k: &str| {
            object
                .get("metadata")
                .and_then(|m| m.get(k))
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let name = meta_str("name");
        let is_namespace =
            target.resource.group.is_empty() && target.resource.resource == "namespaces";
        let namespace = if is_namespace {
            name.clone()
        } else if target.namespaced {
            let ns = meta_str("namespace");
            // kubectl sends objects without a namespace to its context's, `default`.
            if ns.is_empty() {
                "default".to_string()
            } else {
                ns
            }
        } else {
            String::new()
        };
        let operation = if old.is_some() {
            Operation::Update
        } else {
            Operation::Create
        };
        Attributes {
            operation: Some(operation),
            kind: target.kind.clone(),
            resource: target.resource.clone(),
            subresource: String::new(),
            name,
            namespace,
            object: Some(object),
            old_object: old.cloned(),
            options: Some(
                json!({"kind": operation.options_kind(), "apiVersion": "meta.k8s.io/v1"}),
            ),
            dry_run: false,
            user: UserInfo {
                username: USER.to_string(),
                groups: GROUPS.iter().map(|g| g.to_string()).collect(),
                ..Default::default()
            },
        }
    }

    /// `namespaceObject` for a request: the Namespace given, else one with that name
    /// and no labels; none for cluster-scoped requests and Namespaces themselves.
    fn namespace_of(&self, attrs: &Attributes) -> Option<Cow<'_, Value>> {
        if attrs.namespace.is_empty() || attrs.is_namespace() {
            return None;
        }
        Some(match self.namespaces.get(&attrs.namespace) {
            Some(ns) => Cow::Borrowed(ns),
            None => Cow::Owned(
                json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": attrs.namespace}}),
            ),
        })
    }

    /// Runs the mutating policies on `object`; `schema` is its structural schema when
    /// known (list merge keys). `Err` is a denial's message.
    pub fn mutate(
        &self,
        target: &Target,
        object: &mut Value,
        old: Option<&Value>,
        schema: Option<&JSONSchemaProps>,
    ) -> Result<Mutation, String> {
        if self.mutating.is_empty() {
            return Ok(Mutation::default());
        }
        // The object moves into the request and back: no copy.
        let mut attrs = PolicySet::attributes(target, std::mem::take(object), old);
        let result = self.mutate_request(target, &mut attrs, schema);
        if let Some(o) = attrs.object.take() {
            *object = o;
        }
        result
    }

    fn mutate_request(
        &self,
        target: &Target,
        attrs: &mut Attributes,
        schema: Option<&JSONSchemaProps>,
    ) -> Result<Mutation, String> {
        let namespace = self.namespace_of(attrs).map(Cow::into_owned);
        let plan = self
            .mutating
            .plan(attrs, namespace.as_ref(), &target.equivalents);
        if plan.is_empty() {
            return Ok(Mutation::default());
        }
        let lookup = |q: &_| self.params.find(q);
        let outcome = self
            .mutating
            .mutate(&plan, attrs, namespace.as_ref(), schema, &lookup)
            .map_err(|d| d.message)?;
        Ok(Mutation {
            changed: outcome.changed,
            warnings: outcome.warnings,
        })
    }

    /// Runs the validating policies on the admitted `object`.
    pub fn validate(&self, target: &Target, object: &Value, old: Option<&Value>) -> Outcome {
        self.validate_owned(target, &mut object.clone(), old)
    }

    /// [`PolicySet::validate`] without copying `object`: it moves into the request for
    /// the evaluation and back, unchanged.
    pub fn validate_owned(
        &self,
        target: &Target,
        object: &mut Value,
        old: Option<&Value>,
    ) -> Outcome {
        if self.validating.is_empty() {
            return Outcome::default();
        }
        let mut attrs = PolicySet::attributes(target, std::mem::take(object), old);
        let outcome = self.decide(target, &attrs);
        if let Some(o) = attrs.object.take() {
            *object = o;
        }
        outcome
    }

    fn decide(&self, target: &Target, attrs: &Attributes) -> Outcome {
        let namespace = self.namespace_of(attrs);
        let plan = self
            .validating
            .plan(attrs, namespace.as_deref(), &target.equivalents);
        if plan.is_empty() {
            return Outcome::default();
        }
        let lookup = |q: &_| self.params.find(q);
        let verdict = self
            .validating
            .decide(&plan, attrs, namespace.as_deref(), &lookup);
        Outcome {
            denial: verdict.denied.map(|d| d.message),
            warnings: verdict.warnings,
        }
    }
}

/// Whether a document is a Namespace (`v1`), whose labels requests in it see.
pub fn is_namespace(o: &Value) -> bool {
    o.get("apiVersion").and_then(Value::as_str) == Some("v1")
        && o.get("kind").and_then(Value::as_str) == Some("Namespace")
}

fn name_of(o: &Value) -> &str {
    o.get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("")
}
