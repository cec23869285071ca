//! `JSONSchemaProps`: the OpenAPI v3 schema dialect of `apiextensions.k8s.io/v1`.
//!
//! Every keyword Kubernetes knows is modelled, including the ones a structural
//! schema forbids (`$ref`, `definitions`, `patternProperties`, ...): the checker
//! must be able to see them to reject them. Unknown keys are a parse error, so
//! nothing a user wrote is ever silently dropped.
//!
//! Numbers keep their JSON representation (`serde_json::Number`) so that
//! `maximum: 10` does not come back as `maximum: 10.0`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Number, Value};

use super::grow::grown;

/// One node of an OpenAPI v3 schema as Kubernetes understands it.
///
/// `Clone`, `PartialEq`, `Debug` and `Drop` are written out in `schema_traits`, and
/// the fields holding child schemas (de)serialize through `grown`: all of them
/// recurse once per level and must survive the deepest schema a CRD body carries.
#[derive(Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JSONSchemaProps {
    /// `id` (forbidden in structural schemas).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// `$schema`.
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// `$ref` (forbidden in CRDs).
    #[serde(rename = "$ref", default, skip_serializing_if = "Option::is_none")]
    pub ref_path: Option<String>,
    /// Human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `type`: `object`, `array`, `string`, `integer`, `number`, `boolean`.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
    /// `format`, e.g. `int32`, `date-time`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// `title`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `default`: applied by the API server when the field is absent.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "present_value"
    )]
    pub default: Option<Value>,
    /// `maximum`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maximum: Option<Number>,
    /// `exclusiveMaximum` (OpenAPI v3.0 boolean form).
    #[serde(
        rename = "exclusiveMaximum",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub exclusive_maximum: Option<bool>,
    /// `minimum`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum: Option<Number>,
    /// `exclusiveMinimum` (OpenAPI v3.0 boolean form).
    #[serde(
        rename = "exclusiveMinimum",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub exclusive_minimum: Option<bool>,
    /// `maxLength` in runes.
    #[serde(rename = "maxLength", default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<i64>,
    /// `minLength` in runes.
    #[serde(rename = "minLength", default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<i64>,
    /// `pattern`: an RE2 regular expression (unanchored).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// `maxItems`.
    #[serde(rename = "maxItems", default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<i64>,
    /// `minItems`.
    #[serde(rename = "minItems", default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<i64>,
    /// `uniqueItems` (`true` is forbidden in structural schemas).
    #[serde(
        rename = "uniqueItems",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub unique_items: Option<bool>,
    /// `multipleOf`.
    #[serde(
        rename = "multipleOf",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub multiple_of: Option<Number>,
    /// `enum`: the allowed values.
    #[serde(rename = "enum", default, skip_serializing_if = "Option::is_none")]
    pub enum_: Option<Vec<Value>>,
    /// `maxProperties`.
    #[serde(
        rename = "maxProperties",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub max_properties: Option<i64>,
    /// `minProperties`.
    #[serde(
        rename = "minProperties",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub min_properties: Option<i64>,
    /// `required`: property names that must be present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<Vec<String>>,
    /// `items`: the schema of array items (or, non-structurally, a tuple).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "grown")]
    pub items: Option<Box<JSONSchemaPropsOrArray>>,
    /// `allOf`.
    #[serde(
        rename = "allOf",
        default,
        skip_serializing_if = "Option::is_none",
        with = "grown"
    )]
    pub all_of: Option<Vec<JSONSchemaProps>>,
    /// `oneOf`.
    #[serde(
        rename = "oneOf",
        default,
        skip_serializing_if = "Option::is_none",
        with = "grown"
    )]
    pub one_of: Option<Vec<JSONSchemaProps>>,
    /// `anyOf`.
    #[serde(
        rename = "anyOf",
        default,
        skip_serializing_if = "Option::is_none",
        with = "grown"
    )]
    pub any_of: Option<Vec<JSONSchemaProps>>,
    /// `not`.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "grown")]
    pub not: Option<Box<JSONSchemaProps>>,
    /// `properties`: the specified fields of an object. Boxed: a schema node is about
    /// 1 KB, and loading, checking and generating move nodes in and out of this map
    /// (a large CRD has ten thousand of them); boxed, they move as pointers.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "grown")]
    pub properties: Option<BTreeMap<String, Box<JSONSchemaProps>>>,
    /// `additionalProperties`: a schema for map values, or a boolean.
    #[serde(
        rename = "additionalProperties",
        default,
        skip_serializing_if = "Option::is_none",
        with = "grown"
    )]
    pub additional_properties: Option<Box<JSONSchemaPropsOrBool>>,
    /// `patternProperties` (forbidden in structural schemas).
    #[serde(
        rename = "patternProperties",
        default,
        skip_serializing_if = "Option::is_none",
        with = "grown"
    )]
    pub pattern_properties: Option<BTreeMap<String, JSONSchemaProps>>,
    /// `dependencies` (forbidden in structural schemas).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "grown")]
    pub dependencies: Option<BTreeMap<String, JSONSchemaPropsOrStringArray>>,
    /// `additionalItems` (forbidden in structural schemas).
    #[serde(
        rename = "additionalItems",
        default,
        skip_serializing_if = "Option::is_none",
        with = "grown"
    )]
    pub additional_items: Option<Box<JSONSchemaPropsOrBool>>,
    /// `definitions` (forbidden in structural schemas).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "grown")]
    pub definitions: Option<BTreeMap<String, JSONSchemaProps>>,
    /// `externalDocs`.
    #[serde(
        rename = "externalDocs",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub external_docs: Option<ExternalDocumentation>,
    /// `example`: an example value (kept verbatim, never validated).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "present_value"
    )]
    pub example: Option<Value>,
    /// `nullable`: `null` is an accepted value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nullable: Option<bool>,
    /// `x-kubernetes-preserve-unknown-fields`: keep unknown keys of this node.
    #[serde(
        rename = "x-kubernetes-preserve-unknown-fields",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub x_kubernetes_preserve_unknown_fields: Option<bool>,
    /// `x-kubernetes-embedded-resource`: the value is a Kubernetes object.
    #[serde(
        rename = "x-kubernetes-embedded-resource",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub x_kubernetes_embedded_resource: Option<bool>,
    /// `x-kubernetes-int-or-string`: integer or string.
    #[serde(
        rename = "x-kubernetes-int-or-string",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub x_kubernetes_int_or_string: Option<bool>,
    /// `x-kubernetes-list-map-keys`: key fields of a `map` list.
    #[serde(
        rename = "x-kubernetes-list-map-keys",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub x_kubernetes_list_map_keys: Option<Vec<String>>,
    /// `x-kubernetes-list-type`: `atomic`, `set` or `map`.
    #[serde(
        rename = "x-kubernetes-list-type",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub x_kubernetes_list_type: Option<String>,
    /// `x-kubernetes-map-type`: `granular` or `atomic`.
    #[serde(
        rename = "x-kubernetes-map-type",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub x_kubernetes_map_type: Option<String>,
    /// `x-kubernetes-validations`: CEL rules.
    #[serde(
        rename = "x-kubernetes-validations",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub x_kubernetes_validations: Option<Vec<ValidationRule>>,
    /// `deprecated`: OpenAPI 3.0, not part of Kubernetes' dialect. Modelled (kept
    /// verbatim) so the checker can report it instead of the loader failing.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "present_value"
    )]
    pub deprecated: Option<Value>,
    /// `discriminator`: OpenAPI 3.0, not part of Kubernetes' dialect (see `deprecated`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "present_value"
    )]
    pub discriminator: Option<Value>,
    /// `readOnly`: OpenAPI 3.0, not part of Kubernetes' dialect (see `deprecated`).
    #[serde(
        rename = "readOnly",
        default,
        skip_serializing_if = "Option::is_none",
        with = "present_value"
    )]
    pub read_only: Option<Value>,
    /// `writeOnly`: OpenAPI 3.0, not part of Kubernetes' dialect (see `deprecated`).
    #[serde(
        rename = "writeOnly",
        default,
        skip_serializing_if = "Option::is_none",
        with = "present_value"
    )]
    pub write_only: Option<Value>,
    /// `xml`: OpenAPI 3.0, not part of Kubernetes' dialect (see `deprecated`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "present_value"
    )]
    pub xml: Option<Value>,
}

