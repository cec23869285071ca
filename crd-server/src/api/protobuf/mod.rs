//! Protobuf bodies (`application/vnd.kubernetes.protobuf`), which kubectl's typed
//! clients send for built-in kinds (`kubectl create namespace|configmap|secret|…`):
//! the `k8s\0` envelope (a `runtime.Unknown` holding the type meta and the object's
//! bytes), then the object decoded by its message descriptor ([`messages`], tables
//! generated from k8s-pb into [`generated`]) into the JSON it would have been sent
//! as. Answers are JSON (the client reads the response's Content-Type); custom
//! resources never come as protobuf.

#[rustfmt::skip]
mod generated;
pub mod messages;
mod special;
mod wire;

use serde_json::Value;

pub use messages::Message;

use crate::api::status::ApiError;
use wire::{Payload, bad, fields, text};

/// The envelope's magic prefix (`k8s\0`).
pub const MAGIC: &[u8] = b"k8s\x00";

/// The message of an OpenAPI definition (`io.k8s.api.apps.v1.Deployment`), for the
/// built-in kinds' bodies and every message they hold.
pub fn message_for(definition: &str) -> Option<&'static Message> {
    let table = generated::BY_DEFINITION;
    let at = table.binary_search_by_key(&definition, |(d, _)| d).ok()?;
    Some(table[at].1)
}

/// A DELETE's body in protobuf: `meta/v1` DeleteOptions.
pub fn decode_delete_options(body: &[u8]) -> Result<Value, ApiError> {
    let message = message_for("io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions")
        .ok_or_else(|| bad("no DeleteOptions message"))?;
    decode_object(body, "DeleteOptions", message)
}

/// Decodes a protobuf body holding an object of `kind`, whose message is `message`.
pub fn decode_object(body: &[u8], kind: &str, message: &Message) -> Result<Value, ApiError> {
    let unknown = body
        .strip_prefix(MAGIC)
        .ok_or_else(|| bad("missing the k8s envelope"))?;
    let (mut type_meta, mut raw) = (Value::Null, None);
    for (n, p) in fields(unknown)? {
        match (n, p) {
            (1, Payload::Bytes(b)) => type_meta = messages::decode(&messages::TYPE_META, b)?,
            (2, Payload::Bytes(b)) => raw = Some(b),
            (4, Payload::Bytes(b)) => {
                let content_type = text(b)?;
                if !content_type.is_empty() && content_type != "application/vnd.kubernetes.protobuf"
                {
                    return Err(bad(&format!("the envelope holds {content_type}")));
                }
            }
            _ => {}
        }
    }
    let got = type_meta.get("kind").and_then(Value::as_str).unwrap_or("");
    if got != kind {
        return Err(ApiError::bad_request(format!(
            "the kind in the data ({got}) does not match the expected kind ({kind})"
        )));
    }
    let mut obj = messages::decode(message, raw.unwrap_or_default())?;
    if let (Value::Object(o), Value::Object(tm)) = (&mut obj, type_meta) {
        for (k, v) in tm {
            o.insert(k, v);
        }
    }
    Ok(obj)
}

#[cfg(test)]
mod k8s_pb_tests;
#[cfg(test)]
#[path = "protobuf_tests.rs"]
mod tests;
