//! Residual schema keywords → `#[crd(...)]` node keywords (crd-derive's attribute
//! surface, `crd-derive/ATTRIBUTES.md` section 3).
//!
//! Every keyword of the residual is either implied by the Rust type (see
//! [`Implied`]) or written out here; user text only ever becomes a string literal.

use crd_runtime::JSONSchemaProps;
use crd_runtime::model::{JSONSchemaPropsOrArray, JSONSchemaPropsOrBool, ValidationRule};
use proc_macro2::TokenStream;
use quote::quote;
use serde_json::{Number, Value};

use super::ast::str_lit;
use super::json::json_tokens;

/// What crd-derive already writes for a Rust type, so it is not repeated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Implied {
    /// `type`.
    pub type_: Option<&'static str>,
    /// `format`.
    pub format: Option<&'static str>,
    /// `x-kubernetes-preserve-unknown-fields: true`.
    pub preserve: bool,
    /// `x-kubernetes-int-or-string: true`.
    pub int_or_string: bool,
    /// `x-kubernetes-embedded-resource: true`.
    pub embedded: bool,
}

/// Which keywords the caller handles itself.
#[derive(Clone, Copy, Debug, Default)]
pub struct Skip {
    /// `description` (written as a doc comment instead).
    pub description: bool,
}

