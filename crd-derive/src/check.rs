//! Cross-keyword rules checked at compile time, each error at the offending token.
//!
//! Rules that need another type's schema are emitted as `const` assertions
//! ([`list_map_key_consts`]) evaluated by rustc; the rest is checked here.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use serde_derive_internals::Ctxt;
use serde_derive_internals::ast::Field;

use crate::ast::FieldExtra;
use crate::attr::node::NodeAttrs;
use crate::attr::value::{Json, Num};
use crate::tokens::{Rt, respan};

fn err(cx: &Ctxt, span: Span, msg: impl std::fmt::Display) {
    cx.syn_error(syn::Error::new(span, msg));
}

/// Checks the keywords of one node (recursively for `items`/`values`).
pub fn node(cx: &Ctxt, n: &NodeAttrs) {
    let span_of = |k: &str| n.get(k).map(|e| e.key.span());
    if let (Some(keys), list_type) = (n.list_map_keys(), n.str("list_type")) {
        if list_type.map(|l| l.value.as_str()) != Some("map") {
            err(
                cx,
                keys.span,
                "`list_map_keys` requires `list_type = \"map\"`",
            );
        }
    } else if let Some(l) = n.str("list_type")
        && l.value == "map"
    {
        err(
            cx,
            l.span,
            "`list_type = \"map\"` requires `list_map_keys = [...]`",
        );
    }
    for (lo, hi) in [
        ("minimum", "maximum"),
        ("min_length", "max_length"),
        ("min_items", "max_items"),
        ("min_properties", "max_properties"),
    ] {
        let get = |k| {
            n.num(k)
                .map(|v| (v.value.as_f64(), v.span))
                .or_else(|| n.count(k).map(|v| (v.value as f64, v.span)))
        };
        if let (Some((a, _)), Some((b, span))) = (get(lo), get(hi))
            && a > b
        {
            err(cx, span, format!("`{hi}` is smaller than `{lo}`"));
        }
    }
    for (flag, base) in [
        ("exclusive_minimum", "minimum"),
        ("exclusive_maximum", "maximum"),
    ] {
        if n.flag(flag) == Some(true) && n.get(base).is_none() {
            err(
                cx,
                span_of(flag).unwrap_or_else(Span::call_site),
                format!("`{flag}` needs `{base}`"),
            );
        }
    }
    if let Some(m) = n.num("multiple_of")
        && m.value.as_f64() <= 0.0
    {
        err(cx, m.span, "`multiple_of` must be greater than 0");
    }
    if let Some(d) = n.json("default") {
        default_value(cx, n, &d.value, d.span);
    }
    if n.flag("int_or_string") == Some(true) && n.str("type").is_some() {
        err(
            cx,
            span_of("type").unwrap_or_else(Span::call_site),
            "`int_or_string` nodes must not have a `type`",
        );
    }
    for key in ["items", "values"] {
        if let Some(inner) = n.nested(key) {
            node(cx, inner);
        }
    }
}

/// A default must satisfy the keywords written next to it.
fn default_value(cx: &Ctxt, n: &NodeAttrs, v: &Json, span: Span) {
    if let Json::Num(x) = v {
        let x = x.as_f64();
        if let Some(min) = n.num("minimum") {
            let exclusive = n.flag("exclusive_minimum") == Some(true);
            let m = min.value.as_f64();
            if x < m || (exclusive && x == m) {
                err(cx, span, format!("default {x} is below `minimum` {m}"));
            }
        }
        if let Some(max) = n.num("maximum") {
            let exclusive = n.flag("exclusive_maximum") == Some(true);
            let m = max.value.as_f64();
            if x > m || (exclusive && x == m) {
                err(cx, span, format!("default {x} is above `maximum` {m}"));
            }
        }
        if let (Some(Num::Int(m)), Json::Num(Num::Int(i))) =
            (n.num("multiple_of").map(|m| &m.value), v)
            && *m != 0
            && i % m != 0
        {
            err(cx, span, format!("default {i} is not a multiple of {m}"));
        }
    }
    if let Json::Str(s) = v {
        let len = s.chars().count() as i64;
        if let Some(min) = n.count("min_length")
            && len < min.value
        {
            err(
                cx,
                span,
                format!("default is shorter than `min_length` {}", min.value),
            );
        }
        if let Some(max) = n.count("max_length")
            && len > max.value
        {
            err(
                cx,
                span,
                format!("default is longer than `max_length` {}", max.value),
            );
        }
    }
    if let Json::Array(items) = v {
        let len = items.len() as i64;
        if let Some(min) = n.count("min_items")
            && len < min.value
        {
            err(
                cx,
                span,
                format!("default has fewer than `min_items` {} items", min.value),
            );
        }
        if let Some(max) = n.count("max_items")
            && len > max.value
        {
            err(
                cx,
                span,
                format!("default has more than `max_items` {} items", max.value),
            );
        }
    }
    if let Some(e) = n.get("enum_values")
        && let crate::attr::node::Val::JsonList(list) = &e.val
        && !list.value.contains(v)
    {
        err(cx, span, "default is not one of `enum_values`");
    }
    if matches!(v, Json::Null) && n.flag("nullable") != Some(true) {
        err(cx, span, "a `null` default needs `nullable`");
    }
}

/// Field-level rules.
pub fn field(cx: &Ctxt, extra: &FieldExtra, field: &Field) {
    node(cx, &extra.node);
    if let Some(e) = extra.node.get("required")
        && let crate::attr::node::Val::Required(crate::attr::node::Required::List(_)) = e.val
    {
        err(
            cx,
            e.key.span(),
            "on a field, `required` is a flag (`required` / `required = false`); list required properties on the type",
        );
    }
    let _ = field;
}

/// `const` assertions that every `list_map_keys` entry is a required field of the item type.
pub fn list_map_key_consts(rt: &Rt, n: &NodeAttrs, ty: &TokenStream) -> Vec<TokenStream> {
    let Some(keys) = n.list_map_keys() else {
        return Vec::new();
    };
    let p = rt.private();
    keys.value
        .iter()
        .map(|k| {
            let key = &k.value;
            respan(
                quote!(const _: () = #p::check_list_map_key::<#ty>(#key);),
                k.span,
            )
        })
        .collect()
}

/// A simple JSONPath (`.spec.a.b`): starts with `.`, non-empty segments.
pub fn json_path(
    cx: &Ctxt,
    path: &str,
    span: Span,
    what: &str,
    lenient: bool,
) -> Option<Vec<String>> {
    if !path.starts_with('.') {
        err(
            cx,
            span,
            format!("{what} must start with `.` (e.g. \".spec.replicas\")"),
        );
        return None;
    }
    // Printer columns and selectable fields may use full JSONPath after the field
    // names (`.status.conditions[?(@.type=="Ready")].status`), as the API server
    // allows; only the leading field names are checked.
    let checked = if lenient {
        let end = path[1..]
            .find(['[', '*', ' ', '?', '@', '(', '{'])
            .map_or(path.len(), |i| i + 1);
        path[..end].trim_end_matches('.')
    } else {
        path
    };
    if lenient && checked.is_empty() {
        return Some(Vec::new());
    }
    let segs: Vec<String> = checked[1..].split('.').map(str::to_string).collect();
    if segs
        .iter()
        .any(|s| s.is_empty() || s.contains(['[', ']', '*', ' ']))
    {
        err(
            cx,
            span,
            format!("{what} must be a simple path of field names like \".spec.a.b\""),
        );
        return None;
    }
    Some(segs)
}