/// `items` is a single schema (structural) or a list of schemas (tuple form).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
// Always behind a `Box` in `JSONSchemaProps`, so the large variant costs nothing.
#[allow(clippy::large_enum_variant)]
pub enum JSONSchemaPropsOrArray {
    /// One schema for every item.
    Schema(JSONSchemaProps),
    /// Tuple validation (not allowed in structural schemas).
    Schemas(Vec<JSONSchemaProps>),
}

/// `additionalProperties` / `additionalItems`: a boolean or a schema.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
// Always behind a `Box` in `JSONSchemaProps`, so the large variant costs nothing.
#[allow(clippy::large_enum_variant)]
pub enum JSONSchemaPropsOrBool {
    /// `true` / `false`.
    Bool(bool),
    /// A schema for the additional values.
    Schema(JSONSchemaProps),
}

impl JSONSchemaPropsOrArray {
    /// The one schema for every item, when that is the form.
    pub(crate) fn into_schema(self) -> Option<JSONSchemaProps> {
        match self {
            Self::Schema(s) => Some(s),
            Self::Schemas(_) => None,
        }
    }
}

impl JSONSchemaPropsOrBool {
    /// The schema, when that is the form.
    pub(crate) fn into_schema(self) -> Option<JSONSchemaProps> {
        match self {
            Self::Bool(_) => None,
            Self::Schema(s) => Some(s),
        }
    }
}

