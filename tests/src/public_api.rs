//! A library crate's public API as text, one item a line, read from its sources with
//! `syn` (no compile step, no nightly rustdoc): every `pub` item of every module
//! reachable from `lib.rs` through `pub mod`, with its signature; struct fields,
//! enum variants and trait items; `pub` methods and trait impls of public types (from
//! any module, since an impl in a private module still adds to a public type); `pub
//! use` re-exports; `#[macro_export]` macros and proc macros. Items under `#[cfg]`
//! carry it; `#[doc(hidden)]` and derives are noted.

use std::collections::BTreeMap;

use quote::ToTokens;

use crate::source_tree::{Module, ModuleTree};

/// The listing of `tree` for crate `krate` (`crd_runtime`), sorted by path.
pub fn listing(tree: &ModuleTree, krate: &str) -> Vec<String> {
    let reachable = reachable(tree);
    let exports = exports(tree, &reachable);
    let types = public_types(tree, &reachable, &exports, krate);
    let mut out: Vec<(String, String)> = Vec::new();
    for (index, module) in tree.modules.iter().enumerate() {
        let ctx = |at: usize, public: bool| {
            let mut cfg = cfgs(tree, index);
            for c in cfgs(tree, at) {
                if !cfg.contains(&c) {
                    cfg.push(c);
                }
            }
            Ctx {
                path: path_of(&tree.modules[at], krate),
                cfg,
                types: &types,
                public,
            }
        };
        let own = ctx(index, reachable[index]);
        for item in &module.items {
            own.item(item, &mut out);
            // An item of a private module is public where a `pub use` names it.
            let Some(name) = item_ident(item).filter(|_| !reachable[index]) else {
                continue;
            };
            for &at in exports
                .get(&(index, name.to_string()))
                .into_iter()
                .flatten()
            {
                ctx(at, true).item(item, &mut out);
            }
        }
    }
    out.sort();
    out.dedup();
    out.into_iter().map(|(_, line)| line).collect()
}

/// The name an item is declared with, for the kinds a `pub use` can export.
fn item_ident(item: &syn::Item) -> Option<&syn::Ident> {
    match item {
        syn::Item::Fn(f) => Some(&f.sig.ident),
        syn::Item::Struct(s) => Some(&s.ident),
        syn::Item::Enum(e) => Some(&e.ident),
        syn::Item::Union(u) => Some(&u.ident),
        syn::Item::Trait(t) => Some(&t.ident),
        syn::Item::Type(t) => Some(&t.ident),
        syn::Item::Const(c) => Some(&c.ident),
        syn::Item::Static(s) => Some(&s.ident),
        _ => None,
    }
}

/// `(defining module, item name)` → the reachable modules whose `pub use` (named or
/// glob) exports it.
fn exports(tree: &ModuleTree, reachable: &[bool]) -> BTreeMap<(usize, String), Vec<usize>> {
    let mut out: BTreeMap<(usize, String), Vec<usize>> = BTreeMap::new();
    for (r, m) in tree
        .modules
        .iter()
        .enumerate()
        .filter(|(r, _)| reachable[*r])
    {
        for item in &m.items {
            let syn::Item::Use(u) = item else { continue };
            if !is_pub(&u.vis) || u.leading_colon.is_some() {
                continue;
            }
            let mut leaves = Vec::new();
            use_leaves(&u.tree, String::new(), &mut leaves);
            for (_, target) in leaves {
                let segments: Vec<&str> = target.split("::").collect();
                let (last, dir) = segments.split_last().expect("a use path has a segment");
                let Some(at) = resolve_module(tree, r, dir) else {
                    continue;
                };
                if *last == "*" {
                    let names = tree.modules[at].items.iter().filter_map(item_ident);
                    for name in names {
                        out.entry((at, name.to_string())).or_default().push(r);
                    }
                } else {
                    out.entry((at, last.to_string())).or_default().push(r);
                }
            }
        }
    }
    out
}

/// The module `segments` (relative to module `from`) names, if it is one of this crate.
fn resolve_module(tree: &ModuleTree, from: usize, segments: &[&str]) -> Option<usize> {
    let mut at = from;
    for (i, s) in segments.iter().enumerate() {
        at = match *s {
            "crate" if i == 0 => 0,
            "self" if i == 0 => from,
            "super" => tree.modules[at].parent?,
            name => *tree.modules[at].children.get(name)?,
        };
    }
    Some(at)
}

