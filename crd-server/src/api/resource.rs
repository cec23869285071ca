//! A resource as a request addresses it: the built-in CRDs and Namespaces, or a custom
//! kind at one of its served versions. Everything generic (keys, list kinds, columns,
//! selectable fields) is answered here, so the handlers treat all three alike.

use std::sync::Arc;

use serde_json::Value;

use super::conversion;
use super::registry::{CRD_PREFIX, CustomKind, ServedVersion};
use super::status::ApiError;
use super::status::Qualified;
use super::table::Column;

/// Where namespaces are stored.
pub const NAMESPACE_PREFIX: &str = "/registry/namespaces/";

/// Which family a resource belongs to.
#[derive(Clone)]
pub enum Family {
    /// `apiextensions.k8s.io/v1` CustomResourceDefinitions.
    Crd,
    /// Core v1 Namespaces.
    Namespace,
    /// Objects of a CRD.
    Custom(Arc<CustomKind>),
}

/// A resource at a version.
#[derive(Clone)]
pub struct Resource {
    pub family: Family,
    pub q: Qualified,
    pub version: String,
    pub list_kind: String,
    pub namespaced: bool,
    prefix: String,
}

impl Resource {
    /// CustomResourceDefinitions.
    pub fn crds() -> Resource {
        Resource {
            family: Family::Crd,
            q: Qualified {
                group: "apiextensions.k8s.io".into(),
                plural: "customresourcedefinitions".into(),
                kind: "CustomResourceDefinition".into(),
            },
            version: "v1".into(),
            list_kind: "CustomResourceDefinitionList".into(),
            namespaced: false,
            prefix: CRD_PREFIX.into(),
        }
    }

    /// Namespaces.
    pub fn namespaces() -> Resource {
        Resource {
            family: Family::Namespace,
            q: Qualified {
                group: String::new(),
                plural: "namespaces".into(),
                kind: "Namespace".into(),
            },
            version: "v1".into(),
            list_kind: "NamespaceList".into(),
            namespaced: false,
            prefix: NAMESPACE_PREFIX.into(),
        }
    }

    /// A custom kind at `version` (which must be served).
    pub fn custom(kind: Arc<CustomKind>, version: &str) -> Resource {
        Resource {
            q: kind.q.clone(),
            version: version.to_string(),
            list_kind: kind.list_kind.clone(),
            namespaced: kind.namespaced,
            prefix: kind.prefix(),
            family: Family::Custom(kind),
        }
    }

    /// `group/version` (or `v1`).
    pub fn api_version(&self) -> String {
        if self.q.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.q.group, self.version)
        }
    }

    /// The storage key of one object.
    pub fn key(&self, namespace: Option<&str>, name: &str) -> String {
        match namespace.filter(|_| self.namespaced) {
            Some(ns) => format!("{}{ns}/{name}", self.prefix),
            None => format!("{}{name}", self.prefix),
        }
    }

    /// The key prefix of a list (all namespaces when `namespace` is `None`).
    pub fn list_prefix(&self, namespace: Option<&str>) -> String {
        match namespace.filter(|_| self.namespaced) {
            Some(ns) => format!("{}{ns}/", self.prefix),
            None => self.prefix.clone(),
        }
    }

    /// The served version of a custom kind.
    pub fn served(&self) -> Option<&ServedVersion> {
        match &self.family {
            Family::Custom(kind) => kind.version(&self.version),
            _ => None,
        }
    }

    /// Whether `status` is a subresource (the main endpoint then ignores it).
    pub fn has_status(&self) -> bool {
        match &self.family {
            Family::Crd | Family::Namespace => true,
            Family::Custom(_) => self.served().is_some_and(|v| v.status),
        }
    }

    /// Fields a field selector may use.
    pub fn selectable_fields(&self) -> Vec<String> {
        let mut fields = vec!["metadata.name".to_string()];
        if self.namespaced {
            fields.push("metadata.namespace".into());
        }
        match &self.family {
            Family::Namespace => fields.push("status.phase".into()),
            Family::Custom(_) => {
                if let Some(v) = self.served() {
                    fields.extend(
                        v.selectable
                            .iter()
                            .map(|p| p.trim_start_matches('.').to_string()),
                    );
                }
            }
            Family::Crd => {}
        }
        fields
    }

    /// Table columns.
    pub fn columns(&self) -> Vec<Column> {
        let mut cols = vec![Column::name()];
        match &self.family {
            Family::Crd => cols.push(Column::printer(
                "Created At",
                "rawdate",
                None,
                Some("CreationTimestamp is a timestamp representing the server time when this object was created."),
                None,
                ".metadata.creationTimestamp",
            )),
            Family::Namespace => {
                cols.push(Column::printer("Status", "string", None, Some("The status of the namespace"), None, ".status.phase"));
                cols.push(Column::age());
            }
            Family::Custom(_) => match self.served() {
                Some(v) if !v.columns.is_empty() => {
                    cols.extend(v.columns.iter().map(|c| {
                        Column::printer(
                            &c.name,
                            &c.type_,
                            c.format.as_deref(),
                            c.description.as_deref(),
                            c.priority,
                            &c.json_path,
                        )
                    }));
                }
                _ => cols.push(Column::age()),
            },
        }
        cols
    }

    /// Sets what a read reports: `resourceVersion` from the store, and for the built-in
    /// kinds the `apiVersion`; custom objects keep the version they are stored in until
    /// [`Resource::in_served_version`] converts them.
    pub fn present(&self, obj: &mut Value, revision: u64) {
        if let Value::Object(map) = obj {
            if !matches!(self.family, Family::Custom(_)) {
                map.insert("apiVersion".into(), Value::String(self.api_version()));
            }
            let meta = map
                .entry("metadata")
                .or_insert_with(|| Value::Object(Default::default()));
            if let Value::Object(meta) = meta {
                meta.insert(
                    "resourceVersion".into(),
                    Value::String(revision.to_string()),
                );
            }
        }
    }

    /// Objects (as stored, in any version) in the version this resource serves,
    /// converted by the CRD's strategy.
    pub async fn in_served_version(&self, objects: Vec<Value>) -> Result<Vec<Value>, ApiError> {
        match &self.family {
            Family::Custom(kind) => {
                conversion::convert(&kind.conversion, &kind.q.kind, objects, &self.api_version())
                    .await
            }
            _ => Ok(objects),
        }
    }

    /// [`Resource::in_served_version`] of one object.
    pub async fn served_one(&self, object: Value) -> Result<Value, ApiError> {
        let mut out = self.in_served_version(vec![object]).await?;
        out.pop()
            .ok_or_else(|| ApiError::internal("the conversion returned no object"))
    }

    /// An object in the version it is stored in (the CRD's storage version).
    pub async fn stored(&self, object: &Value) -> Result<Value, ApiError> {
        match &self.family {
            Family::Custom(kind) => {
                let storage = format!("{}/{}", self.q.group, kind.storage_version);
                let mut out = conversion::convert(
                    &kind.conversion,
                    &kind.q.kind,
                    vec![object.clone()],
                    &storage,
                )
                .await?;
                out.pop()
                    .ok_or_else(|| ApiError::internal("the conversion returned no object"))
            }
            _ => Ok(object.clone()),
        }
    }
}
