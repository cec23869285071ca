//! Parameter objects and the lookups of bindings' `paramRef`s among them, as
//! kube-apiserver's `CollectParams` does against its informers.

use std::collections::HashMap;

use crd_runtime::CustomResourceDefinition;
use crd_runtime::admission::policy::ParamQuery;
use crd_runtime::admission::selector;
use serde_json::Value;

use super::kinds;

/// The objects given besides policies and bindings, by (apiVersion, kind).
pub struct Params {
    objects: HashMap<(String, String), Vec<Value>>,
    /// Scopes known from CRDs: (apiVersion, kind) → namespaced.
    crd_scopes: HashMap<(String, String), bool>,
}

fn str_at<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn meta_str<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get("metadata").map_or("", |m| str_at(m, key))
}

impl Params {
    pub fn new(others: Vec<Value>) -> Params {
        let mut objects: HashMap<(String, String), Vec<Value>> = HashMap::new();
        for o in others {
            let key = (
                str_at(&o, "apiVersion").to_string(),
                str_at(&o, "kind").to_string(),
            );
            objects.entry(key).or_default().push(o);
        }
        Params {
            objects,
            crd_scopes: HashMap::new(),
        }
    }

    pub fn add_crd(&mut self, crd: &CustomResourceDefinition) {
        for v in &crd.spec.versions {
            let api_version = format!("{}/{}", crd.spec.group, v.name);
            self.crd_scopes.insert(
                (api_version, crd.spec.names.kind.clone()),
                crd.spec.scope == "Namespaced",
            );
        }
    }

    /// Whether the kind is namespaced: from its CRD, Kubernetes' own kinds, else from
    /// the objects given (`None`: unknown, none given).
    fn namespaced(&self, api_version: &str, kind: &str, given: &[Value]) -> Option<bool> {
        let key = (api_version.to_string(), kind.to_string());
        if let Some(n) = self.crd_scopes.get(&key) {
            return Some(*n);
        }
        let gvk = kinds::gvk(api_version, kind);
        if kinds::builtin_schema(&gvk, crd_runtime::KubeVersion::NEWEST).is_some() {
            return Some(kinds::builtin_namespaced(kind));
        }
        given
            .first()
            .map(|_| given.iter().any(|o| !meta_str(o, "namespace").is_empty()))
    }

    /// The objects `q` selects; errors are kube-apiserver's for a paramRef that does
    /// not fit the parameter kind's scope.
    pub fn find(&self, q: &ParamQuery) -> Result<Vec<Value>, String> {
        let given = self
            .objects
            .get(&(q.api_version.clone(), q.kind.clone()))
            .map_or(&[][..], Vec::as_slice);
        let namespace = match self.namespaced(&q.api_version, &q.kind, given) {
            Some(false) if q.namespace_given => {
                return Err(
                    "paramRef.namespace must not be provided for a cluster-scoped `paramKind`"
                        .to_string(),
                );
            }
            Some(false) => None,
            Some(true) if q.namespace.is_none() => {
                return Err("cannot use namespaced paramRef in policy binding that matches cluster-scoped resources".to_string());
            }
            _ => q.namespace.as_deref(),
        };
        let mut found = Vec::new();
        for o in given {
            if namespace.is_some_and(|ns| meta_str(o, "namespace") != ns) {
                continue;
            }
            if let Some(name) = &q.name {
                if meta_str(o, "name") == name {
                    found.push(o.clone());
                }
                continue;
            }
            let selected = match &q.selector {
                Some(sel) => selector::matches(sel, &selector::labels_of(o))?,
                None => true,
            };
            if selected {
                found.push(o.clone());
            }
        }
        Ok(found)
    }
}
