//! Code generation: `impl CrdSchema` ([`derive_schema`]) and the root type with
//! `impl CustomResourceExt` ([`resource::derive_resource`]).

pub mod apply;
pub mod markers;
pub mod node;
pub mod resource;
pub mod schema;

use proc_macro2::TokenStream;
use quote::quote;
use serde_derive_internals::Ctxt;
use syn::DeriveInput;

use crate::ast;
use crate::attr::meta::Item;
use crate::attr::node::NodeAttrs;
use crate::attr::value;
use crate::tokens::Rt;
use schema::Schema;

/// The runtime path: `crate = path` from the items (removed from them), else `::crd_runtime`.
pub fn runtime_path(cx: &Ctxt, items: &mut Vec<Item>) -> Rt {
    let mut rt = None;
    items.retain(|item| {
        if item.name() == "crate" {
            rt = value::path(cx, item);
            false
        } else {
            true
        }
    });
    Rt(rt
        .map(|p| quote!(#p))
        .unwrap_or_else(|| quote!(::crd_runtime)))
}

/// `T: CrdSchema` for every type parameter.
pub fn bounded_generics(rt: &Rt, generics: &syn::Generics, extra: &[TokenStream]) -> syn::Generics {
    let rtp = &rt.0;
    let mut g = generics.clone();
    let params: Vec<syn::Ident> = g.type_params().map(|t| t.ident.clone()).collect();
    let wc = g.make_where_clause();
    for p in params {
        wc.predicates.push(syn::parse_quote!(#p: #rtp::CrdSchema));
    }
    for e in extra {
        wc.predicates.push(syn::parse_quote!(#e));
    }
    g
}

/// The `impl CrdSchema` (+ `AcceptsDefault`) items for a type whose schema is `s`.
pub fn schema_impl(rt: &Rt, input: &DeriveInput, s: &Schema) -> TokenStream {
    let rtp = &rt.0;
    let ident = &input.ident;
    let g = bounded_generics(rt, &input.generics, &[]);
    let (impl_g, ty_g, where_c) = g.split_for_impl();
    let body = &s.body;
    let fields = s.fields.as_ref().map(|f| {
        let entries = f.iter().map(|(n, r)| quote!((#n, #r)));
        quote!(const FIELDS: ::core::option::Option<&'static [(&'static str, bool)]> =
            ::core::option::Option::Some(&[#(#entries),*]);)
    });
    let checks = &s.checks;
    let name = ident.to_string();
    let accepts = if s.literal == "Newtype" {
        let inner = match &input.data {
            syn::Data::Struct(d) => d.fields.iter().next().map(|f| f.ty.clone()),
            _ => None,
        };
        let inner = inner.map(|t| quote!(#t)).unwrap_or_else(|| quote!(()));
        let mut g2 = bounded_generics(
            rt,
            &input.generics,
            &[quote!(#inner: #rtp::derive_support::AcceptsDefault<__K>)],
        );
        g2.params.push(syn::parse_quote!(__K));
        let (impl_g2, _, where_c2) = g2.split_for_impl();
        quote!(impl #impl_g2 #rtp::derive_support::AcceptsDefault<__K> for #ident #ty_g #where_c2 {})
    } else {
        let marker = syn::Ident::new(s.literal, proc_macro2::Span::call_site());
        quote!(impl #impl_g #rtp::derive_support::AcceptsDefault<#rtp::__private::literal::#marker> for #ident #ty_g #where_c {})
    };
    quote! {
        #[automatically_derived]
        impl #impl_g #rtp::CrdSchema for #ident #ty_g #where_c {
            #fields
            fn crd_schema() -> #rtp::JSONSchemaProps {
                #body
            }
        }
        #[automatically_derived]
        #accepts
        #(#checks)*
        // `schemars::JsonSchema` with this schema when crd-runtime's `schemars` feature is on.
        #rtp::__impl_json_schema!([#impl_g] [#ident #ty_g] [#where_c] #name);
    }
}

/// A stand-in impl emitted next to errors, so one mistake does not cascade into
/// "`CrdSchema` is not implemented" errors at every use of the type.
pub fn fallback_impl(rt: &Rt, input: &DeriveInput) -> TokenStream {
    let rtp = &rt.0;
    let ident = &input.ident;
    let g = bounded_generics(rt, &input.generics, &[]);
    let (impl_g, ty_g, where_c) = g.split_for_impl();
    quote! {
        impl #impl_g #rtp::CrdSchema for #ident #ty_g #where_c {
            fn crd_schema() -> #rtp::JSONSchemaProps {
                ::core::default::Default::default()
            }
        }
    }
}

/// Wraps generated items so their helper names stay private.
pub fn wrap(items: TokenStream) -> TokenStream {
    quote! {
        #[doc(hidden)]
        #[allow(non_upper_case_globals, unused_qualifications, clippy::all)]
        const _: () = {
            #items
        };
    }
}

/// `#[derive(CrdSchema)]`.
pub fn derive_schema(input: &DeriveInput) -> TokenStream {
    let cx = Ctxt::new();
    let Some(mut parsed) = ast::parse(&cx, input) else {
        return match cx.check() {
            Ok(()) => TokenStream::new(),
            Err(e) => e.to_compile_error(),
        };
    };
    let rt = runtime_path(&cx, &mut parsed.items);
    let node = NodeAttrs::from_items(&cx, &parsed.items);
    crate::check::node(&cx, &node);
    let s = schema::schema(&cx, &rt, &parsed, &node, parsed.doc.as_deref());
    match cx.check() {
        Ok(()) => {
            let mut out = wrap(schema_impl(&rt, input, &s));
            out.extend(apply::apply_items(&rt, input, &parsed));
            out
        }
        Err(e) => {
            let mut out = e.to_compile_error();
            out.extend(wrap(fallback_impl(&rt, input)));
            out
        }
    }
}
