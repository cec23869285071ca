//! The conversions between versions: `Convert` between adjacent versions of every type
//! (what the target cannot hold goes to the step's `Cx`), `From` between adjacent root
//! types (the `Cx` lives in the object's annotations), and `From` between every other
//! pair of versions, chained through the versions in between (the `Converter` needs
//! every version to and from the hub, the storage version).

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote};
use syn::Ident;

use super::model::{Member, Model, VType};

/// Whether `ty` names one of the module's types (and so differs between versions).
fn mentions(ty: &impl ToTokens, names: &[String]) -> bool {
    fn walk(ts: TokenStream, names: &[String]) -> bool {
        ts.into_iter().any(|t| match t {
            proc_macro2::TokenTree::Ident(i) => names.contains(&i.to_string()),
            proc_macro2::TokenTree::Group(g) => walk(g.stream(), names),
            _ => false,
        })
    }
    walk(ty.to_token_stream(), names)
}

struct Step<'a> {
    model: &'a Model,
    /// `<rt>::__private::versioned`.
    p: TokenStream,
    names: Vec<String>,
    from: usize,
    to: usize,
}

impl Step<'_> {
    fn up(&self) -> bool {
        self.to > self.from
    }

    fn hi(&self) -> usize {
        self.from.max(self.to)
    }

    fn module(&self, v: usize) -> &Ident {
        &self.model.versions[v].ident
    }

    /// The bound a member crosses in this step when only one side has it.
    fn crossed<'m>(&self, m: &'m Member) -> Option<&'m super::model::Bound> {
        let hi = self.hi();
        [m.added.as_ref(), m.removed.as_ref()]
            .into_iter()
            .flatten()
            .find(|b| b.index == hi)
    }

    /// A value moved as is, or converted when its type names a module type.
    fn carry(&self, value: &Ident, key: &str, ty: Option<&syn::Type>) -> TokenStream {
        let p = &self.p;
        match ty {
            Some(ty) if !mentions(ty, &self.names) => quote!(#value),
            _ => quote!(__cx.at(#key, |__cx| #p::Convert::convert(#value, __cx))),
        }
    }

    fn field_value(&self, m: &Member, local: &Ident) -> TokenStream {
        let p = &self.p;
        let key = m.key();
        if !m.present(self.from) {
            let default = Member::default_expr(self.crossed(m));
            return quote!(__cx.take(#key).unwrap_or_else(|| #default));
        }
        if let Some(change) = m.retype_in(self.hi()) {
            let old = m.ty_at(self.hi() - 1);
            let new = m.ty_at(self.hi());
            let up = match &change.upgrade_with {
                Some(f) => quote!(#f),
                None => quote!(<#old as ::core::convert::Into<#new>>::into),
            };
            let down = match &change.downgrade_with {
                Some(f) => quote!(#f),
                None => quote!(#p::try_from_or_default::<#new, #old>),
            };
            return if self.up() {
                quote!(__cx.upgrade(#key, #local, #up, #down))
            } else {
                quote!(__cx.downgrade(#key, #local, #down, #up))
            };
        }
        self.carry(local, &key, m.ty_at(self.to).as_ref())
    }

    fn struct_body(&self, t: &VType) -> TokenStream {
        let (a, b) = (self.module(self.from), self.module(self.to));
        let ident = &t.input.ident;
        let mut bind = Vec::new();
        let mut keep = Vec::new();
        let mut build = Vec::new();
        for m in &t.members {
            let local = format_ident!("__f_{}", m.key(), span = Span::mixed_site());
            if m.present(self.from) {
                let src = m.ident_at(self.from);
                bind.push(quote!(#src: #local));
                if !m.present(self.to) {
                    let key = m.key();
                    let default = Member::default_expr(self.crossed(m));
                    keep.push(quote!(__cx.keep(#key, &#local, &#default);));
                }
            }
            if m.present(self.to) {
                let dst = m.ident_at(self.to);
                let value = self.field_value(m, &local);
                build.push(quote!(#dst: #value));
            }
        }
        quote! {
            let #a::#ident { #(#bind),* } = self;
            #(#keep)*
            #b::#ident { #(#build),* }
        }
    }

    fn enum_body(&self, t: &VType) -> TokenStream {
        let (a, b) = (self.module(self.from), self.module(self.to));
        let ident = &t.input.ident;
        let syn::Data::Enum(e) = &t.input.data else {
            return TokenStream::new();
        };
        let mut arms = Vec::new();
        for (var, m) in e.variants.iter().zip(&t.members) {
            if !(m.present(self.from) && m.present(self.to)) {
                continue;
            }
            let (src, dst) = (m.ident_at(self.from), m.ident_at(self.to));
            let key = m.key();
            let mut bind = Vec::new();
            let mut build = Vec::new();
            for (i, f) in var.fields.iter().enumerate() {
                let local = format_ident!("__v{}", i, span = Span::mixed_site());
                let name = f
                    .ident
                    .as_ref()
                    .map_or_else(|| i.to_string(), ToString::to_string);
                let value = self.carry(&local, &name, Some(&f.ty));
                match &f.ident {
                    Some(field) => {
                        bind.push(quote!(#field: #local));
                        build.push(quote!(#field: #value));
                    }
                    None => {
                        bind.push(quote!(#local));
                        build.push(value);
                    }
                }
            }
            let (pat, expr) = match &var.fields {
                syn::Fields::Named(_) => (
                    quote!(#a::#ident::#src { #(#bind),* }),
                    quote!(#b::#ident::#dst { #(#build),* }),
                ),
                syn::Fields::Unnamed(_) => (
                    quote!(#a::#ident::#src(#(#bind),*)),
                    quote!(#b::#ident::#dst(#(#build),*)),
                ),
                syn::Fields::Unit => (quote!(#a::#ident::#src), quote!(#b::#ident::#dst)),
            };
            arms.push(quote!(#pat => __cx.at(#key, |__cx| #expr),));
        }
        let lost = t
            .members
            .iter()
            .any(|m| m.present(self.from) && !m.present(self.to));
        if lost {
            arms.push(quote!(__other => {
                __cx.keep_here(&__other);
                ::core::default::Default::default()
            }));
        }
        let gained = t
            .members
            .iter()
            .any(|m| m.present(self.to) && !m.present(self.from));
        let restore = gained.then(|| {
            quote! {
                if let ::core::option::Option::Some(__kept) = __cx.take_here_if_placeholder::<#b::#ident, #a::#ident>(&self) {
                    return __kept;
                }
            }
        });
        quote! {
            #restore
            match self {
                #(#arms)*
            }
        }
    }

    fn type_impl(&self, t: &VType) -> TokenStream {
        let p = &self.p;
        let (a, b) = (self.module(self.from), self.module(self.to));
        let ident = &t.input.ident;
        let body = if t.is_enum() {
            self.enum_body(t)
        } else {
            self.struct_body(t)
        };
        quote! {
            #[automatically_derived]
            impl #p::Convert<#b::#ident> for #a::#ident {
                #[allow(unused_variables, clippy::all)]
                fn convert(self, __cx: &mut #p::Cx) -> #b::#ident {
                    #body
                }
            }
        }
    }

    fn root_impl(&self) -> TokenStream {
        let Some(kind) = &self.model.kind else {
            return TokenStream::new();
        };
        let p = &self.p;
        let (a, b) = (self.module(self.from), self.module(self.to));
        let root = &kind.root;
        let group = &kind.group;
        let (from_name, to_name) = (
            &self.model.versions[self.from].name,
            &self.model.versions[self.to].name,
        );
        let status = kind.status.as_ref().map(|ty| {
            let value = if mentions(ty, &self.names) {
                quote!(__cx.at("status", |__cx| #p::Convert::convert(__o.status, __cx)))
            } else {
                quote!(__o.status)
            };
            quote!(let __status = #value;)
        });
        let status_field = kind.status.as_ref().map(|_| quote!(status: __status,));
        quote! {
            #[automatically_derived]
            impl ::core::convert::From<#a::#root> for #b::#root {
                fn from(__o: #a::#root) -> Self {
                    let mut __metadata = __o.metadata;
                    let mut __cx = #p::Cx::begin(&mut __metadata, #group, #to_name);
                    let __spec = __cx.at("spec", |__cx| #p::Convert::convert(__o.spec, __cx));
                    #status
                    __cx.finish(&mut __metadata, #group, #from_name);
                    #b::#root { metadata: __metadata, spec: __spec, #status_field }
                }
            }
        }
    }
}

/// `From` from version `from` to `to` through every version in between.
fn chain(model: &Model, from: usize, to: usize) -> TokenStream {
    let Some(kind) = &model.kind else {
        return TokenStream::new();
    };
    let root = &kind.root;
    let module = |v: usize| &model.versions[v].ident;
    let path: Vec<usize> = if from < to {
        (from + 1..=to).collect()
    } else {
        (to..from).rev().collect()
    };
    let steps = path.iter().map(|v| {
        let m = module(*v);
        quote!(let __o: #m::#root = ::core::convert::From::from(__o);)
    });
    let (a, b) = (module(from), module(to));
    quote! {
        #[automatically_derived]
        impl ::core::convert::From<#a::#root> for #b::#root {
            fn from(__o: #a::#root) -> Self {
                #(#steps)*
                __o
            }
        }
    }
}

/// Every conversion of the module.
pub fn conversions(model: &Model) -> TokenStream {
    let Some(kind) = &model.kind else {
        return TokenStream::new();
    };
    let rt = &kind.rt;
    let p = quote!(#rt::__private::versioned);
    let names: Vec<String> = model
        .types
        .iter()
        .map(|t| t.input.ident.to_string())
        .collect();
    let mut out = TokenStream::new();
    let n = model.versions.len();
    for lo in 0..n.saturating_sub(1) {
        for (from, to) in [(lo, lo + 1), (lo + 1, lo)] {
            let step = Step {
                model,
                p: p.clone(),
                names: names.clone(),
                from,
                to,
            };
            for t in &model.types {
                out.extend(step.type_impl(t));
            }
            out.extend(step.root_impl());
        }
    }
    for from in 0..n {
        for to in (0..n).filter(|to| to.abs_diff(from) > 1) {
            out.extend(chain(model, from, to));
        }
    }
    out
}
