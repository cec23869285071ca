//! The module of one version: every type of the versioned module as that version has it
//! (fields and variants present, named and typed as then), the spec struct deriving
//! `CustomResource` with the version's settings, and the module's `impl` blocks.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{DeriveInput, Visibility};

use super::model::{Member, Model, VType};

/// A visibility one module deeper: what the module could see, the version's parent
/// (the module) can still see.
pub fn deeper(vis: &Visibility) -> Visibility {
    let span = Span::mixed_site();
    match vis {
        Visibility::Inherited => syn::parse_quote_spanned!(span=> pub(super)),
        Visibility::Public(_) => vis.clone(),
        Visibility::Restricted(r) => {
            let first = r.path.segments.first().map(|s| s.ident.to_string());
            match first.as_deref() {
                Some("self") => syn::parse_quote_spanned!(span=> pub(super)),
                Some("super") => {
                    let path = &r.path;
                    syn::parse_quote_spanned!(span=> pub(in super::#path))
                }
                _ => vis.clone(),
            }
        }
    }
}

fn deprecation_doc(model: &Model, m: &Member, v: usize) -> Option<syn::Attribute> {
    let note = m.deprecation_at(v)?;
    let since = m
        .changes
        .iter()
        .find(|c| c.deprecation.is_some())
        .map_or(v, |c| c.index);
    let since = &model.versions[since].name;
    let text = match note {
        Some(n) => format!(" Deprecated since {since}: {n}"),
        None => format!(" Deprecated since {since}."),
    };
    Some(syn::parse_quote!(#[doc = #text]))
}

/// `t` as version `v` has it.
fn type_at(model: &Model, t: &VType, v: usize, is_spec: bool) -> DeriveInput {
    let version = &model.versions[v];
    let mut input = t.input.clone();
    input.vis = deeper(&input.vis);
    match &mut input.data {
        syn::Data::Struct(s) => {
            if let syn::Fields::Named(named) = &mut s.fields {
                let fields = std::mem::take(&mut named.named);
                for (f, m) in fields.into_iter().zip(&t.members) {
                    if !m.present(v) {
                        continue;
                    }
                    let mut f = f;
                    f.ident = Some(m.ident_at(v));
                    if let Some(ty) = m.ty_at(v) {
                        f.ty = ty;
                    }
                    f.vis = deeper(&f.vis);
                    f.attrs.extend(deprecation_doc(model, m, v));
                    named.named.push(f);
                }
            }
        }
        syn::Data::Enum(e) => {
            let variants = std::mem::take(&mut e.variants);
            for (var, m) in variants.into_iter().zip(&t.members) {
                if !m.present(v) {
                    continue;
                }
                let mut var = var;
                var.ident = m.ident_at(v);
                for f in var.fields.iter_mut() {
                    f.vis = deeper(&f.vis);
                }
                var.attrs.extend(deprecation_doc(model, m, v));
                e.variants.push(var);
            }
        }
        syn::Data::Union(_) => {}
    }
    if is_spec && let Some(kind) = &model.kind {
        let rt = &kind.rt;
        let span = version.span;
        let name = &version.name;
        let served = version.served;
        let storage = version.storage;
        let deprecated = version.deprecated.as_ref().map(|warning| {
            let warning = warning
                .as_ref()
                .map(|w| quote::quote_spanned!(span=> , deprecation_warning = #w));
            quote::quote_spanned!(span=> , deprecated #warning)
        });
        input.attrs.insert(
            0,
            syn::parse_quote_spanned!(span=> #[derive(#rt::CustomResource)]),
        );
        input.attrs.push(syn::parse_quote_spanned!(span=>
            #[crd(version = #name, served = #served, storage = #storage #deprecated)]
        ));
    }
    input
}

/// `pub mod <version> { use super::*; <types> <impls> }` for every version.
pub fn version_modules(model: &Model) -> TokenStream {
    let spec = model.kind.as_ref().map(|k| k.spec);
    let mut out = TokenStream::new();
    for (v, version) in model.versions.iter().enumerate() {
        let types = model
            .types
            .iter()
            .enumerate()
            .map(|(i, t)| type_at(model, t, v, Some(i) == spec));
        let impls = &model.impls;
        let ident = &version.ident;
        let doc = format!(
            " Version `{}` of the module's types{}.",
            version.name,
            if version.storage {
                " (the storage version)"
            } else {
                ""
            }
        );
        out.extend(quote! {
            #[doc = #doc]
            pub mod #ident {
                #[allow(unused_imports)]
                use super::*;
                #(#types)*
                #(#impls)*
            }
        });
    }
    out
}
