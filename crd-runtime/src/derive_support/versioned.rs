//! What the code `#[crd_runtime::versioned]` generates calls: the [`Convert`] trait
//! between the versions of one type, the context [`Cx`] that keeps what a version cannot
//! hold in an annotation of the object, and the merged CRD with its conversion strategy.
//! Not a public API (`crd_runtime::__private::versioned`).

use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::merge::{MergeError, merge_versions};
use crate::meta::ObjectMeta;
use crate::model::{
    CustomResourceConversion, CustomResourceDefinition, WebhookClientConfig, WebhookConversion,
};

/// A value of one version of a type turned into the adjacent version's, keeping what the
/// target cannot hold in `cx`.
pub trait Convert<T> {
    /// The value in the target version.
    fn convert(self, cx: &mut Cx) -> T;
}

impl<A: Convert<B>, B> Convert<Option<B>> for Option<A> {
    fn convert(self, cx: &mut Cx) -> Option<B> {
        self.map(|a| a.convert(cx))
    }
}

impl<A: Convert<B>, B> Convert<Box<B>> for Box<A> {
    fn convert(self, cx: &mut Cx) -> Box<B> {
        Box::new((*self).convert(cx))
    }
}

impl<A: Convert<B>, B> Convert<Vec<B>> for Vec<A> {
    fn convert(self, cx: &mut Cx) -> Vec<B> {
        self.into_iter()
            .enumerate()
            .map(|(i, a)| cx.at(&i.to_string(), |cx| a.convert(cx)))
            .collect()
    }
}

impl<K: Ord + ToString, A: Convert<B>, B> Convert<BTreeMap<K, B>> for BTreeMap<K, A> {
    fn convert(self, cx: &mut Cx) -> BTreeMap<K, B> {
        self.into_iter()
            .map(|(k, a)| {
                let b = cx.at(&k.to_string(), |cx| a.convert(cx));
                (k, b)
            })
            .collect()
    }
}

impl<K: Eq + Hash + ToString, A: Convert<B>, B> Convert<HashMap<K, B>> for HashMap<K, A> {
    fn convert(self, cx: &mut Cx) -> HashMap<K, B> {
        self.into_iter()
            .map(|(k, a)| {
                let b = cx.at(&k.to_string(), |cx| a.convert(cx));
                (k, b)
            })
            .collect()
    }
}

/// One conversion step between adjacent versions of an object: `incoming` holds what the
/// target version had and the source could not hold (taken from the object's annotation
/// for the target version), `outgoing` collects what the source has and the target cannot
/// hold (written to the annotation for the source version). Keys are JSON Pointers of the
/// fields, by the names the versioned module gives them.
#[derive(Debug, Default)]
pub struct Cx {
    incoming: Map<String, Value>,
    outgoing: Map<String, Value>,
    path: Vec<String>,
}

/// `a~b/c` → `a~0b~1c`, as a JSON Pointer segment.
fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

fn to_json<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// The annotation that keeps, on an object converted away from `version`, the values of
/// `version` the object's current version cannot hold: `{group}/conversion.{version}`.
pub fn stash_key(group: &str, version: &str) -> String {
    format!("{group}/conversion.{version}")
}

impl Cx {
    /// Starts a step into `target`: takes (and removes) the annotation that keeps
    /// `target`'s values.
    pub fn begin(metadata: &mut ObjectMeta, group: &str, target: &str) -> Cx {
        let key = stash_key(group, target);
        let mut incoming = Map::new();
        if let Some(annotations) = metadata.annotations.as_mut() {
            if let Some(text) = annotations.remove(&key)
                && let Ok(Value::Object(map)) = serde_json::from_str(&text)
            {
                incoming = map;
            }
            if annotations.is_empty() {
                metadata.annotations = None;
            }
        }
        Cx {
            incoming,
            ..Cx::default()
        }
    }

