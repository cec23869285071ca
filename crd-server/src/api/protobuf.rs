//! The one protobuf body this server reads: a core v1 Namespace, which kubectl's typed
//! client (`kubectl create namespace`) sends as `application/vnd.kubernetes.protobuf`.
//! Custom resources never come as protobuf; answers are always JSON (the client reads
//! the response's Content-Type).

use serde_json::{Map, Value, json};

use super::status::ApiError;

/// The envelope's magic prefix (`k8s\0`).
const MAGIC: &[u8] = b"k8s\x00";

fn bad(why: &str) -> ApiError {
    ApiError::bad_request(format!("cannot decode the protobuf body: {why}"))
}

/// One field of a message: length-delimited payloads are kept, numbers are skipped
/// (no field read here is a number).
enum Field<'a> {
    Varint,
    Bytes(&'a [u8]),
}

fn varint(buf: &[u8], pos: &mut usize) -> Result<u64, ApiError> {
    let mut out = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *buf.get(*pos).ok_or_else(|| bad("truncated varint"))?;
        *pos += 1;
        out |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Ok(out);
        }
    }
    Err(bad("varint too long"))
}

fn fields(buf: &[u8]) -> Result<Vec<(u64, Field<'_>)>, ApiError> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < buf.len() {
        let tag = varint(buf, &mut pos)?;
        let (number, wire) = (tag >> 3, tag & 7);
        match wire {
            0 => {
                varint(buf, &mut pos)?;
                out.push((number, Field::Varint));
            }
            2 => {
                let len = usize::try_from(varint(buf, &mut pos)?).map_err(|_| bad("length"))?;
                let end = pos
                    .checked_add(len)
                    .filter(|e| *e <= buf.len())
                    .ok_or_else(|| bad("truncated field"))?;
                out.push((number, Field::Bytes(&buf[pos..end])));
                pos = end;
            }
            1 => pos += 8,
            5 => pos += 4,
            _ => return Err(bad("unsupported wire type")),
        }
    }
    Ok(out)
}

fn text(b: &[u8]) -> Result<String, ApiError> {
    String::from_utf8(b.to_vec()).map_err(|_| bad("a string is not UTF-8"))
}

fn string_map(entries: &[&[u8]]) -> Result<Value, ApiError> {
    let mut map = Map::new();
    for entry in entries {
        let (mut k, mut v) = (String::new(), String::new());
        for (n, f) in fields(entry)? {
            if let Field::Bytes(b) = f {
                match n {
                    1 => k = text(b)?,
                    2 => v = text(b)?,
                    _ => {}
                }
            }
        }
        map.insert(k, Value::String(v));
    }
    Ok(Value::Object(map))
}

fn object_meta(buf: &[u8]) -> Result<Value, ApiError> {
    let mut meta = Map::new();
    let (mut labels, mut annotations, mut finalizers) = (Vec::new(), Vec::new(), Vec::new());
    for (n, f) in fields(buf)? {
        let Field::Bytes(b) = f else { continue };
        match n {
            1 => _ = meta.insert("name".into(), json!(text(b)?)),
            2 => _ = meta.insert("generateName".into(), json!(text(b)?)),
            3 => _ = meta.insert("namespace".into(), json!(text(b)?)),
            11 => labels.push(b),
            12 => annotations.push(b),
            14 => finalizers.push(json!(text(b)?)),
            _ => {}
        }
    }
    if !labels.is_empty() {
        meta.insert("labels".into(), string_map(&labels)?);
    }
    if !annotations.is_empty() {
        meta.insert("annotations".into(), string_map(&annotations)?);
    }
    if !finalizers.is_empty() {
        meta.insert("finalizers".into(), Value::Array(finalizers));
    }
    Ok(Value::Object(meta))
}

/// Decodes a protobuf-encoded core v1 Namespace into its JSON form.
pub fn namespace(body: &[u8]) -> Result<Value, ApiError> {
    let unknown = body
        .strip_prefix(MAGIC)
        .ok_or_else(|| bad("missing the k8s envelope"))?;
    let (mut api_version, mut kind, mut raw) = (String::new(), String::new(), None);
    for (n, f) in fields(unknown)? {
        match (n, f) {
            (1, Field::Bytes(tm)) => {
                for (tn, tf) in fields(tm)? {
                    match (tn, tf) {
                        (1, Field::Bytes(b)) => api_version = text(b)?,
                        (2, Field::Bytes(b)) => kind = text(b)?,
                        _ => {}
                    }
                }
            }
            (2, Field::Bytes(b)) => raw = Some(b),
            _ => {}
        }
    }
    if kind != "Namespace" {
        return Err(ApiError::unsupported_media_type(format!(
            "protobuf is only read for Namespaces (got kind {kind:?}); send application/json"
        )));
    }
    let mut ns = json!({"apiVersion": api_version, "kind": kind, "metadata": {}});
    for (n, f) in fields(raw.unwrap_or_default())? {
        let Field::Bytes(b) = f else { continue };
        match n {
            1 => ns["metadata"] = object_meta(b)?,
            2 => {
                let finalizers: Vec<Value> = fields(b)?
                    .into_iter()
                    .filter_map(|(n, f)| match (n, f) {
                        (1, Field::Bytes(s)) => text(s).ok().map(Value::String),
                        _ => None,
                    })
                    .collect();
                ns["spec"] = json!({"finalizers": finalizers});
            }
            _ => {}
        }
    }
    Ok(ns)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ld(n: u8, payload: &[u8]) -> Vec<u8> {
        let mut out = vec![(n << 3) | 2, payload.len() as u8];
        out.extend_from_slice(payload);
        out
    }

    #[test]
    fn a_namespace_from_kubectl_create_namespace() {
        let type_meta = [ld(1, b"v1"), ld(2, b"Namespace")].concat();
        let label = [ld(1, b"team"), ld(2, b"a")].concat();
        let meta = [ld(1, b"team-a"), ld(11, &label)].concat();
        let ns = [ld(1, &meta), ld(2, &[]), ld(3, &[])].concat();
        let body = [MAGIC.to_vec(), ld(1, &type_meta), ld(2, &ns)].concat();
        let v = namespace(&body).unwrap();
        assert_eq!(
            v["metadata"],
            json!({"name": "team-a", "labels": {"team": "a"}})
        );
        assert_eq!(v["kind"], "Namespace");
        assert!(
            namespace(b"k8s\x00\x0a\xff").is_err(),
            "truncated input is an error, not a panic"
        );
    }
}