/// Which modules are reachable from the root through `pub mod`.
fn reachable(tree: &ModuleTree) -> Vec<bool> {
    let mut out = vec![false; tree.modules.len()];
    out[0] = true;
    // Parents come before children.
    for (i, m) in tree.modules.iter().enumerate().skip(1) {
        let parent = m.parent.expect("only the root has no parent");
        out[i] = out[parent] && is_pub(&m.vis);
    }
    out
}

fn path_of(module: &Module, krate: &str) -> String {
    std::iter::once(krate)
        .chain(module.path.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join("::")
}

/// The `#[cfg]`s (and `#[doc(hidden)]`) of a module and its ancestors, outermost first:
/// what holds for every item inside.
fn cfgs(tree: &ModuleTree, mut index: usize) -> Vec<String> {
    let mut out = Vec::new();
    loop {
        let m = &tree.modules[index];
        if m.attrs.iter().any(is_doc_hidden) {
            out.insert(0, "#[doc(hidden)]".to_string());
        }
        out.splice(0..0, cfg_attrs(&m.attrs));
        match m.parent {
            Some(p) => index = p,
            None => return out,
        }
    }
}

fn cfg_attrs(attrs: &[syn::Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg"))
        .map(pretty_attr)
        .collect()
}

/// Public type names → their public paths, to name the self type of an impl.
fn public_types(
    tree: &ModuleTree,
    reachable: &[bool],
    exports: &BTreeMap<(usize, String), Vec<usize>>,
    krate: &str,
) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (index, m) in tree.modules.iter().enumerate() {
        for item in &m.items {
            let (vis, ident) = match item {
                syn::Item::Struct(s) => (&s.vis, &s.ident),
                syn::Item::Enum(e) => (&e.vis, &e.ident),
                syn::Item::Union(u) => (&u.vis, &u.ident),
                syn::Item::Type(t) => (&t.vis, &t.ident),
                _ => continue,
            };
            let name = ident.to_string();
            let mut homes = Vec::new();
            if reachable[index] && is_pub(vis) {
                homes.push(index);
            } else if let Some(at) = exports.get(&(index, name.clone())) {
                homes.extend(at);
            }
            for home in homes {
                let path = format!("{}::{name}", path_of(&tree.modules[home], krate));
                out.entry(name.clone()).or_default().push(path);
            }
        }
    }
    out
}

fn is_pub(vis: &syn::Visibility) -> bool {
    matches!(vis, syn::Visibility::Public(_))
}

struct Ctx<'a> {
    path: String,
    cfg: Vec<String>,
    types: &'a BTreeMap<String, Vec<String>>,
    /// Whether the module's own `pub` items are reachable (impls count anyway).
    public: bool,
}

