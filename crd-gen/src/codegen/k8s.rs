//! `--k8s-types`: recognising k8s-openapi types in CRD schemas.
//!
//! A schema node is reused as a k8s-openapi type when it is *semantically equal* to the
//! schema crd-derive emits for a field of that type (crd-runtime's `k8s_schemas`, one
//! Kubernetes version): equal in every keyword but descriptions. The node's
//! descriptions are kept — its own through the field's doc comment, the nested ones
//! that differ from the type's through `#[crd(descriptions = {...})]` — so the CRD
//! derived from the generated code is the input, byte for byte.
//!
//! Several types can share a shape (`SecretKeySelector`, `ConfigMapKeySelector`): the
//! one whose descriptions agree with the node's most wins, then the first by name.

use std::collections::HashMap;
use std::sync::OnceLock;

use crd_runtime::__private::descriptions::{escape_pointer_token, strip_nested_descriptions};
use crd_runtime::JSONSchemaProps;
use crd_runtime::k8s_schemas;
use crd_runtime::model::{JSONSchemaPropsOrArray, JSONSchemaPropsOrBool};

/// A node recognised as a k8s-openapi type.
#[derive(Clone, Debug, PartialEq)]
pub struct K8sType {
    /// The Rust path, `k8s_openapi::api::core::v1::PodSpec`.
    pub path: String,
    /// The node has no description of its own but the type has one: remove it
    /// (`description = null`; the node's own description is the field's doc comment).
    pub remove_own: bool,
    /// The node has no nested description at all (`crd:maxDescLen=0`): remove the
    /// type's (`no_descriptions`) rather than list them.
    pub strip_nested: bool,
    /// Nested descriptions that differ from the type's: JSON Pointer → text, or
    /// `None` to remove the type's (`descriptions = {...}`).
    pub descriptions: Vec<(String, Option<String>)>,
}

/// The object schemas of one Kubernetes version, by property names.
pub struct K8sTypes {
    version: &'static str,
    by_properties: HashMap<Vec<String>, Vec<Candidate>>,
}

struct Candidate {
    definition: &'static str,
    schema: JSONSchemaProps,
    /// `schema` without descriptions.
    shape: JSONSchemaProps,
}

impl std::fmt::Debug for K8sTypes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("K8sTypes")
            .field("version", &self.version)
            .field("shapes", &self.by_properties.len())
            .finish()
    }
}

impl K8sTypes {
    /// The types of a Kubernetes version (built once per process); `None` for a
    /// version without schemas (see [`k8s_schemas::VERSIONS`]).
    pub fn of(version: &str) -> Option<&'static K8sTypes> {
        static TYPES: [OnceLock<K8sTypes>; 8] = [const { OnceLock::new() }; 8];
        let i = k8s_schemas::VERSIONS.iter().position(|v| *v == version)?;
        let slot = TYPES.get(i)?;
        Some(slot.get_or_init(|| K8sTypes::build(k8s_schemas::VERSIONS[i])))
    }

    fn build(version: &'static str) -> K8sTypes {
        let mut by_properties: HashMap<Vec<String>, Vec<Candidate>> = HashMap::new();
        for definition in k8s_schemas::definitions(version) {
            let Some(schema) = k8s_schemas::definition_schema_in(version, definition) else {
                continue;
            };
            let Some(props) = schema.properties.as_ref().filter(|p| !p.is_empty()) else {
                continue;
            };
            if schema.type_.as_deref() != Some("object") {
                continue;
            }
            let key = props.keys().cloned().collect();
            let mut shape = schema.clone();
            strip_descriptions(&mut shape);
            by_properties.entry(key).or_default().push(Candidate {
                definition,
                schema,
                shape,
            });
        }
        K8sTypes {
            version,
            by_properties,
        }
    }

    /// The Kubernetes version.
    pub fn version(&self) -> &'static str {
        self.version
    }

    /// The k8s-openapi type `node` is, if any. `property` is the name of the field
    /// holding it (or its list or map): among equal shapes without telling
    /// descriptions, `podAntiAffinity` is a `PodAntiAffinity`, not a `PodAffinity`.
    pub fn find(&self, node: &JSONSchemaProps, property: Option<&str>) -> Option<K8sType> {
        let props = node.properties.as_ref()?;
        let key: Vec<String> = props.keys().cloned().collect();
        let candidates = self.by_properties.get(&key)?;
        let mut shape = node.clone();
        strip_descriptions(&mut shape);
        let best = candidates
            .iter()
            .filter(|c| c.shape == shape)
            .map(|c| {
                let named = property.is_some_and(|p| names_type(p, c.definition));
                ((agreeing_descriptions(node, &c.schema), named), c)
            })
            // Most agreeing descriptions, then the property's name, then the first
            // definition name.
            .max_by(|(a, x), (b, y)| a.cmp(b).then(y.definition.cmp(x.definition)))?
            .1;
        let strip_nested = !has_nested_descriptions(node) && has_nested_descriptions(&best.schema);
        let mut descriptions = Vec::new();
        if !strip_nested {
            description_changes(node, &best.schema, &mut String::new(), &mut descriptions);
        }
        Some(K8sType {
            path: k8s_schemas::rust_path(best.definition)?,
            remove_own: node.description.is_none() && best.schema.description.is_some(),
            strip_nested,
            descriptions,
        })
    }
}

