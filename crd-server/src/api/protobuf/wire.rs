//! The protobuf wire format, read without trusting it: varints, tags and
//! length-delimited payloads, every length checked against the buffer.

use crate::api::status::ApiError;

/// A refusal of a protobuf body.
pub fn bad(why: &str) -> ApiError {
    ApiError::bad_request(format!("cannot decode the protobuf body: {why}"))
}

/// One field's payload.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Payload<'a> {
    Varint(u64),
    Fixed64(u64),
    Fixed32(u32),
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

fn take<'a>(buf: &'a [u8], pos: &mut usize, len: usize) -> Result<&'a [u8], ApiError> {
    let end = pos
        .checked_add(len)
        .filter(|e| *e <= buf.len())
        .ok_or_else(|| bad("truncated field"))?;
    let out = &buf[*pos..end];
    *pos = end;
    Ok(out)
}

/// The fields of a message, in wire order.
pub fn fields(buf: &[u8]) -> Result<Vec<(u32, Payload<'_>)>, ApiError> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < buf.len() {
        let tag = varint(buf, &mut pos)?;
        let number = u32::try_from(tag >> 3).map_err(|_| bad("field number"))?;
        let payload = match tag & 7 {
            0 => Payload::Varint(varint(buf, &mut pos)?),
            1 => Payload::Fixed64(u64::from_le_bytes(
                take(buf, &mut pos, 8)?
                    .try_into()
                    .map_err(|_| bad("fixed64"))?,
            )),
            2 => {
                let len = usize::try_from(varint(buf, &mut pos)?).map_err(|_| bad("length"))?;
                Payload::Bytes(take(buf, &mut pos, len)?)
            }
            5 => Payload::Fixed32(u32::from_le_bytes(
                take(buf, &mut pos, 4)?
                    .try_into()
                    .map_err(|_| bad("fixed32"))?,
            )),
            _ => return Err(bad("unsupported wire type")),
        };
        out.push((number, payload));
    }
    Ok(out)
}

/// A string payload.
pub fn text(b: &[u8]) -> Result<String, ApiError> {
    String::from_utf8(b.to_vec()).map_err(|_| bad("a string is not UTF-8"))
}

/// A string payload as Go reads it (invalid UTF-8 is replaced when marshalled to JSON).
pub fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The values of a packed repeated scalar: varints, or eight-byte doubles.
pub fn packed(buf: &[u8], fixed64: bool) -> Result<Vec<Payload<'_>>, ApiError> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < buf.len() {
        out.push(if fixed64 {
            let b = take(buf, &mut pos, 8)?;
            Payload::Fixed64(u64::from_le_bytes(
                b.try_into().map_err(|_| bad("fixed64"))?,
            ))
        } else {
            Payload::Varint(varint(buf, &mut pos)?)
        });
    }
    Ok(out)
}