    /// Ends a step from `source`: keeps what the target could not hold in the
    /// annotation for `source` (no annotation when there is nothing to keep).
    pub fn finish(self, metadata: &mut ObjectMeta, group: &str, source: &str) {
        if self.outgoing.is_empty() {
            return;
        }
        let text = Value::Object(self.outgoing).to_string();
        metadata
            .annotations
            .get_or_insert_with(Default::default)
            .insert(stash_key(group, source), text);
    }

    fn key(&self, name: Option<&str>) -> String {
        let mut key = String::new();
        for segment in self.path.iter().map(String::as_str).chain(name) {
            key.push('/');
            key.push_str(&escape(segment));
        }
        key
    }

    /// Runs `f` one level deeper, at the field, item or variant `segment`.
    pub fn at<T>(&mut self, segment: &str, f: impl FnOnce(&mut Cx) -> T) -> T {
        self.path.push(segment.to_string());
        let out = f(self);
        self.path.pop();
        out
    }

    /// The value kept for the field `name` of the target version, if any (and if it
    /// still decodes).
    pub fn take<T: DeserializeOwned>(&mut self, name: &str) -> Option<T> {
        let value = self.incoming.remove(&self.key(Some(name)))?;
        serde_json::from_value(value).ok()
    }

    /// Keeps the field `name` of the source version, unless it equals `default` (which
    /// is what the way back produces when nothing is kept).
    pub fn keep<T: Serialize>(&mut self, name: &str, value: &T, default: &T) {
        let value = to_json(value);
        if value != to_json(default) {
            self.outgoing.insert(self.key(Some(name)), value);
        }
    }

    /// The whole target value kept at the current path (an enum variant the source
    /// version has no variant for).
    pub fn take_here<T: DeserializeOwned>(&mut self) -> Option<T> {
        let value = self.incoming.remove(&self.key(None))?;
        serde_json::from_value(value).ok()
    }

    /// Keeps the whole source value at the current path.
    pub fn keep_here<T: Serialize>(&mut self, value: &T) {
        self.outgoing.insert(self.key(None), to_json(value));
    }

    /// The whole target value kept at the current path, when the source value is the
    /// placeholder (`S::default()`) the way down left for it: a variant the source
    /// version has no variant for.
    pub fn take_here_if_placeholder<T: DeserializeOwned, S: Serialize + Default>(
        &mut self,
        source: &S,
    ) -> Option<T> {
        if to_json(source) != to_json(&S::default()) {
            return None;
        }
        self.take_here()
    }

    /// A retyped field on the way to the version with the new type: the kept value when
    /// the old value is still what it was converted to, else `up(old)`.
    pub fn upgrade<O: Serialize, N: DeserializeOwned + Clone>(
        &mut self,
        name: &str,
        old: O,
        up: impl FnOnce(O) -> N,
        down: impl FnOnce(N) -> O,
    ) -> N {
        if let Some(kept) = self.take::<N>(name)
            && to_json(&down(kept.clone())) == to_json(&old)
        {
            return kept;
        }
        up(old)
    }

    /// A retyped field on the way to the version with the old type: `down(new)`; the new
    /// value is kept unless converting back up gives it again.
    pub fn downgrade<O: Clone, N: Serialize>(
        &mut self,
        name: &str,
        new: N,
        down: impl FnOnce(N) -> O,
        up: impl FnOnce(O) -> N,
    ) -> O {
        let json = to_json(&new);
        let old = down(new);
        if to_json(&up(old.clone())) != json {
            self.outgoing.insert(self.key(Some(name)), json);
        }
        old
    }
}

/// The default downgrade of a retyped field: `TryFrom`, or `O::default()` when the old
/// type cannot express the value (which is then kept in the annotation).
pub fn try_from_or_default<N, O: TryFrom<N> + Default>(new: N) -> O {
    O::try_from(new).unwrap_or_default()
}