/// The node keywords of `node` that `implied` does not cover, as a comma-separated
/// token list for `#[crd(...)]` (empty when there are none).
pub fn node_keywords(node: &JSONSchemaProps, implied: Implied, skip: Skip) -> Vec<TokenStream> {
    let mut out = Vec::new();
    let JSONSchemaProps {
        id,
        schema,
        ref_path,
        description,
        type_,
        format,
        title,
        default,
        maximum,
        exclusive_maximum,
        minimum,
        exclusive_minimum,
        max_length,
        min_length,
        pattern,
        max_items,
        min_items,
        unique_items,
        multiple_of,
        enum_,
        max_properties,
        min_properties,
        required,
        items,
        all_of,
        one_of,
        any_of,
        not,
        properties,
        additional_properties,
        pattern_properties,
        dependencies,
        additional_items,
        definitions,
        external_docs,
        example,
        nullable,
        x_kubernetes_preserve_unknown_fields,
        x_kubernetes_embedded_resource,
        x_kubernetes_int_or_string,
        x_kubernetes_list_map_keys,
        x_kubernetes_list_type,
        x_kubernetes_map_type,
        x_kubernetes_validations,
        deprecated,
        discriminator,
        read_only,
        write_only,
        xml,
    } = node;

    if let Some(d) = description.as_deref().filter(|_| !skip.description) {
        let d = str_lit(d);
        out.push(quote!(description = #d));
    }
    if let Some(t) = title {
        let t = str_lit(t);
        out.push(quote!(title = #t));
    }
    match (type_.as_deref(), implied.type_) {
        (Some(t), Some(i)) if t == i => {}
        (Some(t), _) => {
            let t = str_lit(t);
            out.push(quote!(type = #t));
        }
        (None, Some(_)) => out.push(quote!(type = null)),
        (None, None) => {}
    }
    match (format.as_deref(), implied.format) {
        (Some(f), Some(i)) if f == i => {}
        (Some(f), _) => {
            let f = str_lit(f);
            out.push(quote!(format = #f));
        }
        (None, Some(_)) => out.push(quote!(format = null)),
        (None, None) => {}
    }
    if let Some(v) = example {
        let v = json_tokens(v);
        out.push(quote!(example = #v));
    }
    if let Some(ed) = external_docs {
        let mut parts = Vec::new();
        if let Some(u) = &ed.url {
            parts.push(quote!(url = #u));
        }
        if let Some(d) = &ed.description {
            parts.push(quote!(description = #d));
        }
        out.push(quote!(external_docs(#(#parts),*)));
    }
    number(&mut out, "minimum", minimum);
    number(&mut out, "maximum", maximum);
    flag(&mut out, "exclusive_minimum", *exclusive_minimum, false);
    flag(&mut out, "exclusive_maximum", *exclusive_maximum, false);
    number(&mut out, "multiple_of", multiple_of);
    int(&mut out, "min_length", *min_length);
    int(&mut out, "max_length", *max_length);
    if let Some(p) = pattern {
        let p = str_lit(p);
        out.push(quote!(pattern = #p));
    }
    if let Some(values) = enum_ {
        let values = values.iter().map(json_tokens);
        out.push(quote!(enum_values = [#(#values),*]));
    }
    int(&mut out, "min_items", *min_items);
    int(&mut out, "max_items", *max_items);
    flag(&mut out, "unique_items", *unique_items, false);
    int(&mut out, "min_properties", *min_properties);
    int(&mut out, "max_properties", *max_properties);
    if let Some(v) = default {
        let v = json_tokens(v);
        out.push(quote!(default = #v));
    }
    flag(&mut out, "nullable", *nullable, false);
    flag(
        &mut out,
        "int_or_string",
        *x_kubernetes_int_or_string,
        implied.int_or_string,
    );
    flag(
        &mut out,
        "preserve_unknown_fields",
        *x_kubernetes_preserve_unknown_fields,
        implied.preserve,
    );
    flag(
        &mut out,
        "embedded_resource",
        *x_kubernetes_embedded_resource,
        implied.embedded,
    );
    if let Some(t) = x_kubernetes_list_type {
        let t = str_lit(t);
        out.push(quote!(list_type = #t));
    }
    if let Some(keys) = x_kubernetes_list_map_keys {
        let keys = keys.iter().map(|k| str_lit(k));
        out.push(quote!(list_map_keys = [#(#keys),*]));
    }
    if let Some(t) = x_kubernetes_map_type {
        let t = str_lit(t);
        out.push(quote!(map_type = #t));
    }
    for rule in x_kubernetes_validations.iter().flatten() {
        out.push(validation(rule));
    }
    junctor(&mut out, "all_of", all_of);
    junctor(&mut out, "any_of", any_of);
    junctor(&mut out, "one_of", one_of);
    if let Some(n) = not {
        let v = fragment(n);
        out.push(quote!(not = #v));
    }
    if let Some(r) = required {
        let r = r.iter().map(|r| str_lit(r));
        out.push(quote!(required = [#(#r),*]));
    }
    // `items`/`additionalProperties` left in the residual are forms the Rust type
    // cannot carry (tuple items, `additionalProperties: false/true`).
    if let Some(items) = items.as_deref() {
        let v = match items {
            JSONSchemaPropsOrArray::Schema(s) => fragment(s),
            JSONSchemaPropsOrArray::Schemas(list) => {
                json_tokens(&serde_json::to_value(list).unwrap_or(Value::Null))
            }
        };
        out.push(quote!(items_schema = #v));
    }
    if let Some(ap) = additional_properties.as_deref() {
        let v = match ap {
            JSONSchemaPropsOrBool::Bool(b) => quote!(#b),
            JSONSchemaPropsOrBool::Schema(s) => fragment(s),
        };
        out.push(quote!(additional_properties = #v));
    }
    // Keywords a structural CRD schema cannot hold: kept as a schema fragment only if
    // present (they never are in a CRD the API server accepted).
    let any_forbidden = id.is_some()
        || schema.is_some()
        || ref_path.is_some()
        || pattern_properties.is_some()
        || dependencies.is_some()
        || additional_items.is_some()
        || definitions.is_some()
        || properties.is_some()
        || deprecated.is_some()
        || discriminator.is_some()
        || read_only.is_some()
        || write_only.is_some()
        || xml.is_some();
    if any_forbidden {
        let forbidden = JSONSchemaProps {
            id: id.clone(),
            schema: schema.clone(),
            ref_path: ref_path.clone(),
            pattern_properties: pattern_properties.clone(),
            dependencies: dependencies.clone(),
            additional_items: additional_items.clone(),
            definitions: definitions.clone(),
            properties: properties.clone(),
            deprecated: deprecated.clone(),
            discriminator: discriminator.clone(),
            read_only: read_only.clone(),
            write_only: write_only.clone(),
            xml: xml.clone(),
            ..Default::default()
        };
        let v = fragment(&forbidden);
        out.push(quote!(extra = #v));
    }
    out
}

fn number(out: &mut Vec<TokenStream>, key: &str, n: &Option<Number>) {
    if let Some(n) = n {
        let key = ident(key);
        let v = json_tokens(&Value::Number(n.clone()));
        out.push(quote!(#key = #v));
    }
}

fn int(out: &mut Vec<TokenStream>, key: &str, n: Option<i64>) {
    if let Some(n) = n {
        let key = ident(key);
        let v = json_tokens(&Value::from(n));
        out.push(quote!(#key = #v));
    }
}

/// A boolean keyword: nothing when the type already gives the wanted value, `key`
/// for `true`, `key = false` to remove an implied `true` or keep an explicit `false`.
fn flag(out: &mut Vec<TokenStream>, key: &str, v: Option<bool>, implied: bool) {
    // The identifier is built only when something is written: most nodes write no flag.
    match (v, implied) {
        (Some(true), false) => {
            let key = ident(key);
            out.push(quote!(#key));
        }
        (Some(false), _) | (None, true) => {
            let key = ident(key);
            out.push(quote!(#key = false));
        }
        (Some(true), true) | (None, false) => {}
    }
}

/// A list of schema fragments as one `json!([...])`: crd-derive reads lists of
/// fragments in that form.
fn junctor(out: &mut Vec<TokenStream>, key: &str, list: &Option<Vec<JSONSchemaProps>>) {
    if let Some(list) = list {
        let key = ident(key);
        let value = serde_json::to_value(list).unwrap_or(Value::Null);
        let v = json_tokens(&value);
        out.push(quote!(#key = #v));
    }
}

/// A schema as a `json!({...})` fragment.
pub fn fragment(s: &JSONSchemaProps) -> TokenStream {
    json_tokens(&serde_json::to_value(s).unwrap_or(Value::Null))
}

/// `validation(rule = ..., message = ..., ...)`.
pub fn validation(rule: &ValidationRule) -> TokenStream {
    let ValidationRule {
        rule,
        message,
        message_expression,
        reason,
        field_path,
        optional_old_self,
    } = rule;
    let rule = str_lit(rule);
    let mut parts = vec![quote!(rule = #rule)];
    if let Some(m) = message {
        let m = str_lit(m);
        parts.push(quote!(message = #m));
    }
    if let Some(m) = message_expression {
        let m = str_lit(m);
        parts.push(quote!(message_expression = #m));
    }
    if let Some(r) = reason {
        let r = str_lit(r);
        parts.push(quote!(reason = #r));
    }
    if let Some(f) = field_path {
        let f = str_lit(f);
        parts.push(quote!(field_path = #f));
    }
    if let Some(b) = optional_old_self {
        parts.push(quote!(optional_old_self = #b));
    }
    quote!(validation(#(#parts),*))
}

fn ident(key: &str) -> proc_macro2::Ident {
    proc_macro2::Ident::new(key, proc_macro2::Span::call_site())
}
