//! The schema-building helpers generated code calls (through [`super::private`]).
//!
//! Generated code stays small (compile time matters to users): it only lists the
//! properties and keywords of each type and calls these functions to assemble nodes.

use std::collections::BTreeMap;

use serde_json::{Number, Value};

use super::{AcceptsDefault, CrdSchema, ListSchema, MapSchema};
use crate::model::{
    API_VERSION_V1, CustomResourceColumnDefinition, CustomResourceConversion,
    CustomResourceDefinition, CustomResourceDefinitionNames, CustomResourceDefinitionSpec,
    CustomResourceDefinitionVersion, CustomResourceSubresourceScale,
    CustomResourceSubresourceStatus, CustomResourceSubresources, CustomResourceValidation,
    ExternalDocumentation, JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool, KIND,
    ObjectMeta, SelectableField, ServiceReference, ValidationRule, WebhookClientConfig,
    WebhookConversion,
};
use crate::model::{JSONSchemaPropsOrArray as Items, JSONSchemaPropsOrBool as Values};

/// `{type: object}`.
pub fn object() -> JSONSchemaProps {
    super::impls::typed("object")
}

/// Adds property `name`; lists it in `required` when `required`.
pub fn add_property(s: &mut JSONSchemaProps, name: &str, schema: JSONSchemaProps, required: bool) {
    s.properties
        .get_or_insert_with(BTreeMap::new)
        .insert(name.to_string(), Box::new(schema));
    if required {
        let req = s.required.get_or_insert_with(Vec::new);
        if !req.iter().any(|r| r == name) {
            req.push(name.to_string());
        }
    }
}

/// Merges a `#[serde(flatten)]` field's schema into its parent object.
///
/// A flattened map or `Value` swallows every unknown key; since a structural schema
/// cannot have both `properties` and `additionalProperties`, the parent then keeps
/// unknown fields instead.
pub fn flatten(s: &mut JSONSchemaProps, inner: JSONSchemaProps, optional: bool) {
    if inner.additional_properties.is_some() || inner.preserves_unknown_fields() {
        s.x_kubernetes_preserve_unknown_fields = Some(true);
    }
    for (k, v) in inner.properties.into_iter().flatten() {
        s.properties
            .get_or_insert_with(BTreeMap::new)
            .entry(k)
            .or_insert(v);
    }
    if !optional {
        for r in inner.required.into_iter().flatten() {
            let req = s.required.get_or_insert_with(Vec::new);
            if !req.contains(&r) {
                req.push(r);
            }
        }
    }
    // Alias constraints of the flattened struct (see `add_aliased_property`); they
    // include required-ness, so an optional flattened field leaves them out.
    if let Some(all_of) = inner.all_of.filter(|_| !optional) {
        s.all_of.get_or_insert_with(Vec::new).extend(all_of);
    }
    let rules = inner.x_kubernetes_validations.into_iter().flatten();
    let rules: Vec<ValidationRule> = rules.collect();
    if !rules.is_empty() {
        s.x_kubernetes_validations
            .get_or_insert_with(Vec::new)
            .extend(rules);
    }
}

/// Replaces `required` exactly as written (an empty list removes it).
pub fn set_required(s: &mut JSONSchemaProps, names: &[&str]) {
    s.required = (!names.is_empty()).then(|| names.iter().map(|n| n.to_string()).collect());
}

/// Whether an object schema lists any required property.
pub fn has_required(s: &JSONSchemaProps) -> bool {
    s.required.as_ref().is_some_and(|r| !r.is_empty())
        // A required field with `#[serde(alias)]` is required through a `oneOf`.
        || s.all_of.iter().flatten().any(|c| c.one_of.is_some())
}

/// Applies `f` to the `items` node of a list field's schema.
pub fn with_items<T: ListSchema + ?Sized>(
    s: &mut JSONSchemaProps,
    f: impl FnOnce(&mut JSONSchemaProps),
) {
    edit_child(&mut s.items, Items::into_schema, Items::Schema, f);
}

/// Applies `f` to the `additionalProperties` node of a map field's schema.
pub fn with_values<T: MapSchema + ?Sized>(
    s: &mut JSONSchemaProps,
    f: impl FnOnce(&mut JSONSchemaProps),
) {
    edit_child(
        &mut s.additional_properties,
        Values::into_schema,
        Values::Schema,
        f,
    );
}

