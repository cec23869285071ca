//! JSONPatch mutations: the expression's list of `JSONPatch{op, path, from, value}`
//! read into RFC 6902 operations and applied as evanphx/json-patch (v5) applies
//! them, with its error wording. A failed `test` leaves the object unchanged
//! without an error, as kube-apiserver's JSON patcher does.

use base64::Engine;
use kube_cel::cel::objects::{Key, Value as Cel};
use serde_json::{Map, Value};

use super::validator::go_type_name;

/// Why a patch was not applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum PatchError {
    /// A `test` operation failed: the object stays as it was.
    TestFailed,
    /// Anything else (kube-apiserver's message, `JSON Patch: …` included).
    Failed(String),
}

/// One operation.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Operation {
    op: String,
    path: String,
    from: String,
    value: Option<Value>,
}

/// A CEL value as JSON (`ConvertToNative(structpb.Value)`).
pub(super) fn cel_to_json(v: &Cel) -> Result<Value, String> {
    Ok(match v {
        Cel::Null => Value::Null,
        Cel::Bool(b) => Value::Bool(*b),
        Cel::Int(i) => Value::from(*i),
        Cel::UInt(u) => Value::from(*u),
        Cel::Float(f) => serde_json::Number::from_f64(*f)
            .map(Value::Number)
            .ok_or_else(|| format!("unsupported value: {f}"))?,
        Cel::String(s) => Value::String(s.to_string()),
        Cel::Bytes(b) => {
            Value::String(base64::engine::general_purpose::STANDARD.encode(b.as_slice()))
        }
        Cel::List(l) => Value::Array(l.iter().map(cel_to_json).collect::<Result<_, _>>()?),
        Cel::Map(m) => {
            let mut out = Map::new();
            for (k, v) in m.map.iter() {
                let key = match k {
                    Key::String(s) => s.to_string(),
                    Key::Int(i) => i.to_string(),
                    Key::Uint(u) => u.to_string(),
                    Key::Bool(b) => b.to_string(),
                };
                out.insert(key, cel_to_json(v)?);
            }
            Value::Object(out)
        }
        Cel::Timestamp(t) => Value::String(t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)),
        Cel::Duration(d) => Value::String(format!("{}s", d.num_milliseconds() as f64 / 1000.0)),
        other => return Err(format!("unsupported type: {}", go_type_name(other))),
    })
}

/// Reads the expression's result into operations.
pub(super) fn operations(result: &Cel) -> Result<Vec<Operation>, String> {
    let Cel::List(items) = result else {
        return Err("type mismatch: JSONPatchType.expression should evaluate to array".into());
    };
    let mut ops = Vec::with_capacity(items.len());
    for item in items.iter() {
        let Cel::Map(m) = item else {
            return Err(format!(
                "type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch: type conversion error from '{}' to 'JSONPatch'",
                go_type_name(item)
            ));
        };
        let get = |k: &str| m.map.get(&Key::String(std::sync::Arc::new(k.to_string())));
        let text = |k: &str| match get(k) {
            Some(Cel::String(s)) => s.to_string(),
            _ => String::new(),
        };
        let value = match get("value") {
            None => None,
            Some(v) => Some(cel_to_json(v).map_err(|e| {
                format!("JSONPath valueExpression evaluated to a type that could not marshal to JSON: {e}")
            })?),
        };
        ops.push(Operation {
            op: text("op"),
            path: text("path"),
            from: text("from"),
            value,
        });
    }
    Ok(ops)
}

/// RFC 6901 pointer tokens.
fn tokens(path: &str) -> Result<Vec<String>, String> {
    if path.is_empty() {
        return Ok(Vec::new());
    }
    let Some(rest) = path.strip_prefix('/') else {
        return Err(format!("invalid JSON pointer: {path}"));
    };
    Ok(rest
        .split('/')
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect())
}

fn missing(op: &str, path: &str) -> PatchError {
    PatchError::Failed(format!(
        "{op} operation does not apply: doc is missing path: {path}: missing value"
    ))
}

fn index(token: &str, len: usize, allow_end: bool) -> Result<usize, String> {
    let i: i64 = token.parse().map_err(|_| {
        format!("Unable to access invalid index: {token}: invalid index referenced")
    })?;
    let max = if allow_end {
        len
    } else {
        len.saturating_sub(1)
    };
    if i < 0 || i as usize > max || (!allow_end && len == 0) {
        return Err(format!(
            "Unable to access invalid index: {i}: invalid index referenced"
        ));
    }
    Ok(i as usize)
}

