//! openshift crd-schema-checker's API-style checks: on fields that did not exist in
//! the old revision, and on versions that are new.

use super::Changes;
use super::rules::Rule;
use super::schema::{Walk, child, root};
use crate::model::{CustomResourceDefinitionVersion, JSONSchemaProps};

/// A version that did not exist before: only the API-style checks apply.
pub(super) fn lint_new_version(version: &CustomResourceDefinitionVersion, out: &mut Changes) {
    let has_status_field = root(version)
        .and_then(|r| r.properties.as_ref())
        .is_some_and(|p| p.contains_key("status"));
    let has_status_subresource = version
        .subresources
        .as_ref()
        .is_some_and(|s| s.status.is_some());
    if !has_status_field && !has_status_subresource {
        let detail = format!(
            "version {} has neither a status field nor a status subresource",
            version.name
        );
        out.push(Some(&version.name), "status", Rule::StatusMissing, detail);
    }
}

impl Walk<'_> {
    /// crd-schema-checker's API-style checks, on a field that did not exist before
    /// (and everything under it).
    pub(super) fn lint_new(&mut self, schema: &JSONSchemaProps, path: &str, name: &str) {
        match schema.type_str() {
            "boolean" => self.push(
                path,
                Rule::NewBoolField,
                "a new boolean field; an enum can grow more states".into(),
            ),
            "number" => self.push(
                path,
                Rule::NewFloatField,
                "a new floating-point field".into(),
            ),
            "integer"
                if schema
                    .format
                    .as_deref()
                    .is_some_and(|f| f.starts_with("uint")) =>
            {
                self.push(
                    path,
                    Rule::NewUintField,
                    "a new unsigned integer field".into(),
                )
            }
            "object"
                if schema.properties.is_none()
                    && schema.additional_properties_schema().is_some() =>
            {
                self.push(path, Rule::NewMapField, "a new map of free keys".into())
            }
            "array" => {
                let is_conditions = name == "conditions";
                let map_keyed_by_type = schema.x_kubernetes_list_type.as_deref() == Some("map")
                    && schema.x_kubernetes_list_map_keys.as_deref()
                        == Some(&["type".to_string()][..]);
                if is_conditions && !map_keyed_by_type {
                    let detail = "conditions should be x-kubernetes-list-type: map with x-kubernetes-list-map-keys: [type]";
                    self.push(path, Rule::ConditionsWithoutMapListType, detail.into());
                } else if schema.x_kubernetes_list_type.is_none() {
                    self.push(
                        path,
                        Rule::NewListWithoutListType,
                        "a new list without x-kubernetes-list-type".into(),
                    );
                }
            }
            _ => {}
        }
        for (child_name, sub) in schema.properties.iter().flatten() {
            self.lint_new(sub, &child(path, child_name), child_name);
        }
        if let Some(items) = schema.items_schema() {
            self.lint_new(items, &format!("{path}[*]"), "");
        }
        if let Some(values) = schema.additional_properties_schema() {
            self.lint_new(values, &format!("{path}[*]"), "");
        }
    }
}
