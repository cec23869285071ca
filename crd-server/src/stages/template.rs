//! The subset of Go's `text/template` that kwok's Stage templates use
//! (`next.statusTemplate`, `next.event.message`): text with `{{ }}` actions (`{{-`/`-}}`
//! trim the spaces beside them, `{{/* */}}` is a comment), pipelines with `|`, fields
//! (`.a.b`, `$x.a`, `(pipeline).a`), variables (`$x := …`, `$x = …`, `$` the root),
//! literals (strings, raw strings, numbers, `true`, `false`, `nil`), `if`/`else if`/
//! `else`, `range` (with `$i, $v :=`, and `else`), `with` (and `else`).
//!
//! Functions: Go's `and`, `or`, `not`, `eq`, `ne`, `lt`, `le`, `gt`, `ge`, `len`,
//! `index`, `print`, `printf` (`%s %d %v %q %%`), `println`; kwok's `Quote`, `YAML`,
//! `Now`, `StartTime`, `PodIP`, `NodeIP`, `NodeName`, `Version`, and crd-server's
//! `QOSClass`. The kwok functions that need the object's surroundings are answered by
//! the caller's [`Host`]. Any other name is refused when the template is parsed.

use serde_json::{Value, json};

/// The functions a template can call.
pub const FUNCTIONS: &[&str] = &[
    "and",
    "or",
    "not",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "len",
    "index",
    "print",
    "printf",
    "println",
    "Quote",
    "YAML",
    "Now",
    "StartTime",
    "PodIP",
    "NodeIP",
    "NodeName",
    "Version",
    "QOSClass",
];

/// What a template's kwok functions read: the object's node, its IP, the clock.
pub trait Host {
    /// `Now` (and `StartTime` when the object has none): the server clock, RFC 3339.
    fn now(&self) -> String;
    /// `PodIP`: the Pod's IP (given once, then kept).
    fn pod_ip(&self) -> Result<String, String>;
    /// `NodeIP`: the node's InternalIP.
    fn node_ip(&self) -> String;
    /// `NodeName`.
    fn node_name(&self) -> String;
    /// `QOSClass`: the Pod's QoS class.
    fn qos_class(&self) -> String;
}

/// A parsed template.
#[derive(Clone, Debug)]
pub struct Template {
    nodes: Vec<Node>,
}

#[derive(Clone, Debug)]
enum Node {
    Text(String),
    Action(Pipe),
    If(Vec<(Pipe, Vec<Node>)>, Vec<Node>),
    Range(Pipe, Vec<Node>, Vec<Node>),
    With(Pipe, Vec<Node>, Vec<Node>),
}

#[derive(Clone, Debug, Default)]
struct Pipe {
    /// `$a, $b :=` (declare) or `$a =` (assign).
    vars: Vec<String>,
    declare: bool,
    cmds: Vec<Vec<Arg>>,
}

#[derive(Clone, Debug)]
enum Arg {
    /// `.a.b` (empty: `.`).
    Field(Vec<String>),
    /// `$x.a.b`.
    Var(String, Vec<String>),
    Lit(Value),
    Func(String),
    /// `(pipeline).a.b`.
    Sub(Box<Pipe>, Vec<String>),
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Word(String),
    Str(String),
    Num(Value),
    Open,
    Close,
    Bar,
    Declare,
    Assign,
    Comma,
}

/// Parses `text`; the error says what is wrong (an unknown function names it).
pub fn parse(text: &str) -> Result<Template, String> {
    let mut items = Vec::new();
    let mut rest = text;
    let mut trim_next = false;
    while let Some(start) = rest.find("{{") {
        let mut before = &rest[..start];
        if trim_next {
            before = before.trim_start();
        }
        let after = &rest[start + 2..];
        let trim_left = after.starts_with("- ") || after.starts_with("-\n") || after == "-";
        if trim_left {
            before = before.trim_end();
        }
        items.push(Item::Text(before.to_string()));
        let body_start = if trim_left { 1 } else { 0 };
        let end = find_close(&after[body_start..])
            .ok_or_else(|| "unclosed action: no \"}}\" after \"{{\"".to_string())?;
        let mut body = &after[body_start..body_start + end];
        trim_next = false;
        if body.ends_with(" -") || body.ends_with("\n-") || body == "-" {
            body = &body[..body.len() - 1];
            trim_next = true;
        }
        let body = body.trim();
        if !(body.starts_with("/*") && body.ends_with("*/")) {
            items.push(Item::Action(tokens(body)?));
        }
        rest = &after[body_start + end + 2..];
    }
    items.push(Item::Text(if trim_next {
        rest.trim_start().to_string()
    } else {
        rest.to_string()
    }));
    let mut items = items.into_iter().peekable();
    match block(&mut items)? {
        (nodes, End::Eof) => Ok(Template { nodes }),
        (_, End::Close) => Err("unexpected {{end}}".into()),
        (_, _) => Err("unexpected {{else}}".into()),
    }
}

