//! [`ObjectList`]: a list response of a custom resource (`CronTabList`).

use serde::de::DeserializeOwned;
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::CustomResourceExt;
use super::building::check_type_meta;
use crate::meta::ListMeta;

/// A page of objects of kind `K`, as returned by `GET /apis/{group}/{version}/{plural}`.
///
/// `#[derive(CustomResource)]` names it after the root: `pub type CronTabList =
/// ObjectList<CronTab>`. It serializes with `apiVersion` and `kind` (the CRD's list kind)
/// and, when reading, checks them if present. `items: null` (how Go encodes an empty
/// slice in some responses) reads as an empty list.
#[derive(Clone, Debug, PartialEq)]
pub struct ObjectList<K> {
    /// `resourceVersion` (where a watch resumes) and `continue` (the next page).
    pub metadata: ListMeta,
    /// The objects.
    pub items: Vec<K>,
}

impl<K> Default for ObjectList<K> {
    fn default() -> Self {
        ObjectList {
            metadata: ListMeta::default(),
            items: Vec::new(),
        }
    }
}

impl<K> ObjectList<K> {
    /// Iterates over the objects.
    pub fn iter(&self) -> std::slice::Iter<'_, K> {
        self.items.iter()
    }
}

impl<K> IntoIterator for ObjectList<K> {
    type Item = K;
    type IntoIter = std::vec::IntoIter<K>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

impl<'a, K> IntoIterator for &'a ObjectList<K> {
    type Item = &'a K;
    type IntoIter = std::slice::Iter<'a, K>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

impl<K: CustomResourceExt + Serialize> Serialize for ObjectList<K> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(4))?;
        m.serialize_entry("apiVersion", K::API_VERSION)?;
        m.serialize_entry("kind", K::LIST_KIND)?;
        m.serialize_entry("metadata", &self.metadata)?;
        m.serialize_entry("items", &self.items)?;
        m.end()
    }
}

impl<'de, K: CustomResourceExt + DeserializeOwned> Deserialize<'de> for ObjectList<K> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(bound = "K: DeserializeOwned")]
        struct Wire<K> {
            #[serde(rename = "apiVersion", default)]
            api_version: Option<String>,
            #[serde(default)]
            kind: Option<String>,
            #[serde(default)]
            metadata: Option<ListMeta>,
            #[serde(default)]
            items: Option<Vec<K>>,
        }
        let w = Wire::<K>::deserialize(d)?;
        check_type_meta::<D::Error>(
            w.api_version.as_deref(),
            w.kind.as_deref(),
            K::API_VERSION,
            K::LIST_KIND,
        )?;
        Ok(ObjectList {
            metadata: w.metadata.unwrap_or_default(),
            items: w.items.unwrap_or_default(),
        })
    }
}
