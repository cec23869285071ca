//! The one naming policy of the generator: JSON names → Rust identifiers.
//!
//! Every identifier in generated code comes from here, so the rules are in one
//! place and tested together:
//!
//! - fields are `snake_case`, types and variants `PascalCase` (heck);
//! - Rust keywords become raw identifiers (`r#type`), except the four that cannot be
//!   raw (`self`, `Self`, `super`, `crate`), which get a readable suffix;
//! - characters that cannot appear in an identifier (`x-foo`, `$ref`, `@type`,
//!   `a.b`) separate words; non-ASCII characters become a `uXXXX` word; a leading
//!   digit gets a prefix; a name left empty gets a stand-in word;
//! - whenever the identifier differs from the JSON name, the caller emits a serde
//!   rename with the original text, so the wire format never changes;
//! - collisions inside one scope get a numeric suffix in a deterministic order
//!   (see [`Scope`]).
//!
//! The JSON text never reaches the token stream as anything but a string literal,
//! so a hostile name cannot inject code.

use std::collections::BTreeSet;

use super::case;

/// A Rust identifier chosen for a JSON name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RustName {
    /// The identifier as written in Rust (may start with `r#`).
    pub ident: String,
    /// The JSON name to put in `#[serde(rename = ...)]`, when it differs from the
    /// identifier as serde sees it (serde strips `r#`).
    pub rename: Option<String>,
}

impl RustName {
    fn new(ident: String, json: &str) -> RustName {
        let bare = ident.strip_prefix("r#").unwrap_or(&ident);
        let rename = (bare != json).then(|| json.to_string());
        RustName { ident, rename }
    }

    /// The identifier without a raw prefix (what serde and humans see).
    pub fn bare(&self) -> &str {
        self.ident.strip_prefix("r#").unwrap_or(&self.ident)
    }
}

/// The longest of [`KEYWORDS`] and [`NOT_RAW`].
const MAX_KEYWORD_LEN: usize = 8;

/// Strict and reserved keywords of Rust 2024 (raw-able ones), sorted.
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "do", "dyn",
    "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let",
    "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref", "return",
    "static", "struct", "trait", "true", "try", "type", "typeof", "unsafe", "unsized", "use",
    "virtual", "where", "while", "yield",
];

/// Keywords that cannot be raw identifiers.
const NOT_RAW: &[&str] = &["self", "Self", "super", "crate"];

/// Only ASCII letters and digits (and not empty).
fn is_alphanumeric(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// Splits arbitrary text into identifier-safe words: ASCII alphanumerics are kept,
/// every other ASCII character separates words, and each non-ASCII character
/// becomes its own `uXXXX` word (so distinct unicode names stay distinct).
fn sanitize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        if ch.is_ascii_alphanumeric() {
            out.push(ch);
        } else if ch.is_ascii() {
            out.push(' ');
        } else {
            out.push_str(&format!(" u{:04x} ", ch as u32));
        }
    }
    out
}

/// Words for names made only of punctuation (`*`, `+`, `-`), so that enum values
/// such as `"*"` get a readable variant.
fn symbol_words(text: &str) -> String {
    let mut words = Vec::new();
    for ch in text.chars() {
        let w = match ch {
            '*' => "star",
            '+' => "plus",
            '-' => "minus",
            '.' => "dot",
            '/' => "slash",
            '=' => "equals",
            '<' => "less",
            '>' => "greater",
            '!' => "bang",
            '?' => "question",
            '@' => "at",
            '#' => "hash",
            '$' => "dollar",
            '%' => "percent",
            '&' => "and",
            '|' => "or",
            '~' => "tilde",
            ':' => "colon",
            ',' => "comma",
            '_' => "underscore",
            ' ' => "space",
            _ => "symbol",
        };
        words.push(w);
    }
    words.join(" ")
}

/// `snake_case` field (or module) identifier for a JSON property name.
pub fn field_name(json: &str) -> RustName {
    RustName::new(snake_ident(json, "field"), json)
}

/// `snake_case` identifier (no rename needed: module and file names).
pub fn snake_ident(text: &str, empty: &str) -> String {
    let mut snake = if is_alphanumeric(text) {
        // `sanitize` would return it unchanged.
        case::snake(text)
    } else {
        case::snake(&sanitize(text))
    };
    if snake.is_empty() {
        snake = case::snake(&symbol_words(text));
    }
    if snake.is_empty() {
        snake = empty.to_string();
    }
    if snake.starts_with(|c: char| c.is_ascii_digit()) {
        snake.insert(0, '_');
    }
    keyword_safe(snake)
}

/// `PascalCase` variant identifier for an enum value.
pub fn variant_name(value: &str) -> RustName {
    RustName::new(pascal_ident(value, "Empty", "V"), value)
}

