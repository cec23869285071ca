//! Node keywords: the schema keywords of section 3 of ATTRIBUTES.md, usable on fields,
//! types, `items(...)`, `values(...)`, `spec_schema(...)`, `root(...)`, ...
//!
//! One table drives parsing (value kind, repeatability) and code generation (the
//! `JSONSchemaProps` field each keyword sets), so a keyword cannot be parsed but
//! forgotten in codegen.

use serde_derive_internals::Ctxt;
use syn::Ident;

use super::fragment::check_fragment;
use super::meta::{Item, ItemValue, parse_items, unknown_key};
use super::value::{self, Json, Num, Sp};

/// How a keyword's value is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A string literal.
    Str,
    /// A non-negative integer.
    Count,
    /// A number.
    Num,
    /// A flag / bool.
    Flag,
    /// Any JSON value.
    Json,
    /// A list of JSON values.
    JsonList,
    /// A list of strings.
    StrList,
    /// A list of schema fragments.
    Fragments,
    /// One schema fragment.
    Fragment,
    /// A CEL rule.
    Rule,
    /// A group of fields compiled to a CEL rule.
    OneOf,
    /// `required`: a list on objects, a flag on fields.
    Required,
    /// Nested node keywords (`items(...)`, `values(...)`).
    Nested,
    /// `external_docs(url = ..., description = ...)`.
    ExtDocs,
    /// A function path.
    Path,
    /// `items_schema`: a raw `items` value (a schema or a tuple list).
    RawItems,
    /// `additional_properties`: a raw `additionalProperties` value (bool or schema).
    RawAdditional,
    /// `extra`: a fragment whose keywords are set on the node as written.
    Merge,
    /// `schema`: a fragment that replaces the node's base schema.
    Base,
    /// `descriptions`: JSON Pointer → description (or `null`) of nodes inside the schema.
    Descriptions,
}

/// One keyword of the table.
#[derive(Debug)]
pub struct Keyword {
    /// The attribute key.
    pub key: &'static str,
    /// How its value is written.
    pub kind: Kind,
    /// The `JSONSchemaProps` field it sets (empty when handled specially).
    pub field: &'static str,
    /// Whether it may be given more than once.
    pub repeatable: bool,
}

const fn kw(key: &'static str, kind: Kind, field: &'static str) -> Keyword {
    Keyword {
        key,
        kind,
        field,
        repeatable: false,
    }
}

const fn rep(key: &'static str, kind: Kind) -> Keyword {
    Keyword {
        key,
        kind,
        field: "",
        repeatable: true,
    }
}

/// Every node keyword.
pub const KEYWORDS: &[Keyword] = &[
    kw("description", Kind::Str, "description"),
    kw("title", Kind::Str, "title"),
    kw("format", Kind::Str, "format"),
    kw("type", Kind::Str, "type_"),
    kw("example", Kind::Json, "example"),
    kw("external_docs", Kind::ExtDocs, "external_docs"),
    kw("minimum", Kind::Num, "minimum"),
    kw("maximum", Kind::Num, "maximum"),
    kw("exclusive_minimum", Kind::Flag, "exclusive_minimum"),
    kw("exclusive_maximum", Kind::Flag, "exclusive_maximum"),
    kw("multiple_of", Kind::Num, "multiple_of"),
    kw("min_length", Kind::Count, "min_length"),
    kw("max_length", Kind::Count, "max_length"),
    kw("pattern", Kind::Str, "pattern"),
    kw("enum_values", Kind::JsonList, "enum_"),
    kw("min_items", Kind::Count, "min_items"),
    kw("max_items", Kind::Count, "max_items"),
    kw("unique_items", Kind::Flag, "unique_items"),
    kw("min_properties", Kind::Count, "min_properties"),
    kw("max_properties", Kind::Count, "max_properties"),
    kw("default", Kind::Json, "default"),
    kw("nullable", Kind::Flag, "nullable"),
    kw("int_or_string", Kind::Flag, "x_kubernetes_int_or_string"),
    kw(
        "preserve_unknown_fields",
        Kind::Flag,
        "x_kubernetes_preserve_unknown_fields",
    ),
    kw(
        "embedded_resource",
        Kind::Flag,
        "x_kubernetes_embedded_resource",
    ),
    kw("list_type", Kind::Str, "x_kubernetes_list_type"),
    kw("list_map_keys", Kind::StrList, "x_kubernetes_list_map_keys"),
    kw("map_type", Kind::Str, "x_kubernetes_map_type"),
    rep("validation", Kind::Rule),
    rep("exactly_one_of", Kind::OneOf),
    rep("at_most_one_of", Kind::OneOf),
    rep("at_least_one_of", Kind::OneOf),
    kw("all_of", Kind::Fragments, "all_of"),
    kw("any_of", Kind::Fragments, "any_of"),
    kw("one_of", Kind::Fragments, "one_of"),
    kw("not", Kind::Fragment, "not"),
    kw("required", Kind::Required, "required"),
    // controller-gen's `+optional`/`+k8s:optional`: a field flag, out of `required`.
    kw("optional", Kind::Flag, ""),
    // controller-gen's `+k8s:immutable`: `self == oldSelf` on the node.
    kw("immutable", Kind::Flag, ""),
    kw("items", Kind::Nested, ""),
    kw("values", Kind::Nested, ""),
    kw("schema_with", Kind::Path, ""),
    kw("schemars", Kind::Flag, ""),
    kw("items_schema", Kind::RawItems, "items"),
    kw(
        "additional_properties",
        Kind::RawAdditional,
        "additional_properties",
    ),
    kw("extra", Kind::Merge, ""),
    kw("schema", Kind::Base, ""),
    kw("descriptions", Kind::Descriptions, ""),
    kw("no_descriptions", Kind::Flag, ""),
];