/// The merged CRD of a versioned module with strategy `None`, when every served version
/// and the storage version have the same schema; an error naming two that differ
/// otherwise.
pub fn crd_without_webhook(
    crds: &[CustomResourceDefinition],
) -> Result<CustomResourceDefinition, MergeError> {
    let mut crd = merge_versions(crds)?;
    let served: Vec<_> = crd
        .spec
        .versions
        .iter()
        .filter(|v| v.served || v.storage)
        .collect();
    if let Some(pair) = served.windows(2).find(|w| w[0].schema != w[1].schema) {
        return Err(MergeError {
            field: "spec.conversion".into(),
            message: format!(
                "versions {:?} and {:?} have different schemas, so objects need a \
                 conversion webhook: use `crd_with_webhook(client_config)`",
                pair[0].name, pair[1].name
            ),
        });
    }
    crd.spec.conversion = Some(CustomResourceConversion {
        strategy: "None".into(),
        webhook: None,
    });
    Ok(crd)
}

/// The merged CRD of a versioned module with strategy `Webhook` at `client_config`,
/// speaking `ConversionReview` `v1`.
pub fn crd_with_webhook(
    crds: &[CustomResourceDefinition],
    client_config: WebhookClientConfig,
) -> Result<CustomResourceDefinition, MergeError> {
    let mut crd = merge_versions(crds)?;
    crd.spec.conversion = Some(CustomResourceConversion {
        strategy: "Webhook".into(),
        webhook: Some(WebhookConversion {
            client_config: Some(client_config),
            conversion_review_versions: vec!["v1".into()],
        }),
    });
    Ok(crd)
}

/// The versioned module's `converter()` and round-trip check, kept with feature
/// `engine` (the converter lives in `crd_runtime::conversion`) and dropped without it.
/// Not a public API.
#[cfg(feature = "engine")]
#[doc(hidden)]
#[macro_export]
macro_rules! __versioned_engine {
    ($($items:tt)*) => { $($items)* };
}

/// Without feature `engine`, a versioned module has no `converter()`. Not a public API.
#[cfg(not(feature = "engine"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __versioned_engine {
    ($($items:tt)*) => {};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_values_come_back_and_leave_no_annotation() {
        let mut meta = ObjectMeta::default();
        let mut cx = Cx::begin(&mut meta, "example.com", "v1alpha1");
        cx.at("spec", |cx| {
            cx.keep("size", &3, &0);
            cx.keep("zero", &0, &0);
            cx.at("items", |cx| cx.at("0", |cx| cx.keep_here(&"x")));
        });
        cx.finish(&mut meta, "example.com", "v1");
        let annotations = meta.annotations.clone().unwrap();
        assert_eq!(
            annotations["example.com/conversion.v1"],
            r#"{"/spec/items/0":"x","/spec/size":3}"#
        );
        let mut cx = Cx::begin(&mut meta, "example.com", "v1");
        assert_eq!(meta.annotations, None);
        let size: Option<i32> = cx.at("spec", |cx| cx.take("size"));
        assert_eq!(size, Some(3));
        let zero: Option<i32> = cx.at("spec", |cx| cx.take("zero"));
        assert_eq!(zero, None);
    }

    #[test]
    fn a_retyped_value_the_old_type_cannot_hold_is_kept() {
        let down = try_from_or_default::<u32, u16>;
        let mut cx = Cx::default();
        assert_eq!(cx.downgrade("port", 70000u32, down, u32::from), 0);
        assert_eq!(cx.downgrade("small", 80u32, down, u32::from), 80);
        assert_eq!(cx.outgoing.len(), 1);
        let mut back = Cx {
            incoming: cx.outgoing,
            ..Cx::default()
        };
        assert_eq!(back.upgrade("port", 0u16, u32::from, down), 70000);
        assert_eq!(back.upgrade("small", 80u16, u32::from, down), 80);
        // A value edited in the old version wins over what was kept.
        let mut edited = Cx::default();
        edited.downgrade("port", 70000u32, down, u32::from);
        let mut back = Cx {
            incoming: edited.outgoing,
            ..Cx::default()
        };
        assert_eq!(back.upgrade("port", 7u16, u32::from, down), 7);
    }
}
