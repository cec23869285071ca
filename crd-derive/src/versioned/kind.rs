//! The module-level items of a versioned kind: the version list, the merged CRD (with
//! strategy `None` when every served schema is the same, else with a webhook), and, with
//! crd-runtime's engine, the `Converter` and the round-trip check.

use proc_macro2::TokenStream;
use quote::quote;

use super::model::Model;

/// `VERSIONS`, `STORAGE_VERSION`, `crd()`, `crd_with_webhook()`, `converter()`,
/// `check_round_trip()`.
pub fn kind_items(model: &Model) -> TokenStream {
    let Some(kind) = &model.kind else {
        return TokenStream::new();
    };
    let rt = &kind.rt;
    let p = quote!(#rt::__private::versioned);
    let root = &kind.root;
    let names = model.versions.iter().map(|v| &v.name);
    let storage = &model.versions[model.hub].name;
    let hub = &model.versions[model.hub].ident;
    let crds = model
        .versions
        .iter()
        .map(|v| {
            let m = &v.ident;
            quote!(<#m::#root as #rt::CustomResourceExt>::crd())
        })
        .collect::<Vec<_>>();
    let spokes = model
        .versions
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != model.hub)
        .map(|(_, v)| {
            let m = &v.ident;
            quote!(.spoke::<#m::#root>())
        });
    quote! {
        /// The versions of the kind, oldest first.
        pub const VERSIONS: &[&str] = &[#(#names),*];

        /// The version objects are stored in: the hub of the conversions.
        pub const STORAGE_VERSION: &str = #storage;

        /// The CRD with every version and conversion strategy `None`. Fails (naming two
        /// versions) when the served versions' schemas differ: objects then need the
        /// conversion webhook of [`crd_with_webhook`].
        pub fn crd() -> ::core::result::Result<#rt::CustomResourceDefinition, #rt::MergeError> {
            #p::crd_without_webhook(&[#(#crds),*])
        }

        /// The CRD with every version and conversion strategy `Webhook` at
        /// `client_config` (`ConversionReview` `v1`); serve `converter()` there.
        pub fn crd_with_webhook(
            client_config: #rt::model::WebhookClientConfig,
        ) -> ::core::result::Result<#rt::CustomResourceDefinition, #rt::MergeError> {
            #p::crd_with_webhook(&[#(#crds),*], client_config)
        }

        #rt::__versioned_engine! {
            /// Converts objects of the kind between every pair of versions, through the
            /// storage version; what a version cannot hold travels in an annotation.
            pub fn converter() -> #rt::conversion::Converter<#hub::#root> {
                #rt::conversion::Converter::<#hub::#root>::hub() #(#spokes)*
            }

            /// Converts `object` to every other version and back, and fails when that
            /// changes it (see `crd_runtime::conversion::check_round_trip`).
            pub fn check_round_trip(
                object: &#rt::__private::serde_json::Value,
            ) -> ::core::result::Result<(), #rt::conversion::ConversionError> {
                #rt::conversion::check_round_trip(&converter(), object)
            }
        }
    }
}
