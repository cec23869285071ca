//! Small constructors for `syn` syntax trees, so item skeletons are built directly
//! instead of being quoted and parsed back.

use proc_macro2::{Ident, Span, TokenStream};
use syn::punctuated::Punctuated;
use syn::{
    AngleBracketedGenericArguments, AttrStyle, Attribute, Expr, ExprLit, GenericArgument, Lit,
    LitStr, MacroDelimiter, Meta, MetaList, MetaNameValue, Path, PathArguments, PathSegment, Type,
    TypePath, Visibility, token,
};

/// A path from identifiers, with or without a leading `::`.
pub fn path(leading_colon: bool, segments: &[&str]) -> Path {
    Path {
        leading_colon: leading_colon.then(Default::default),
        segments: segments
            .iter()
            .map(|s| PathSegment::from(Ident::new(s, Span::call_site())))
            .collect(),
    }
}

/// A single-identifier path.
pub fn ident_path(ident: Ident) -> Path {
    Path {
        leading_colon: None,
        segments: std::iter::once(PathSegment::from(ident)).collect(),
    }
}

/// `path` as a type.
pub fn ty(path: Path) -> Type {
    Type::Path(TypePath {
        attrs: Vec::new(),
        qself: None,
        path,
    })
}

/// `path<args...>` as a type.
pub fn generic(mut path: Path, args: Vec<Type>) -> Type {
    let last = path.segments.last_mut().expect("non-empty path");
    last.arguments = PathArguments::AngleBracketed(AngleBracketedGenericArguments {
        colon2_token: None,
        lt_token: Default::default(),
        args: args.into_iter().map(GenericArgument::Type).collect(),
        gt_token: Default::default(),
    });
    ty(path)
}

/// `pub`.
pub fn public() -> Visibility {
    Visibility::Public(Default::default())
}

fn outer(meta: Meta) -> Attribute {
    Attribute {
        pound_token: Default::default(),
        style: AttrStyle::Outer,
        bracket_token: Default::default(),
        meta,
    }
}

/// `#[doc = "text"]`.
pub fn doc(text: &str) -> Attribute {
    outer(Meta::NameValue(MetaNameValue {
        path: path(false, &["doc"]),
        eq_token: Default::default(),
        value: Expr::Lit(ExprLit {
            attrs: Vec::new(),
            lit: Lit::Str(LitStr::new(text, Span::call_site())),
        }),
    }))
}

/// `#[name(tokens)]`; syn keeps list contents as tokens, so these stay `quote!`d.
pub fn list(name: &str, tokens: TokenStream) -> Attribute {
    outer(Meta::List(MetaList {
        path: path(false, &[name]),
        delimiter: MacroDelimiter::Paren(token::Paren::default()),
        tokens,
    }))
}

/// Punctuation for a list built from an iterator (trailing separator included, as
/// the quoted source had one).
pub fn punctuated<T, P: Default>(items: impl IntoIterator<Item = T>) -> Punctuated<T, P> {
    let mut p = Punctuated::new();
    for item in items {
        p.push_value(item);
        p.push_punct(P::default());
    }
    p
}
