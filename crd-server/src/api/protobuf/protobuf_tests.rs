//! Bodies as kubectl's typed clients write them.

use serde_json::json;

use super::*;

fn message(definition: &str) -> &'static Message {
    message_for(&format!("io.k8s.api.core.v1.{definition}")).unwrap()
}

fn ld(n: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = vec![(n << 3) | 2, payload.len() as u8];
    out.extend_from_slice(payload);
    out
}

/// A core/v1 object of `kind`, as kubectl sends it, decoded.
fn decode_core(kind: &str, raw: &[u8]) -> Value {
    let body = envelope(b"v1", kind.as_bytes(), raw);
    decode_object(&body, kind, message(kind)).unwrap()
}

fn envelope(api_version: &[u8], kind: &[u8], raw: &[u8]) -> Vec<u8> {
    let type_meta = [ld(1, api_version), ld(2, kind)].concat();
    [
        MAGIC.to_vec(),
        ld(1, &type_meta),
        ld(2, raw),
        ld(4, b"application/vnd.kubernetes.protobuf"),
    ]
    .concat()
}

#[test]
fn a_namespace_from_kubectl_create_namespace() {
    let label = [ld(1, b"team"), ld(2, b"a")].concat();
    let meta = [ld(1, b"team-a"), ld(11, &label)].concat();
    // As Go writes it: the zero creationTimestamp empty, the status and spec empty.
    let meta = [meta, ld(8, &[])].concat();
    let ns = [ld(1, &meta), ld(2, &[]), ld(3, &[])].concat();
    let v = decode_core("Namespace", &ns);
    assert_eq!(
        v,
        json!({"apiVersion": "v1", "kind": "Namespace", "spec": {}, "status": {},
               "metadata": {"name": "team-a", "labels": {"team": "a"}, "creationTimestamp": null}})
    );
    assert!(
        decode_object(b"k8s\x00\x0a\xff", "Namespace", message("Namespace")).is_err(),
        "truncated input is an error, not a panic"
    );
}

#[test]
fn config_maps_and_secrets_from_kubectl_create() {
    let meta = ld(1, b"settings");
    let data = [ld(1, b"color"), ld(2, b"blue")].concat();
    let binary = [ld(1, b"raw"), ld(2, &[0, 255])].concat();
    let cm = [ld(1, &meta), ld(2, &data), ld(3, &binary), vec![4 << 3, 1]].concat();
    let v = decode_core("ConfigMap", &cm);
    assert_eq!(
        v,
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"},
               "data": {"color": "blue"}, "binaryData": {"raw": "AP8="}, "immutable": true})
    );
    let secret_data = [ld(1, b"user"), ld(2, b"admin")].concat();
    let secret = [ld(1, &meta), ld(2, &secret_data), ld(3, b"Opaque")].concat();
    let v = decode_core("Secret", &secret);
    assert_eq!(v["data"], json!({"user": "YWRtaW4="}));
    assert_eq!(v["type"], "Opaque");
    let e = decode_object(
        &envelope(b"v1", b"Secret", &secret),
        "ConfigMap",
        message("ConfigMap"),
    )
    .unwrap_err();
    assert_eq!(
        e.message,
        "the kind in the data (Secret) does not match the expected kind (ConfigMap)"
    );
}