/// Applies `f` to the schema in `slot` (a new one when it holds none), and puts it
/// back as the schema form of `W`.
fn edit_child<W>(
    slot: &mut Option<Box<W>>,
    unwrap: impl FnOnce(W) -> Option<JSONSchemaProps>,
    wrap: impl FnOnce(JSONSchemaProps) -> W,
    f: impl FnOnce(&mut JSONSchemaProps),
) {
    let mut node = slot.take().and_then(|b| unwrap(*b)).unwrap_or_default();
    f(&mut node);
    *slot = Some(Box::new(wrap(node)));
}

/// Compile-time check that a field of type `T` accepts a default of literal kind `K`.
pub fn check_default<T: AcceptsDefault<K> + ?Sized, K>() {}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Looks `name` up in `T::FIELDS`: `None` when `T` does not list its fields.
const fn field_required<T: CrdSchema + ?Sized>(name: &str) -> Option<Option<bool>> {
    let Some(fields) = T::FIELDS else {
        return None;
    };
    let mut i = 0;
    while i < fields.len() {
        if str_eq(fields[i].0, name) {
            return Some(Some(fields[i].1));
        }
        i += 1;
    }
    Some(None)
}

/// Compile-time check of one `list_map_keys` entry against the item type of `T`.
pub const fn check_list_map_key<T: ListSchema + ?Sized>(key: &str) {
    match field_required::<T::Item>(key) {
        Some(None) => panic!("list_map_keys names a field that the item type does not have"),
        Some(Some(false)) => panic!(
            "list_map_keys names an optional field: map keys must be required (or have a default)"
        ),
        _ => {}
    }
}

/// Compile-time check that a JSONPath segment names a field of `T`.
pub const fn check_path_field<T: CrdSchema + ?Sized>(name: &str) {
    if let Some(None) = field_required::<T>(name) {
        panic!("this JSONPath points to no field of the type");
    }
}

/// A `Number` from a float literal the macro has already checked to be finite.
pub fn number(v: f64) -> Number {
    Number::from_f64(v).unwrap_or_else(|| Number::from(0))
}

/// One `x-kubernetes-validations` rule.
pub fn rule(
    rule: &str,
    message: Option<&str>,
    message_expression: Option<&str>,
    reason: Option<&str>,
    field_path: Option<&str>,
    optional_old_self: Option<bool>,
) -> ValidationRule {
    ValidationRule {
        rule: rule.to_string(),
        message: message.map(str::to_string),
        message_expression: message_expression.map(str::to_string),
        reason: reason.map(str::to_string),
        field_path: field_path.map(str::to_string),
        optional_old_self,
    }
}

/// Appends rules to a node.
pub fn add_rules(s: &mut JSONSchemaProps, rules: Vec<ValidationRule>) {
    if !rules.is_empty() {
        s.x_kubernetes_validations
            .get_or_insert_with(Vec::new)
            .extend(rules);
    }
}

/// `externalDocs`.
pub fn external_docs(url: Option<&str>, description: Option<&str>) -> ExternalDocumentation {
    ExternalDocumentation {
        url: url.map(str::to_string),
        description: description.map(str::to_string),
    }
}

/// A schema fragment (`allOf` entry, `not`, ...) the macro checked at compile time.
pub fn fragment(v: Value) -> JSONSchemaProps {
    serde_json::from_value(v).unwrap_or_default()
}

/// A raw `items` value (`items_schema = ...`): one schema or a tuple list.
pub fn raw_items(v: Value) -> Option<Box<JSONSchemaPropsOrArray>> {
    serde_json::from_value(v).ok().map(Box::new)
}

/// A raw `additionalProperties` value (`additional_properties = ...`).
pub fn raw_additional(v: Value) -> Option<Box<JSONSchemaPropsOrBool>> {
    serde_json::from_value(v).ok().map(Box::new)
}