/// The keys of [`KEYWORDS`].
pub fn keyword_names() -> Vec<&'static str> {
    KEYWORDS.iter().map(|k| k.key).collect()
}

/// A CEL rule.
#[derive(Clone, Debug, Default)]
pub struct Rule {
    /// `rule`.
    pub rule: String,
    /// `message`.
    pub message: Option<String>,
    /// `messageExpression`.
    pub message_expression: Option<String>,
    /// `reason`.
    pub reason: Option<String>,
    /// `fieldPath`.
    pub field_path: Option<String>,
    /// `optionalOldSelf`.
    pub optional_old_self: Option<bool>,
}

/// `required` in its two forms.
#[derive(Clone, Debug)]
pub enum Required {
    /// On a field: force in or out of the parent's `required`.
    Flag(bool),
    /// On an object node: the list, exactly as written.
    List(Vec<Sp<String>>),
}

/// A parsed keyword value.
#[derive(Clone)]
pub enum Val {
    /// A string.
    Str(Sp<String>),
    /// A count.
    Count(Sp<i64>),
    /// A number.
    Num(Sp<Num>),
    /// A flag.
    Flag(Sp<bool>),
    /// A JSON value.
    Json(Sp<Json>),
    /// JSON values (also fragments).
    JsonList(Sp<Vec<Json>>),
    /// Strings.
    StrList(Sp<Vec<Sp<String>>>),
    /// Rust field names, `exactly_one_of(a, b)`: resolved to serde names by the struct.
    FieldIdents(Sp<Vec<Sp<String>>>),
    /// A rule.
    Rule(Rule),
    /// `required`.
    Required(Required),
    /// Nested keywords.
    Nested(Box<NodeAttrs>),
    /// `external_docs`: (url, description).
    ExtDocs(Option<String>, Option<String>),
    /// A path.
    Path(syn::Path),
    /// `null`: remove the keyword the Rust type implies (`type = null`, `format = null`).
    Unset,
}

/// One keyword as written.
#[derive(Clone)]
pub struct Entry {
    /// Its table row.
    pub kw: &'static Keyword,
    /// The key token (for spans).
    pub key: Ident,
    /// The value.
    pub val: Val,
}

/// The node keywords given for one node.
#[derive(Clone, Default)]
pub struct NodeAttrs {
    /// In source order.
    pub entries: Vec<Entry>,
}

impl NodeAttrs {
    /// Parses `item` if it is a node keyword; returns false (reporting nothing) if not.
    pub fn parse_item(&mut self, cx: &Ctxt, item: &Item) -> bool {
        let name = item.name();
        let Some(kw) = KEYWORDS.iter().find(|k| k.key == name) else {
            return false;
        };
        if !kw.repeatable && self.get(kw.key).is_some() {
            cx.syn_error(syn::Error::new(
                item.key.span(),
                format!("duplicate attribute `{name}`"),
            ));
            return true;
        }
        if let Some(val) = parse_value(cx, kw, item) {
            self.entries.push(Entry {
                kw,
                key: item.key.clone(),
                val,
            });
        }
        true
    }