/// The child schema nodes of a node with their pointer tokens, in a fixed order.
fn children(node: &JSONSchemaProps) -> Vec<(String, &JSONSchemaProps)> {
    let mut out = Vec::new();
    for (name, child) in node.properties.iter().flatten() {
        out.push((
            format!("/properties/{}", escape_pointer_token(name)),
            &**child,
        ));
    }
    for (name, child) in node.pattern_properties.iter().flatten() {
        let token = escape_pointer_token(name);
        out.push((format!("/patternProperties/{token}"), child));
    }
    match node.items.as_deref() {
        Some(JSONSchemaPropsOrArray::Schema(items)) => out.push(("/items".into(), items)),
        Some(JSONSchemaPropsOrArray::Schemas(items)) => {
            for (i, item) in items.iter().enumerate() {
                out.push((format!("/items/{i}"), item));
            }
        }
        None => {}
    }
    if let Some(JSONSchemaPropsOrBool::Schema(values)) = node.additional_properties.as_deref() {
        out.push(("/additionalProperties".into(), values));
    }
    for (name, list) in [
        ("allOf", &node.all_of),
        ("anyOf", &node.any_of),
        ("oneOf", &node.one_of),
    ] {
        for (i, child) in list.iter().flatten().enumerate() {
            out.push((format!("/{name}/{i}"), child));
        }
    }
    if let Some(not) = node.not.as_deref() {
        out.push(("/not".into(), not));
    }
    out
}

/// Removes every description in the tree (the same nodes [`children`] visits).
fn strip_descriptions(node: &mut JSONSchemaProps) {
    node.description = None;
    strip_nested_descriptions(node);
}

fn has_nested_descriptions(node: &JSONSchemaProps) -> bool {
    children(node)
        .into_iter()
        .any(|(_, c)| c.description.is_some() || has_nested_descriptions(c))
}

/// Whether a property name names a definition's type: `podAntiAffinity` and
/// `PodAntiAffinity`, `tolerations` and `Toleration`.
fn names_type(property: &str, definition: &str) -> bool {
    let ty = definition.rsplit('.').next().unwrap_or(definition);
    let property = property.to_ascii_lowercase();
    let ty = ty.to_ascii_lowercase();
    property == ty || property.strip_suffix('s') == Some(&ty)
}

/// How many nodes below the top have the same description in both trees (which
/// have the same shape).
fn agreeing_descriptions(ours: &JSONSchemaProps, theirs: &JSONSchemaProps) -> usize {
    children(ours)
        .into_iter()
        .zip(children(theirs))
        .map(|((_, a), (_, b))| {
            usize::from(a.description == b.description) + agreeing_descriptions(a, b)
        })
        .sum()
}

/// The nested descriptions of `node` that differ from the type's, as pointer → text.
fn description_changes(
    node: &JSONSchemaProps,
    type_schema: &JSONSchemaProps,
    pointer: &mut String,
    out: &mut Vec<(String, Option<String>)>,
) {
    for ((token, a), (_, b)) in children(node).into_iter().zip(children(type_schema)) {
        let len = pointer.len();
        pointer.push_str(&token);
        if a.description != b.description {
            out.push((pointer.clone(), a.description.clone()));
        }
        description_changes(a, b, pointer, out);
        pointer.truncate(len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONDITION: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.Condition";

    fn condition() -> JSONSchemaProps {
        k8s_schemas::definition_schema_in(k8s_schemas::latest_version(), CONDITION).unwrap()
    }

    fn types() -> &'static K8sTypes {
        K8sTypes::of(k8s_schemas::latest_version()).unwrap()
    }

    #[test]
    fn the_type_itself_is_found_with_no_changes() {
        let mut node = condition();
        node.description = Some("The field's own text.".into());
        let found = types().find(&node, None).unwrap();
        assert_eq!(
            found.path,
            "k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition"
        );
        assert_eq!(found.descriptions, vec![]);
        assert!(!found.remove_own && !found.strip_nested);
    }

    #[test]
    fn other_descriptions_are_kept_as_changes() {
        let mut node = condition();
        node.description = None;
        let props = node.properties.as_mut().unwrap();
        props.get_mut("reason").unwrap().description = Some("Our reason.".into());
        props.get_mut("message").unwrap().description = None;
        let found = types().find(&node, Some("conditions")).unwrap();
        assert!(found.remove_own && !found.strip_nested);
        assert_eq!(
            found.descriptions,
            vec![
                ("/properties/message".to_string(), None),
                ("/properties/reason".to_string(), Some("Our reason.".into())),
            ]
        );
    }

    #[test]
    fn without_descriptions_the_property_name_decides() {
        let version = k8s_schemas::latest_version();
        let mut node =
            k8s_schemas::definition_schema_in(version, "io.k8s.api.core.v1.PodAntiAffinity")
                .unwrap();
        strip_descriptions(&mut node);
        let found = types().find(&node, Some("podAntiAffinity")).unwrap();
        assert_eq!(found.path, "k8s_openapi::api::core::v1::PodAntiAffinity");
        assert!(found.remove_own && found.strip_nested && found.descriptions.is_empty());
        let found = types().find(&node, Some("podAffinity")).unwrap();
        assert_eq!(found.path, "k8s_openapi::api::core::v1::PodAffinity");
        assert!(names_type("tolerations", "io.k8s.api.core.v1.Toleration"));
    }

    #[test]
    fn any_other_difference_is_not_the_type() {
        let mut node = condition();
        node.properties
            .as_mut()
            .unwrap()
            .get_mut("reason")
            .unwrap()
            .max_length = Some(2);
        assert_eq!(types().find(&node, None), None);
        let mut node = condition();
        node.required.as_mut().unwrap().pop();
        assert_eq!(types().find(&node, None), None);
        assert!(K8sTypes::of("1.2").is_none());
    }
}