/// Sets every keyword of `fragment` on `s` as written (`extra = json!({...})`).
pub fn merge_fragment(s: &mut JSONSchemaProps, fragment: Value) {
    let (Ok(Value::Object(mut node)), Value::Object(frag)) = (serde_json::to_value(&*s), fragment)
    else {
        return;
    };
    node.extend(frag);
    if let Ok(merged) = serde_json::from_value(Value::Object(node)) {
        *s = merged;
    }
}

/// `{type: string, enum: [...]}` for a unit-only enum.
pub fn string_enum(names: &[&str]) -> JSONSchemaProps {
    JSONSchemaProps {
        enum_: Some(names.iter().map(|n| Value::from(*n)).collect()),
        ..super::impls::typed("string")
    }
}

/// An externally tagged enum: one property per variant, exactly one present.
pub fn external_enum(variants: Vec<(&str, JSONSchemaProps)>) -> JSONSchemaProps {
    let mut s = object();
    for (name, schema) in variants {
        add_property(&mut s, name, schema, false);
    }
    s.min_properties = Some(1);
    s.max_properties = Some(1);
    s
}

/// The union of variant schemas (untagged and tagged enums).
///
/// Objects merge: every property of every variant, required only when every variant
/// requires it. An integer-or-string union (`enum { Int(i64), Str(String) }`) becomes
/// `x-kubernetes-int-or-string`. Any other mix of kinds cannot be structural and keeps
/// unknown fields instead (a superset of what serde accepts; `schema_with` can narrow it).
pub fn union(variants: Vec<JSONSchemaProps>) -> JSONSchemaProps {
    let kinds: Vec<&str> = variants
        .iter()
        .map(|v| match v.type_.as_deref() {
            Some(t) => t,
            None if v.properties.is_some() => "object",
            None => "",
        })
        .collect();
    if !kinds.is_empty() && kinds.iter().all(|k| *k == "integer" || *k == "string") {
        if kinds.iter().all(|k| *k == kinds[0]) {
            return super::impls::typed(kinds[0]);
        }
        return JSONSchemaProps {
            x_kubernetes_int_or_string: Some(true),
            ..Default::default()
        };
    }
    if kinds.iter().any(|k| *k != "object") {
        return JSONSchemaProps {
            x_kubernetes_preserve_unknown_fields: Some(true),
            ..Default::default()
        };
    }
    let mut s = object();
    let mut required: Option<Vec<String>> = None;
    let mut preserve = false;
    for v in variants {
        preserve |= v.preserves_unknown_fields() || v.additional_properties.is_some();
        let req = v.required.clone().unwrap_or_default();
        required = Some(match required {
            None => req,
            Some(prev) => prev.into_iter().filter(|r| req.contains(r)).collect(),
        });
        for (k, p) in v.properties.into_iter().flatten() {
            s.properties
                .get_or_insert_with(BTreeMap::new)
                .entry(k)
                .or_insert(p);
        }
    }
    if preserve {
        s.x_kubernetes_preserve_unknown_fields = Some(true);
    }
    s.required = required.filter(|r| !r.is_empty());
    s
}

/// Deserializes `T` from an empty map: a `spec` that is absent on the wire.
pub fn deserialize_empty<'de, T, E>() -> Result<T, E>
where
    T: serde::Deserialize<'de>,
    E: serde::de::Error,
{
    T::deserialize(serde::de::value::MapDeserializer::<_, E>::new(
        std::iter::empty::<(String, String)>(),
    ))
}

/// Checks `apiVersion`/`kind` read from the wire against the type's own.
pub fn check_type_meta<E: serde::de::Error>(
    api_version: Option<&str>,
    kind: Option<&str>,
    want_api_version: &str,
    want_kind: &str,
) -> Result<(), E> {
    match (api_version, kind) {
        (Some(a), _) if a != want_api_version => Err(E::custom(format_args!(
            "apiVersion is {a:?}, expected {want_api_version:?}"
        ))),
        (_, Some(k)) if k != want_kind => Err(E::custom(format_args!(
            "kind is {k:?}, expected {want_kind:?}"
        ))),
        _ => Ok(()),
    }
}

/// `subresources.scale`.
pub struct ScaleDef {
    /// `specReplicasPath`.
    pub spec_replicas_path: &'static str,
    /// `statusReplicasPath`.
    pub status_replicas_path: &'static str,
    /// `labelSelectorPath`.
    pub label_selector_path: Option<&'static str>,
}

