//! controller-gen's markers that compile to CEL rules: `immutable` (`+k8s:immutable`) and
//! the one-of groups (`+kubebuilder:validation:AtMostOneOf` / `ExactlyOneOf` /
//! `AtLeastOneOf`), with the rule and message text controller-gen v0.21 writes, and the
//! compile-time resolution of the field names a group lists.

use proc_macro2::TokenStream;
use quote::quote;
use serde_derive_internals::Ctxt;

use crate::attr::node::{Entry, Kind, NodeAttrs, Val};
use crate::attr::value::Sp;
use crate::tokens::Rt;

/// controller-gen's `+k8s:immutable` rule and message (on the field's own node).
pub const IMMUTABLE_RULE: &str = "self == oldSelf";
/// The message of [`IMMUTABLE_RULE`].
pub const IMMUTABLE_MESSAGE: &str = "field is immutable";

/// The properties of a plain struct, for checking one-of groups.
pub struct FieldNames {
    /// (Rust field name, serde name) of every property, in declaration order.
    pub fields: Vec<(String, String)>,
    /// False when a `#[serde(flatten)]` field adds properties the macro cannot see.
    pub complete: bool,
}

/// The API server's CEL name for property `name` (`foo-bar` → `foo__dash__bar`,
/// reserved words → `__namespace__`), or `None` when CEL cannot name it.
pub fn cel_ident(name: &str) -> Option<String> {
    const RESERVED: &[&str] = &[
        "true",
        "false",
        "null",
        "in",
        "as",
        "break",
        "const",
        "continue",
        "else",
        "for",
        "function",
        "if",
        "import",
        "let",
        "loop",
        "package",
        "namespace",
        "return",
        "var",
        "void",
        "while",
    ];
    if RESERVED.contains(&name) {
        return Some(format!("__{name}__"));
    }
    let ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '/');
    let first = name.chars().next()?;
    if first.is_ascii_digit() || !name.chars().all(ok) {
        return None;
    }
    Some(
        name.replace("__", "__underscores__")
            .replace('.', "__dot__")
            .replace('-', "__dash__")
            .replace('/', "__slash__"),
    )
}

/// The rule and message of a one-of group, as controller-gen v0.21 writes them
/// (`fieldsToOneOfCelRuleStr`; Go's `%v` of the names for the message).
pub fn one_of_rule(key: &str, names: &[String]) -> (String, String) {
    let has: Vec<String> = names
        .iter()
        .map(|n| format!("has(self.{})", cel_ident(n).unwrap_or_else(|| n.clone())))
        .collect();
    let list = format!("[{}].filter(x,x==true).size()", has.join(","));
    let names = names.join(" ");
    match key {
        "exactly_one_of" => (
            format!("{list} == 1"),
            format!("exactly one of the fields in [{names}] must be set"),
        ),
        "at_most_one_of" => (
            format!("{list} <= 1"),
            format!("at most one of the fields in [{names}] may be set"),
        ),
        _ => (
            format!("{list} >= 1"),
            format!("at least one of the fields in [{names}] must be set"),
        ),
    }
}

/// The rule controller-gen puts on the parent of an optional immutable field: the
/// field's own transition rule does not run when the new object drops the field.
pub fn once_set_rule(name: &str) -> (String, String) {
    let n = cel_ident(name).unwrap_or_else(|| name.to_string());
    (
        format!("!has(oldSelf.{n}) || has(self.{n})"),
        format!("field {name} is immutable once set"),
    )
}

