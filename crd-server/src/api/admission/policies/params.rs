//! The parameters of a binding (`paramRef`), read from the store as the plugins'
//! `CollectParams` reads its informer: the policy's `paramKind` resolved to a served
//! resource, then one object by name or the objects a label selector picks, in the
//! `paramKind`'s version. A missing object is no error here (the engine applies
//! `parameterNotFoundAction`).

use crd_runtime::admission::policy::ParamQuery;
use crd_runtime::labels as selector;
use serde_json::Value;

use crate::api::admission::Backend;
use crate::api::stored as storage;
use crate::store::ListOptions;

/// How Go prints the policy's `ParamKind` in kube-apiserver's messages.
fn param_kind(q: &ParamQuery) -> String {
    format!(
        "&ParamKind{{APIVersion:{},Kind:{},}}",
        q.api_version, q.kind
    )
}

/// The objects `q` names (`Err`: kube-apiserver's message for a lookup that failed).
pub async fn resolve(shared: &Backend<'_>, q: &ParamQuery) -> Result<Vec<Value>, String> {
    let Some(res) = shared.registry.resolve_kind(&q.api_version, &q.kind) else {
        return Err(format!("paramKind kind `{}` not known", param_kind(q)));
    };
    let info = res.info();
    let namespace = if info.namespaced {
        match q.namespace.as_deref().filter(|n| !n.is_empty()) {
            Some(ns) => Some(ns),
            None => {
                return Err("cannot use namespaced paramRef in policy binding that matches cluster-scoped resources".into());
            }
        }
    } else if q.namespace_given {
        return Err(
            "paramRef.namespace must not be provided for a cluster-scoped `paramKind`".into(),
        );
    } else {
        None
    };
    let kvs = match (&q.name, &q.selector) {
        (Some(_), Some(_)) => {
            return Err("paramRef.name and paramRef.selector are mutually exclusive".into());
        }
        (Some(name), None) => {
            let key = info.key(namespace, name);
            match shared.store.get(&key).await {
                Ok(found) => found.into_iter().collect::<Vec<_>>(),
                Err(e) => return Err(e.to_string()),
            }
        }
        (None, Some(_)) => {
            let prefix = info.list_prefix(namespace);
            match shared.store.list(&prefix, ListOptions::default()).await {
                // A prefix also covers longer names (`/ns/` of `/ns-2/`): keep direct children.
                Ok(listed) => listed
                    .items
                    .into_iter()
                    .filter(|kv| {
                        kv.key
                            .strip_prefix(&prefix)
                            .is_some_and(|rest| !rest.contains('/'))
                    })
                    .collect(),
                Err(e) => return Err(e.to_string()),
            }
        }
        (None, None) => return Err("one of name or selector must be provided".into()),
    };
    let mut objects = storage::present(&res, &kvs).await.map_err(|e| e.message)?;
    if let Some(sel) = &q.selector {
        let mut kept = Vec::with_capacity(objects.len());
        for obj in objects {
            if selector::matches(sel, &selector::labels_of(&obj))? {
                kept.push(obj);
            }
        }
        objects = kept;
    }
    Ok(objects)
}

/// Every query of a plan, answered (the engine asks synchronously).
pub struct Answers(Vec<(ParamQuery, Result<Vec<Value>, String>)>);

impl Answers {
    /// Resolves `queries` (each distinct one once).
    pub async fn collect(shared: &Backend<'_>, queries: Vec<&ParamQuery>) -> Answers {
        let mut out: Vec<(ParamQuery, Result<Vec<Value>, String>)> = Vec::new();
        for q in queries {
            if out.iter().any(|(known, _)| known == q) {
                continue;
            }
            out.push((q.clone(), resolve(shared, q).await));
        }
        Answers(out)
    }

    /// The answer to `q` (one the plan did not ask for is looked up as missing).
    pub fn get(&self, q: &ParamQuery) -> Result<Vec<Value>, String> {
        self.0
            .iter()
            .find(|(known, _)| known == q)
            .map(|(_, answer)| answer.clone())
            .unwrap_or_else(|| Ok(Vec::new()))
    }
}