    /// Parses a whole list of node keywords, reporting unknown keys.
    pub fn from_items(cx: &Ctxt, items: &[Item]) -> NodeAttrs {
        let mut out = NodeAttrs::default();
        for item in items {
            if !out.parse_item(cx, item) {
                unknown_key(cx, item, "schema keyword", &keyword_names());
            }
        }
        out
    }

    /// The first entry for `key`.
    pub fn get(&self, key: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.kw.key == key)
    }

    /// The string value of `key`.
    pub fn str(&self, key: &str) -> Option<&Sp<String>> {
        match self.get(key).map(|e| &e.val) {
            Some(Val::Str(s)) => Some(s),
            _ => None,
        }
    }

    /// The JSON value of `key`.
    pub fn json(&self, key: &str) -> Option<&Sp<Json>> {
        match self.get(key).map(|e| &e.val) {
            Some(Val::Json(s)) => Some(s),
            _ => None,
        }
    }

    /// The flag value of `key`.
    pub fn flag(&self, key: &str) -> Option<bool> {
        match self.get(key).map(|e| &e.val) {
            Some(Val::Flag(s)) => Some(s.value),
            _ => None,
        }
    }

    /// The number value of `key`.
    pub fn num(&self, key: &str) -> Option<&Sp<Num>> {
        match self.get(key).map(|e| &e.val) {
            Some(Val::Num(s)) => Some(s),
            _ => None,
        }
    }

    /// The count value of `key`.
    pub fn count(&self, key: &str) -> Option<&Sp<i64>> {
        match self.get(key).map(|e| &e.val) {
            Some(Val::Count(s)) => Some(s),
            _ => None,
        }
    }

    /// The nested keywords of `key` (`items`, `values`).
    pub fn nested(&self, key: &str) -> Option<&NodeAttrs> {
        match self.get(key).map(|e| &e.val) {
            Some(Val::Nested(n)) => Some(n),
            _ => None,
        }
    }

    /// `required` as a field flag.
    pub fn required_flag(&self) -> Option<bool> {
        match self.get("required").map(|e| &e.val) {
            Some(Val::Required(Required::Flag(b))) => Some(*b),
            _ => None,
        }
    }

    /// `optional` (controller-gen's `+optional`): the span of the key when set.
    pub fn optional(&self) -> Option<proc_macro2::Span> {
        match self.get("optional").map(|e| &e.val) {
            Some(Val::Flag(b)) if b.value => Some(b.span),
            _ => None,
        }
    }

    /// `#[crd(schemars)]`: the field's schema comes from `schemars::JsonSchema`, with
    /// the attribute's span.
    pub fn schemars(&self) -> Option<proc_macro2::Span> {
        match self.get("schemars").map(|e| &e.val) {
            Some(Val::Flag(b)) if b.value => Some(b.span),
            _ => None,
        }
    }

    /// The `list_map_keys` strings.
    pub fn list_map_keys(&self) -> Option<&Sp<Vec<Sp<String>>>> {
        match self.get("list_map_keys").map(|e| &e.val) {
            Some(Val::StrList(s)) => Some(s),
            _ => None,
        }
    }

    /// Whether no keyword was given.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