/// `PascalCase` identifier from several path segments (type names).
pub fn type_name(segments: &[&str]) -> String {
    let joined: Vec<String> = segments.iter().map(|s| pascal_ident(s, "", "")).collect();
    join_type_name(joined.concat())
}

/// [`type_name`] remembering each segment's `PascalCase` form: a struct's name is the
/// first segment of every nested type's name, and property names repeat across a
/// schema, so most segments are converted once.
#[derive(Debug, Default)]
pub struct TypeNamer {
    pascal: foldhash::HashMap<String, String>,
}

impl TypeNamer {
    /// Same as [`type_name`].
    pub fn type_name(&mut self, segments: &[&str]) -> String {
        let mut name = String::new();
        for segment in segments {
            match self.pascal.get(*segment) {
                Some(p) => name.push_str(p),
                None => {
                    let p = pascal_ident(segment, "", "");
                    name.push_str(&p);
                    self.pascal.insert(segment.to_string(), p);
                }
            }
        }
        join_type_name(name)
    }
}

fn join_type_name(name: String) -> String {
    if name.is_empty() {
        return "Object".to_string();
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        return format!("T{name}");
    }
    keyword_safe(not_all_capitals(name))
}

fn pascal_ident(text: &str, empty: &str, digit_prefix: &str) -> String {
    let mut pascal = if is_alphanumeric(text) {
        // One word, which `sanitize` would return unchanged (most names).
        case::pascal(text)
    } else {
        // heck drops the boundary between digits ("1.2" → "12"); keep it as `_`,
        // which the camel-case lint accepts between two digits.
        let mut pascal = String::new();
        for w in sanitize(text).split(' ').filter(|w| !w.is_empty()) {
            let w = case::pascal(w);
            let prev_digit = pascal.ends_with(|c: char| c.is_ascii_digit());
            if prev_digit && w.starts_with(|c: char| c.is_ascii_digit()) {
                pascal.push('_');
            }
            pascal.push_str(&w);
        }
        pascal
    };
    if pascal.is_empty() && !text.is_empty() {
        pascal = case::pascal(&symbol_words(text));
    }
    if pascal.is_empty() {
        pascal = empty.to_string();
    }
    if pascal.starts_with(|c: char| c.is_ascii_digit()) {
        pascal.insert_str(0, digit_prefix);
    }
    keyword_safe(not_all_capitals(pascal))
}

/// `TUW` (from the single-letter words of "t.u.w") → `Tuw`: clippy's
/// `upper_case_acronyms` refuses identifiers of three or more capitals and nothing
/// else, as `PascalCase` would write one word.
fn not_all_capitals(mut ident: String) -> String {
    if ident.len() > 2 && ident.bytes().all(|b| b.is_ascii_uppercase()) {
        ident[1..].make_ascii_lowercase();
    }
    ident
}

fn keyword_safe(ident: String) -> String {
    // Every keyword is short: most names are done after one comparison.
    if ident.len() > MAX_KEYWORD_LEN {
        return ident;
    }
    if NOT_RAW.contains(&ident.as_str()) {
        // `self_` would trip the camel-case lint for `Self`, so use a word.
        return if ident == "Self" {
            "SelfValue".to_string()
        } else {
            format!("{ident}_")
        };
    }
    if KEYWORDS.binary_search(&ident.as_str()).is_ok() {
        return format!("r#{ident}");
    }
    ident
}

/// One namespace (the fields of a struct, the variants of an enum, the types of a
/// module): hands out unique identifiers. The first claimant of a name keeps it;
/// later ones get `_2`, `_3`, ... (`2`, `3` for PascalCase names). Callers claim in
/// a deterministic order, and claim exact spellings first (a JSON name that is
/// already the identifier), so the most natural owner keeps the plain name.
#[derive(Default, Debug, Clone)]
pub struct Scope {
    taken: BTreeSet<String>,
    /// Type names: the derive defines `XApply` next to each struct `X` (its apply
    /// configuration), so `X` and `XApply` exclude each other.
    apply_pairs: bool,
}

impl Scope {
    /// A scope of type names (see [`Scope::apply_pairs`]) where `reserved` are taken.
    pub fn for_types(reserved: &[&str]) -> Scope {
        Scope {
            apply_pairs: true,
            ..Scope::with_reserved(reserved)
        }
    }

    /// A scope where `reserved` identifiers are already taken.
    pub fn with_reserved(reserved: &[&str]) -> Scope {
        Scope {
            taken: reserved.iter().map(|s| s.to_string()).collect(),
            apply_pairs: false,
        }
    }