impl Ctx<'_> {
    /// Adds `(sort key, line)` for `item` to `out`.
    fn item(&self, item: &syn::Item, out: &mut Vec<(String, String)>) {
        let mut push = |key: String, attrs: &[syn::Attribute], text: String| {
            let mut notes = self.cfg.clone();
            notes.extend(cfg_attrs(attrs));
            if attrs.iter().any(is_doc_hidden) && !notes.iter().any(|n| n == "#[doc(hidden)]") {
                notes.push("#[doc(hidden)]".into());
            }
            notes.push(text);
            out.push((key, notes.join(" ")));
        };
        let here = |name: &dyn std::fmt::Display| format!("{}::{name}", self.path);
        match item {
            syn::Item::Impl(i) => self.impl_block(i, out),
            syn::Item::Macro(m) if m.ident.is_some() && exported(&m.attrs) => {
                let name = m.ident.as_ref().unwrap();
                let root = self.path.split("::").next().unwrap_or_default();
                push(
                    format!("{root}::{name}"),
                    &m.attrs,
                    format!("macro {root}::{name}!"),
                );
            }
            _ if !self.public => {}
            syn::Item::Mod(m) if is_pub(&m.vis) => {
                push(
                    here(&m.ident),
                    &m.attrs,
                    format!("pub mod {}", here(&m.ident)),
                );
            }
            syn::Item::Fn(f) if is_pub(&f.vis) => {
                let mut bare = f.clone();
                bare.attrs.retain(is_proc_macro);
                let text = qualify(
                    &pretty_fn(bare.attrs, &f.vis, &f.sig),
                    &f.sig.ident,
                    &self.path,
                );
                push(here(&f.sig.ident), &f.attrs, text);
            }
            syn::Item::Struct(s) if is_pub(&s.vis) => {
                let name = here(&s.ident);
                let head = pretty(&syn::Item::Struct(syn::ItemStruct {
                    attrs: derives(&s.attrs),
                    fields: syn::Fields::Unit,
                    semi_token: Some(Default::default()),
                    ..s.clone()
                }));
                let head = qualify(head.trim_end_matches(';'), &s.ident, &self.path);
                push(name.clone(), &s.attrs, head);
                for (i, f) in s.fields.iter().enumerate().filter(|(_, f)| is_pub(&f.vis)) {
                    let field = f.ident.as_ref().map_or(i.to_string(), ToString::to_string);
                    let line = format!("pub {name}::{field}: {}", pretty_type(&f.ty));
                    push(format!("{name}::{field}"), &f.attrs, line);
                }
            }
            syn::Item::Enum(e) if is_pub(&e.vis) => {
                let name = here(&e.ident);
                let head = pretty(&syn::Item::Enum(syn::ItemEnum {
                    attrs: derives(&e.attrs),
                    variants: Default::default(),
                    ..e.clone()
                }));
                let head = head.trim_end_matches("{}").trim_end().to_string();
                push(name.clone(), &e.attrs, qualify(&head, &e.ident, &self.path));
                for v in &e.variants {
                    let fields = match &v.fields {
                        syn::Fields::Unit => String::new(),
                        fields => {
                            let mut fields = fields.clone();
                            fields.iter_mut().for_each(|f| f.attrs.clear());
                            let s = syn::ItemStruct {
                                attrs: Vec::new(),
                                vis: syn::Visibility::Inherited,
                                struct_token: Default::default(),
                                ident: v.ident.clone(),
                                generics: Default::default(),
                                semi_token: matches!(fields, syn::Fields::Unnamed(_))
                                    .then(Default::default),
                                fields,
                            };
                            let text = pretty(&syn::Item::Struct(s));
                            let body = text.split_once(&v.ident.to_string()).map_or("", |x| x.1);
                            body.trim_end_matches(';').to_string()
                        }
                    };
                    let line = format!("{name}::{}{fields}", v.ident);
                    push(format!("{name}::{}", v.ident), &v.attrs, line);
                }
            }
            syn::Item::Trait(t) if is_pub(&t.vis) => {
                let name = here(&t.ident);
                let head = pretty(&syn::Item::Trait(syn::ItemTrait {
                    attrs: Vec::new(),
                    items: Vec::new(),
                    ..t.clone()
                }));
                let head = head.trim_end_matches("{}").trim_end().to_string();
                push(name.clone(), &t.attrs, qualify(&head, &t.ident, &self.path));
                for ti in &t.items {
                    let (ident, text, attrs) = match ti {
                        syn::TraitItem::Fn(f) => {
                            let text = pretty_fn(Vec::new(), &syn::Visibility::Inherited, &f.sig);
                            (&f.sig.ident, text, &f.attrs)
                        }
                        syn::TraitItem::Const(c) => {
                            let text = format!("const {}: {}", c.ident, pretty_type(&c.ty));
                            (&c.ident, text, &c.attrs)
                        }
                        syn::TraitItem::Type(ty) => {
                            let item = syn::TraitItem::Type(syn::TraitItemType {
                                attrs: Vec::new(),
                                default: None,
                                ..ty.clone()
                            });
                            (&ty.ident, one_line(&trait_item_text(&item)), &ty.attrs)
                        }
                        _ => continue,
                    };
                    let text = qualify(&text, ident, &name);
                    push(format!("{name}::{ident}"), attrs, text);
                }
            }
            syn::Item::Type(t) if is_pub(&t.vis) => {
                let text = qualify(
                    &pretty(&syn::Item::Type(syn::ItemType {
                        attrs: Vec::new(),
                        ..t.clone()
                    })),
                    &t.ident,
                    &self.path,
                );
                push(
                    here(&t.ident),
                    &t.attrs,
                    text.trim_end_matches(';').to_string(),
                );
            }
            syn::Item::Const(c) if is_pub(&c.vis) => {
                let line = format!("pub const {}: {}", here(&c.ident), pretty_type(&c.ty));
                push(here(&c.ident), &c.attrs, line);
            }
            syn::Item::Static(s) if is_pub(&s.vis) => {
                let line = format!("pub static {}: {}", here(&s.ident), pretty_type(&s.ty));
                push(here(&s.ident), &s.attrs, line);
            }
            syn::Item::Use(u) if is_pub(&u.vis) => {
                let mut leaves = Vec::new();
                use_leaves(&u.tree, String::new(), &mut leaves);
                let lead = if u.leading_colon.is_some() { "::" } else { "" };
                for (name, target) in leaves {
                    let line = format!("pub use {} = {lead}{target}", here(&name));
                    push(here(&name), &u.attrs, line);
                }
            }
            _ => {}
        }
    }

    /// `pub` methods of an inherent impl of a public type; a trait impl for one.
    fn impl_block(&self, i: &syn::ItemImpl, out: &mut Vec<(String, String)>) {
        let Some(self_ty) = self.public_self_type(&i.self_ty) else {
            return;
        };
        let mut notes = self.cfg.clone();
        notes.extend(cfg_attrs(&i.attrs));
        let prefix = |text: String| {
            let mut n = notes.clone();
            n.push(text);
            n.join(" ")
        };
        if let Some((trait_path, _)) = &i.trait_ {
            let generics = pretty_generics(&i.generics);
            let trait_ty: syn::Type = syn::parse_quote!(#trait_path);
            let text = format!("impl{generics} {} for {self_ty}", pretty_type(&trait_ty));
            out.push((format!("{self_ty} impl"), prefix(text)));
            return;
        }
        for ii in &i.items {
            let syn::ImplItem::Fn(f) = ii else { continue };
            if !is_pub(&f.vis) {
                continue;
            }
            let text = qualify(
                &pretty_fn(Vec::new(), &f.vis, &f.sig),
                &f.sig.ident,
                &self_ty,
            );
            let mut n = notes.clone();
            n.extend(cfg_attrs(&f.attrs));
            if f.attrs.iter().any(is_doc_hidden) {
                n.push("#[doc(hidden)]".into());
            }
            n.push(text);
            out.push((format!("{self_ty}::{}", f.sig.ident), n.join(" ")));
        }
    }

    /// The public path of an impl's self type, when it is a public type of this crate.
    fn public_self_type(&self, ty: &syn::Type) -> Option<String> {
        let syn::Type::Path(p) = ty else { return None };
        let name = p.path.segments.last()?.ident.to_string();
        let candidates = self.types.get(&name)?;
        let written: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        // Prefer the candidate whose path ends as written (`model::ObjectMeta`), then
        // the one in this module.
        let ends_as_written = |c: &&String| c.ends_with(&written.join("::"));
        let found = candidates
            .iter()
            .filter(ends_as_written)
            .find(|c| written.len() > 1 || c.starts_with(&self.path))
            .or_else(|| {
                candidates
                    .iter()
                    .find(|c| c.starts_with(&format!("{}::", self.path)))
            })
            .or_else(|| (candidates.len() == 1).then(|| &candidates[0]))?;
        Some(found.clone())
    }
}