fn one_of_str(cx: &Ctxt, s: &Sp<String>, key: &str, allowed: &[&str]) -> bool {
    if allowed.contains(&s.value.as_str()) {
        return true;
    }
    cx.syn_error(syn::Error::new(
        s.span,
        format!(
            "`{key}` must be one of {}",
            allowed
                .iter()
                .map(|a| format!("{a:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ));
    false
}

fn parse_value(cx: &Ctxt, kw: &'static Keyword, item: &Item) -> Option<Val> {
    Some(match kw.kind {
        Kind::Str if is_null(item) => Val::Unset,
        Kind::Str => {
            let s = value::string(cx, item)?;
            let ok = match kw.key {
                "list_type" => one_of_str(cx, &s, kw.key, &["atomic", "set", "map"]),
                "map_type" => one_of_str(cx, &s, kw.key, &["atomic", "granular"]),
                "type" => one_of_str(
                    cx,
                    &s,
                    kw.key,
                    &["object", "array", "string", "integer", "number", "boolean"],
                ),
                _ => true,
            };
            if !ok {
                return None;
            }
            Val::Str(s)
        }
        Kind::Count => Val::Count(value::count(cx, item)?),
        Kind::Num => Val::Num(value::number(cx, item)?),
        Kind::Flag => Val::Flag(value::flag(cx, item)?),
        Kind::Json => Val::Json(value::json(cx, item)?),
        Kind::JsonList => Val::JsonList(value::json_list(cx, item)?),
        Kind::OneOf if matches!(item.value, ItemValue::List(..)) => {
            Val::FieldIdents(field_idents(cx, item)?)
        }
        Kind::StrList | Kind::OneOf => {
            let list = value::string_list(cx, item)?;
            if list.value.is_empty() {
                cx.syn_error(syn::Error::new(
                    list.span,
                    format!("`{}` needs at least one name", kw.key),
                ));
                return None;
            }
            Val::StrList(list)
        }
        Kind::Fragments => {
            let list = value::json_list(cx, item)?;
            let mut ok = true;
            for f in &list.value {
                ok &= check_fragment(cx, f, list.span);
            }
            if !ok {
                return None;
            }
            Val::JsonList(list)
        }
        Kind::Fragment => {
            let v = value::json(cx, item)?;
            if !check_fragment(cx, &v.value, v.span) {
                return None;
            }
            Val::Json(v)
        }
        Kind::Rule => Val::Rule(parse_rule(cx, item)?),
        Kind::Required => match &item.value {
            ItemValue::Value(ts) if ts.to_string().starts_with('[') => {
                Val::Required(Required::List(value::string_list(cx, item)?.value))
            }
            _ => Val::Required(Required::Flag(value::flag(cx, item)?.value)),
        },
        Kind::Nested => match &item.value {
            ItemValue::List(ts, _) => {
                let items = parse_items(cx, ts.clone());
                Val::Nested(Box::new(NodeAttrs::from_items(cx, &items)))
            }
            _ => {
                cx.syn_error(syn::Error::new(
                    item.key.span(),
                    format!(
                        "`{}` expects schema keywords: `{}(max_length = 10)`",
                        kw.key, kw.key
                    ),
                ));
                return None;
            }
        },
        Kind::ExtDocs => {
            let (url, description) = parse_ext_docs(cx, item)?;
            Val::ExtDocs(url, description)
        }
        Kind::Path => Val::Path(value::path(cx, item)?),
        Kind::RawItems => {
            let v = value::json(cx, item)?;
            if !super::fragment::check_items(cx, &v.value, v.span) {
                return None;
            }
            Val::Json(v)
        }
        Kind::RawAdditional => {
            let v = value::json(cx, item)?;
            if !super::fragment::check_additional(cx, &v.value, v.span) {
                return None;
            }
            Val::Json(v)
        }
        Kind::Descriptions => {
            let v = value::json(cx, item)?;
            if !check_descriptions(cx, &v.value, v.span) {
                return None;
            }
            Val::Json(v)
        }
        Kind::Merge | Kind::Base => {
            let v = value::json(cx, item)?;
            if !check_fragment(cx, &v.value, v.span) {
                return None;
            }
            Val::Json(v)
        }
    })
}

/// `descriptions` is an object of JSON Pointers (`""` or starting with `/`) to strings
/// or `null`.
fn check_descriptions(cx: &Ctxt, v: &Json, span: proc_macro2::Span) -> bool {
    let fail = |msg: String| {
        cx.syn_error(syn::Error::new(span, msg));
        false
    };
    let Json::Object(entries) = v else {
        return fail(format!(
            "`descriptions` expects an object of JSON Pointers to descriptions, found a JSON {}",
            v.kind()
        ));
    };
    for (pointer, text) in entries {
        if !pointer.is_empty() && !pointer.starts_with('/') {
            return fail(format!(
                "`descriptions`: {pointer:?} is not a JSON Pointer (`\"\"` or starting with `/`, e.g. `\"/properties/name\"`)"
            ));
        }
        if !matches!(text, Json::Str(_) | Json::Null) {
            return fail(format!(
                "`descriptions`: the value at {pointer:?} must be a string or null, found a JSON {}",
                text.kind()
            ));
        }
    }
    true
}

fn is_null(item: &Item) -> bool {
    matches!(&item.value, ItemValue::Value(ts) if ts.to_string() == "null")
}

fn sub_items(cx: &Ctxt, item: &Item, example: &str) -> Option<Vec<Item>> {
    match &item.value {
        ItemValue::List(ts, _) => Some(parse_items(cx, ts.clone())),
        _ => {
            cx.syn_error(syn::Error::new(
                item.key.span(),
                format!(
                    "`{}` expects a list: `{}({example})`",
                    item.name(),
                    item.name()
                ),
            ));
            None
        }
    }
}

/// `exactly_one_of(a, b)`: Rust field names (raw identifiers unrawed).
fn field_idents(cx: &Ctxt, item: &Item) -> Option<Sp<Vec<Sp<String>>>> {
    let ItemValue::List(ts, span) = &item.value else {
        return None;
    };
    let parser = syn::punctuated::Punctuated::<Ident, syn::Token![,]>::parse_terminated;
    let list = match syn::parse::Parser::parse2(parser, ts.clone()) {
        Ok(list) => list,
        Err(e) => {
            cx.syn_error(syn::Error::new(
                e.span(),
                format!(
                    "`{0}(...)` expects field names: `{0}(a, b)` (or serde names: `{0} = [\"a\", \"b\"]`)",
                    item.name()
                ),
            ));
            return None;
        }
    };
    if list.is_empty() {
        cx.syn_error(syn::Error::new(
            *span,
            format!("`{}` needs at least one name", item.name()),
        ));
        return None;
    }
    Some(Sp {
        value: list
            .into_iter()
            .map(|i| Sp {
                value: syn::ext::IdentExt::unraw(&i).to_string(),
                span: i.span(),
            })
            .collect(),
        span: *span,
    })
}

fn parse_rule(cx: &Ctxt, item: &Item) -> Option<Rule> {
    if let ItemValue::Value(_) = item.value {
        return Some(Rule {
            rule: value::string(cx, item)?.value,
            ..Default::default()
        });
    }
    let items = sub_items(cx, item, "rule = \"self.a < self.b\", message = \"...\"")?;
    let mut rule = Rule::default();
    let mut have_rule = false;
    for sub in &items {
        let name = sub.name();
        let slot = match name.as_str() {
            "rule" => {
                have_rule = true;
                rule.rule = value::string(cx, sub)?.value;
                continue;
            }
            "optional_old_self" => {
                rule.optional_old_self = Some(value::flag(cx, sub)?.value);
                continue;
            }
            "message" => &mut rule.message,
            "message_expression" => &mut rule.message_expression,
            "reason" => &mut rule.reason,
            "field_path" => &mut rule.field_path,
            _ => {
                unknown_key(
                    cx,
                    sub,
                    "validation key",
                    &[
                        "rule",
                        "message",
                        "message_expression",
                        "reason",
                        "field_path",
                        "optional_old_self",
                    ],
                );
                continue;
            }
        };
        *slot = value::string(cx, sub).map(|s| s.value);
    }
    if let Some(reason) = &rule.reason {
        const REASONS: &[&str] = &[
            "FieldValueInvalid",
            "FieldValueForbidden",
            "FieldValueRequired",
            "FieldValueDuplicate",
        ];
        if !REASONS.contains(&reason.as_str()) {
            cx.syn_error(syn::Error::new(
                item.value_span(),
                format!("`reason` must be one of {}", REASONS.join(", ")),
            ));
        }
    }
    if !have_rule {
        cx.syn_error(syn::Error::new(
            item.key.span(),
            "`validation(...)` needs `rule = \"...\"`",
        ));
        return None;
    }
    Some(rule)
}

fn parse_ext_docs(cx: &Ctxt, item: &Item) -> Option<(Option<String>, Option<String>)> {
    let items = sub_items(cx, item, "url = \"https://...\"")?;
    let (mut url, mut description) = (None, None);
    for sub in &items {
        match sub.name().as_str() {
            "url" => url = value::string(cx, sub).map(|s| s.value),
            "description" => description = value::string(cx, sub).map(|s| s.value),
            _ => unknown_key(cx, sub, "external_docs key", &["url", "description"]),
        }
    }
    Some((url, description))
}