    /// Claims `name`, or the first free suffixed form of it.
    pub fn claim(&mut self, name: RustName, json: &str) -> RustName {
        if self.take(name.bare()) {
            return name;
        }
        let bare = name.bare().to_string();
        let snake = bare.starts_with(|c: char| c.is_ascii_lowercase() || c == '_');
        let base = bare.trim_end_matches('_');
        for n in 2.. {
            let candidate = if snake || base.ends_with(|c: char| c.is_ascii_digit()) {
                format!("{base}_{n}")
            } else {
                format!("{base}{n}")
            };
            if self.take(&candidate) {
                return RustName::new(candidate, json);
            }
        }
        unreachable!("an unbounded range always yields a free name")
    }

    /// Takes `bare` if it is free (allocating only then).
    fn take(&mut self, bare: &str) -> bool {
        let free = !self.taken.contains(bare)
            && !(self.apply_pairs
                && (self.taken.contains(&format!("{bare}Apply"))
                    || bare
                        .strip_suffix("Apply")
                        .is_some_and(|x| self.taken.contains(x))));
        if free {
            self.taken.insert(bare.to_string());
        }
        free
    }

    /// Gives a claimed identifier back (a definition that turned out to be shared).
    pub fn release(&mut self, ident: &str) {
        self.taken.remove(ident.strip_prefix("r#").unwrap_or(ident));
    }

    /// Claims a plain identifier (no serde rename involved), e.g. a type name.
    pub fn claim_ident(&mut self, ident: String) -> String {
        if self.take(ident.strip_prefix("r#").unwrap_or(&ident)) {
            return ident;
        }
        let name = RustName {
            ident: ident.clone(),
            rename: None,
        };
        self.claim(name, &ident).ident
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The fast paths skip `sanitize` only where it changes nothing.
        #[test]
        fn alphanumeric_names_need_no_sanitizing(text in "[a-zA-Z0-9]{1,16}") {
            proptest::prop_assert!(is_alphanumeric(&text));
            proptest::prop_assert_eq!(sanitize(&text), text);
        }
    }

    #[test]
    fn keyword_tables_are_sorted_and_short() {
        assert!(
            KEYWORDS.windows(2).all(|w| w[0] < w[1]),
            "KEYWORDS must stay sorted"
        );
        let longest = KEYWORDS.iter().chain(NOT_RAW).map(|k| k.len()).max();
        assert_eq!(longest, Some(MAX_KEYWORD_LEN));
        for k in KEYWORDS {
            assert_eq!(keyword_safe(k.to_string()), format!("r#{k}"));
        }
    }

    fn f(json: &str) -> (String, Option<String>) {
        let n = field_name(json);
        (n.ident, n.rename)
    }

    #[test]
    fn fields_are_snake_case_with_renames() {
        assert_eq!(f("cronSpec"), ("cron_spec".into(), Some("cronSpec".into())));
        assert_eq!(f("image"), ("image".into(), None));
        assert_eq!(
            f("apiVersion"),
            ("api_version".into(), Some("apiVersion".into()))
        );
        assert_eq!(
            f("HTTPRoute"),
            ("http_route".into(), Some("HTTPRoute".into()))
        );
    }

    #[test]
    fn keywords_become_raw_or_suffixed() {
        assert_eq!(f("type"), ("r#type".into(), None));
        assert_eq!(f("match"), ("r#match".into(), None));
        assert_eq!(f("async"), ("r#async".into(), None));
        assert_eq!(f("self"), ("self_".into(), Some("self".into())));
        assert_eq!(f("crate"), ("crate_".into(), Some("crate".into())));
        assert_eq!(variant_name("self").ident, "SelfValue");
        assert_eq!(type_name(&["self"]), "SelfValue");
    }

    #[test]
    fn impossible_identifiers_are_sanitized() {
        assert_eq!(f("x-foo"), ("x_foo".into(), Some("x-foo".into())));
        assert_eq!(f("$ref"), ("r#ref".into(), Some("$ref".into())));
        assert_eq!(f("@type"), ("r#type".into(), Some("@type".into())));
        assert_eq!(
            f("1password"),
            ("_1password".into(), Some("1password".into()))
        );
        assert_eq!(f(""), ("field".into(), Some("".into())));
        assert_eq!(f("größe").0, "gr_u00f6_u00df_e");
        assert_eq!(f("*"), ("star".into(), Some("*".into())));
        assert_eq!(f("a.b/c"), ("a_b_c".into(), Some("a.b/c".into())));
        assert_eq!(f("\"); panic!(\"").0, "panic");
    }

