//! storage.k8s.io/v1 StorageClasses: their defaults (reclaim policy `Delete`, binding
//! mode `Immediate`), storage validation, what an update may not change, the printer.

use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use serde_json::{Value, json};

use crate::api::kinds::builtin::behaviour::*;
use crate::api::kinds::builtin::checks::supported;
use crate::api::kinds::builtin::core::volumes::*;
use crate::api::kinds::builtin::{default_field, immutable_field};
use crate::api::table::Column;

/// StorageClasses.
pub struct StorageClasses;

defaults!(StorageClasses: Preparer, Serving, Deleter, AllocateStrategy);

impl Defaulter for StorageClasses {
    fn decode(&self, obj: &mut Value) -> Result<(), String> {
        default_field(obj, "reclaimPolicy", json!("Delete"));
        default_field(obj, "volumeBindingMode", json!("Immediate"));
        Ok(())
    }
}

impl Validator for StorageClasses {
    fn validate(&self, obj: &Value, old: Option<&Value>, errs: &mut ErrorList) {
        let provisioner = obj["provisioner"].as_str().unwrap_or("");
        if provisioner.is_empty() {
            errs.push(FieldError::required(Path::new("provisioner"), ""));
        } else {
            for m in crd_runtime::names::qualified_name(&provisioner.to_lowercase()) {
                errs.push(FieldError::invalid(
                    Path::new("provisioner"),
                    BadValue::Str(provisioner.into()),
                    m,
                ));
            }
        }
        for (k, _) in obj["parameters"].as_object().into_iter().flatten() {
            if k.is_empty() {
                errs.push(FieldError::invalid(
                    Path::new("parameters"),
                    BadValue::Str(k.clone()),
                    "field can not be empty.",
                ));
            }
        }
        let enums: [(&str, &[&str]); 2] = [
            ("reclaimPolicy", &["Delete", "Retain"]),
            ("volumeBindingMode", &["Immediate", "WaitForFirstConsumer"]),
        ];
        for (field, values) in enums {
            let value = obj[field].as_str().unwrap_or("");
            supported(value, values, Path::new(field), errs);
        }
        if let Some(old) = old {
            let forbidden = |field: &str| format!("updates to {field} are forbidden.");
            let params = |o: &Value| o["parameters"].as_object().cloned().unwrap_or_default();
            if params(obj) != params(old) {
                errs.push(FieldError::forbidden(
                    Path::new("parameters"),
                    forbidden("parameters"),
                ));
            }
            for field in ["provisioner", "reclaimPolicy"] {
                if obj[field] != old[field] {
                    errs.push(FieldError::forbidden(Path::new(field), forbidden(field)));
                }
            }
            immutable_field(
                obj,
                old,
                "/volumeBindingMode",
                Path::new("volumeBindingMode"),
                errs,
            );
        }
    }
}

impl Printer for StorageClasses {
    fn columns(&self) -> Vec<Column> {
        // `printStorageClass`: the default class's name says so.
        let mut name = Column::name();
        name.cell = crate::api::table::Cell::Computed(|o| {
            let default = o
                .pointer("/metadata/annotations/storageclass.kubernetes.io~1is-default-class")
                .or_else(|| {
                    o.pointer(
                        "/metadata/annotations/storageclass.beta.kubernetes.io~1is-default-class",
                    )
                })
                == Some(&json!("true"));
            let name = str_at(o, "/metadata/name");
            json!(if default {
                format!("{name} (default)")
            } else {
                name.to_string()
            })
        });
        vec![
            name,
            Column::computed(
                "Provisioner",
                "string",
                "provisioner indicates the type of the provisioner.",
                |o| json!(str_at(o, "/provisioner")),
            ),
            Column::computed(
                "ReclaimPolicy",
                "string",
                "reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class. Defaults to Delete.",
                |o| json!(str_at(o, "/reclaimPolicy")),
            ),
            Column::computed(
                "VolumeBindingMode",
                "string",
                "volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  When unset, VolumeBindingImmediate is used. This field is only honored by servers that enable the VolumeScheduling feature.",
                |o| json!(str_at(o, "/volumeBindingMode")),
            ),
            Column::computed(
                "AllowVolumeExpansion",
                "string",
                "allowVolumeExpansion shows whether the storage class allow volume expand.",
                |o| {
                    json!(
                        o["allowVolumeExpansion"]
                            .as_bool()
                            .unwrap_or(false)
                            .to_string()
                    )
                },
            ),
            Column::builtin_age(),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_follow_their_rules() {
        let mut sc = json!({"provisioner": "", "parameters": {"a": "b"}});
        StorageClasses.decode(&mut sc).unwrap();
        let mut errs = ErrorList::new();
        StorageClasses.validate(&sc, None, &mut errs);
        assert_eq!(errs.strings(), ["provisioner: Required value"]);
        let old = json!({"provisioner": "x.io/p", "parameters": {"a": "b"}, "reclaimPolicy": "Delete", "volumeBindingMode": "Immediate"});
        let mut new = old.clone();
        new["parameters"]["a"] = json!("c");
        assert_eq!(
            errors_of(&StorageClasses, &new, Some(&old)),
            ["parameters: Forbidden: updates to parameters are forbidden."]
        );
    }
}
