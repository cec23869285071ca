//! Reads one k8s-openapi type file: the definition name, the struct's fields with their
//! serde names, the schema k8s-openapi's schemars impl writes (as JSON, `$ref`s by Rust
//! path) and the list/map merge strategies of its `DeepMerge` impl, which k8s-openapi
//! generates from the upstream `x-kubernetes-list-type`/`patchMergeKey` markers.

use std::collections::BTreeMap;

use regex::Regex;
use serde_json::{Map, Value};

/// One type of one k8s-openapi version directory.
#[derive(Debug, Clone)]
pub struct TypeSource {
    /// `api::core::v1::ContainerPort`.
    pub rust_path: String,
    /// `io.k8s.api.core.v1.ContainerPort`.
    pub definition: String,
    /// The schemars schema; subschemas are `{"$ref": "crate::api::...::T", ...}`.
    pub schema: Value,
    /// Rust field name → (serde name, Rust type).
    pub fields: BTreeMap<String, (String, String)>,
    /// Rust field name → merge strategy.
    pub strategies: BTreeMap<String, Strategy>,
}

/// How `DeepMerge` merges a field: the list/map type of the upstream marker.
#[derive(Debug, Clone, PartialEq)]
pub enum Strategy {
    ListAtomic,
    ListSet,
    /// Keys as Rust field names of the item type.
    ListMap(Vec<String>),
    MapAtomic,
}

