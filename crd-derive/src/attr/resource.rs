//! Resource attributes of `#[derive(CustomResource)]` (section 1 of ATTRIBUTES.md).

use proc_macro2::{Span, TokenStream};
use serde_derive_internals::Ctxt;

use super::meta::{Item, ItemValue, parse_items, unknown_key};
use super::node::NodeAttrs;
use super::value::{self, Sp};

/// `scale(...)`.
pub struct Scale {
    /// `specReplicasPath`.
    pub spec_replicas_path: Sp<String>,
    /// `statusReplicasPath`.
    pub status_replicas_path: Sp<String>,
    /// `labelSelectorPath`.
    pub label_selector_path: Option<Sp<String>>,
    /// The `scale` key, for errors about the whole subresource.
    pub span: Span,
}

/// One `printcolumn(...)`.
pub struct Column {
    /// `name`.
    pub name: Sp<String>,
    /// `type`.
    pub type_: Sp<String>,
    /// `format`.
    pub format: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// `priority`.
    pub priority: Option<i32>,
    /// `jsonPath`.
    pub json_path: Sp<String>,
    /// `unchecked_path`: do not check that `json_path` names a field (the API server
    /// does not; generated code for third-party CRDs needs it).
    pub unchecked_path: bool,
}

/// `conversion(...)`.
#[derive(Default)]
pub struct Conversion {
    /// `strategy`.
    pub strategy: Option<Sp<String>>,
    /// `conversionReviewVersions`.
    pub review_versions: Vec<String>,
    /// `clientConfig.url`.
    pub url: Option<String>,
    /// `clientConfig.service.namespace`.
    pub service_namespace: Option<String>,
    /// `clientConfig.service.name`.
    pub service_name: Option<String>,
    /// `clientConfig.service.path`.
    pub service_path: Option<String>,
    /// `clientConfig.service.port`.
    pub service_port: Option<i32>,
    /// `clientConfig.caBundle`.
    pub ca_bundle: Option<String>,
}

/// `root(...)`.
#[derive(Default)]
pub struct Root {
    /// Keywords of the root node itself.
    pub node: NodeAttrs,
    /// Extra root properties without Rust fields.
    pub properties: Vec<(Sp<String>, NodeAttrs)>,
    /// `root(omit_spec)`: the root schema has no `spec` property (resources whose
    /// fields are all top-level `property(...)`s).
    pub omit_spec: bool,
}

/// Everything `#[crd(...)]` says about the resource.
#[derive(Default)]
pub struct ResourceAttrs {
    /// `group`.
    pub group: Option<Sp<String>>,
    /// `version`.
    pub version: Option<Sp<String>>,
    /// `kind`.
    pub kind: Option<Sp<String>>,
    /// `plural`.
    pub plural: Option<Sp<String>>,
    /// `singular`.
    pub singular: Option<Sp<String>>,
    /// `list_kind`.
    pub list_kind: Option<Sp<String>>,
    /// `short_names`.
    pub short_names: Vec<Sp<String>>,
    /// `categories`.
    pub categories: Vec<Sp<String>>,
    /// `namespaced`.
    pub namespaced: bool,
    /// `status`.
    pub status: Option<syn::Type>,
    /// `status_subresource`.
    pub status_subresource: Option<Sp<bool>>,
    /// `scale`.
    pub scale: Option<Scale>,
    /// `printcolumn`s.
    pub columns: Vec<Column>,
    /// `selectable_field`s.
    pub selectable_fields: Vec<Sp<String>>,
    /// `served`.
    pub served: Option<bool>,
    /// `storage`.
    pub storage: Option<bool>,
    /// `deprecated`.
    pub deprecated: Option<bool>,
    /// `deprecation_warning`.
    pub deprecation_warning: Option<String>,
    /// `label`s.
    pub labels: Vec<(Sp<String>, String)>,
    /// `annotation`s.
    pub annotations: Vec<(Sp<String>, String)>,
    /// `conversion`.
    pub conversion: Option<Conversion>,
    /// `preserve_unknown_fields_legacy`.
    pub preserve_unknown_fields_legacy: Option<bool>,
    /// `root`.
    pub root: Root,
    /// `spec_schema`.
    pub spec_schema: NodeAttrs,
    /// `status_schema`.
    pub status_schema: NodeAttrs,
    /// `root_type`.
    pub root_type: Option<syn::Ident>,
    /// `derive`.
    pub derives: Vec<syn::Path>,
    /// `crate`.
    pub crate_path: Option<syn::Path>,
}

