//! What the garbage collector knows of an object: its identity, its owner references
//! and the deletion state of its metadata, read from the stored JSON without decoding
//! the rest of the object.

use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

use serde::Deserialize;

use crate::api::write::delete::{FOREGROUND_FINALIZER, ORPHAN_FINALIZER};

/// An object's coordinates (upstream's `objectReference`). `namespace` is empty for a
/// cluster-scoped object. A store holds few kinds and namespaces and many objects: the
/// graph shares one copy of each `apiVersion`, `kind` and namespace between its nodes
/// ([`Names`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Identity {
    pub api_version: Arc<str>,
    pub kind: Arc<str>,
    pub namespace: Arc<str>,
    pub name: String,
    /// Shared with the graph's tables, which index nodes by it.
    pub uid: Uid,
}

/// An object's uid, one copy shared by every table of the graph that names it.
pub type Uid = Arc<str>;

impl fmt::Display for Identity {
    /// The form kube-controller-manager prints references in (events, logs).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[{}/{}, namespace: {}, name: {}, uid: {}]",
            self.api_version, self.kind, self.namespace, self.name, self.uid
        )
    }
}

/// One shared copy of each name (`apiVersion`, `kind`, namespace) the graph's nodes hold.
/// Names no node holds any more (a deleted namespace's) go when the set has doubled
/// since it was last swept, so it stays within twice the names in use.
#[derive(Default)]
pub struct Names {
    kept: HashSet<Arc<str>>,
    sweep_at: usize,
}

impl Names {
    pub fn get(&mut self, name: &str) -> Arc<str> {
        if let Some(kept) = self.kept.get(name) {
            return kept.clone();
        }
        if self.kept.len() >= self.sweep_at {
            self.kept.retain(|n| Arc::strong_count(n) > 1);
            self.sweep_at = (2 * self.kept.len()).max(64);
        }
        let kept: Arc<str> = Arc::from(name);
        self.kept.insert(kept.clone());
        kept
    }
}

/// The group of an `apiVersion` (empty for the core group).
pub fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(g, _)| g)
}

/// One entry of `metadata.ownerReferences`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnerRef {
    #[serde(default)]
    pub api_version: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub uid: String,
    #[serde(default)]
    pub controller: Option<bool>,
    #[serde(default)]
    pub block_owner_deletion: Option<bool>,
}

impl OwnerRef {
    /// Whether this reference holds the owner's foreground deletion back.
    pub fn blocks(&self) -> bool {
        self.block_owner_deletion == Some(true)
    }

    /// Whether uid, name, kind and apiVersion are the identity's.
    pub fn matches(&self, id: &Identity) -> bool {
        *self.uid == *id.uid
            && self.name == id.name
            && *self.kind == *id.kind
            && *self.api_version == *id.api_version
    }

    /// The owner as this reference names it, in `namespace` (where it is looked for).
    pub fn identity(&self, namespace: &str) -> Identity {
        Identity {
            api_version: Arc::from(self.api_version.as_str()),
            kind: Arc::from(self.kind.as_str()),
            namespace: Arc::from(namespace),
            name: self.name.clone(),
            uid: Arc::from(self.uid.as_str()),
        }
    }
}

/// The metadata of a stored object the garbage collector follows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Meta {
    pub name: String,
    pub namespace: String,
    pub uid: String,
    pub owners: Vec<OwnerRef>,
    pub being_deleted: bool,
    /// Has the `foregroundDeletion` finalizer.
    pub foreground: bool,
    /// Has the `orphan` finalizer.
    pub orphan: bool,
}

#[derive(Deserialize)]
struct Stored {
    #[serde(default)]
    metadata: StoredMeta,
}

#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct StoredMeta {
    #[serde(default)]
    name: String,
    #[serde(default)]
    namespace: String,
    #[serde(default)]
    uid: String,
    #[serde(default)]
    deletion_timestamp: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    finalizers: Vec<String>,
    #[serde(default)]
    owner_references: Vec<OwnerRef>,
}

/// The metadata of a stored object (`None`: not an object with a uid).
pub fn read_meta(bytes: &[u8]) -> Option<Meta> {
    let stored: Stored = crd_runtime::__private::depth::from_json_slice(bytes).ok()?;
    let m = stored.metadata;
    if m.uid.is_empty() {
        return None;
    }
    Some(Meta {
        foreground: m.finalizers.iter().any(|f| f == FOREGROUND_FINALIZER),
        orphan: m.finalizers.iter().any(|f| f == ORPHAN_FINALIZER),
        name: m.name,
        namespace: m.namespace,
        uid: m.uid,
        owners: m.owner_references,
        being_deleted: m.deletion_timestamp.is_some(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_metadata_only() {
        let bytes = br#"{"apiVersion":"v1","kind":"ConfigMap","data":{"a":"b"},
            "metadata":{"name":"x","namespace":"ns","uid":"u1",
            "deletionTimestamp":"2024-01-01T00:00:00Z","finalizers":["foregroundDeletion","x/y"],
            "ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"d",
              "uid":"u0","blockOwnerDeletion":true,"controller":true}]}}"#;
        let m = read_meta(bytes).unwrap();
        assert_eq!((m.name.as_str(), m.namespace.as_str()), ("x", "ns"));
        assert!(m.being_deleted && m.foreground && !m.orphan);
        assert_eq!(m.owners.len(), 1);
        assert!(m.owners[0].blocks());
        assert_eq!(group_of(&m.owners[0].api_version), "apps");
        assert_eq!(group_of("v1"), "");
    }

    #[test]
    fn a_null_deletion_timestamp_is_no_deletion() {
        let m = read_meta(br#"{"metadata":{"uid":"u","deletionTimestamp":null}}"#).unwrap();
        assert!(!m.being_deleted);
        assert!(read_meta(br#"{"metadata":{"name":"no-uid"}}"#).is_none());
        assert!(read_meta(b"not json").is_none());
    }

    #[test]
    fn names_are_shared_and_the_unused_ones_go() {
        let mut names = Names::default();
        let a = names.get("default");
        assert!(Arc::ptr_eq(&a, &names.get("default")));
        // Namespaces that come and go: the set never holds many more than are in use.
        for i in 0..1_000 {
            drop(names.get(&format!("ns-{i}")));
        }
        assert!(names.kept.len() <= 128, "{} names kept", names.kept.len());
        assert!(Arc::ptr_eq(&a, &names.get("default")));
    }

    #[test]
    fn prints_references_as_upstream() {
        let id = Identity {
            api_version: "v1".into(),
            kind: "ConfigMap".into(),
            namespace: "".into(),
            name: "owner".into(),
            uid: "u".into(),
        };
        assert_eq!(
            id.to_string(),
            "[v1/ConfigMap, namespace: , name: owner, uid: u]"
        );
    }
}
