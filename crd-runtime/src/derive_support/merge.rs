//! Merging the single-version CRDs of several derived types into one CRD.

use std::fmt;

use crate::model::CustomResourceDefinition;

/// Why versions cannot be merged into one CRD.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MergeError {
    /// The CRD field that disagrees or is wrong (`spec.group`, `spec.versions`).
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for MergeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for MergeError {}

fn err(field: &str, message: String) -> MergeError {
    MergeError {
        field: field.to_string(),
        message,
    }
}

/// Merges CRDs of the same kind (one per version, as `T::crd()` returns them) into one
/// CRD, keeping the versions in the given order.
///
/// Group, names, scope and CRD-level settings must agree; CRD labels and annotations
/// are united (a key with two different values is an error); exactly one version must
/// be the storage version, and version names must be unique.
pub fn merge_versions(
    crds: &[CustomResourceDefinition],
) -> Result<CustomResourceDefinition, MergeError> {
    let Some((first, rest)) = crds.split_first() else {
        return Err(err("spec.versions", "no versions to merge".into()));
    };
    let mut out = first.clone();
    for crd in rest {
        let a = &out.spec;
        let b = &crd.spec;
        // Compared and shown as JSON, the way the manifests spell them.
        let same = |field: &str, x: &dyn erased::Json, y: &dyn erased::Json| {
            let (x, y) = (x.json(), y.json());
            if x == y {
                Ok(())
            } else {
                Err(err(field, format!("versions disagree: {x} vs {y}")))
            }
        };
        same("spec.group", &a.group, &b.group)?;
        same("spec.names", &a.names, &b.names)?;
        same("spec.scope", &a.scope, &b.scope)?;
        same("spec.conversion", &a.conversion, &b.conversion)?;
        same(
            "spec.preserveUnknownFields",
            &a.preserve_unknown_fields,
            &b.preserve_unknown_fields,
        )?;
        same("metadata.name", &out.metadata.name, &crd.metadata.name)?;
        for (field, mine, theirs) in [
            (
                "metadata.labels",
                &mut out.metadata.labels,
                &crd.metadata.labels,
            ),
            (
                "metadata.annotations",
                &mut out.metadata.annotations,
                &crd.metadata.annotations,
            ),
        ] {
            for (k, v) in theirs.iter().flatten() {
                let map = mine.get_or_insert_with(Default::default);
                match map.get(k) {
                    Some(old) if old != v => {
                        return Err(err(
                            field,
                            format!(
                                "{} is {} in one version and {} in another",
                                erased::Json::json(k),
                                erased::Json::json(old),
                                erased::Json::json(v)
                            ),
                        ));
                    }
                    _ => {
                        map.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        for v in &crd.spec.versions {
            if out.spec.versions.iter().any(|o| o.name == v.name) {
                return Err(err(
                    "spec.versions",
                    format!("version {:?} is given twice", v.name),
                ));
            }
            out.spec.versions.push(v.clone());
        }
    }
    let storage: Vec<&str> = out
        .spec
        .versions
        .iter()
        .filter(|v| v.storage)
        .map(|v| v.name.as_str())
        .collect();
    if storage.len() != 1 {
        return Err(err(
            "spec.versions",
            format!(
                "exactly one version must be the storage version, found {}: {} \
                 (mark the others `storage = false`)",
                storage.len(),
                erased::Json::json(&storage)
            ),
        ));
    }
    Ok(out)
}

/// Rendering values of different types as JSON for messages.
mod erased {
    /// A value shown as JSON.
    pub trait Json {
        /// The JSON text (`null` if it cannot be serialized).
        fn json(&self) -> String;
    }

    impl<T: serde::Serialize + ?Sized> Json for T {
        fn json(&self) -> String {
            serde_json::to_string(self).unwrap_or_else(|_| "null".to_string())
        }
    }
}
