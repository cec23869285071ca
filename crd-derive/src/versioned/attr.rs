//! The attributes of a versioned module, parsed into typed structs: the module's
//! `version(...)` list and the `#[versioned(...)]` actions of fields and variants.
//! Versions named in `since` stay names here; `model` resolves them.

use proc_macro2::{Span, TokenStream};
use serde_derive_internals::Ctxt;
use syn::spanned::Spanned;

use crate::attr::meta::{Item, ItemValue, parse_items, unknown_key};
use crate::attr::value::{self, Sp};

/// One `version(...)` of the module attribute.
pub struct VersionDef {
    /// `name = "v1beta1"`.
    pub name: Sp<String>,
    /// `served = false` (default `true`).
    pub served: bool,
    /// `storage`.
    pub storage: Option<Span>,
    /// `deprecated` (`None` inside: no warning text) or `deprecated = "text"`.
    pub deprecated: Option<Option<String>>,
}

fn list_items(cx: &Ctxt, item: &Item, what: &str) -> Option<Vec<Item>> {
    match &item.value {
        ItemValue::List(ts, _) => Some(parse_items(cx, ts.clone())),
        _ => {
            cx.syn_error(syn::Error::new(
                item.key.span(),
                format!("expected `{}(...)` {what}", item.name()),
            ));
            None
        }
    }
}

/// Reports a key given twice in one list.
fn once<T>(cx: &Ctxt, slot: &mut Option<T>, item: &Item, value: Option<T>) {
    if slot.is_some() {
        cx.syn_error(syn::Error::new(
            item.key.span(),
            format!("`{}` is given twice", item.name()),
        ));
    } else {
        *slot = value;
    }
}

/// The module attribute: `version(name = "v1alpha1", ...), version(...)`.
pub fn versions(cx: &Ctxt, attr: TokenStream, span: Span) -> Vec<VersionDef> {
    let mut out = Vec::new();
    for item in parse_items(cx, attr) {
        if item.name() != "version" {
            unknown_key(cx, &item, "`#[versioned]` key", &["version"]);
            continue;
        }
        let Some(keys) = list_items(cx, &item, "listing `name = \"v1\"` and its settings") else {
            continue;
        };
        let (mut name, mut served, mut storage, mut deprecated) = (None, None, None, None);
        for k in &keys {
            match k.name().as_str() {
                "name" => once(cx, &mut name, k, value::string(cx, k)),
                "served" => once(cx, &mut served, k, value::flag(cx, k).map(|f| f.value)),
                "storage" => once(
                    cx,
                    &mut storage,
                    k,
                    value::flag(cx, k).map(|f| f.value.then_some(f.span)),
                ),
                "deprecated" => {
                    let v = match &k.value {
                        ItemValue::Flag => Some(None),
                        _ => value::string(cx, k).map(|s| Some(s.value)),
                    };
                    once(cx, &mut deprecated, k, v);
                }
                _ => unknown_key(
                    cx,
                    k,
                    "`version(...)` key",
                    &["name", "served", "storage", "deprecated"],
                ),
            }
        }
        match name {
            Some(name) => out.push(VersionDef {
                name,
                served: served.unwrap_or(true),
                storage: storage.flatten(),
                deprecated,
            }),
            None => cx.syn_error(syn::Error::new(
                item.key.span(),
                "`version(...)` needs `name = \"...\"`",
            )),
        }
    }
    if out.is_empty() {
        cx.syn_error(syn::Error::new(
            span,
            "`#[versioned]` needs the kind's versions in order: \
             `#[versioned(version(name = \"v1alpha1\"), version(name = \"v1\"))]`",
        ));
    }
    out
}

/// A function or type written as a path or as a string holding one.
fn path_or_string<T: syn::parse::Parse>(cx: &Ctxt, item: &Item, what: &str) -> Option<T> {
    let ItemValue::Value(ts) = &item.value else {
        cx.syn_error(syn::Error::new(
            item.key.span(),
            format!("`{} = ...` expects {what}", item.name()),
        ));
        return None;
    };
    let parsed = match syn::parse2::<syn::LitStr>(ts.clone()) {
        Ok(lit) => lit.parse::<T>(),
        Err(_) => syn::parse2::<T>(ts.clone()),
    };
    match parsed {
        Ok(v) => Some(v),
        Err(_) => {
            cx.syn_error(syn::Error::new(
                item.value_span(),
                format!("`{}` expects {what}", item.name()),
            ));
            None
        }
    }
}