/// The resource keys, for "did you mean".
pub const RESOURCE_KEYS: &[&str] = &[
    "group",
    "version",
    "kind",
    "plural",
    "singular",
    "list_kind",
    "short_names",
    "categories",
    "namespaced",
    "status",
    "status_subresource",
    "scale",
    "printcolumn",
    "selectable_field",
    "served",
    "storage",
    "deprecated",
    "deprecation_warning",
    "label",
    "annotation",
    "conversion",
    "preserve_unknown_fields_legacy",
    "root",
    "spec_schema",
    "status_schema",
    "root_type",
    "derive",
    "crate",
];

fn set_once<T>(cx: &Ctxt, item: &Item, slot: &mut Option<T>, v: Option<T>) {
    if slot.is_some() {
        cx.syn_error(syn::Error::new(
            item.key.span(),
            format!("duplicate attribute `{}`", item.name()),
        ));
    } else {
        *slot = v;
    }
}

fn list_of(cx: &Ctxt, item: &Item, example: &str) -> Option<Vec<Item>> {
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

fn required<T>(cx: &Ctxt, item: &Item, key: &str, v: Option<T>) -> Option<T> {
    if v.is_none() {
        cx.syn_error(syn::Error::new(
            item.key.span(),
            format!("`{}(...)` needs `{key}`", item.name()),
        ));
    }
    v
}

impl ResourceAttrs {
    /// Parses the resource items; node keywords are rejected with a pointer to
    /// `spec_schema(...)`/`root(...)`.
    pub fn parse(cx: &Ctxt, items: &[Item]) -> ResourceAttrs {
        let mut a = ResourceAttrs::default();
        for item in items {
            a.parse_item(cx, item);
        }
        a
    }

    fn parse_item(&mut self, cx: &Ctxt, item: &Item) {
        let s = |cx: &Ctxt| value::string(cx, item);
        match item.name().as_str() {
            "group" => set_once(cx, item, &mut self.group, s(cx)),
            "version" => set_once(cx, item, &mut self.version, s(cx)),
            "kind" => set_once(cx, item, &mut self.kind, s(cx)),
            "plural" => set_once(cx, item, &mut self.plural, s(cx)),
            "singular" => set_once(cx, item, &mut self.singular, s(cx)),
            "list_kind" => set_once(cx, item, &mut self.list_kind, s(cx)),
            "short_names" => {
                let mut slot = (!self.short_names.is_empty()).then_some(());
                let v = value::string_list(cx, item);
                set_once(cx, item, &mut slot, Some(()));
                self.short_names.extend(v.into_iter().flat_map(|v| v.value));
            }
            "categories" => {
                let mut slot = (!self.categories.is_empty()).then_some(());
                let v = value::string_list(cx, item);
                set_once(cx, item, &mut slot, Some(()));
                self.categories.extend(v.into_iter().flat_map(|v| v.value));
            }
            "namespaced" => {
                if let Some(b) = value::flag(cx, item) {
                    self.namespaced = b.value;
                }
            }
            "status" => set_once(cx, item, &mut self.status, value::ty(cx, item)),
            "status_subresource" => set_once(
                cx,
                item,
                &mut self.status_subresource,
                value::flag(cx, item),
            ),
            "scale" => {
                let v = self.parse_scale(cx, item);
                set_once(cx, item, &mut self.scale, v);
            }
            "printcolumn" => {
                if let Some(c) = parse_column(cx, item) {
                    self.columns.push(c);
                }
            }
            "selectable_field" => self.selectable_fields.extend(s(cx)),
            "served" => set_once(
                cx,
                item,
                &mut self.served,
                value::flag(cx, item).map(|b| b.value),
            ),
            "storage" => set_once(
                cx,
                item,
                &mut self.storage,
                value::flag(cx, item).map(|b| b.value),
            ),
            "deprecated" => set_once(
                cx,
                item,
                &mut self.deprecated,
                value::flag(cx, item).map(|b| b.value),
            ),
            "deprecation_warning" => set_once(
                cx,
                item,
                &mut self.deprecation_warning,
                s(cx).map(|s| s.value),
            ),
            "label" | "annotation" => {
                if let Some(kv) = parse_pair(cx, item) {
                    let list = if item.name() == "label" {
                        &mut self.labels
                    } else {
                        &mut self.annotations
                    };
                    if list.iter().any(|(k, _)| k.value == kv.0.value) {
                        cx.syn_error(syn::Error::new(
                            kv.0.span,
                            format!("duplicate {} {:?}", item.name(), kv.0.value),
                        ));
                    } else {
                        list.push(kv);
                    }
                }
            }
            "conversion" => {
                let v = parse_conversion(cx, item);
                set_once(cx, item, &mut self.conversion, v);
            }
            "preserve_unknown_fields_legacy" => set_once(
                cx,
                item,
                &mut self.preserve_unknown_fields_legacy,
                value::flag(cx, item).map(|b| b.value),
            ),
            "root" => {
                if let Some(items) = list_of(cx, item, "description = \"...\"") {
                    self.parse_root(cx, &items);
                }
            }
            "spec_schema" | "status_schema" => {
                if let Some(items) = list_of(cx, item, "description = \"...\"") {
                    let node = NodeAttrs::from_items(cx, &items);
                    let slot = if item.name() == "spec_schema" {
                        &mut self.spec_schema
                    } else {
                        &mut self.status_schema
                    };
                    slot.entries.extend(node.entries);
                }
            }
            "root_type" => {
                let v = value::path(cx, item).and_then(|p| match p.get_ident() {
                    Some(id) => Some(id.clone()),
                    None => {
                        cx.error_spanned_by(&p, "`root_type` expects an identifier");
                        None
                    }
                });
                set_once(cx, item, &mut self.root_type, v);
            }
            "derive" => {
                if let ItemValue::Value(ts) = &item.value {
                    match parse_paths(ts.clone()) {
                        Ok(paths) => self.derives.extend(paths),
                        Err(e) => cx.syn_error(e),
                    }
                } else {
                    cx.syn_error(syn::Error::new(
                        item.key.span(),
                        "`derive` expects a list of traits: `derive = [PartialEq, Default]`",
                    ));
                }
            }
            "crate" => set_once(cx, item, &mut self.crate_path, value::path(cx, item)),
            name if super::node::KEYWORDS.iter().any(|k| k.key == name) => {
                cx.syn_error(syn::Error::new(
                    item.key.span(),
                    format!(
                        "`{name}` is a schema keyword: on the resource struct write it inside \
                         `spec_schema({name} = ...)` (the spec node) or `root({name} = ...)` \
                         (the whole object), or on a field"
                    ),
                ));
            }
            _ => unknown_key(cx, item, "resource attribute", RESOURCE_KEYS),
        }
    }

    fn parse_scale(&self, cx: &Ctxt, item: &Item) -> Option<Scale> {
        let items = list_of(cx, item, "spec_replicas_path = \".spec.replicas\", ...")?;
        let (mut spec, mut status, mut label) = (None, None, None);
        for sub in &items {
            match sub.name().as_str() {
                "spec_replicas_path" => spec = value::string(cx, sub),
                "status_replicas_path" => status = value::string(cx, sub),
                "label_selector_path" => label = value::string(cx, sub),
                _ => unknown_key(
                    cx,
                    sub,
                    "scale key",
                    &[
                        "spec_replicas_path",
                        "status_replicas_path",
                        "label_selector_path",
                    ],
                ),
            }
        }
        Some(Scale {
            spec_replicas_path: required(cx, item, "spec_replicas_path", spec)?,
            status_replicas_path: required(cx, item, "status_replicas_path", status)?,
            label_selector_path: label,
            span: item.key.span(),
        })
    }

    fn parse_root(&mut self, cx: &Ctxt, items: &[Item]) {
        for item in items {
            if item.name() == "property" {
                let Some(sub) = list_of(cx, item, "name = \"apiVersion\", type = \"string\"")
                else {
                    continue;
                };
                let mut name = None;
                let mut node = NodeAttrs::default();
                for s in &sub {
                    if s.name() == "name" {
                        name = value::string(cx, s);
                    } else if !node.parse_item(cx, s) {
                        let mut known = super::node::keyword_names();
                        known.push("name");
                        unknown_key(cx, s, "property key", &known);
                    }
                }
                if let Some(name) = required(cx, item, "name", name) {
                    if ["spec", "status"].contains(&name.value.as_str()) {
                        cx.syn_error(syn::Error::new(
                            name.span,
                            "`spec` and `status` come from the Rust types; use `spec_schema(...)` / `status_schema(...)`",
                        ));
                    } else if self
                        .root
                        .properties
                        .iter()
                        .any(|(n, _)| n.value == name.value)
                    {
                        cx.syn_error(syn::Error::new(name.span, "duplicate root property"));
                    } else {
                        self.root.properties.push((name, node));
                    }
                }
            } else if item.name() == "omit_spec" {
                if let Some(b) = value::flag(cx, item) {
                    self.root.omit_spec = b.value;
                }
            } else if !self.root.node.parse_item(cx, item) {
                let mut known = super::node::keyword_names();
                known.push("property");
                known.push("omit_spec");
                unknown_key(cx, item, "root keyword", &known);
            }
        }
    }
}

fn parse_column(cx: &Ctxt, item: &Item) -> Option<Column> {
    let items = list_of(
        cx,
        item,
        "name = \"Age\", type = \"date\", json_path = \"...\"",
    )?;
    let (mut name, mut type_, mut json_path) = (None, None, None);
    let (mut format, mut description, mut priority) = (None, None, None);
    let mut unchecked_path = false;
    for sub in &items {
        match sub.name().as_str() {
            "unchecked_path" => {
                unchecked_path = value::flag(cx, sub).is_some_and(|b| b.value);
            }
            "name" => name = value::string(cx, sub),
            "type" => type_ = value::string(cx, sub),
            "json_path" => json_path = value::string(cx, sub),
            "format" => format = value::string(cx, sub).map(|s| s.value),
            "description" => description = value::string(cx, sub).map(|s| s.value),
            "priority" => {
                priority = value::count(cx, sub).and_then(|c| {
                    let p = i32::try_from(c.value).ok();
                    if p.is_none() {
                        cx.syn_error(syn::Error::new(c.span, "`priority` must fit in an int32"));
                    }
                    p
                })
            }
            _ => unknown_key(
                cx,
                sub,
                "printcolumn key",
                &[
                    "name",
                    "type",
                    "json_path",
                    "format",
                    "description",
                    "priority",
                    "unchecked_path",
                ],
            ),
        }
    }
    let type_ = required(cx, item, "type", type_)?;
    const TYPES: &[&str] = &["integer", "number", "string", "boolean", "date"];
    if !TYPES.contains(&type_.value.as_str()) {
        cx.syn_error(syn::Error::new(
            type_.span,
            format!("printer column `type` must be one of {}", TYPES.join(", ")),
        ));
    }
    Some(Column {
        name: required(cx, item, "name", name)?,
        type_,
        format,
        description,
        priority,
        json_path: required(cx, item, "json_path", json_path)?,
        unchecked_path,
    })
}

fn parse_pair(cx: &Ctxt, item: &Item) -> Option<(Sp<String>, String)> {
    let ItemValue::List(ts, span) = &item.value else {
        cx.syn_error(syn::Error::new(
            item.key.span(),
            format!(
                "`{}` expects `{}(\"key\", \"value\")`",
                item.name(),
                item.name()
            ),
        ));
        return None;
    };
    let parser = syn::punctuated::Punctuated::<syn::LitStr, syn::Token![,]>::parse_terminated;
    match syn::parse::Parser::parse2(parser, ts.clone()) {
        Ok(list) if list.len() == 2 => {
            let k = &list[0];
            Some((
                Sp {
                    value: k.value(),
                    span: k.span(),
                },
                list[1].value(),
            ))
        }
        _ => {
            cx.syn_error(syn::Error::new(
                *span,
                format!(
                    "`{}` expects two string literals: `(\"key\", \"value\")`",
                    item.name()
                ),
            ));
            None
        }
    }
}

fn parse_conversion(cx: &Ctxt, item: &Item) -> Option<Conversion> {
    let items = list_of(cx, item, "strategy = \"Webhook\", ...")?;
    let mut c = Conversion::default();
    for sub in &items {
        let st = |cx: &Ctxt| value::string(cx, sub).map(|s| s.value);
        match sub.name().as_str() {
            "strategy" => {
                c.strategy = value::string(cx, sub);
                if let Some(s) = &c.strategy
                    && !["None", "Webhook"].contains(&s.value.as_str())
                {
                    cx.syn_error(syn::Error::new(
                        s.span,
                        "`strategy` must be \"None\" or \"Webhook\"",
                    ));
                }
            }
            "review_versions" => {
                c.review_versions = value::string_list(cx, sub)
                    .map(|l| l.value.into_iter().map(|s| s.value).collect())
                    .unwrap_or_default()
            }
            "url" => c.url = st(cx),
            "service_namespace" => c.service_namespace = st(cx),
            "service_name" => c.service_name = st(cx),
            "service_path" => c.service_path = st(cx),
            "service_port" => {
                c.service_port = value::count(cx, sub).and_then(|p| i32::try_from(p.value).ok())
            }
            "ca_bundle" => c.ca_bundle = st(cx),
            _ => unknown_key(
                cx,
                sub,
                "conversion key",
                &[
                    "strategy",
                    "review_versions",
                    "url",
                    "service_namespace",
                    "service_name",
                    "service_path",
                    "service_port",
                    "ca_bundle",
                ],
            ),
        }
    }
    if c.strategy.is_none() {
        cx.syn_error(syn::Error::new(
            item.key.span(),
            "`conversion(...)` needs `strategy`",
        ));
        return None;
    }
    if c.service_name.is_some() != c.service_namespace.is_some() {
        cx.syn_error(syn::Error::new(
            item.key.span(),
            "`service_name` and `service_namespace` go together",
        ));
    }
    Some(c)
}

fn parse_paths(ts: TokenStream) -> syn::Result<Vec<syn::Path>> {
    let parser = |input: syn::parse::ParseStream| {
        let content;
        syn::bracketed!(content in input);
        let list =
            syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated(&content)?;
        Ok(list.into_iter().collect())
    };
    syn::parse::Parser::parse2(parser, ts)
}
