//! `#[derive(CustomResource)]`: the root type, its serde impls and `CustomResourceExt`.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use serde_derive_internals::Ctxt;
use syn::DeriveInput;

use super::node::apply;
use super::{runtime_path, schema, schema_impl, wrap};
use crate::ast;
use crate::attr::node::NodeAttrs;
use crate::attr::resource::ResourceAttrs;
use crate::check_resource::{self, plural_of};
use crate::tokens::Rt;

fn opt_str(v: Option<&str>) -> TokenStream {
    match v {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    }
}

fn opt<T: quote::ToTokens>(v: Option<T>) -> TokenStream {
    match v {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    }
}

/// A block that builds a node from `base` and applies `attrs` to it.
fn node_expr(rt: &Rt, base: TokenStream, attrs: &NodeAttrs, doc: Option<&str>) -> TokenStream {
    let node = syn::Ident::new("__node", Span::mixed_site());
    let kws = apply(rt, attrs, &node, None);
    let doc = match (doc, attrs.get("description")) {
        (Some(d), None) => {
            quote!(#node.description = ::core::option::Option::Some(::std::string::String::from(#d));)
        }
        _ => TokenStream::new(),
    };
    quote!({
        let mut __schema = #base;
        {
            let #node = &mut __schema;
            #doc
            #kws
        }
        __schema
    })
}

/// `#[derive(CustomResource)]`.
pub fn derive_resource(input: &DeriveInput) -> TokenStream {
    let cx = Ctxt::new();
    let Some(mut parsed) = ast::parse(&cx, input) else {
        return match cx.check() {
            Ok(()) => TokenStream::new(),
            Err(e) => e.to_compile_error(),
        };
    };
    let rt = runtime_path(&cx, &mut parsed.items);
    let attrs = ResourceAttrs::parse(&cx, &parsed.items);
    if !input.generics.params.is_empty() {
        cx.error_spanned_by(
            &input.generics,
            "`CustomResource` cannot be derived for generic types",
        );
    }
    if !matches!(input.data, syn::Data::Struct(_)) {
        cx.error_spanned_by(
            &input.ident,
            "`CustomResource` is derived on the spec struct",
        );
    }
    let identity = check_resource::identity(&cx, &attrs, input.ident.span());
    for n in [&attrs.root.node, &attrs.spec_schema, &attrs.status_schema]
        .into_iter()
        .chain(attrs.root.properties.iter().map(|(_, n)| n))
    {
        crate::check::node(&cx, n);
    }
    let s = schema::schema(&cx, &rt, &parsed, &NodeAttrs::default(), None);
    let mut attrs = attrs;
    attrs.spec_schema = super::markers::resolve(&cx, &attrs.spec_schema, s.names.as_ref());
    let consts = check_resource::subresources(&cx, &rt, &attrs, s.property_names.as_deref());
    let Some((group, version, kind)) = identity else {
        return cx
            .check()
            .err()
            .map(|e| e.to_compile_error())
            .unwrap_or_default();
    };
    if let Err(e) = cx.check() {
        let mut out = e.to_compile_error();
        out.extend(wrap(super::fallback_impl(&rt, input)));
        return out;
    }
    let mut out = schema_impl(&rt, input, &s);
    out.extend(consts);
    let root = root_items(
        &rt,
        input,
        &attrs,
        &parsed.doc,
        (&group.value, &version.value, &kind.value),
        group.span,
    );
    let mut all = wrap(out);
    all.extend(root);
    all.extend(super::apply::apply_items(&rt, input, &parsed));
    all
}

fn root_items(
    rt: &Rt,
    input: &DeriveInput,
    a: &ResourceAttrs,
    doc: &Option<String>,
    (group, version, kind): (&str, &str, &str),
    kind_span: Span,
) -> TokenStream {
    let rtp = &rt.0;
    let p = rt.private();
    let spec = &input.ident;
    let vis = &input.vis;
    let root = a
        .root_type
        .clone()
        .unwrap_or_else(|| syn::Ident::new(kind, kind_span));
    let api_version = format!("{group}/{version}");
    let plural = a
        .plural
        .as_ref()
        .map(|p| p.value.clone())
        .unwrap_or_else(|| plural_of(kind));
    let singular = a
        .singular
        .as_ref()
        .map(|s| s.value.clone())
        .unwrap_or_else(|| kind.to_lowercase());
    let namespaced = a.namespaced;
    let scope = if namespaced {
        quote!(Namespaced)
    } else {
        quote!(Cluster)
    };
    let extra_props: Vec<&str> = a
        .root
        .properties
        .iter()
        .map(|(n, _)| n.value.as_str())
        .filter(|n| !["apiVersion", "kind", "metadata"].contains(n))
        .collect();
    let has_extra = !extra_props.is_empty();

    // --- the root struct -------------------------------------------------------------
    let derives = &a.derives;
    let status_field = a.status.as_ref().map(|t| {
        quote! {
            /// Observed state, written by controllers through the status subresource.
            pub status: ::core::option::Option<#t>,
        }
    });
    let extra_field = has_extra.then(|| {
        let names = extra_props.join("`, `");
        let doc = format!("Top-level properties `{names}`, kept as JSON.");
        quote! {
            #[doc = #doc]
            pub extra: ::std::collections::BTreeMap<::std::string::String, #p::serde_json::Value>,
        }
    });
    let root_doc = format!(
        "The `{kind}` custom resource (`{api_version}`), generated by `#[derive(CustomResource)]` on [`{spec}`]."
    );
    let status_init = a
        .status
        .as_ref()
        .map(|_| quote!(status: ::core::option::Option::None,));
    let extra_init = has_extra.then(|| quote!(extra: ::core::default::Default::default(),));

    // --- serde ---------------------------------------------------------------------------
    let serde_path = format!("{}::__private::serde", rtp.to_string().replace(' ', ""));
    let ser_status = a.status.as_ref().map(|_| {
        quote!(if let ::core::option::Option::Some(__st) = &self.status {
            __m.serialize_entry("status", __st)?;
        })
    });
    let ser_extra = has_extra.then(|| {
        quote!(for (__k, __v) in &self.extra {
            __m.serialize_entry(__k, __v)?;
        })
    });
    let wire_status = a
        .status
        .as_ref()
        .map(|t| quote!(#[serde(default)] status: ::core::option::Option<#t>,));
    let wire_extra = has_extra.then(|| {
        quote!(#[serde(flatten)] extra: ::std::collections::BTreeMap<::std::string::String, #p::serde_json::Value>,)
    });
    let take_status = a.status.as_ref().map(|_| quote!(status: __w.status,));
    let take_extra = has_extra.then(|| {
        let names = &extra_props;
        quote!(extra: __w.extra.into_iter().filter(|(__k, _)| [#(#names),*].contains(&__k.as_str())).collect(),)
    });

    // --- the CRD -------------------------------------------------------------------------
    let spec_node = node_expr(
        rt,
        quote!(<#spec as #rtp::CrdSchema>::crd_schema()),
        &a.spec_schema,
        None,
    );
    let status_prop = a.status.as_ref().map(|t| {
        let e = node_expr(
            rt,
            quote!(<#t as #rtp::CrdSchema>::crd_schema()),
            &a.status_schema,
            None,
        );
        quote!(#p::add_property(__root_node, "status", #e, false);)
    });
    let extra_root_props = a.root.properties.iter().map(|(name, n)| {
        let name = &name.value;
        let e = node_expr(
            rt,
            quote!(<#rtp::JSONSchemaProps as ::core::default::Default>::default()),
            n,
            None,
        );
        quote!(#p::add_property(__root_node, #name, #e, false);)
    });
    let add_spec = if a.root.omit_spec {
        TokenStream::new()
    } else {
        quote! {
            let __spec = #spec_node;
            let __spec_required = #p::has_required(&__spec);
            #p::add_property(__root_node, "spec", __spec, __spec_required);
        }
    };
    let root_node = syn::Ident::new("__node", Span::mixed_site());
    let root_kws = apply(rt, &a.root.node, &root_node, None);
    let root_desc = match (doc, a.root.node.get("description")) {
        (Some(d), None) => {
            quote!(#root_node.description = ::core::option::Option::Some(::std::string::String::from(#d));)
        }
        _ => TokenStream::new(),
    };
    let scale = opt(a.scale.as_ref().map(|s| {
        let (sp, st) = (&s.spec_replicas_path.value, &s.status_replicas_path.value);
        let l = opt_str(s.label_selector_path.as_ref().map(|l| l.value.as_str()));
        quote!(#p::ScaleDef { spec_replicas_path: #sp, status_replicas_path: #st, label_selector_path: #l })
    }));
    let columns = a.columns.iter().map(|c| {
        let (name, ty, path) = (&c.name.value, &c.type_.value, &c.json_path.value);
        let (f, d) = (opt_str(c.format.as_deref()), opt_str(c.description.as_deref()));
        let pr = opt(c.priority);
        quote!(#p::ColumnDef { name: #name, type_: #ty, format: #f, description: #d, priority: #pr, json_path: #path })
    });
    let selectable = a.selectable_fields.iter().map(|s| &s.value);
    let labels = a.labels.iter().map(|(k, v)| {
        let k = &k.value;
        quote!((#k, #v))
    });
    let annotations = a.annotations.iter().map(|(k, v)| {
        let k = &k.value;
        quote!((#k, #v))
    });
    let conversion = opt(a.conversion.as_ref().map(|c| {
        let strategy = c.strategy.as_ref().map(|s| s.value.as_str()).unwrap_or("None");
        let rv = &c.review_versions;
        let url = opt_str(c.url.as_deref());
        let ca = opt_str(c.ca_bundle.as_deref());
        let service = opt(c.service_name.as_ref().map(|name| {
            let ns = c.service_namespace.as_deref().unwrap_or_default();
            let path = opt_str(c.service_path.as_deref());
            let port = opt(c.service_port);
            quote!((#ns, #name, #path, #port))
        }));
        quote!(#p::ConversionDef { strategy: #strategy, review_versions: &[#(#rv),*], url: #url, service: #service, ca_bundle: #ca })
    }));
    let status_subresource = a
        .status_subresource
        .as_ref()
        .map(|s| s.value)
        .unwrap_or(a.status.is_some());
    let served = a.served.unwrap_or(true);
    let storage = a.storage.unwrap_or(true);
    let deprecated = opt(a.deprecated);
    let warning = opt_str(a.deprecation_warning.as_deref());
    let singular_tok = opt_str(Some(&singular));
    let list_kind = opt_str(a.list_kind.as_ref().map(|l| l.value.as_str()));
    let short_names = a.short_names.iter().map(|s| &s.value);
    let categories = a.categories.iter().map(|s| &s.value);
    let pufl = opt(a.preserve_unknown_fields_legacy);
    let list_kind_value = a
        .list_kind
        .as_ref()
        .map(|l| l.value.clone())
        .unwrap_or_else(|| format!("{kind}List"));
    let scale_subresource = a.scale.is_some();

    // --- the list type and kube interop ------------------------------------------------
    let list_ident = syn::Ident::new(&format!("{root}List"), root.span());
    let list_doc = format!(
        "A list of `{kind}` objects (`kind: {list_kind_value}`), as returned by list requests."
    );
    let kube_scope = if namespaced {
        quote!(NamespaceResourceScope)
    } else {
        quote!(ClusterResourceScope)
    };
    let kube_status = a.status.as_ref().map(|t| quote!(, status = #t));
    let apply_root = super::apply::root_apply(
        rt,
        &super::apply::Root {
            root: &root,
            spec,
            status: a.status.as_ref(),
            vis,
            api_version: &api_version,
            kind,
            namespaced,
        },
    );

    quote! {
        #[doc = #root_doc]
        #[derive(::core::clone::Clone, ::core::fmt::Debug, #(#derives),*)]
        #vis struct #root {
            /// Standard object metadata (`name`, `namespace`, `labels`, ...).
            pub metadata: #rtp::ObjectMeta,
            /// The desired state.
            pub spec: #spec,
            #status_field
            #extra_field
        }

        impl #root {
            /// A new object named `name` with the given spec (and no status).
            pub fn new(name: &str, spec: #spec) -> Self {
                Self {
                    metadata: #rtp::ObjectMeta {
                        name: ::core::option::Option::Some(::std::string::String::from(name)),
                        ..::core::default::Default::default()
                    },
                    spec,
                    #status_init
                    #extra_init
                }
            }
        }

        #[doc = #list_doc]
        #vis type #list_ident = #rtp::ObjectList<#root>;

        #rtp::__impl_kube! { root = #root, spec = #spec, scope = #kube_scope #kube_status }

        #apply_root

        #[doc(hidden)]
        #[allow(non_upper_case_globals, unused_qualifications, clippy::all)]
        const _: () = {
            use #p::serde::ser::SerializeMap as _;

            #[automatically_derived]
            impl #p::serde::Serialize for #root {
                fn serialize<__S: #p::serde::Serializer>(&self, __s: __S) -> ::core::result::Result<__S::Ok, __S::Error> {
                    let mut __m = __s.serialize_map(::core::option::Option::None)?;
                    __m.serialize_entry("apiVersion", #api_version)?;
                    __m.serialize_entry("kind", #kind)?;
                    __m.serialize_entry("metadata", &self.metadata)?;
                    __m.serialize_entry("spec", &self.spec)?;
                    #ser_status
                    #ser_extra
                    __m.end()
                }
            }

            #[automatically_derived]
            impl<'de> #p::serde::Deserialize<'de> for #root {
                fn deserialize<__D: #p::serde::Deserializer<'de>>(__d: __D) -> ::core::result::Result<Self, __D::Error> {
                    #[derive(#p::serde::Deserialize)]
                    #[serde(crate = #serde_path)]
                    struct __Wire {
                        #[serde(rename = "apiVersion", default)]
                        api_version: ::core::option::Option<::std::string::String>,
                        #[serde(default)]
                        kind: ::core::option::Option<::std::string::String>,
                        #[serde(default)]
                        metadata: #rtp::ObjectMeta,
                        #[serde(default)]
                        spec: ::core::option::Option<#spec>,
                        #wire_status
                        #wire_extra
                    }
                    let __w = <__Wire as #p::serde::Deserialize>::deserialize(__d)?;
                    #p::check_type_meta::<__D::Error>(
                        __w.api_version.as_deref(), __w.kind.as_deref(), #api_version, #kind)?;
                    let spec = match __w.spec {
                        ::core::option::Option::Some(__spec) => __spec,
                        ::core::option::Option::None => #p::deserialize_absent_spec::<#root, #spec, __D::Error>()?,
                    };
                    ::core::result::Result::Ok(#root {
                        metadata: __w.metadata,
                        spec,
                        #take_status
                        #take_extra
                    })
                }
            }

            #[automatically_derived]
            impl #rtp::CustomResourceExt for #root {
                type Spec = #spec;
                const GROUP: &'static str = #group;
                const VERSION: &'static str = #version;
                const API_VERSION: &'static str = #api_version;
                const KIND: &'static str = #kind;
                const PLURAL: &'static str = #plural;
                const SINGULAR: &'static str = #singular;
                const LIST_KIND: &'static str = #list_kind_value;
                const SCOPE: #rtp::Scope = #rtp::Scope::#scope;
                const STATUS_SUBRESOURCE: bool = #status_subresource;
                const SCALE_SUBRESOURCE: bool = #scale_subresource;

                fn crd() -> #rtp::CustomResourceDefinition {
                    let mut __root = #p::object();
                    {
                        let __root_node = &mut __root;
                        #add_spec
                        #status_prop
                        #(#extra_root_props)*
                    }
                    {
                        let #root_node = &mut __root;
                        #root_desc
                        #root_kws
                    }
                    #p::ResourceDef {
                        group: #group,
                        version: #version,
                        kind: #kind,
                        plural: #plural,
                        singular: #singular_tok,
                        list_kind: #list_kind,
                        short_names: &[#(#short_names),*],
                        categories: &[#(#categories),*],
                        namespaced: #namespaced,
                        served: #served,
                        storage: #storage,
                        deprecated: #deprecated,
                        deprecation_warning: #warning,
                        status_subresource: #status_subresource,
                        scale: #scale,
                        columns: &[#(#columns),*],
                        selectable_fields: &[#(#selectable),*],
                        labels: &[#(#labels),*],
                        annotations: &[#(#annotations),*],
                        conversion: #conversion,
                        preserve_unknown_fields: #pufl,
                    }
                    .build(__root)
                }

                // `engine()` only where crd-runtime has its engine (feature `engine`).
                #rtp::__engine_fn!(#version);

                fn metadata(&self) -> &#rtp::ObjectMeta {
                    &self.metadata
                }

                fn metadata_mut(&mut self) -> &mut #rtp::ObjectMeta {
                    &mut self.metadata
                }
            }
        };
    }
}