/// The container of the last token of `path` and that token.
fn parent<'a>(doc: &'a mut Value, toks: &[String]) -> Option<&'a mut Value> {
    let mut cur = doc;
    for t in &toks[..toks.len().saturating_sub(1)] {
        cur = match cur {
            Value::Object(m) => m.get_mut(t)?,
            Value::Array(a) => a.get_mut(t.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

fn get<'a>(doc: &'a Value, toks: &[String]) -> Option<&'a Value> {
    let mut cur = doc;
    for t in toks {
        cur = match cur {
            Value::Object(m) => m.get(t)?,
            Value::Array(a) => a.get(t.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

fn add(doc: &mut Value, path: &str, value: Value, op: &str) -> Result<(), PatchError> {
    let toks = tokens(path).map_err(PatchError::Failed)?;
    let Some(last) = toks.last() else {
        *doc = value;
        return Ok(());
    };
    match parent(doc, &toks) {
        Some(Value::Object(m)) => {
            m.insert(last.clone(), value);
            Ok(())
        }
        Some(Value::Array(a)) => {
            let i = if last == "-" {
                a.len()
            } else {
                index(last, a.len(), true).map_err(PatchError::Failed)?
            };
            a.insert(i, value);
            Ok(())
        }
        _ => Err(missing(op, path)),
    }
}

fn remove(doc: &mut Value, path: &str, op: &str) -> Result<Value, PatchError> {
    let toks = tokens(path).map_err(PatchError::Failed)?;
    let Some(last) = toks.last() else {
        return Err(missing(op, path));
    };
    match parent(doc, &toks) {
        Some(Value::Object(m)) => m.remove(last).ok_or_else(|| missing(op, path)),
        Some(Value::Array(a)) => {
            let i = index(last, a.len(), false).map_err(PatchError::Failed)?;
            Ok(a.remove(i))
        }
        _ => Err(missing(op, path)),
    }
}

/// Applies `ops` to `doc` in order.
pub(super) fn apply(doc: &Value, ops: &[Operation]) -> Result<Value, PatchError> {
    let mut out = doc.clone();
    for o in ops {
        let value = || o.value.clone().unwrap_or(Value::Null);
        match o.op.as_str() {
            "add" => add(&mut out, &o.path, value(), "add")?,
            "remove" => {
                remove(&mut out, &o.path, "remove")?;
            }
            "replace" => {
                let toks = tokens(&o.path).map_err(PatchError::Failed)?;
                if toks.is_empty() {
                    out = value();
                    continue;
                }
                if get(&out, &toks).is_none() {
                    return Err(missing("replace", &o.path));
                }
                remove(&mut out, &o.path, "replace")?;
                add(&mut out, &o.path, value(), "replace")?;
            }
            "move" => {
                let v = remove(&mut out, &o.from, "move")?;
                add(&mut out, &o.path, v, "move")?;
            }
            "copy" => {
                let from = tokens(&o.from).map_err(PatchError::Failed)?;
                let v = get(&out, &from)
                    .cloned()
                    .ok_or_else(|| missing("copy", &o.from))?;
                add(&mut out, &o.path, v, "copy")?;
            }
            "test" => {
                let toks = tokens(&o.path).map_err(PatchError::Failed)?;
                if get(&out, &toks) != Some(&value()) {
                    return Err(PatchError::TestFailed);
                }
            }
            other => return Err(PatchError::Failed(format!("Unexpected kind: {other}"))),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn op(op: &str, path: &str, value: Option<Value>) -> Operation {
        Operation {
            op: op.into(),
            path: path.into(),
            from: String::new(),
            value,
        }
    }

    #[test]
    fn rfc6902_operations() {
        let doc = json!({"a": {"b": [1, 2]}, "c": "x"});
        let got = apply(
            &doc,
            &[
                op("add", "/a/b/-", Some(json!(3))),
                op("add", "/a/b/0", Some(json!(0))),
                op("replace", "/c", Some(json!("y"))),
                op("remove", "/a/b/1", None),
                op("add", "/d~1e", Some(json!({}))),
                Operation {
                    op: "copy".into(),
                    path: "/f".into(),
                    from: "/c".into(),
                    value: None,
                },
                Operation {
                    op: "move".into(),
                    path: "/g".into(),
                    from: "/f".into(),
                    value: None,
                },
                op("test", "/g", Some(json!("y"))),
            ],
        )
        .unwrap();
        assert_eq!(
            got,
            json!({"a": {"b": [0, 2, 3]}, "c": "y", "d/e": {}, "g": "y"})
        );
        assert_eq!(
            apply(&doc, &[op("test", "/c", Some(json!("z")))]),
            Err(PatchError::TestFailed)
        );
        assert_eq!(
            apply(&doc, &[op("replace", "/spec/x", Some(json!(1)))]),
            Err(PatchError::Failed(
                "replace operation does not apply: doc is missing path: /spec/x: missing value"
                    .into()
            ))
        );
        assert_eq!(
            apply(&doc, &[op("add", "/a/b/9", Some(json!(1)))]),
            Err(PatchError::Failed(
                "Unable to access invalid index: 9: invalid index referenced".into()
            ))
        );
        assert_eq!(
            apply(&doc, &[op("bad", "/c", None)]),
            Err(PatchError::Failed("Unexpected kind: bad".into()))
        );
    }
}