    #[test]
    fn variants() {
        assert_eq!(variant_name("Always").ident, "Always");
        assert_eq!(variant_name("Always").rename, None);
        assert_eq!(variant_name("IfNotPresent").rename, None);
        let v = variant_name("");
        assert_eq!((v.ident.as_str(), v.rename.as_deref()), ("Empty", Some("")));
        assert_eq!(variant_name("TLS1.2").ident, "Tls1_2");
        assert_eq!(variant_name("1.2").ident, "V1_2");
        assert_eq!(variant_name("12").ident, "V12");
        assert_eq!(variant_name("*").ident, "Star");
        assert_eq!(variant_name("tcp").ident, "Tcp");
        assert_eq!(variant_name("tcp").rename.as_deref(), Some("tcp"));
        // Single-letter words would make a name of capitals, which clippy refuses.
        let v = variant_name(" \\T.U{$w&");
        assert_eq!(
            (v.ident.as_str(), v.rename.as_deref()),
            ("Tuw", Some(" \\T.U{$w&"))
        );
        assert_eq!(variant_name("a-b").ident, "AB");
        assert_eq!(variant_name("A1B").ident, "A1b");
    }

    #[test]
    fn type_names_from_paths() {
        assert_eq!(type_name(&["CronTab", "spec"]), "CronTabSpec");
        assert_eq!(
            type_name(&["CronTab", "x-foo", "bar_baz"]),
            "CronTabXFooBarBaz"
        );
        assert_eq!(type_name(&["9lives"]), "T9lives");
        assert_eq!(type_name(&["x", "y", "z"]), "Xyz");
        assert_eq!(type_name(&[]), "Object");
    }

    #[test]
    fn cached_type_names_equal_uncached_ones() {
        let segments = [
            "CronTab", "spec", "x-foo", "bar_baz", "9lives", "", "self", "type", "1.2", "grüße",
            "$ref", "@type", "Self", "--", "a1", "1b",
        ];
        let mut namer = TypeNamer::default();
        // Every pair twice: the second round is answered from the cache.
        for _ in 0..2 {
            for a in segments {
                for b in segments {
                    assert_eq!(namer.type_name(&[a, b]), type_name(&[a, b]), "{a:?} {b:?}");
                }
                assert_eq!(namer.type_name(&[a]), type_name(&[a]), "{a:?}");
            }
        }
    }

    #[test]
    fn a_type_and_its_apply_configuration_name_exclude_each_other() {
        let mut types = Scope::for_types(&["CronTab"]);
        assert_eq!(types.claim_ident("CronTabApply".into()), "CronTabApply2");
        assert_eq!(types.claim_ident("Sync".into()), "Sync");
        assert_eq!(types.claim_ident("SyncApply".into()), "SyncApply2");
        let mut types = Scope::for_types(&[]);
        assert_eq!(types.claim_ident("HookApply".into()), "HookApply");
        assert_eq!(types.claim_ident("Hook".into()), "Hook2");
        // Other scopes (fields, modules) are unaffected.
        let mut fields = Scope::default();
        assert_eq!(fields.claim_ident("Sync".into()), "Sync");
        assert_eq!(fields.claim_ident("SyncApply".into()), "SyncApply");
    }

    #[test]
    fn collisions_get_deterministic_suffixes() {
        let mut scope = Scope::default();
        let a = scope.claim(field_name("foo_bar"), "foo_bar");
        let b = scope.claim(field_name("fooBar"), "fooBar");
        let c = scope.claim(field_name("foo-bar"), "foo-bar");
        assert_eq!(a.ident, "foo_bar");
        assert_eq!(a.rename, None);
        assert_eq!(b.ident, "foo_bar_2");
        assert_eq!(b.rename.as_deref(), Some("fooBar"));
        assert_eq!(c.ident, "foo_bar_3");
        let mut scope = Scope::default();
        assert_eq!(scope.claim(variant_name("TCP"), "TCP").ident, "Tcp");
        let second = scope.claim(variant_name("tcp"), "tcp");
        assert_eq!(second.ident, "Tcp2");
        assert_eq!(second.rename.as_deref(), Some("tcp"));
        let mut scope = Scope::with_reserved(&["Value"]);
        assert_eq!(scope.claim_ident("Value".into()), "Value2");
        let mut scope = Scope::default();
        assert_eq!(scope.claim_ident("V1".into()), "V1");
        assert_eq!(scope.claim_ident("V1".into()), "V1_2");
    }

    #[test]
    fn raw_keyword_collisions_keep_renames_right() {
        let mut scope = Scope::default();
        let a = scope.claim(field_name("type"), "type");
        let b = scope.claim(field_name("@type"), "@type");
        assert_eq!(a.ident, "r#type");
        assert_eq!(a.rename, None);
        assert_eq!(b.ident, "type_2");
        assert_eq!(b.rename.as_deref(), Some("@type"));
    }
}