/// The offset of the `}}` closing an action, past any string in it.
fn find_close(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut i = 0;
    let mut quote: Option<u8> = None;
    while i < bytes.len() {
        match (quote, bytes[i]) {
            (Some(b'"'), b'\\') => i += 1,
            (Some(q), c) if c == q => quote = None,
            (None, b'"' | b'`') => quote = Some(bytes[i]),
            (None, b'}') if bytes.get(i + 1) == Some(&b'}') => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
}

enum Item {
    Text(String),
    Action(Vec<Tok>),
}

type Items = std::iter::Peekable<std::vec::IntoIter<Item>>;

/// How a block ended.
enum End {
    Eof,
    /// `{{end}}`.
    Close,
    Else,
    ElseIf(Vec<Tok>),
}

/// Nodes up to the end of the text, an `{{end}}` or an `{{else …}}`.
fn block(items: &mut Items) -> Result<(Vec<Node>, End), String> {
    let mut nodes = Vec::new();
    while let Some(item) = items.next() {
        let toks = match item {
            Item::Text(t) => {
                if !t.is_empty() {
                    nodes.push(Node::Text(t));
                }
                continue;
            }
            Item::Action(toks) => toks,
        };
        let keyword = match toks.first() {
            Some(Tok::Word(w)) => w.as_str(),
            _ => "",
        };
        match keyword {
            "end" if toks.len() == 1 => return Ok((nodes, End::Close)),
            "else" => {
                return match toks.get(1) {
                    None => Ok((nodes, End::Else)),
                    Some(Tok::Word(w)) if w == "if" => Ok((nodes, End::ElseIf(toks[2..].to_vec()))),
                    Some(_) => Err("only \"else\" and \"else if\" may follow a block".into()),
                };
            }
            "if" => nodes.push(if_node(pipe(&toks[1..])?, items)?),
            "range" | "with" => {
                let p = pipe(&toks[1..])?;
                let (body, end) = block(items)?;
                let otherwise = match end {
                    End::Close => Vec::new(),
                    End::Else => expect_end(items, keyword)?,
                    _ => return Err(format!("{{{{{keyword}}}}} has no {{{{end}}}}")),
                };
                nodes.push(if keyword == "range" {
                    Node::Range(p, body, otherwise)
                } else {
                    Node::With(p, body, otherwise)
                });
            }
            "define" | "template" | "block" | "break" | "continue" => {
                return Err(format!("{{{{{keyword}}}}} is not supported"));
            }
            _ => nodes.push(Node::Action(pipe(&toks)?)),
        }
    }
    Ok((nodes, End::Eof))
}

fn if_node(first: Pipe, items: &mut Items) -> Result<Node, String> {
    let mut branches = vec![];
    let mut cond = first;
    loop {
        let (body, end) = block(items)?;
        branches.push((cond, body));
        match end {
            End::Close => return Ok(Node::If(branches, Vec::new())),
            End::Else => return Ok(Node::If(branches, expect_end(items, "if")?)),
            End::ElseIf(toks) => cond = pipe(&toks)?,
            End::Eof => return Err("{{if}} has no {{end}}".into()),
        }
    }
}

fn expect_end(items: &mut Items, keyword: &str) -> Result<Vec<Node>, String> {
    match block(items)? {
        (nodes, End::Close) => Ok(nodes),
        _ => Err(format!(
            "{{{{{keyword}}}}}'s {{{{else}}}} has no {{{{end}}}}"
        )),
    }
}

fn tokens(body: &str) -> Result<Vec<Tok>, String> {
    let mut out = Vec::new();
    let chars: Vec<char> = body.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' | '\n' | '\r' => i += 1,
            '(' => (out.push(Tok::Open), i += 1).1,
            ')' => (out.push(Tok::Close), i += 1).1,
            '|' => (out.push(Tok::Bar), i += 1).1,
            ',' => (out.push(Tok::Comma), i += 1).1,
            ':' if chars.get(i + 1) == Some(&'=') => (out.push(Tok::Declare), i += 2).1,
            '=' => (out.push(Tok::Assign), i += 1).1,
            '"' => {
                let mut s = String::new();
                i += 1;
                loop {
                    match chars.get(i) {
                        None => return Err(format!("unterminated quoted string in {body:?}")),
                        Some('"') => break,
                        Some('\\') => {
                            i += 1;
                            s.push(match chars.get(i) {
                                Some('n') => '\n',
                                Some('t') => '\t',
                                Some(other) => *other,
                                None => return Err("unterminated quoted string".into()),
                            });
                        }
                        Some(other) => s.push(*other),
                    }
                    i += 1;
                }
                out.push(Tok::Str(s));
                i += 1;
            }
            '`' => {
                let end = chars[i + 1..]
                    .iter()
                    .position(|c| *c == '`')
                    .ok_or_else(|| format!("unterminated raw string in {body:?}"))?;
                out.push(Tok::Str(chars[i + 1..i + 1 + end].iter().collect()));
                i += end + 2;
            }
            _ if c.is_ascii_digit()
                || (c == '-' && chars.get(i + 1).is_some_and(char::is_ascii_digit)) =>
            {
                let start = i;
                i += 1;
                while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                    i += 1;
                }
                let text: String = chars[start..i].iter().collect();
                let n = if let Ok(n) = text.parse::<i64>() {
                    json!(n)
                } else {
                    text.parse::<f64>()
                        .map(|f| json!(f))
                        .map_err(|_| format!("bad number {text:?}"))?
                };
                out.push(Tok::Num(n));
            }
            _ if c == '.' || c == '$' || c.is_alphanumeric() || c == '_' => {
                let start = i;
                i += 1;
                while i < chars.len()
                    && (chars[i].is_alphanumeric() || matches!(chars[i], '_' | '.' | '$'))
                {
                    i += 1;
                }
                out.push(Tok::Word(chars[start..i].iter().collect()));
            }
            other => return Err(format!("unexpected {other:?} in {{{{{body}}}}}")),
        }
    }
    Ok(out)
}

