//! The JSONPath subset printer columns, scale paths and selectable fields use:
//! `.a.b`, `['a.b']`, `[0]`, `[*]`, `..` is not supported, and filters
//! `[?(@.type=="Ready")]`. Evaluation never fails: a path that does not match gives
//! no results, as kubectl's printer shows `<none>`.

use serde_json::Value;

#[derive(Debug, Clone, PartialEq)]
enum Step {
    Field(String),
    Index(i64),
    All,
    Filter {
        path: Vec<String>,
        eq: bool,
        value: String,
    },
}

/// A compiled path.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonPath {
    steps: Vec<Step>,
}

impl JsonPath {
    /// Parses a path with or without the `{...}` template braces.
    pub fn parse(text: &str) -> Result<JsonPath, String> {
        let text = text.trim();
        let text = text
            .strip_prefix('{')
            .and_then(|t| t.strip_suffix('}'))
            .unwrap_or(text);
        let bytes = text.as_bytes();
        let mut steps = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'.' => {
                    let start = i + 1;
                    let mut j = start;
                    while j < bytes.len() && bytes[j] != b'.' && bytes[j] != b'[' {
                        j += 1;
                    }
                    if j == start {
                        return Err(format!("unsupported JSONPath {text:?}: empty field name"));
                    }
                    steps.push(Step::Field(text[start..j].to_string()));
                    i = j;
                }
                b'[' => {
                    let end = text[i..]
                        .find(']')
                        .map(|e| i + e)
                        .ok_or_else(|| format!("unterminated [ in JSONPath {text:?}"))?;
                    // A filter may hold `]` only inside quotes; the subset here has none.
                    let inner = text[i + 1..end].trim();
                    steps.push(parse_bracket(inner, text)?);
                    i = end + 1;
                }
                _ if i == 0 => {
                    // `spec.x` without the leading dot.
                    return JsonPath::parse(&format!(".{text}"));
                }
                _ => {
                    return Err(format!(
                        "unexpected {:?} in JSONPath {text:?}",
                        bytes[i] as char
                    ));
                }
            }
        }
        Ok(JsonPath { steps })
    }

    /// Every value the path selects.
    pub fn find<'v>(&self, root: &'v Value) -> Vec<&'v Value> {
        let mut current = vec![root];
        for step in &self.steps {
            let mut next = Vec::new();
            for v in current {
                match step {
                    Step::Field(name) => {
                        if let Some(c) = v.get(name) {
                            next.push(c);
                        }
                    }
                    Step::Index(i) => {
                        if let Some(items) = v.as_array() {
                            let idx = if *i < 0 { items.len() as i64 + i } else { *i };
                            if let Some(c) = usize::try_from(idx).ok().and_then(|i| items.get(i)) {
                                next.push(c);
                            }
                        }
                    }
                    Step::All => match v {
                        Value::Array(items) => next.extend(items.iter()),
                        Value::Object(map) => next.extend(map.values()),
                        _ => {}
                    },
                    Step::Filter { path, eq, value } => {
                        if let Some(items) = v.as_array() {
                            for item in items {
                                let mut field = Some(item);
                                for p in path {
                                    field = field.and_then(|f| f.get(p));
                                }
                                let text = match field {
                                    Some(Value::String(s)) => Some(s.clone()),
                                    Some(other) => Some(other.to_string()),
                                    None => None,
                                };
                                if text.as_deref().is_some_and(|t| t == value) == *eq
                                    && (text.is_some() || !*eq)
                                {
                                    next.push(item);
                                }
                            }
                        }
                    }
                }
            }
            current = next;
        }
        current
    }

    /// The single field path a simple path names (`.spec.replicas` → `["spec", "replicas"]`),
    /// for writing through it (scale).
    pub fn fields(&self) -> Option<Vec<&str>> {
        self.steps
            .iter()
            .map(|s| match s {
                Step::Field(f) => Some(f.as_str()),
                _ => None,
            })
            .collect()
    }
}

fn parse_bracket(inner: &str, text: &str) -> Result<Step, String> {
    if inner == "*" {
        return Ok(Step::All);
    }
    if let Ok(i) = inner.parse::<i64>() {
        return Ok(Step::Index(i));
    }
    if let Some(name) = unquote(inner) {
        return Ok(Step::Field(name));
    }
    if let Some(f) = inner.strip_prefix("?(").and_then(|f| f.strip_suffix(')')) {
        let (lhs, eq, rhs) = if let Some((l, r)) = f.split_once("!=") {
            (l, false, r)
        } else if let Some((l, r)) = f.split_once("==") {
            (l, true, r)
        } else {
            return Err(format!("unsupported filter in JSONPath {text:?}"));
        };
        let path = lhs
            .trim()
            .strip_prefix("@.")
            .ok_or_else(|| format!("unsupported filter in JSONPath {text:?}"))?
            .split('.')
            .map(str::to_string)
            .collect();
        let rhs = rhs.trim();
        let value = unquote(rhs).unwrap_or_else(|| rhs.to_string());
        return Ok(Step::Filter { path, eq, value });
    }
    Err(format!("unsupported [{inner}] in JSONPath {text:?}"))
}

fn unquote(s: &str) -> Option<String> {
    for q in ['\'', '"'] {
        if let Some(inner) = s.strip_prefix(q).and_then(|s| s.strip_suffix(q)) {
            return Some(inner.to_string());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn printer_column_paths() {
        let obj = json!({"spec": {"cronSpec": "* * * * */5", "list": [1, 2], "a.b": 3},
            "status": {"conditions": [{"type": "Ready", "status": "True"},
                                      {"type": "Other", "status": "False"}]}});
        let one = |p: &str| {
            JsonPath::parse(p)
                .unwrap()
                .find(&obj)
                .into_iter()
                .cloned()
                .collect::<Vec<_>>()
        };
        assert_eq!(one(".spec.cronSpec"), vec![json!("* * * * */5")]);
        assert_eq!(one("{.spec.list[1]}"), vec![json!(2)]);
        assert_eq!(one(".spec.list[*]"), vec![json!(1), json!(2)]);
        assert_eq!(one(".spec['a.b']"), vec![json!(3)]);
        assert_eq!(
            one(".status.conditions[?(@.type==\"Ready\")].status"),
            vec![json!("True")]
        );
        assert!(one(".spec.missing.deeper").is_empty());
        assert_eq!(
            JsonPath::parse(".spec.replicas").unwrap().fields(),
            Some(vec!["spec", "replicas"])
        );
        assert!(JsonPath::parse(".spec[").is_err());
    }
}
