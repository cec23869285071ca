//! Evaluation of a parsed [`JsonPath`] against a JSON value.

use serde_json::Value;

use super::{JsonPath, Step};

impl JsonPath {
    /// Every value the path selects, in document order.
    pub fn find<'v>(&self, root: &'v Value) -> Vec<&'v Value> {
        let mut current = vec![root];
        for step in &self.steps {
            let mut next = Vec::new();
            for v in current {
                select(step, v, &mut next);
            }
            current = next;
        }
        current
    }

    /// What kubectl's JSONPath printer shows for the path: the selected values joined
    /// by a space, strings as they are and everything else as JSON; `None` when nothing
    /// is selected.
    pub fn text(&self, root: &Value) -> Option<String> {
        let found = self.find(root);
        if found.is_empty() {
            return None;
        }
        let parts: Vec<String> = found.into_iter().map(print).collect();
        Some(parts.join(" "))
    }
}

/// A value as the JSONPath printer shows it.
fn print(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn select<'v>(step: &Step, v: &'v Value, next: &mut Vec<&'v Value>) {
    match step {
        Step::Field(name) => next.extend(v.get(name)),
        Step::Index(i) => {
            if let Some(items) = v.as_array() {
                let idx = if *i < 0 { items.len() as i64 + i } else { *i };
                next.extend(usize::try_from(idx).ok().and_then(|i| items.get(i)));
            }
        }
        Step::All => match v {
            Value::Array(items) => next.extend(items),
            Value::Object(map) => next.extend(map.values()),
            _ => {}
        },
        Step::Filter { path, eq, value } => {
            for item in v.as_array().into_iter().flatten() {
                let field = path.iter().try_fold(item, |f, p| f.get(p));
                // A missing field matches `!=` and never `==`.
                let matches = field.is_some_and(|f| print(f) == *value);
                if matches == *eq {
                    next.push(item);
                }
            }
        }
    }
}
