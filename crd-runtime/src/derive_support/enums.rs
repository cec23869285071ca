//! Schemas of tagged and untagged enums, and of fields with `#[serde(alias)]`: what serde
//! accepts, said structurally.
//!
//! A structural schema has one type per property, so the variants of an enum share one
//! main schema: every property of every variant ([`union`]). Alone, that accepts too much
//! (a variant missing a field it needs, or an unknown tag). The per-variant rules go into
//! value-validation-only junctor branches, which structural schemas allow as long as every
//! property they name is also in the main schema and they carry no types, descriptions or
//! defaults: a tagged enum gets a `oneOf` with one branch per variant (`enum` on the tag,
//! `required` on that variant's fields), an untagged enum an `anyOf` of the variants'
//! `required` lists.
//!
//! Left as it is (documented in ATTRIBUTES.md): a property that two variants declare with
//! different types keeps the first variant's schema, and a property of another variant is
//! type-checked although serde ignores it.

use std::collections::BTreeMap;

use serde_json::Value;

use super::building::{add_property, object, string_enum, union};
use crate::model::JSONSchemaProps;

/// `{properties: {<tag>: {enum: [<name>]}}, required: [<tag>]}`.
fn tag_branch(tag: &str, name: &str) -> JSONSchemaProps {
    let mut props = BTreeMap::new();
    props.insert(
        tag.to_string(),
        Box::new(JSONSchemaProps {
            enum_: Some(vec![Value::from(name)]),
            ..Default::default()
        }),
    );
    JSONSchemaProps {
        properties: Some(props),
        required: Some(vec![tag.to_string()]),
        ..Default::default()
    }
}

/// The validation-only part of a variant body: its `required` list and the constraints
/// that already live in junctors (`#[serde(alias)]` fields).
fn constraints(body: &JSONSchemaProps) -> JSONSchemaProps {
    JSONSchemaProps {
        required: body.required.clone().filter(|r| !r.is_empty()),
        all_of: body.all_of.clone(),
        ..Default::default()
    }
}

fn is_unconstrained(s: &JSONSchemaProps) -> bool {
    s.required.is_none() && s.all_of.is_none()
}

/// Whether the union of the variants is an object schema (and not an int-or-string or a
/// mix of kinds kept as unknown fields, whose branches could not be stated structurally).
fn is_object(s: &JSONSchemaProps) -> bool {
    s.type_.as_deref() == Some("object")
}

/// `#[serde(tag = "t")]`: the tag (required, one of the variant names) beside the fields of
/// every variant, and a `oneOf` branch per variant requiring that variant's fields.
pub fn internal_enum(tag: &str, variants: Vec<(&str, JSONSchemaProps)>) -> JSONSchemaProps {
    let names: Vec<&str> = variants.iter().map(|(n, _)| *n).collect();
    let branches: Vec<JSONSchemaProps> = variants
        .iter()
        .map(|(name, body)| {
            let c = constraints(body);
            let mut b = tag_branch(tag, name);
            b.required
                .get_or_insert_with(Vec::new)
                .extend(c.required.into_iter().flatten());
            b.all_of = c.all_of;
            b
        })
        .collect();
    let mut s = union(variants.into_iter().map(|(_, b)| b).collect());
    let object_like = is_object(&s) || s.type_.is_none() && s.properties.is_some();
    s.type_ = Some("object".into());
    add_property(&mut s, tag, string_enum(&names), true);
    if object_like {
        s.one_of = Some(branches);
    }
    s
}

/// `#[serde(tag = "t", content = "c")]`: the tag (required) and the content (the union of
/// the data variants), with a `oneOf` branch per variant: a data variant requires the
/// content and the content's required fields; a unit variant forbids the content (serde
/// reads only `null` there, which the API server drops).
pub fn adjacent_enum(
    tag: &str,
    content: &str,
    variants: Vec<(&str, Option<JSONSchemaProps>)>,
) -> JSONSchemaProps {
    let names: Vec<&str> = variants.iter().map(|(n, _)| *n).collect();
    let mut branches = Vec::with_capacity(variants.len());
    let mut bodies = Vec::new();
    for (name, body) in variants {
        let mut b = tag_branch(tag, name);
        match body {
            None => {
                b.not = Some(Box::new(JSONSchemaProps {
                    required: Some(vec![content.to_string()]),
                    ..Default::default()
                }));
            }
            Some(body) => {
                b.required.get_or_insert_with(Vec::new).push(content.into());
                let c = constraints(&body);
                if !is_unconstrained(&c) {
                    b.properties
                        .get_or_insert_with(BTreeMap::new)
                        .insert(content.to_string(), Box::new(c));
                }
                bodies.push(body);
            }
        }
        branches.push(b);
    }
    let mut s = object();
    add_property(&mut s, tag, string_enum(&names), true);
    if !bodies.is_empty() {
        let body = union(bodies);
        if !is_object(&body) {
            // The content's branch constraints name object properties; for scalars or
            // mixed kinds only the presence rules remain meaningful.
            for b in &mut branches {
                if let Some(p) = b.properties.as_mut() {
                    p.retain(|k, _| k == tag);
                }
            }
        }
        add_property(&mut s, content, body, false);
    }
    s.one_of = Some(branches);
    s
}