/// Tokens building a rule with a message.
pub fn rule_tokens(rt: &Rt, rule: &str, message: &str) -> TokenStream {
    let p = rt.private();
    let none = quote!(::core::option::Option::None);
    quote!(#p::rule(#rule, ::core::option::Option::Some(#message), #none, #none, #none, #none))
}

/// `attrs` with the names of its one-of groups checked against `names` (the struct the
/// node describes, when the macro knows it) and turned into serde names; every unknown,
/// repeated or CEL-unnameable name is a compile error at the name.
pub fn resolve(cx: &Ctxt, attrs: &NodeAttrs, names: Option<&FieldNames>) -> NodeAttrs {
    let mut out = attrs.clone();
    for e in &mut out.entries {
        if e.kw.kind != Kind::OneOf {
            continue;
        }
        let resolved = match &e.val {
            Val::StrList(list) => resolve_list(cx, e, list, names, false),
            Val::FieldIdents(list) => resolve_list(cx, e, list, names, true),
            _ => continue,
        };
        e.val = Val::StrList(resolved);
    }
    out
}

fn resolve_list(
    cx: &Ctxt,
    e: &Entry,
    list: &Sp<Vec<Sp<String>>>,
    names: Option<&FieldNames>,
    rust: bool,
) -> Sp<Vec<Sp<String>>> {
    let key = e.kw.key;
    let mut out: Vec<Sp<String>> = Vec::new();
    for n in &list.value {
        let found = names.and_then(|f| {
            f.fields
                .iter()
                .find(|(r, s)| if rust { r == &n.value } else { s == &n.value })
        });
        let serde_name = match (found, names) {
            (Some((_, s)), _) => s.clone(),
            (None, None) => n.value.clone(),
            // A flattened type's properties are not Rust fields of this struct; their
            // serde names cannot be checked here (the CRD check rejects unknown ones).
            (None, Some(f)) if !f.complete && !rust => n.value.clone(),
            (None, Some(f)) => {
                cx.syn_error(syn::Error::new(n.span, unknown(key, &n.value, f, rust)));
                continue;
            }
        };
        if out.iter().any(|o| o.value == serde_name) {
            cx.syn_error(syn::Error::new(
                n.span,
                format!("`{key}` names `{}` twice", n.value),
            ));
            continue;
        }
        if cel_ident(&serde_name).is_none() {
            cx.syn_error(syn::Error::new(
                n.span,
                format!("`{key}`: the property name {serde_name:?} cannot be used in a CEL rule"),
            ));
        }
        out.push(Sp {
            value: serde_name,
            span: n.span,
        });
    }
    Sp {
        value: out,
        span: list.span,
    }
}

fn unknown(key: &str, name: &str, f: &FieldNames, rust: bool) -> String {
    let list: Vec<&str> = f
        .fields
        .iter()
        .map(|(r, s)| if rust { r.as_str() } else { s.as_str() })
        .collect();
    let what = if rust {
        "field of this struct"
    } else {
        "property of this struct (serde names, after renames)"
    };
    let mut msg = format!(
        "`{key}`: `{name}` is not a {what}; expected one of: {}",
        list.join(", ")
    );
    if rust && !f.complete {
        msg.push_str(&format!(
            "; properties of a flattened type are named by their serde names: `{key} = [\"{name}\"]`"
        ));
    }
    msg
}

#[cfg(test)]
mod tests {
    use super::{cel_ident, once_set_rule, one_of_rule};

    #[test]
    fn names_are_escaped_like_the_api_server() {
        assert_eq!(cel_ident("spec").as_deref(), Some("spec"));
        assert_eq!(cel_ident("namespace").as_deref(), Some("__namespace__"));
        assert_eq!(cel_ident("x-tag").as_deref(), Some("x__dash__tag"));
        assert_eq!(cel_ident("a.b/c").as_deref(), Some("a__dot__b__slash__c"));
        assert_eq!(cel_ident("a__b").as_deref(), Some("a__underscores__b"));
        assert_eq!(cel_ident("1x"), None);
        assert_eq!(cel_ident("a b"), None);
        assert_eq!(cel_ident(""), None);
    }

    #[test]
    fn rules_use_escaped_names_and_messages_the_plain_ones() {
        let names = ["x-a".to_string(), "b".to_string()];
        assert_eq!(
            one_of_rule("at_least_one_of", &names),
            (
                "[has(self.x__dash__a),has(self.b)].filter(x,x==true).size() >= 1".to_string(),
                "at least one of the fields in [x-a b] must be set".to_string()
            )
        );
        assert_eq!(
            once_set_rule("x-a"),
            (
                "!has(oldSelf.x__dash__a) || has(self.x__dash__a)".to_string(),
                "field x-a is immutable once set".to_string()
            )
        );
    }
}