/// One printer column.
pub struct ColumnDef {
    /// `name`.
    pub name: &'static str,
    /// `type`.
    pub type_: &'static str,
    /// `format`.
    pub format: Option<&'static str>,
    /// `description`.
    pub description: Option<&'static str>,
    /// `priority`.
    pub priority: Option<i32>,
    /// `jsonPath`.
    pub json_path: &'static str,
}

/// `spec.conversion`.
pub struct ConversionDef {
    /// `strategy`.
    pub strategy: &'static str,
    /// `webhook.conversionReviewVersions` (webhook only when non-empty or a client is set).
    pub review_versions: &'static [&'static str],
    /// `webhook.clientConfig.url`.
    pub url: Option<&'static str>,
    /// `webhook.clientConfig.service` as (namespace, name, path, port).
    pub service: Option<(
        &'static str,
        &'static str,
        Option<&'static str>,
        Option<i32>,
    )>,
    /// `webhook.clientConfig.caBundle`.
    pub ca_bundle: Option<&'static str>,
}

/// Everything about one version of a resource except its schema.
pub struct ResourceDef {
    /// `spec.group`.
    pub group: &'static str,
    /// `versions[].name`.
    pub version: &'static str,
    /// `names.kind`.
    pub kind: &'static str,
    /// `names.plural`.
    pub plural: &'static str,
    /// `names.singular`.
    pub singular: Option<&'static str>,
    /// `names.listKind`.
    pub list_kind: Option<&'static str>,
    /// `names.shortNames`.
    pub short_names: &'static [&'static str],
    /// `names.categories`.
    pub categories: &'static [&'static str],
    /// `scope == Namespaced`.
    pub namespaced: bool,
    /// `versions[].served`.
    pub served: bool,
    /// `versions[].storage`.
    pub storage: bool,
    /// `versions[].deprecated`.
    pub deprecated: Option<bool>,
    /// `versions[].deprecationWarning`.
    pub deprecation_warning: Option<&'static str>,
    /// `subresources.status`.
    pub status_subresource: bool,
    /// `subresources.scale`.
    pub scale: Option<ScaleDef>,
    /// `additionalPrinterColumns`.
    pub columns: &'static [ColumnDef],
    /// `selectableFields`.
    pub selectable_fields: &'static [&'static str],
    /// CRD `metadata.labels`.
    pub labels: &'static [(&'static str, &'static str)],
    /// CRD `metadata.annotations`.
    pub annotations: &'static [(&'static str, &'static str)],
    /// `spec.conversion`.
    pub conversion: Option<ConversionDef>,
    /// `spec.preserveUnknownFields`.
    pub preserve_unknown_fields: Option<bool>,
}

fn strings(v: &[&str]) -> Option<Vec<String>> {
    (!v.is_empty()).then(|| v.iter().map(|s| s.to_string()).collect())
}

fn string_map(v: &[(&str, &str)]) -> Option<BTreeMap<String, String>> {
    (!v.is_empty()).then(|| {
        v.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    })
}

