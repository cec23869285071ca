//! `#[derive(CustomResource)]` and `#[derive(CrdSchema)]`: structural Kubernetes CRDs
//! from Rust types, with mistakes reported at compile time.
//!
//! Entry points (use them through `crd_runtime` with its `derive` feature):
//! - [`macro@CustomResource`]: the root type, list type and CRD of a custom resource
//!   from its spec struct;
//! - [`macro@CrdSchema`]: the structural schema of a struct or enum;
//! - [`macro@versioned`]: every version of a kind from one module of types, with the
//!   conversions between them (docs/versions.md).
//!
//! The attribute reference is `ATTRIBUTES.md` next to this crate's manifest. The entry
//! points only dispatch: `attr` parses `#[crd(...)]` into typed structs, `ast` adds
//! serde's view of the type (via `serde_derive_internals`), `check` and
//! `check_resource` hold the cross-field rules, and `codegen` emits code.
#![deny(missing_docs)]

mod ast;
mod attr;
mod check;
mod check_resource;
mod codegen;
mod tokens;
mod versioned;

use proc_macro::TokenStream;

/// Derives the root type and CRD of a custom resource from its spec struct.
///
/// See `crd-derive/ATTRIBUTES.md` for every `#[crd(...)]` attribute.
#[proc_macro_derive(CustomResource, attributes(crd))]
pub fn derive_custom_resource(input: TokenStream) -> TokenStream {
    match syn::parse::<syn::DeriveInput>(input) {
        Ok(input) => codegen::resource::derive_resource(&input).into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// Derives `crd_runtime::CrdSchema`: the structural schema of a struct or enum.
///
/// See `crd-derive/ATTRIBUTES.md` for the `#[crd(...)]` keywords.
#[proc_macro_derive(CrdSchema, attributes(crd))]
pub fn derive_crd_schema(input: TokenStream) -> TokenStream {
    match syn::parse::<syn::DeriveInput>(input) {
        Ok(input) => codegen::derive_schema(&input).into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// Every version of a kind from one module of types: `pub mod <version>` for each
/// version, lossless conversions between them, the merged CRD and the converter.
///
/// See `docs/versions.md` and section 5 of `crd-derive/ATTRIBUTES.md`.
#[proc_macro_attribute]
pub fn versioned(attr: TokenStream, item: TokenStream) -> TokenStream {
    versioned::expand(attr.into(), item.into()).into()
}
