//! Typed apply configurations (server-side apply), as client-go's applyconfiguration-gen
//! writes them for Go: next to each derived struct `X` an `XApply` whose fields are all
//! optional and serialized only when set, with `with_<field>` builders; next to a derived
//! root `CronTab` a `CronTabApply` carrying the resource's identity. The runtime side
//! (`ApplyType`, `ObjectMetaApply`) is `crd_runtime::derive_support::apply`.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use serde_derive_internals::Ctxt;
use serde_derive_internals::ast::{Data, Field, Style};
use serde_derive_internals::attr::TagType;
use syn::DeriveInput;
use syn::spanned::Spanned;

use crate::ast::{Input, field_extra};
use crate::tokens::Rt;

/// The apply configuration of `input`: an `XApply` struct plus `impl ApplyType for X`
/// for a plain struct with named fields; `impl ApplyType for X { type Apply = Self; }`
/// (applied whole) for enums, newtypes and structs serde does not write field by field.
/// Called after the schema pass, which has reported every attribute error already.
pub fn apply_items(rt: &Rt, input: &DeriveInput, parsed: &Input) -> TokenStream {
    let cx = Ctxt::new();
    let out = struct_items(&cx, rt, input, parsed);
    // Attribute errors were reported by the schema pass; do not repeat them.
    let _ = cx.check();
    behind_feature(rt, out)
}