/// A `dependencies` entry: a schema or a list of property names.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
// Always behind a `Box` in `JSONSchemaProps`, so the large variant costs nothing.
#[allow(clippy::large_enum_variant)]
pub enum JSONSchemaPropsOrStringArray {
    /// A schema the object must also satisfy.
    Schema(JSONSchemaProps),
    /// Properties that must be present.
    Property(Vec<String>),
}

/// `externalDocs`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExternalDocumentation {
    /// Description of the linked documentation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// URL of the documentation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// One `x-kubernetes-validations` entry: a CEL rule.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValidationRule {
    /// The CEL expression; `self` is the value of the node. A missing rule loads
    /// as empty so that the checker can report it (`Required value`).
    #[serde(default)]
    pub rule: String,
    /// Message returned when the rule fails.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// CEL expression producing the message.
    #[serde(
        rename = "messageExpression",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub message_expression: Option<String>,
    /// Machine-readable reason (`FieldValueInvalid`, `FieldValueForbidden`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// JSONPath-like path, relative to the node, the error is reported at.
    #[serde(rename = "fieldPath", default, skip_serializing_if = "Option::is_none")]
    pub field_path: Option<String>,
    /// Evaluate transition rules even when there is no old value.
    #[serde(
        rename = "optionalOldSelf",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub optional_old_self: Option<bool>,
}

impl JSONSchemaProps {
    /// The single items schema, if `items` is given in its structural form.
    pub fn items_schema(&self) -> Option<&JSONSchemaProps> {
        match self.items.as_deref() {
            Some(JSONSchemaPropsOrArray::Schema(s)) => Some(s),
            _ => None,
        }
    }

    /// The `additionalProperties` schema, if it is given as a schema.
    pub fn additional_properties_schema(&self) -> Option<&JSONSchemaProps> {
        match self.additional_properties.as_deref() {
            Some(JSONSchemaPropsOrBool::Schema(s)) => Some(s),
            _ => None,
        }
    }

    /// `type` as a string slice (`""` when absent).
    pub fn type_str(&self) -> &str {
        self.type_.as_deref().unwrap_or("")
    }

    /// Whether a boolean flag that defaults to false is set.
    fn flag(v: Option<bool>) -> bool {
        v.unwrap_or(false)
    }

    /// `nullable: true`.
    pub fn is_nullable(&self) -> bool {
        Self::flag(self.nullable)
    }

    /// `x-kubernetes-preserve-unknown-fields: true`.
    pub fn preserves_unknown_fields(&self) -> bool {
        Self::flag(self.x_kubernetes_preserve_unknown_fields)
    }

    /// `x-kubernetes-embedded-resource: true`.
    pub fn is_embedded_resource(&self) -> bool {
        Self::flag(self.x_kubernetes_embedded_resource)
    }

    /// `x-kubernetes-int-or-string: true`.
    pub fn is_int_or_string(&self) -> bool {
        Self::flag(self.x_kubernetes_int_or_string)
    }

    /// Calls `f` for every direct child schema with a short label of how it is reached.
    pub fn for_each_child<'a>(&'a self, f: &mut dyn FnMut(ChildRef<'a>, &'a JSONSchemaProps)) {
        if let Some(props) = &self.properties {
            for (k, v) in props {
                f(ChildRef::Property(k), v);
            }
        }
        match self.items.as_deref() {
            Some(JSONSchemaPropsOrArray::Schema(s)) => f(ChildRef::Items(None), s),
            Some(JSONSchemaPropsOrArray::Schemas(list)) => {
                for (i, s) in list.iter().enumerate() {
                    f(ChildRef::Items(Some(i)), s);
                }
            }
            None => {}
        }
        if let Some(s) = self.additional_properties_schema() {
            f(ChildRef::AdditionalProperties, s);
        }
        for (kind, list) in [
            (Junctor::AllOf, &self.all_of),
            (Junctor::AnyOf, &self.any_of),
            (Junctor::OneOf, &self.one_of),
        ] {
            for (i, s) in list.iter().flatten().enumerate() {
                f(ChildRef::Junctor(kind, i), s);
            }
        }
        if let Some(s) = self.not.as_deref() {
            f(ChildRef::Not, s);
        }
        if let Some(defs) = &self.definitions {
            for (k, v) in defs {
                f(ChildRef::Definition(k), v);
            }
        }
        if let Some(pp) = &self.pattern_properties {
            for (k, v) in pp {
                f(ChildRef::PatternProperty(k), v);
            }
        }
        if let Some(JSONSchemaPropsOrBool::Schema(s)) = self.additional_items.as_deref() {
            f(ChildRef::AdditionalItems, s);
        }
        if let Some(deps) = &self.dependencies {
            for (k, v) in deps {
                if let JSONSchemaPropsOrStringArray::Schema(s) = v {
                    f(ChildRef::Dependency(k), s);
                }
            }
        }
    }
}

