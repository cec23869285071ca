//! kwok's jq-like keys (`selector.matchExpressions[].key`, `*.expressionFrom`): a
//! pipeline of paths, each `.a.b`, `.a["b"]`, `.a[0]`, `.a[]` / `.a.[]` (every item),
//! and `select( PATH == "v" )` / `select( PATH != "v" )` filters. A query yields every
//! value it reaches (none when a field is missing).

use serde_json::Value;

/// A parsed key.
#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    stages: Vec<Part>,
}

#[derive(Clone, Debug, PartialEq)]
enum Part {
    Path(Vec<Step>),
    Select(Vec<Step>, bool, Value),
}

#[derive(Clone, Debug, PartialEq)]
enum Step {
    Field(String),
    Index(usize),
    Each,
}

impl Query {
    /// Parses `text`; the error says what is wrong with it.
    pub fn parse(text: &str) -> Result<Query, String> {
        let text = text.trim();
        if text.is_empty() {
            return Err("must not be empty".into());
        }
        let stages = split_pipes(text)
            .into_iter()
            .map(|part| part_of(part.trim()))
            .collect::<Result<_, _>>()?;
        Ok(Query { stages })
    }

    /// Every value the query reaches in `obj` (`null`s left out).
    pub fn eval(&self, obj: &Value) -> Vec<Value> {
        let mut current = vec![obj];
        for part in &self.stages {
            current = match part {
                Part::Path(steps) => current.into_iter().flat_map(|v| walk(v, steps)).collect(),
                Part::Select(steps, equal, want) => current
                    .into_iter()
                    .filter(|v| walk(v, steps).iter().any(|got| same(got, want)) == *equal)
                    .collect(),
            };
        }
        current
            .into_iter()
            .filter(|v| !v.is_null())
            .cloned()
            .collect()
    }

    /// The first value reached, as text (a string as it is, others as JSON).
    pub fn first_text(&self, obj: &Value) -> Option<String> {
        self.eval(obj).first().map(text_of)
    }
}

/// How a reached value compares with a selector's values.
pub fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn same(got: &Value, want: &Value) -> bool {
    got == want || text_of(got) == text_of(want)
}

/// `text` cut at each `|` outside quotes and parentheses.
fn split_pipes(text: &str) -> Vec<&str> {
    let (mut out, mut depth, mut quoted, mut start) = (Vec::new(), 0i32, false, 0);
    for (i, c) in text.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '(' if !quoted => depth += 1,
            ')' if !quoted => depth -= 1,
            '|' if !quoted && depth == 0 => {
                out.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&text[start..]);
    out
}

fn part_of(text: &str) -> Result<Part, String> {
    if let Some(inner) = text.strip_prefix("select") {
        let inner = inner
            .trim()
            .strip_prefix('(')
            .and_then(|s| s.strip_suffix(')'))
            .ok_or_else(|| format!("bad select in {text:?}: want select( PATH == VALUE )"))?;
        let (path, equal, value) = if let Some((p, v)) = inner.split_once("==") {
            (p, true, v)
        } else if let Some((p, v)) = inner.split_once("!=") {
            (p, false, v)
        } else {
            return Err(format!(
                "bad select in {text:?}: only == and != are supported"
            ));
        };
        let value = literal(value.trim())
            .ok_or_else(|| format!("bad value {:?} in {text:?}", value.trim()))?;
        return Ok(Part::Select(steps(path.trim())?, equal, value));
    }
    Ok(Part::Path(steps(text)?))
}

fn literal(text: &str) -> Option<Value> {
    serde_json::from_str(text).ok()
}

fn steps(text: &str) -> Result<Vec<Step>, String> {
    if !text.starts_with('.') {
        return Err(format!("{text:?} is not a path: it must start with \".\""));
    }
    let bytes: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            '.' => {
                i += 1;
                let start = i;
                while i < bytes.len()
                    && (bytes[i].is_alphanumeric() || matches!(bytes[i], '_' | '-'))
                {
                    i += 1;
                }
                if i > start {
                    out.push(Step::Field(bytes[start..i].iter().collect()));
                }
            }
            '[' => {
                let end = bytes[i..]
                    .iter()
                    .position(|c| *c == ']')
                    .map(|p| p + i)
                    .ok_or_else(|| format!("unclosed \"[\" in {text:?}"))?;
                let inner: String = bytes[i + 1..end].iter().collect();
                let inner = inner.trim();
                if inner.is_empty() {
                    out.push(Step::Each);
                } else if let Ok(n) = inner.parse::<usize>() {
                    out.push(Step::Index(n));
                } else if let Some(Value::String(s)) = literal(inner) {
                    out.push(Step::Field(s));
                } else {
                    return Err(format!("bad index [{inner}] in {text:?}"));
                }
                i = end + 1;
            }
            c => return Err(format!("unexpected {c:?} in {text:?}")),
        }
    }
    Ok(out)
}

fn walk<'a>(v: &'a Value, steps: &[Step]) -> Vec<&'a Value> {
    let Some((first, rest)) = steps.split_first() else {
        return vec![v];
    };
    match (first, v) {
        (Step::Field(f), Value::Object(o)) => o.get(f).map(|x| walk(x, rest)).unwrap_or_default(),
        (Step::Index(i), Value::Array(a)) => a.get(*i).map(|x| walk(x, rest)).unwrap_or_default(),
        (Step::Each, Value::Array(a)) => a.iter().flat_map(|x| walk(x, rest)).collect(),
        (Step::Each, Value::Object(o)) => o.values().flat_map(|x| walk(x, rest)).collect(),
        _ => Vec::new(),
    }
}