impl ResourceDef {
    /// The single-version CRD with `schema` as its `openAPIV3Schema`.
    pub fn build(&self, schema: JSONSchemaProps) -> CustomResourceDefinition {
        let subresources =
            (self.status_subresource || self.scale.is_some()).then(|| CustomResourceSubresources {
                status: self
                    .status_subresource
                    .then_some(CustomResourceSubresourceStatus {}),
                scale: self.scale.as_ref().map(|s| CustomResourceSubresourceScale {
                    spec_replicas_path: s.spec_replicas_path.into(),
                    status_replicas_path: s.status_replicas_path.into(),
                    label_selector_path: s.label_selector_path.map(Into::into),
                }),
            });
        let columns: Vec<CustomResourceColumnDefinition> = self
            .columns
            .iter()
            .map(|c| CustomResourceColumnDefinition {
                name: c.name.into(),
                type_: c.type_.into(),
                format: c.format.map(Into::into),
                description: c.description.map(Into::into),
                priority: c.priority,
                json_path: c.json_path.into(),
            })
            .collect();
        let selectable: Vec<SelectableField> = self
            .selectable_fields
            .iter()
            .map(|p| SelectableField {
                json_path: p.to_string(),
            })
            .collect();
        let version = CustomResourceDefinitionVersion {
            name: self.version.into(),
            served: self.served,
            storage: self.storage,
            deprecated: self.deprecated,
            deprecation_warning: self.deprecation_warning.map(Into::into),
            schema: Some(CustomResourceValidation {
                open_api_v3_schema: Some(schema),
            }),
            subresources,
            additional_printer_columns: (!columns.is_empty()).then_some(columns),
            selectable_fields: (!selectable.is_empty()).then_some(selectable),
        };
        CustomResourceDefinition {
            api_version: API_VERSION_V1.into(),
            kind: KIND.into(),
            metadata: ObjectMeta {
                name: Some(format!("{}.{}", self.plural, self.group)),
                labels: string_map(self.labels),
                annotations: string_map(self.annotations),
                ..Default::default()
            },
            spec: CustomResourceDefinitionSpec {
                group: self.group.into(),
                names: CustomResourceDefinitionNames {
                    plural: self.plural.into(),
                    singular: self.singular.map(Into::into),
                    short_names: strings(self.short_names),
                    kind: self.kind.into(),
                    list_kind: self.list_kind.map(Into::into),
                    categories: strings(self.categories),
                },
                scope: if self.namespaced {
                    "Namespaced"
                } else {
                    "Cluster"
                }
                .into(),
                versions: vec![version],
                conversion: self.conversion.as_ref().map(ConversionDef::build),
                preserve_unknown_fields: self.preserve_unknown_fields,
            },
            status: None,
        }
    }
}

impl ConversionDef {
    fn build(&self) -> CustomResourceConversion {
        let client = (self.url.is_some() || self.service.is_some() || self.ca_bundle.is_some())
            .then(|| WebhookClientConfig {
                url: self.url.map(Into::into),
                service: self
                    .service
                    .map(|(namespace, name, path, port)| ServiceReference {
                        namespace: namespace.into(),
                        name: name.into(),
                        path: path.map(Into::into),
                        port,
                    }),
                ca_bundle: self.ca_bundle.map(Into::into),
            });
        let webhook =
            (client.is_some() || !self.review_versions.is_empty()).then(|| WebhookConversion {
                client_config: client,
                conversion_review_versions: self
                    .review_versions
                    .iter()
                    .map(|s| s.to_string())
                    .collect(),
            });
        CustomResourceConversion {
            strategy: self.strategy.into(),
            webhook,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn union_requires_only_common_fields() {
        let mut a = object();
        add_property(&mut a, "x", String::crd_schema(), true);
        add_property(&mut a, "y", String::crd_schema(), true);
        let mut b = object();
        add_property(&mut b, "x", String::crd_schema(), true);
        let u = union(vec![a, b]);
        assert_eq!(u.required, Some(vec!["x".to_string()]));
        assert_eq!(u.properties.unwrap().len(), 2);
    }

    #[test]
    fn unions_of_scalars() {
        let u = union(vec![i64::crd_schema(), String::crd_schema()]);
        assert!(u.is_int_or_string() && u.type_.is_none());
        assert_eq!(
            union(vec![String::crd_schema(), String::crd_schema()]).type_str(),
            "string"
        );
        let u = union(vec![bool::crd_schema(), object()]);
        assert!(u.preserves_unknown_fields() && u.type_.is_none());
    }

    #[test]
    fn flatten_of_a_map_preserves_unknown_fields() {
        let mut s = object();
        flatten(&mut s, <BTreeMap<String, String>>::crd_schema(), false);
        assert!(s.preserves_unknown_fields());
    }

    #[test]
    fn absent_spec_deserializes_from_an_empty_map() {
        #[derive(serde::Deserialize, Debug, PartialEq)]
        struct S {
            #[serde(default)]
            a: i32,
        }
        let s: S = deserialize_empty::<S, serde_json::Error>().unwrap();
        assert_eq!(s, S { a: 0 });
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct R {
            a: i32,
        }
        assert!(deserialize_empty::<R, serde_json::Error>().is_err());
    }
}