/// `#[serde(untagged)]`: the union of the variants, and (for object variants) an `anyOf`
/// of the variants' `required` lists: serde takes the first variant whose fields are all
/// there.
pub fn untagged_enum(variants: Vec<JSONSchemaProps>) -> JSONSchemaProps {
    let branches: Vec<JSONSchemaProps> = variants.iter().map(constraints).collect();
    let mut s = union(variants);
    // A variant without required fields accepts any object: then so does the enum.
    if is_object(&s) && !branches.iter().any(is_unconstrained) {
        s.any_of = Some(branches);
    }
    s
}

/// Adds a property read under several names (`#[serde(alias = ...)]`): every name is a
/// property with the same schema, so the API server keeps what serde reads. serde rejects
/// an object naming the field twice, so at most one of the names may be present, and
/// exactly one when the field is required.
pub fn add_aliased_property(
    s: &mut JSONSchemaProps,
    name: &str,
    aliases: &[&str],
    schema: JSONSchemaProps,
    required: bool,
) {
    for alias in aliases {
        add_property(s, alias, schema.clone(), false);
    }
    add_property(s, name, schema, false);
    let names: Vec<&str> = std::iter::once(name)
        .chain(aliases.iter().copied())
        .collect();
    let requires = |n: &[&str]| JSONSchemaProps {
        required: Some(n.iter().map(|n| n.to_string()).collect()),
        ..Default::default()
    };
    let rule = if required {
        JSONSchemaProps {
            one_of: Some(names.iter().map(|n| requires(&[n])).collect()),
            ..Default::default()
        }
    } else {
        let mut pairs = Vec::new();
        for (i, a) in names.iter().enumerate() {
            for b in &names[i + 1..] {
                pairs.push(requires(&[a, b]));
            }
        }
        JSONSchemaProps {
            not: Some(Box::new(if pairs.len() == 1 {
                pairs.remove(0)
            } else {
                JSONSchemaProps {
                    any_of: Some(pairs),
                    ..Default::default()
                }
            })),
            ..Default::default()
        }
    };
    s.all_of.get_or_insert_with(Vec::new).push(rule);
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::derive_support::impls::typed;

    fn obj(props: &[(&str, &str)], required: &[&str]) -> JSONSchemaProps {
        let mut s = object();
        for (n, t) in props {
            add_property(&mut s, n, typed(t), required.contains(n));
        }
        s
    }

    #[test]
    fn internal_enum_branches_per_variant() {
        let s = internal_enum(
            "kind",
            vec![
                ("a", obj(&[("x", "integer")], &["x"])),
                ("b", obj(&[("y", "string")], &[])),
            ],
        );
        assert_eq!(
            serde_json::to_value(&s.one_of).unwrap(),
            json!([
                {"properties": {"kind": {"enum": ["a"]}}, "required": ["kind", "x"]},
                {"properties": {"kind": {"enum": ["b"]}}, "required": ["kind"]}
            ])
        );
        assert_eq!(s.required, Some(vec!["kind".to_string()]));
    }

    #[test]
    fn adjacent_unit_variant_forbids_content() {
        let s = adjacent_enum(
            "t",
            "c",
            vec![("U", None), ("D", Some(obj(&[("x", "integer")], &["x"])))],
        );
        assert_eq!(
            serde_json::to_value(&s.one_of).unwrap(),
            json!([
                {"properties": {"t": {"enum": ["U"]}}, "required": ["t"], "not": {"required": ["c"]}},
                {"properties": {"t": {"enum": ["D"]}, "c": {"required": ["x"]}}, "required": ["t", "c"]}
            ])
        );
    }

    #[test]
    fn untagged_without_required_fields_stays_open() {
        let s = untagged_enum(vec![
            obj(&[("x", "integer")], &["x"]),
            obj(&[("y", "string")], &[]),
        ]);
        assert_eq!(s.any_of, None);
        let s = untagged_enum(vec![
            obj(&[("x", "integer")], &["x"]),
            obj(&[("y", "string")], &["y"]),
        ]);
        assert_eq!(
            serde_json::to_value(&s.any_of).unwrap(),
            json!([{"required": ["x"]}, {"required": ["y"]}])
        );
    }

    #[test]
    fn aliases_are_properties_and_exclusive() {
        let mut s = object();
        add_aliased_property(&mut s, "name", &["n", "nm"], typed("string"), true);
        assert_eq!(s.properties.as_ref().unwrap().len(), 3);
        assert_eq!(s.required, None);
        assert_eq!(
            serde_json::to_value(&s.all_of).unwrap(),
            json!([{"oneOf": [{"required": ["name"]}, {"required": ["n"]}, {"required": ["nm"]}]}])
        );
        let mut s = object();
        add_aliased_property(&mut s, "name", &["n"], typed("string"), false);
        assert_eq!(
            serde_json::to_value(&s.all_of).unwrap(),
            json!([{"not": {"required": ["name", "n"]}}])
        );
    }
}
