//! Parameter objects and the lookups of bindings' `paramRef`s among them, as
//! kube-apiserver's `CollectParams` does against its informers.

use std::collections::HashMap;

use crd_runtime::CustomResourceDefinition;
use crd_runtime::admission::policy::ParamQuery;
use crd_runtime::labels as selector;
use serde_json::Value;

use super::kinds;

/// By apiVersion, then kind: looked up by `&str` without allocating.
type ByKind<T> = HashMap<String, HashMap<String, T>>;

/// The objects given besides policies and bindings, by (apiVersion, kind).
pub struct Params {
    objects: ByKind<Vec<Value>>,
    /// Whether each parameter kind is namespaced (`None`: unknown), worked out once.
    scopes: ByKind<Option<bool>>,
}

fn str_at<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn meta_str<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get("metadata").map_or("", |m| str_at(m, key))
}

fn get<'m, T>(map: &'m ByKind<T>, api_version: &str, kind: &str) -> Option<&'m T> {
    map.get(api_version).and_then(|kinds| kinds.get(kind))
}

impl Params {
    /// `others`: the objects; `param_kinds`: the (apiVersion, kind) of each policy's
    /// `paramKind`.
    pub fn new(others: Vec<Value>, param_kinds: &[(String, String)]) -> Params {
        let mut objects: ByKind<Vec<Value>> = HashMap::new();
        for o in others {
            let (api_version, kind) = (str_at(&o, "apiVersion"), str_at(&o, "kind"));
            objects
                .entry(api_version.to_string())
                .or_default()
                .entry(kind.to_string())
                .or_default()
                .push(o);
        }
        let mut scopes: ByKind<Option<bool>> = HashMap::new();
        for (api_version, kind) in param_kinds {
            let given = get(&objects, api_version, kind).map_or(&[][..], Vec::as_slice);
            let scope = scope_of(api_version, kind, given);
            scopes
                .entry(api_version.clone())
                .or_default()
                .insert(kind.clone(), scope);
        }
        Params { objects, scopes }
    }

    /// A CRD tells the scope of its kinds.
    pub fn add_crd(&mut self, crd: &CustomResourceDefinition) {
        for v in &crd.spec.versions {
            let api_version = format!("{}/{}", crd.spec.group, v.name);
            self.scopes.entry(api_version).or_default().insert(
                crd.spec.names.kind.clone(),
                Some(crd.spec.scope == "Namespaced"),
            );
        }
    }

    /// The objects `q` selects; errors are kube-apiserver's for a paramRef that does
    /// not fit the parameter kind's scope.
    pub fn find(&self, q: &ParamQuery) -> Result<Vec<Value>, String> {
        let given = get(&self.objects, &q.api_version, &q.kind).map_or(&[][..], Vec::as_slice);
        let scope = match get(&self.scopes, &q.api_version, &q.kind) {
            Some(scope) => *scope,
            None => scope_of(&q.api_version, &q.kind, given),
        };
        let namespace = match scope {
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

/// Whether a kind is namespaced: Kubernetes' own kinds by their scope, others by the
/// objects given (`None`: unknown, none given).
fn scope_of(api_version: &str, kind: &str, given: &[Value]) -> Option<bool> {
    let gvk = kinds::gvk(api_version, kind);
    if kinds::builtin_schema(&gvk, crd_runtime::KubeVersion::NEWEST).is_some() {
        return Some(kinds::builtin_namespaced(kind));
    }
    given
        .first()
        .map(|_| given.iter().any(|o| !meta_str(o, "namespace").is_empty()))
}
