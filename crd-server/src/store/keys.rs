//! The current keys of the in-process key space, read two ways: a point read (every GET,
//! every write's precondition) by hash, and a list by key order. A B-tree alone made
//! each point read compare the key against a score of stored keys that share its long
//! `/registry/<group>/<plural>/<namespace>/` prefix, each comparison a cache miss on a
//! key's heap bytes — about a tenth of a GET's CPU under load.

use std::collections::{BTreeSet, HashMap};
use std::ops::Bound;
use std::sync::Arc;

use super::KeyValue;

/// See the module docs.
#[derive(Default)]
pub(crate) struct Keys {
    /// Each key's current value.
    values: HashMap<Arc<str>, KeyValue>,
    /// The same keys in order, sharing their bytes with `values`.
    ordered: BTreeSet<Arc<str>>,
}

impl Keys {
    pub(crate) fn get(&self, key: &str) -> Option<&KeyValue> {
        self.values.get(key)
    }

    /// Sets the value of `kv.key`.
    pub(crate) fn insert(&mut self, kv: KeyValue) {
        match self.values.get_mut(kv.key.as_str()) {
            Some(slot) => *slot = kv,
            None => {
                let key: Arc<str> = Arc::from(kv.key.as_str());
                self.ordered.insert(key.clone());
                self.values.insert(key, kv);
            }
        }
    }

    pub(crate) fn remove(&mut self, key: &str) {
        if self.values.remove(key).is_some() {
            self.ordered.remove(key);
        }
    }

    /// The values from `lower` on, in key order.
    pub(crate) fn from<'a>(&'a self, lower: Bound<&'a str>) -> impl Iterator<Item = &'a KeyValue> {
        self.ordered
            .range::<str, _>((lower, Bound::Unbounded))
            .map(|key| &self.values[key])
    }
}

impl FromIterator<KeyValue> for Keys {
    fn from_iter<I: IntoIterator<Item = KeyValue>>(kvs: I) -> Keys {
        let mut keys = Keys::default();
        for kv in kvs {
            keys.insert(kv);
        }
        keys
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kv(key: &str, revision: u64) -> KeyValue {
        KeyValue {
            key: key.into(),
            value: bytes::Bytes::from(format!("{revision}")),
            create_revision: revision,
            mod_revision: revision,
        }
    }

    #[test]
    fn point_reads_and_ordered_ranges_agree() {
        let mut keys: Keys = ["/b/2", "/a/1", "/b/1", "/c"]
            .iter()
            .zip(1..)
            .map(|(k, r)| kv(k, r))
            .collect();
        assert_eq!(keys.get("/b/1").map(|v| v.mod_revision), Some(3));
        let from_b: Vec<&str> = keys
            .from(Bound::Included("/b/"))
            .map(|v| v.key.as_str())
            .collect();
        assert_eq!(from_b, ["/b/1", "/b/2", "/c"]);
        let after: Vec<&str> = keys
            .from(Bound::Excluded("/b/1"))
            .map(|v| v.key.as_str())
            .collect();
        assert_eq!(after, ["/b/2", "/c"]);

        keys.insert(kv("/b/1", 9));
        assert_eq!(keys.from(Bound::Unbounded).count(), 4);
        assert_eq!(keys.get("/b/1").map(|v| v.mod_revision), Some(9));
        keys.remove("/b/1");
        keys.remove("/missing");
        assert!(keys.get("/b/1").is_none());
        let all: Vec<&str> = keys
            .from(Bound::Unbounded)
            .map(|v| v.key.as_str())
            .collect();
        assert_eq!(all, ["/a/1", "/b/2", "/c"]);
    }
}