/// A schema junctor keyword.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Junctor {
    /// `allOf`
    AllOf,
    /// `anyOf`
    AnyOf,
    /// `oneOf`
    OneOf,
}

impl Junctor {
    /// The JSON keyword.
    pub fn keyword(self) -> &'static str {
        match self {
            Junctor::AllOf => "allOf",
            Junctor::AnyOf => "anyOf",
            Junctor::OneOf => "oneOf",
        }
    }
}

/// How a child schema hangs off its parent (see [`JSONSchemaProps::for_each_child`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChildRef<'a> {
    /// `properties[name]`
    Property(&'a str),
    /// `items` (or `items[i]` in the tuple form)
    Items(Option<usize>),
    /// `additionalProperties`
    AdditionalProperties,
    /// `allOf[i]`, `anyOf[i]`, `oneOf[i]`
    Junctor(Junctor, usize),
    /// `not`
    Not,
    /// `definitions[name]`
    Definition(&'a str),
    /// `patternProperties[pattern]`
    PatternProperty(&'a str),
    /// `additionalItems`
    AdditionalItems,
    /// `dependencies[name]`
    Dependency(&'a str),
}

impl ChildRef<'_> {
    /// The child's field path under its parent's `parent`
    /// (`properties[name]`, `items`, `allOf[2]`, ...).
    pub fn path_under(self, parent: &crate::field::Path) -> crate::field::Path {
        match self {
            ChildRef::Property(k) => parent.child("properties").key(k),
            ChildRef::Items(None) => parent.child("items"),
            ChildRef::Items(Some(i)) => parent.child("items").index(i),
            ChildRef::AdditionalProperties => parent.child("additionalProperties"),
            ChildRef::Junctor(j, i) => parent.child(j.keyword()).index(i),
            ChildRef::Not => parent.child("not"),
            ChildRef::Definition(k) => parent.child("definitions").key(k),
            ChildRef::PatternProperty(k) => parent.child("patternProperties").key(k),
            ChildRef::AdditionalItems => parent.child("additionalItems"),
            ChildRef::Dependency(k) => parent.child("dependencies").key(k),
        }
    }
}

/// Serde helper: `default: null` is a present value (`Some(Value::Null)`), not an absent one.
mod present_value {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use serde_json::Value;

    pub fn serialize<S: Serializer>(v: &Option<Value>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(v) => v.serialize(s),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
        Value::deserialize(d).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_null_default_is_kept() {
        let s: JSONSchemaProps = serde_json::from_str(r#"{"default": null}"#).unwrap();
        assert_eq!(s.default, Some(Value::Null));
        assert_eq!(serde_json::to_string(&s).unwrap(), r#"{"default":null}"#);
        let s: JSONSchemaProps = serde_json::from_str(r#"{}"#).unwrap();
        assert_eq!(s.default, None);
    }

    #[test]
    fn numbers_keep_their_form() {
        let s: JSONSchemaProps =
            serde_json::from_str(r#"{"maximum": 10, "minimum": 0.5}"#).unwrap();
        assert_eq!(
            serde_json::to_string(&s).unwrap(),
            r#"{"maximum":10,"minimum":0.5}"#
        );
    }

    #[test]
    fn unknown_keywords_are_rejected() {
        let err = serde_json::from_str::<JSONSchemaProps>(r#"{"typo": 1}"#).unwrap_err();
        assert!(err.to_string().contains("unknown field `typo`"), "{err}");
    }

    #[test]
    fn items_and_additional_properties_forms() {
        let s: JSONSchemaProps = serde_json::from_str(
            r#"{"items": [{"type": "string"}], "additionalProperties": false}"#,
        )
        .unwrap();
        assert!(
            matches!(s.items.as_deref(), Some(JSONSchemaPropsOrArray::Schemas(v)) if v.len() == 1)
        );
        assert_eq!(
            s.additional_properties.as_deref(),
            Some(&JSONSchemaPropsOrBool::Bool(false))
        );
        let s: JSONSchemaProps =
            serde_json::from_str(r#"{"items": {"type": "string"}, "additionalProperties": {}}"#)
                .unwrap();
        assert_eq!(s.items_schema().unwrap().type_str(), "string");
        assert!(s.additional_properties_schema().is_some());
    }
}
