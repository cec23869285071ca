//! JSONPatch mutations: the expression's list of `JSONPatch{op, path, from, value}`
//! read into RFC 6902 operations and applied by the `json-patch` crate, with the
//! error wording of evanphx/json-patch (v4, kube-apiserver's). A failed `test`
//! leaves the object unchanged without an error, as kube-apiserver's JSON patcher
//! does.

use base64::Engine;
use json_patch::jsonptr::PointerBuf;
use json_patch::{
    AddOperation, CopyOperation, MoveOperation, PatchErrorKind, PatchOperation, RemoveOperation,
    ReplaceOperation, TestOperation,
};
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

/// A pointer as the `json-patch` crate takes it; evanphx's words for one it refuses.
fn pointer(path: &str) -> Result<PointerBuf, PatchError> {
    PointerBuf::parse(path).map_err(|_| PatchError::Failed(format!("invalid JSON pointer: {path}")))
}

fn missing(op: &str, path: &str) -> PatchError {
    PatchError::Failed(format!(
        "{op} operation does not apply: doc is missing path: {path}: missing value"
    ))
}

/// evanphx's error for a `path` the crate could not use in `op`: an index that is
/// not one (or out of range) of an array the path leads into, else a missing path.
/// `replace`, and `copy` for its `from`, only ever report the path as missing.
fn refused(doc: &Value, op: &str, path: &str, indexes: bool) -> PatchError {
    let Ok(ptr) = PointerBuf::parse(path) else {
        return missing(op, path);
    };
    let Some((parent, last)) = ptr.split_back() else {
        return missing(op, path);
    };
    match doc.pointer(parent.as_str()) {
        Some(Value::Array(_)) if indexes => {
            let token = last.decoded();
            let shown = token
                .parse::<i64>()
                .map_or_else(|_| token.to_string(), |i| i.to_string());
            PatchError::Failed(format!(
                "Unable to access invalid index: {shown}: invalid index referenced"
            ))
        }
        _ => missing(op, path),
    }
}

impl Operation {
    /// The operation as the `json-patch` crate applies it: pointers are parsed
    /// (`from` first, as evanphx reads it) and an unknown `op` is refused.
    fn to_patch(&self) -> Result<PatchOperation, PatchError> {
        let value = || self.value.clone().unwrap_or(Value::Null);
        let from = || pointer(&self.from);
        Ok(match self.op.as_str() {
            "add" => PatchOperation::Add(AddOperation {
                path: pointer(&self.path)?,
                value: value(),
            }),
            "remove" => PatchOperation::Remove(RemoveOperation {
                path: pointer(&self.path)?,
            }),
            "replace" => PatchOperation::Replace(ReplaceOperation {
                path: pointer(&self.path)?,
                value: value(),
            }),
            "move" => PatchOperation::Move(MoveOperation {
                from: from()?,
                path: pointer(&self.path)?,
            }),
            "copy" => PatchOperation::Copy(CopyOperation {
                from: from()?,
                path: pointer(&self.path)?,
            }),
            "test" => PatchOperation::Test(TestOperation {
                path: pointer(&self.path)?,
                value: value(),
            }),
            other => return Err(PatchError::Failed(format!("Unexpected kind: {other}"))),
        })
    }

    /// evanphx's error for this operation, which the crate refused with `kind` on
    /// `doc`. A `test` that fails for any reason leaves the object as it was.
    fn error(&self, doc: &Value, kind: &PatchErrorKind) -> PatchError {
        let op = self.op.as_str();
        match kind {
            PatchErrorKind::TestFailed => PatchError::TestFailed,
            _ if op == "test" => PatchError::TestFailed,
            PatchErrorKind::InvalidFromPointer => refused(doc, op, &self.from, op == "move"),
            PatchErrorKind::CannotMoveInsideItself => missing(op, &self.path),
            _ => refused(doc, op, &self.path, op != "replace"),
        }
    }
}

/// Applies `ops` to a copy of `doc` in order, with the `json-patch` crate.
///
/// The crate applies RFC 6902; what evanphx/json-patch (v4, kube-apiserver's) does
/// besides is kept here: a failed `test` is not an error (the mutation is skipped),
/// and failures are worded as evanphx words them (the crate reports only which
/// pointer it could not use). Known differences left to the crate: array indexes
/// with leading zeros (`/a/01`) and pointers with escapes other than `~0`/`~1`
/// are refused, where evanphx reads them as Go's `strconv.Atoi` and a literal `~`.
pub(super) fn apply(doc: &Value, ops: &[Operation]) -> Result<Value, PatchError> {
    let mut out = doc.clone();
    for o in ops {
        let op = o.to_patch()?;
        // One operation at a time, without undo: `out` is dropped on an error.
        if let Err(e) = json_patch::patch_unsafe(&mut out, std::slice::from_ref(&op)) {
            return Err(o.error(&out, &e.kind));
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

    #[test]
    fn failures_are_worded_as_evanphx_words_them() {
        let doc = json!({"a": {"b": [1, 2]}, "c": "x"});
        let failed = |ops: &[Operation]| match apply(&doc, ops) {
            Err(PatchError::Failed(m)) => m,
            other => panic!("{other:?}"),
        };
        let from = |op: &str, from: &str, path: &str| Operation {
            op: op.into(),
            path: path.into(),
            from: from.into(),
            value: None,
        };
        assert_eq!(
            failed(&[op("remove", "/a/b/5", None)]),
            "Unable to access invalid index: 5: invalid index referenced"
        );
        assert_eq!(
            failed(&[op("remove", "/a/b/x", None)]),
            "Unable to access invalid index: x: invalid index referenced"
        );
        assert_eq!(
            failed(&[op("remove", "/a/z", None)]),
            "remove operation does not apply: doc is missing path: /a/z: missing value"
        );
        assert_eq!(
            failed(&[from("copy", "/nope", "/d")]),
            "copy operation does not apply: doc is missing path: /nope: missing value"
        );
        assert_eq!(
            failed(&[from("move", "/a/b/7", "/d")]),
            "Unable to access invalid index: 7: invalid index referenced"
        );
        assert_eq!(
            failed(&[from("move", "/a", "/a/inner")]),
            "move operation does not apply: doc is missing path: /a/inner: missing value"
        );
        assert_eq!(
            failed(&[op("add", "no-slash", Some(json!(1)))]),
            "invalid JSON pointer: no-slash"
        );
        // A test of a missing path fails the test, not the patch.
        assert_eq!(
            apply(&doc, &[op("test", "/missing", Some(json!(1)))]),
            Err(PatchError::TestFailed)
        );
        // The whole document is replaced or added at the root.
        assert_eq!(
            apply(&doc, &[op("replace", "", Some(json!({"r": 1})))]),
            Ok(json!({"r": 1}))
        );
    }
}