/// Parses a type file; `None` for files without a schemars impl (`mod.rs`, `List`).
pub fn parse_type_file(module: &str, text: &str) -> Result<Option<TypeSource>, String> {
    let Some(impl_at) = text.find("impl crate::schemars::JsonSchema for ") else {
        return Ok(None);
    };
    let rest = &text[impl_at + "impl crate::schemars::JsonSchema for ".len()..];
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    let definition = capture(
        &Regex::new(r#"fn schema_name\(\)[^{]*\{\s*"([^"]+)"\.into\(\)"#).unwrap(),
        rest,
    )
    .ok_or_else(|| format!("{name}: no schema_name"))?;
    let body_at = rest
        .find("crate::schemars::json_schema!(")
        .ok_or_else(|| format!("{name}: no json_schema!"))?
        + "crate::schemars::json_schema!(".len();
    let mut parser = Parser {
        text: &rest[body_at..],
        at: 0,
    };
    let schema = parser.value().map_err(|e| format!("{name}: schema: {e}"))?;
    Ok(Some(TypeSource {
        rust_path: format!("{module}::{name}"),
        definition,
        schema,
        fields: struct_fields(text, &name),
        strategies: merge_strategies(text),
    }))
}

fn capture(re: &Regex, text: &str) -> Option<String> {
    re.captures(text).map(|c| c[1].to_string())
}

/// `pub ident: Type,` lines of `pub struct Name { ... }`, with serde names from the
/// `Deserialize` impl's `"serdeName" => Field::Key_ident` arms.
fn struct_fields(text: &str, name: &str) -> BTreeMap<String, (String, String)> {
    let mut fields = BTreeMap::new();
    let Some(start) = text.find(&format!("pub struct {name} {{")) else {
        return fields;
    };
    let body = &text[start..];
    let body = &body[..body.find("\n}").unwrap_or(body.len())];
    let serde_names: BTreeMap<String, String> =
        Regex::new(r#""([^"]+)" => Field::Key_([A-Za-z0-9_]+),"#)
            .unwrap()
            .captures_iter(text)
            .map(|c| (c[2].to_string(), c[1].to_string()))
            .collect();
    let field = Regex::new(r"(?m)^    pub ([a-z0-9_]+): (.+),$").unwrap();
    for c in field.captures_iter(body) {
        let ident = c[1].to_string();
        let serde = serde_names
            .get(&ident)
            .cloned()
            .unwrap_or_else(|| ident.clone());
        fields.insert(ident, (serde, c[2].to_string()));
    }
    fields
}

fn merge_strategies(text: &str) -> BTreeMap<String, Strategy> {
    let mut out = BTreeMap::new();
    let Some(start) = text.find("impl crate::DeepMerge for") else {
        return out;
    };
    let body = &text[start..];
    let body = &body[..body.find("\n}").unwrap_or(body.len())];
    let simple = Regex::new(
        r"crate::merge_strategies::(list::atomic|list::set|map::atomic)\(&mut self\.([a-z0-9_]+),",
    )
    .unwrap();
    for c in simple.captures_iter(body) {
        let strategy = match &c[1] {
            "list::atomic" => Strategy::ListAtomic,
            "list::set" => Strategy::ListSet,
            _ => Strategy::MapAtomic,
        };
        out.insert(c[2].to_string(), strategy);
    }
    let map = Regex::new(
        r"crate::merge_strategies::list::map\(\s*&mut self\.([a-z0-9_]+),\s*other\.[a-z0-9_]+,\s*&\[\|lhs, rhs\| ([^\]]+)\]",
    )
    .unwrap();
    let key = Regex::new(r"lhs\.([a-z0-9_.]+)").unwrap();
    for c in map.captures_iter(body) {
        let keys: Vec<String> = key.captures_iter(&c[2]).map(|k| k[1].to_string()).collect();
        // A key inside a nested object (`metadata.name`) is a strategic-merge key only;
        // list map keys are scalar fields of the item.
        if keys.iter().all(|k| !k.contains('.')) {
            out.insert(c[1].to_string(), Strategy::ListMap(keys));
        }
    }
    out
}

/// The `json_schema!` body: JSON with trailing commas, plus two Rust expressions for
/// subschemas, `__gen.subschema_for::<T>()` and a block that inserts string keys
/// (`description`) into it.
struct Parser<'a> {
    text: &'a str,
    at: usize,
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while let Some(c) = self.peek() {
            if c.is_whitespace() {
                self.at += c.len_utf8();
            } else {
                break;
            }
        }
    }

    fn peek(&self) -> Option<char> {
        self.text[self.at..].chars().next()
    }

    fn expect(&mut self, c: char) -> Result<(), String> {
        self.skip_ws();
        if self.peek() == Some(c) {
            self.at += 1;
            Ok(())
        } else {
            Err(format!("expected `{c}` at {}", self.context()))
        }
    }

    fn context(&self) -> String {
        self.text[self.at..].chars().take(60).collect()
    }

    fn value(&mut self) -> Result<Value, String> {
        self.skip_ws();
        match self.peek() {
            Some('{') => self.object(),
            Some('[') => self.array(),
            Some('"') => self.string().map(Value::String),
            Some('(') => self.expression(),
            Some('_') => self.expression(),
            Some(c) if c == '-' || c.is_ascii_digit() => self.number(),
            _ if self.text[self.at..].starts_with("true") => {
                self.at += 4;
                Ok(Value::Bool(true))
            }
            _ if self.text[self.at..].starts_with("false") => {
                self.at += 5;
                Ok(Value::Bool(false))
            }
            _ => Err(format!("unexpected input at {}", self.context())),
        }
    }

    fn object(&mut self) -> Result<Value, String> {
        self.expect('{')?;
        let mut map = Map::new();
        loop {
            self.skip_ws();
            if self.peek() == Some('}') {
                self.at += 1;
                return Ok(Value::Object(map));
            }
            let key = self.string()?;
            self.expect(':')?;
            let value = self.value()?;
            map.insert(key, value);
            self.skip_ws();
            if self.peek() == Some(',') {
                self.at += 1;
            }
        }
    }

    fn array(&mut self) -> Result<Value, String> {
        self.expect('[')?;
        let mut items = Vec::new();
        loop {
            self.skip_ws();
            if self.peek() == Some(']') {
                self.at += 1;
                return Ok(Value::Array(items));
            }
            items.push(self.value()?);
            self.skip_ws();
            if self.peek() == Some(',') {
                self.at += 1;
            }
        }
    }

    fn number(&mut self) -> Result<Value, String> {
        let len = self.text[self.at..]
            .find(|c: char| !(c == '-' || c == '.' || c.is_ascii_digit()))
            .unwrap_or(self.text.len() - self.at);
        let literal = &self.text[self.at..self.at + len];
        self.at += len;
        serde_json::from_str(literal).map_err(|e| format!("number `{literal}`: {e}"))
    }

    /// A Rust string literal, escapes decoded.
    fn string(&mut self) -> Result<String, String> {
        self.expect('"')?;
        let mut out = String::new();
        let mut chars = self.text[self.at..].char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.at += i + 1;
                    return Ok(out);
                }
                '\\' => match chars.next().map(|(_, c)| c) {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some('r') => out.push('\r'),
                    Some('0') => out.push('\0'),
                    Some('u') => {
                        let hex: String = chars
                            .by_ref()
                            .map(|(_, c)| c)
                            .skip(1)
                            .take_while(|c| *c != '}')
                            .collect();
                        let code = u32::from_str_radix(&hex, 16).map_err(|e| e.to_string())?;
                        out.push(char::from_u32(code).ok_or("bad \\u escape")?);
                    }
                    Some(other) => out.push(other),
                    None => break,
                },
                c => out.push(c),
            }
        }
        Err("unterminated string".into())
    }

    /// `(__gen.subschema_for::<T>())`, `__gen.subschema_for::<T>()` or
    /// `({ let mut schema_obj = ...; schema_obj.ensure_object().insert("k".into(), "v".into()); schema_obj })`.
    fn expression(&mut self) -> Result<Value, String> {
        let start = self.at;
        let mut depth = 0usize;
        let mut in_string = false;
        let mut escaped = false;
        let mut end = None;
        for (i, c) in self.text[start..].char_indices() {
            if in_string {
                match (escaped, c) {
                    (true, _) => escaped = false,
                    (false, '\\') => escaped = true,
                    (false, '"') => in_string = false,
                    _ => {}
                }
                continue;
            }
            match c {
                '"' => in_string = true,
                '(' | '{' | '[' => depth += 1,
                ')' | '}' | ']' if depth == 0 => {
                    end = Some(start + i);
                    break;
                }
                ')' | '}' | ']' => {
                    depth -= 1;
                    if depth == 0 && self.text[start..].starts_with('(') {
                        end = Some(start + i + 1);
                        break;
                    }
                }
                ',' if depth == 0 => {
                    end = Some(start + i);
                    break;
                }
                _ => {}
            }
        }
        let end = end.ok_or("unterminated expression")?;
        let expr = &self.text[start..end];
        self.at = end;
        let target = capture(
            &Regex::new(r"subschema_for::<crate::([A-Za-z0-9_:]+)>\(\)").unwrap(),
            expr,
        )
        .ok_or_else(|| format!("not a subschema expression: {expr}"))?;
        let mut map = Map::new();
        map.insert("$ref".into(), Value::String(target));
        let insert =
            Regex::new(r#"insert\("([^"]+)"\.into\(\), "((?:[^"\\]|\\.)*)"\.into\(\)\)"#).unwrap();
        for c in insert.captures_iter(expr) {
            let mut literal = Parser {
                text: &c[0][c[0].find(", ").unwrap() + 2..],
                at: 0,
            };
            map.insert(c[1].to_string(), Value::String(literal.string()?));
        }
        Ok(Value::Object(map))
    }
}