/// The fields of a chain such as `.a.b` (`"."`: none).
fn fields(chain: &str) -> Vec<String> {
    chain
        .split('.')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

fn pipe(toks: &[Tok]) -> Result<Pipe, String> {
    let mut p = Pipe::default();
    let mut toks = toks;
    // `$a :=`, `$a, $b :=`, `$a =`.
    if let Some(at) = toks
        .iter()
        .position(|t| matches!(t, Tok::Declare | Tok::Assign))
    {
        let names = &toks[..at];
        let vars: Vec<String> = names
            .iter()
            .filter(|t| **t != Tok::Comma)
            .map(|t| match t {
                Tok::Word(w) if w.starts_with('$') && !w[1..].contains('.') => Ok(w.clone()),
                _ => Err("only variables can be declared or assigned".to_string()),
            })
            .collect::<Result<_, _>>()?;
        if vars.is_empty() || vars.len() > 2 {
            return Err("a declaration names one or two variables".into());
        }
        p.declare = toks[at] == Tok::Declare;
        p.vars = vars;
        toks = &toks[at + 1..];
    }
    let mut cmd = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        match &toks[i] {
            Tok::Bar => {
                if cmd.is_empty() {
                    return Err("missing command before \"|\"".into());
                }
                p.cmds.push(std::mem::take(&mut cmd));
            }
            Tok::Open => {
                let close = matching_close(toks, i)?;
                let inner = pipe(&toks[i + 1..close])?;
                let mut chain = Vec::new();
                i = close;
                if let Some(Tok::Word(w)) = toks.get(close + 1)
                    && w.starts_with('.')
                {
                    chain = fields(w);
                    i = close + 1;
                }
                cmd.push(Arg::Sub(Box::new(inner), chain));
            }
            Tok::Close => return Err("unexpected \")\"".into()),
            Tok::Str(s) => cmd.push(Arg::Lit(json!(s))),
            Tok::Num(n) => cmd.push(Arg::Lit(n.clone())),
            Tok::Word(w) => cmd.push(word(w)?),
            Tok::Comma | Tok::Declare | Tok::Assign => {
                return Err("unexpected \",\", \":=\" or \"=\"".into());
            }
        }
        i += 1;
    }
    if cmd.is_empty() {
        return Err("missing value for command".into());
    }
    p.cmds.push(cmd);
    Ok(p)
}

fn matching_close(toks: &[Tok], open: usize) -> Result<usize, String> {
    let mut depth = 0;
    for (i, t) in toks.iter().enumerate().skip(open) {
        match t {
            Tok::Open => depth += 1,
            Tok::Close => {
                depth -= 1;
                if depth == 0 {
                    return Ok(i);
                }
            }
            _ => {}
        }
    }
    Err("unclosed \"(\"".into())
}

fn word(w: &str) -> Result<Arg, String> {
    if let Some(var) = w.strip_prefix('$') {
        let (name, rest) = var.split_once('.').unwrap_or((var, ""));
        return Ok(Arg::Var(format!("${name}"), fields(rest)));
    }
    if w.starts_with('.') {
        return Ok(Arg::Field(fields(w)));
    }
    match w {
        "true" => Ok(Arg::Lit(json!(true))),
        "false" => Ok(Arg::Lit(json!(false))),
        "nil" => Ok(Arg::Lit(Value::Null)),
        f if FUNCTIONS.contains(&f) => Ok(Arg::Func(f.to_string())),
        f => Err(format!("function {f:?} not defined")),
    }
}

#[path = "template_eval.rs"]
mod eval;

pub use eval::render;

#[cfg(test)]
#[path = "fake_host.rs"]
pub mod fake_host;

#[cfg(test)]
#[path = "template_tests.rs"]
mod tests;
