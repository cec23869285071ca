//! `#[versioned]` on a module: every version of a kind from one set of types, with the
//! conversions between them.
//!
//! `module` reads the module, `attr` the attributes, `spec` the spec struct's `#[crd]`,
//! `model` resolves them into each
//! member's life across the versions, `check` holds the rules; `types` emits each
//! version's module, `convert` the conversions and `kind` the CRD and converter.

mod attr;
mod check;
mod convert;
mod kind;
mod model;
mod module;
mod spec;
mod types;

use proc_macro2::{Span, TokenStream};
use quote::quote;
use serde_derive_internals::Ctxt;

use module::Module;

/// `#[versioned(version(...), ...)] mod name { ... }`.
pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let module = match syn::parse2::<Module>(item) {
        Ok(m) => m,
        Err(e) => return e.to_compile_error(),
    };
    let cx = Ctxt::new();
    let versions = attr::versions(&cx, attr, Span::call_site());
    let Module {
        attrs,
        vis,
        mod_token,
        ident,
        items,
    } = module;
    let shell = Module {
        attrs: Vec::new(),
        vis: vis.clone(),
        mod_token,
        ident: ident.clone(),
        items,
    };
    let model = model::build(&cx, versions, shell);
    check::check(&cx, &model);
    let others = &model.others;
    let body = match cx.check() {
        Ok(()) => {
            let versions = types::version_modules(&model);
            let conversions = convert::conversions(&model);
            let kind = kind::kind_items(&model);
            quote! {
                #(#others)*
                #versions
                #conversions
                #kind
            }
        }
        Err(e) => {
            let errors = e.to_compile_error();
            quote! {
                #errors
                #(#others)*
            }
        }
    };
    quote! {
        #(#attrs)*
        #vis #mod_token #ident {
            #body
        }
    }
}