fn exported(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| a.path().is_ident("macro_export"))
}

fn is_doc_hidden(a: &syn::Attribute) -> bool {
    a.path().is_ident("doc") && a.to_token_stream().to_string().contains("hidden")
}

fn is_proc_macro(a: &syn::Attribute) -> bool {
    let p = a.path();
    p.is_ident("proc_macro")
        || p.is_ident("proc_macro_derive")
        || p.is_ident("proc_macro_attribute")
}

/// Only the `#[derive]` attributes (what a type implements without an impl block).
fn derives(attrs: &[syn::Attribute]) -> Vec<syn::Attribute> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("derive"))
        .cloned()
        .collect()
}

/// Each name a `use` tree binds, with the path it binds.
fn use_leaves(tree: &syn::UseTree, prefix: String, out: &mut Vec<(String, String)>) {
    let join = |s: &dyn std::fmt::Display| {
        if prefix.is_empty() {
            s.to_string()
        } else {
            format!("{prefix}::{s}")
        }
    };
    match tree {
        syn::UseTree::Path(p) => use_leaves(&p.tree, join(&p.ident), out),
        syn::UseTree::Name(n) if n.ident == "self" => {
            let name = prefix.rsplit("::").next().unwrap_or_default().to_string();
            out.push((name, prefix.clone()));
        }
        syn::UseTree::Name(n) => out.push((n.ident.to_string(), join(&n.ident))),
        syn::UseTree::Rename(r) => out.push((r.rename.to_string(), join(&r.ident))),
        syn::UseTree::Glob(_) => out.push(("*".into(), join(&"*"))),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_leaves(t, prefix.clone(), out);
            }
        }
    }
}

