//! `#[crd(descriptions = {...})]`: descriptions of nodes *inside* a field's schema,
//! addressed by JSON Pointer (RFC 6901) into the schema (`/properties/status`,
//! `/items/properties/reason`, `""` for the node itself). A field of a type it does not
//! own (a k8s-openapi `Condition`) keeps the type's structure and takes the text its
//! CRD says; crd-gen writes these when it reuses such types (`--k8s-types`).

use std::borrow::Cow;

use crate::model::{JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool};

/// One reference token of a pointer, escaped (`~` → `~0`, `/` → `~1`).
pub fn escape_pointer_token(token: &str) -> Cow<'_, str> {
    if token.contains(['~', '/']) {
        Cow::Owned(token.replace('~', "~0").replace('/', "~1"))
    } else {
        Cow::Borrowed(token)
    }
}

fn unescape(token: &str) -> Cow<'_, str> {
    if token.contains('~') {
        Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
    } else {
        Cow::Borrowed(token)
    }
}

/// The schema node `pointer` names inside `schema`: `""` is `schema` itself; tokens
/// walk `properties/<name>`, `patternProperties/<name>`, `items`, `items/<i>`,
/// `additionalProperties`, `allOf|anyOf|oneOf/<i>` and `not`.
pub fn node_at_mut<'a>(
    schema: &'a mut JSONSchemaProps,
    pointer: &str,
) -> Option<&'a mut JSONSchemaProps> {
    if pointer.is_empty() {
        return Some(schema);
    }
    let mut tokens = pointer.strip_prefix('/')?.split('/');
    let mut node = schema;
    while let Some(token) = tokens.next() {
        node = match token {
            "properties" => {
                let name = unescape(tokens.next()?);
                node.properties.as_mut()?.get_mut(name.as_ref())?
            }
            "patternProperties" => {
                let name = unescape(tokens.next()?);
                node.pattern_properties.as_mut()?.get_mut(name.as_ref())?
            }
            "items" => match node.items.as_deref_mut()? {
                JSONSchemaPropsOrArray::Schema(items) => items,
                JSONSchemaPropsOrArray::Schemas(items) => {
                    items.get_mut(tokens.next()?.parse::<usize>().ok()?)?
                }
            },
            "additionalProperties" => match node.additional_properties.as_deref_mut()? {
                JSONSchemaPropsOrBool::Schema(values) => values,
                JSONSchemaPropsOrBool::Bool(_) => return None,
            },
            "allOf" | "anyOf" | "oneOf" => {
                let list = match token {
                    "allOf" => node.all_of.as_mut(),
                    "anyOf" => node.any_of.as_mut(),
                    _ => node.one_of.as_mut(),
                }?;
                list.get_mut(tokens.next()?.parse::<usize>().ok()?)?
            }
            "not" => node.not.as_deref_mut()?,
            _ => return None,
        };
    }
    Some(node)
}

/// Sets (`Some`) or removes (`None`) the description of each node named by a pointer.
/// A pointer that names no node makes the schema invalid with a message naming it, so
/// `crd()` checks (`assert_valid_crd`) report it at the field instead of it being
/// silently ignored.
pub fn set_descriptions(schema: &mut JSONSchemaProps, entries: &[(&str, Option<&str>)]) {
    let mut missing = Vec::new();
    for (pointer, text) in entries {
        match node_at_mut(schema, pointer) {
            Some(node) => node.description = text.map(str::to_string),
            None => missing.push(*pointer),
        }
    }
    if !missing.is_empty() {
        schema.type_ = Some(format!(
            "(#[crd(descriptions)] names no schema node at {})",
            missing.join(", ")
        ));
    }
}

/// Removes the description of every node inside `schema` (the nodes
/// [`node_at_mut`] reaches), keeping `schema`'s own.
pub fn strip_nested_descriptions(schema: &mut JSONSchemaProps) {
    fn strip(node: &mut JSONSchemaProps) {
        node.description = None;
        strip_nested_descriptions(node);
    }
    for child in schema.properties.iter_mut().flatten() {
        strip(child.1);
    }
    for child in schema.pattern_properties.iter_mut().flatten() {
        strip(child.1);
    }
    match schema.items.as_deref_mut() {
        Some(JSONSchemaPropsOrArray::Schema(items)) => strip(items),
        Some(JSONSchemaPropsOrArray::Schemas(items)) => items.iter_mut().for_each(strip),
        None => {}
    }
    if let Some(JSONSchemaPropsOrBool::Schema(values)) = schema.additional_properties.as_deref_mut()
    {
        strip(values);
    }
    for list in [&mut schema.all_of, &mut schema.any_of, &mut schema.one_of] {
        list.iter_mut().flatten().for_each(strip);
    }
    if let Some(not) = schema.not.as_deref_mut() {
        strip(not);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> JSONSchemaProps {
        serde_json::from_value(serde_json::json!({
            "type": "array",
            "description": "conditions",
            "items": {
                "type": "object",
                "properties": {
                    "a/b~c": {"type": "string", "description": "odd"},
                    "reason": {"type": "string"},
                    "labels": {"type": "object", "additionalProperties": {"type": "string"}}
                }
            }
        }))
        .unwrap()
    }

    #[test]
    fn pointers_reach_nested_nodes_and_escape() {
        let mut s = schema();
        let odd = format!("/items/properties/{}", escape_pointer_token("a/b~c"));
        assert_eq!(odd, "/items/properties/a~1b~0c");
        set_descriptions(
            &mut s,
            &[
                ("", None),
                (&odd, Some("renamed")),
                ("/items/properties/reason", Some("why")),
                (
                    "/items/properties/labels/additionalProperties",
                    Some("value"),
                ),
            ],
        );
        let v = serde_json::to_value(&s).unwrap();
        assert!(v.get("description").is_none());
        assert_eq!(v["type"], "array");
        let props = &v["items"]["properties"];
        assert_eq!(props["a/b~c"]["description"], "renamed");
        assert_eq!(props["reason"]["description"], "why");
        assert_eq!(
            props["labels"]["additionalProperties"]["description"],
            "value"
        );
    }

    #[test]
    fn nested_descriptions_are_stripped_but_not_the_nodes_own() {
        let mut s = schema();
        strip_nested_descriptions(&mut s);
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(v["description"], "conditions");
        assert!(!v["items"].to_string().contains("description"));
    }

    #[test]
    fn a_pointer_to_nothing_makes_the_schema_invalid() {
        let mut s = schema();
        set_descriptions(
            &mut s,
            &[("/items/properties/nope", Some("x")), ("items", None)],
        );
        assert_eq!(
            s.type_.as_deref(),
            Some("(#[crd(descriptions)] names no schema node at /items/properties/nope, items)")
        );
    }
}