/// `items` inside `__apply_types!`, which keeps them with crd-runtime's feature `apply`
/// and drops them without it: the derive cannot see crd-runtime's features.
fn behind_feature(rt: &Rt, items: TokenStream) -> TokenStream {
    let rtp = &rt.0;
    quote!(#rtp::__apply_types! { #items })
}

fn struct_items(cx: &Ctxt, rt: &Rt, input: &DeriveInput, parsed: &Input) -> TokenStream {
    let rtp = &rt.0;
    let ident = &input.ident;
    let (impl_g, ty_g, where_c) = input.generics.split_for_impl();
    let attrs = &parsed.serde.attrs;
    let by_field = matches!(&parsed.serde.data, Data::Struct(Style::Struct, _))
        && input.generics.params.is_empty()
        && !attrs.transparent()
        && attrs.type_into().is_none()
        && attrs.remote().is_none()
        && matches!(attrs.tag(), TagType::External);
    let Data::Struct(Style::Struct, fields) = &parsed.serde.data else {
        return whole(rt, input);
    };
    if !by_field {
        return whole(rt, input);
    }
    let apply = format_ident!("{}Apply", ident);
    let vis = &input.vis;
    let p = rt.private();
    let flattens = fields
        .iter()
        .any(|f| f.attrs.flatten() && !f.attrs.skip_serializing());
    let mut defs = Vec::new();
    let mut builders = Vec::new();
    let mut entries = Vec::new();
    for field in fields.iter().filter(|f| !f.attrs.skip_serializing()) {
        let Some(name) = field.original.ident.as_ref() else {
            continue;
        };
        let wire = field.attrs.name().serialize_name().value.clone();
        let fvis = &field.original.vis;
        let inner = apply_field_type(cx, rt, field);
        let param = builder_param(field.ty, &inner);
        let docs = field
            .original
            .attrs
            .iter()
            .filter(|a| a.path().is_ident("doc"));
        let has_doc = field
            .original
            .attrs
            .iter()
            .any(|a| a.path().is_ident("doc"));
        let fallback_doc = format!("`{wire}`.");
        let fallback_doc = (!has_doc).then(|| quote!(#[doc = #fallback_doc]));
        // Only a struct with a `#[serde(flatten)]` field derives `Serialize` (flattening
        // needs serde's internals); the others get the small impl below.
        let serde_attr = flattens.then(|| {
            let mut a = vec![quote!(
                skip_serializing_if = "::core::option::Option::is_none"
            )];
            a.push(if field.attrs.flatten() {
                quote!(flatten)
            } else {
                quote!(rename = #wire)
            });
            if let Some(path) = field.attrs.serialize_with() {
                let path = quote!(#path).to_string().replace(' ', "");
                a.push(quote!(serialize_with = #path));
            }
            quote!(#[serde(#(#a),*)])
        });
        defs.push(quote! {
            #(#docs)*
            #fallback_doc
            #serde_attr
            #fvis #name: ::core::option::Option<#inner>,
        });
        entries.push(entry(rt, name, &wire, field, &inner));
        let with = format_ident!("with_{}", unraw(name));
        let set_doc = format!("Sets `{wire}`.");
        builders.push(quote! {
            #[doc = #set_doc]
            #[must_use]
            pub fn #with(mut self, value: #param) -> Self {
                self.#name = ::core::option::Option::Some(value.into());
                self
            }
        });
    }
    let doc = format!(
        "Apply configuration of [`{ident}`] (server-side apply): every field optional, only the fields set are serialized."
    );
    let (derive, ser_impl) = if flattens {
        let serde_path = format!("{}::__private::serde", rtp.to_string().replace(' ', ""));
        (
            quote!(#[derive(::core::default::Default, #p::serde::Serialize)] #[serde(crate = #serde_path)]),
            TokenStream::new(),
        )
    } else {
        let set = entries.iter().map(|(set, _)| set);
        let writes = entries.iter().map(|(_, write)| write);
        (
            quote!(#[derive(::core::default::Default)]),
            quote! {
                #[automatically_derived]
                impl #p::serde::Serialize for #apply {
                    fn serialize<__S: #p::serde::Serializer>(&self, __s: __S) -> ::core::result::Result<__S::Ok, __S::Error> {
                        use #p::serde::ser::SerializeMap as _;
                        let __len = 0 #(+ usize::from(#set))*;
                        let mut __m = __s.serialize_map(::core::option::Option::Some(__len))?;
                        #(#writes)*
                        __m.end()
                    }
                }
            },
        )
    };
    let impls = super::wrap(quote! {
        #[automatically_derived]
        impl ::core::fmt::Debug for #apply {
            fn fmt(&self, __f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                #p::debug_as_json(self, __f)
            }
        }

        #ser_impl

        #[automatically_derived]
        impl #impl_g #rtp::ApplyType for #ident #ty_g #where_c {
            type Apply = #apply;
        }
    });
    quote! {
        #[doc = #doc]
        // No `Clone`, and `Debug` prints the JSON: types applied whole need neither.
        #derive
        #vis struct #apply {
            #(#defs)*
        }

        #[automatically_derived]
        #[allow(clippy::all)]
        impl #apply {
            #(#builders)*
        }

        #impls
    }
}

/// `(is set, write it)` for one field of the hand-written `Serialize` impl; a
/// `serialize_with` field is written through a wrapper that calls the function.
fn entry(
    rt: &Rt,
    name: &syn::Ident,
    wire: &str,
    field: &Field,
    inner: &TokenStream,
) -> (TokenStream, TokenStream) {
    let p = rt.private();
    let set = quote!(self.#name.is_some());
    let write = match field.attrs.serialize_with() {
        Some(path) => quote! {
            if let ::core::option::Option::Some(__v) = &self.#name {
                struct __With<'__a>(&'__a #inner);
                impl #p::serde::Serialize for __With<'_> {
                    fn serialize<__S: #p::serde::Serializer>(&self, __s: __S) -> ::core::result::Result<__S::Ok, __S::Error> {
                        #path(self.0, __s)
                    }
                }
                __m.serialize_entry(#wire, &__With(__v))?;
            }
        },
        None => quote! {
            if let ::core::option::Option::Some(__v) = &self.#name {
                __m.serialize_entry(#wire, __v)?;
            }
        },
    };
    (set, write)
}

/// `impl ApplyType for X { type Apply = Self; }`.
pub fn whole(rt: &Rt, input: &DeriveInput) -> TokenStream {
    let rtp = &rt.0;
    let ident = &input.ident;
    let (impl_g, ty_g, where_c) = input.generics.split_for_impl();
    quote! {
        #[automatically_derived]
        impl #impl_g #rtp::ApplyType for #ident #ty_g #where_c {
            type Apply = Self;
        }
    }
}

/// What the field holds in an apply configuration (inside its `Option`): its `ApplyType`,
/// or its own type where the schema does not come from `CrdSchema` (`schema_with`,
/// `schemars`) or serde writes it with a function (`serialize_with`).
fn apply_field_type(cx: &Ctxt, rt: &Rt, field: &Field) -> TokenStream {
    let rtp = &rt.0;
    let ty = field.ty;
    if field.attrs.serialize_with().is_some() {
        return quote!(#ty);
    }
    let extra = field_extra(cx, field);
    if extra.node.get("schema_with").is_some() || extra.node.schemars().is_some() {
        let inner = option_inner(ty).unwrap_or(ty);
        return quote!(#inner);
    }
    // Spanned at the field: a type without `ApplyType` is reported there, once (the
    // builder's identical error is deduplicated).
    quote_spanned!(ty.span()=> <#ty as #rtp::ApplyType>::Apply)
}

/// The builder's parameter: `impl Into<String>` for strings (so `&str` works), else
/// the held type itself (so integer literals infer the field's width).
fn builder_param(ty: &syn::Type, inner: &TokenStream) -> TokenStream {
    let base = option_inner(ty).unwrap_or(ty);
    let is_string = matches!(base, syn::Type::Path(p) if p.qself.is_none() && p.path.is_ident("String"))
        || matches!(base, syn::Type::Path(p) if p.path.segments.iter().map(|s| s.ident.to_string()).collect::<Vec<_>>() == ["std", "string", "String"]);
    if is_string {
        quote!(impl ::core::convert::Into<::std::string::String>)
    } else {
        inner.clone()
    }
}

/// `T` of a type written `Option<T>`.
fn option_inner(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    match &last.arguments {
        syn::PathArguments::AngleBracketed(a) => match a.args.first()? {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

fn unraw(ident: &syn::Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").map(str::to_string).unwrap_or(s)
}

/// What `CronTabApply` needs to know about the resource.
pub struct Root<'a> {
    /// The root type (`CronTab`).
    pub root: &'a syn::Ident,
    /// The spec struct.
    pub spec: &'a syn::Ident,
    /// The status type, if the resource has one.
    pub status: Option<&'a syn::Type>,
    /// Visibility of the generated types.
    pub vis: &'a syn::Visibility,
    /// `group/version`.
    pub api_version: &'a str,
    /// `kind`.
    pub kind: &'a str,
    /// Whether objects live in a namespace.
    pub namespaced: bool,
}

/// `CronTabApply` (apiVersion and kind fixed, `metadata`, optional spec and status),
/// its builders and serde impl, and `CronTab::apply(name)`.
pub fn root_apply(rt: &Rt, r: &Root) -> TokenStream {
    let rtp = &rt.0;
    let p = rt.private();
    let (root, spec, vis, api_version, kind) = (r.root, r.spec, r.vis, r.api_version, r.kind);
    let apply = syn::Ident::new(&format!("{root}Apply"), Span::call_site());
    let spec_apply = quote!(<#spec as #rtp::ApplyType>::Apply);
    let status_field = r.status.map(|t| {
        quote! {
            /// `status`, applied through the status subresource.
            pub status: ::core::option::Option<<#t as #rtp::ApplyType>::Apply>,
        }
    });
    let with_status = r.status.map(|t| {
        quote! {
            /// Sets `status`.
            #[must_use]
            pub fn with_status(mut self, status: <#t as #rtp::ApplyType>::Apply) -> Self {
                self.status = ::core::option::Option::Some(status);
                self
            }
        }
    });
    let ser_status = r.status.map(|_| {
        quote!(if let ::core::option::Option::Some(__st) = &self.status {
            __m.serialize_entry("status", __st)?;
        })
    });
    let with_namespace = r.namespaced.then(|| {
        quote! {
            /// Sets `metadata.namespace`.
            #[must_use]
            pub fn with_namespace(mut self, namespace: &str) -> Self {
                self.metadata.namespace = ::core::option::Option::Some(::std::string::String::from(namespace));
                self
            }
        }
    });
    let doc = format!(
        "Apply configuration of a `{kind}` (`{api_version}`) for server-side apply: only the fields set are sent, so a field manager owns exactly those."
    );
    let items = quote! {
        #[doc = #doc]
        #[derive(::core::default::Default)]
        #vis struct #apply {
            /// `metadata`: name (and namespace) identify the object.
            pub metadata: #rtp::ObjectMetaApply,
            /// `spec`.
            pub spec: ::core::option::Option<#spec_apply>,
            #status_field
        }

        #[allow(clippy::all)]
        impl #apply {
            /// An apply configuration of the object named `name`.
            pub fn new(name: &str) -> Self {
                Self {
                    metadata: #rtp::ObjectMetaApply::new(name),
                    ..::core::default::Default::default()
                }
            }
            #with_namespace
            /// Sets the label `key` to `value`.
            #[must_use]
            pub fn with_label(mut self, key: &str, value: &str) -> Self {
                self.metadata.labels.insert(::std::string::String::from(key), ::std::string::String::from(value));
                self
            }
            /// Sets the annotation `key` to `value`.
            #[must_use]
            pub fn with_annotation(mut self, key: &str, value: &str) -> Self {
                self.metadata.annotations.insert(::std::string::String::from(key), ::std::string::String::from(value));
                self
            }
            /// Adds an owner reference.
            #[must_use]
            pub fn with_owner_reference(mut self, owner: #rtp::meta::OwnerReference) -> Self {
                self.metadata.owner_references.push(owner);
                self
            }
            /// Adds a finalizer.
            #[must_use]
            pub fn with_finalizer(mut self, finalizer: &str) -> Self {
                self.metadata.finalizers.push(::std::string::String::from(finalizer));
                self
            }
            /// Sets `spec`.
            #[must_use]
            pub fn with_spec(mut self, spec: #spec_apply) -> Self {
                self.spec = ::core::option::Option::Some(spec);
                self
            }
            #with_status
        }

        impl #root {
            /// An apply configuration of the object named `name` (server-side apply).
            pub fn apply(name: &str) -> #apply {
                #apply::new(name)
            }
        }

        #[doc(hidden)]
        #[allow(non_upper_case_globals, unused_qualifications, clippy::all)]
        const _: () = {
            use #p::serde::ser::SerializeMap as _;

            #[automatically_derived]
            impl ::core::fmt::Debug for #apply {
                fn fmt(&self, __f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    #p::debug_as_json(self, __f)
                }
            }

            #[automatically_derived]
            impl #p::serde::Serialize for #apply {
                fn serialize<__S: #p::serde::Serializer>(&self, __s: __S) -> ::core::result::Result<__S::Ok, __S::Error> {
                    let mut __m = __s.serialize_map(::core::option::Option::None)?;
                    __m.serialize_entry("apiVersion", #api_version)?;
                    __m.serialize_entry("kind", #kind)?;
                    __m.serialize_entry("metadata", &self.metadata)?;
                    if let ::core::option::Option::Some(__sp) = &self.spec {
                        __m.serialize_entry("spec", __sp)?;
                    }
                    #ser_status
                    __m.end()
                }
            }
        };
    };
    behind_feature(rt, items)
}
