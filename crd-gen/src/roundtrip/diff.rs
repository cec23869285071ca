//! Structural difference of two JSON documents, as field paths.

use serde_json::Value;

/// One difference: where, and the two sides (`None` = absent).
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    /// Field path (`spec.versions[0].schema.openAPIV3Schema.properties.spec`).
    pub path: String,
    /// The value in the source CRD.
    pub expected: Option<Value>,
    /// The value in the CRD the generated types produce.
    pub actual: Option<Value>,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let show = |v: &Option<Value>| match v {
            None => "absent".to_string(),
            Some(v) => {
                let s = v.to_string();
                if s.chars().count() > 80 {
                    let cut: String = s.chars().take(77).collect();
                    format!("{cut}...")
                } else {
                    s
                }
            }
        };
        write!(
            f,
            "{}: expected {}, got {}",
            self.path,
            show(&self.expected),
            show(&self.actual)
        )
    }
}

/// Every difference between `expected` and `actual`, in document order.
pub fn diff(expected: &Value, actual: &Value) -> Vec<Difference> {
    let mut out = Vec::new();
    walk("", expected, actual, &mut out);
    out
}

fn join(path: &str, key: &str) -> String {
    let simple = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    match (path.is_empty(), simple) {
        (true, true) => key.to_string(),
        (false, true) => format!("{path}.{key}"),
        (_, false) => format!("{path}[{}]", Value::String(key.to_string())),
    }
}

fn walk(path: &str, e: &Value, a: &Value, out: &mut Vec<Difference>) {
    match (e, a) {
        (Value::Object(em), Value::Object(am)) => {
            for (k, ev) in em {
                match am.get(k) {
                    Some(av) => walk(&join(path, k), ev, av, out),
                    None => out.push(Difference {
                        path: join(path, k),
                        expected: Some(ev.clone()),
                        actual: None,
                    }),
                }
            }
            for (k, av) in am {
                if !em.contains_key(k) {
                    out.push(Difference {
                        path: join(path, k),
                        expected: None,
                        actual: Some(av.clone()),
                    });
                }
            }
        }
        (Value::Array(el), Value::Array(al)) if el.len() == al.len() => {
            for (i, (ev, av)) in el.iter().zip(al).enumerate() {
                walk(&format!("{path}[{i}]"), ev, av, out);
            }
        }
        _ if e == a => {}
        _ => out.push(Difference {
            path: path.to_string(),
            expected: Some(e.clone()),
            actual: Some(a.clone()),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_and_sides() {
        let e = json!({"a": {"b": 1, "c": [1, 2]}, "x.y": true});
        let a = json!({"a": {"b": 2, "c": [1, 3], "d": null}});
        let d: Vec<String> = diff(&e, &a).iter().map(ToString::to_string).collect();
        assert_eq!(
            d,
            vec![
                "a.b: expected 1, got 2",
                "a.c[1]: expected 2, got 3",
                "a.d: expected absent, got null",
                "[\"x.y\"]: expected true, got absent",
            ]
        );
        assert!(diff(&e, &e).is_empty());
    }
}