/// `text` with the item's name replaced by its full path (`fn f(` → `fn a::b::f(`).
fn qualify(text: &str, ident: &syn::Ident, path: &str) -> String {
    let name = ident.to_string();
    for keyword in ["fn", "struct", "enum", "trait", "type", "const", "union"] {
        let needle = format!("{keyword} {name}");
        if let Some(at) = text.find(&needle) {
            let end = at + needle.len();
            let next = text[end..].chars().next();
            if next.is_none_or(|c| !(c.is_alphanumeric() || c == '_')) {
                return format!("{}{keyword} {path}::{name}{}", &text[..at], &text[end..]);
            }
        }
    }
    text.to_string()
}

fn pretty_fn(attrs: Vec<syn::Attribute>, vis: &syn::Visibility, sig: &syn::Signature) -> String {
    let item = syn::Item::Fn(syn::ItemFn {
        attrs,
        vis: vis.clone(),
        modifiers: Default::default(),
        sig: sig.clone(),
        block: Box::new(syn::parse_quote!({})),
    });
    pretty(&item).trim_end_matches("{}").trim_end().to_string()
}

fn pretty_type(ty: &syn::Type) -> String {
    let item: syn::Item = syn::parse_quote!(type T = #ty;);
    let text = pretty(&item);
    text.strip_prefix("type T = ")
        .and_then(|t| t.strip_suffix(';'))
        .unwrap_or(&text)
        .to_string()
}

fn pretty_attr(attr: &syn::Attribute) -> String {
    let item: syn::Item = syn::parse_quote!(#attr struct S;);
    let text = pretty(&item);
    text.strip_suffix(" struct S;").unwrap_or(&text).to_string()
}

fn pretty_generics(g: &syn::Generics) -> String {
    if g.params.is_empty() {
        return String::new();
    }
    let item: syn::Item = syn::parse_quote!(struct S #g;);
    let text = pretty(&item);
    let inner = text
        .strip_prefix("struct S")
        .and_then(|t| t.strip_suffix(';'));
    inner.unwrap_or(&text).to_string()
}

fn trait_item_text(item: &syn::TraitItem) -> String {
    let t: syn::ItemTrait = syn::parse_quote!(trait T { #item });
    let text = pretty(&syn::Item::Trait(t));
    text.strip_prefix("trait T {")
        .and_then(|t| t.strip_suffix('}'))
        .unwrap_or(&text)
        .trim()
        .trim_end_matches(';')
        .to_string()
}

/// prettyplease's rendering of one item on one line.
fn pretty(item: &syn::Item) -> String {
    let file = syn::File {
        shebang: None,
        frontmatter: None,
        attrs: Vec::new(),
        items: vec![item.clone()],
    };
    one_line(&prettyplease::unparse(&file))
}

/// Multi-line Rust joined into one line: `(\n    a: A,\n)` → `(a: A)`.
fn one_line(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let glue = !out.is_empty()
            && !out.ends_with(['(', '[', '<'])
            && !line.starts_with([')', ']', '>', ',']);
        if glue {
            out.push(' ');
        }
        out.push_str(line);
    }
    // Trailing commas prettyplease adds when it breaks a list.
    for (from, to) in [
        (",)", ")"),
        (",]", "]"),
        (",>", ">"),
        (", {", " {"),
        (", }", " }"),
    ] {
        out = out.replace(from, to);
    }
    out.trim_end_matches(',').to_string()
}

#[cfg(test)]
mod tests;