/// One `#[versioned(...)]` action of a field or variant.
pub enum Action {
    /// `added(since = "v1beta1", default = path)`.
    Added {
        /// The first version with the member.
        since: Sp<String>,
        /// A `fn() -> T` for objects converted from a version without it.
        default: Option<syn::Path>,
    },
    /// `changed(since = "v1", from_name = "old", from_type = "u16", upgrade_with = f,
    /// downgrade_with = g)`.
    Changed {
        /// The first version with the new name or type.
        since: Sp<String>,
        /// The name before `since`.
        from_name: Option<Sp<String>>,
        /// The type before `since`.
        from_type: Option<Box<syn::Type>>,
        /// `fn(Old) -> New`.
        upgrade_with: Option<syn::Path>,
        /// `fn(New) -> Old`.
        downgrade_with: Option<syn::Path>,
    },
    /// `deprecated(since = "v1", note = "...")`.
    Deprecated {
        /// The first version with the `deprecated_` name.
        since: Sp<String>,
        /// Why, added to the member's description from `since` on.
        note: Option<String>,
    },
    /// `removed(since = "v1", default = path)`.
    Removed {
        /// The first version without the member.
        since: Sp<String>,
        /// A `fn() -> T` for objects converted from a version without it.
        default: Option<syn::Path>,
    },
}

impl Action {
    /// The version the action happens in.
    pub fn since(&self) -> &Sp<String> {
        match self {
            Action::Added { since, .. }
            | Action::Changed { since, .. }
            | Action::Deprecated { since, .. }
            | Action::Removed { since, .. } => since,
        }
    }
}

const ACTIONS: &[&str] = &["added", "changed", "deprecated", "removed"];

/// The actions of every `#[versioned(...)]` in `attrs`, which are removed from them.
pub fn actions(cx: &Ctxt, attrs: &mut Vec<syn::Attribute>) -> Vec<Action> {
    let mut out = Vec::new();
    attrs.retain(|attr| {
        if !attr.path().is_ident("versioned") {
            return true;
        }
        let tokens = match &attr.meta {
            syn::Meta::List(list) => list.tokens.clone(),
            other => {
                cx.syn_error(syn::Error::new(
                    other.span(),
                    "expected `#[versioned(added(...))]`, `changed(...)`, `deprecated(...)` or `removed(...)`",
                ));
                return false;
            }
        };
        for item in parse_items(cx, tokens) {
            if let Some(action) = action(cx, &item) {
                out.push(action);
            }
        }
        false
    });
    out
}

fn action(cx: &Ctxt, item: &Item) -> Option<Action> {
    let name = item.name();
    if !ACTIONS.contains(&name.as_str()) {
        unknown_key(cx, item, "`#[versioned]` action", ACTIONS);
        return None;
    }
    let keys = list_items(cx, item, "with `since = \"...\"`")?;
    let (mut since, mut default, mut from_name, mut from_type) = (None, None, None, None);
    let (mut up, mut down, mut note) = (None, None, None);
    let known: &[&str] = match name.as_str() {
        "added" | "removed" => &["since", "default"],
        "changed" => &[
            "since",
            "from_name",
            "from_type",
            "upgrade_with",
            "downgrade_with",
        ],
        _ => &["since", "note"],
    };
    for k in &keys {
        let key = k.name();
        if !known.contains(&key.as_str()) {
            unknown_key(cx, k, &format!("`{name}(...)` key"), known);
            continue;
        }
        match key.as_str() {
            "since" => once(cx, &mut since, k, value::string(cx, k)),
            "default" => once(
                cx,
                &mut default,
                k,
                path_or_string(cx, k, "a function path"),
            ),
            "from_name" => once(cx, &mut from_name, k, value::string(cx, k)),
            "from_type" => once(
                cx,
                &mut from_type,
                k,
                path_or_string(cx, k, "a type").map(Box::new),
            ),
            "upgrade_with" => once(cx, &mut up, k, path_or_string(cx, k, "a function path")),
            "downgrade_with" => once(cx, &mut down, k, path_or_string(cx, k, "a function path")),
            _ => once(cx, &mut note, k, value::string(cx, k).map(|s| s.value)),
        }
    }
    let Some(since) = since else {
        cx.syn_error(syn::Error::new(
            item.key.span(),
            format!("`{name}(...)` needs `since = \"<version>\"`"),
        ));
        return None;
    };
    Some(match name.as_str() {
        "added" => Action::Added { since, default },
        "removed" => Action::Removed { since, default },
        "changed" => Action::Changed {
            since,
            from_name,
            from_type,
            upgrade_with: up,
            downgrade_with: down,
        },
        _ => Action::Deprecated { since, note },
    })
}
