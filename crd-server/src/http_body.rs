//! Reading a whole HTTP response body, for the server's own clients (admission and
//! conversion webhooks).

use std::fmt::Display;

use bytes::Bytes;
use http_body_util::BodyExt;

/// Every byte of `body`; a body that breaks off gives its error's text.
pub async fn read_body<B>(body: B) -> Result<Bytes, String>
where
    B: hyper::body::Body,
    B::Error: Display,
{
    match body.collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) => Err(e.to_string()),
    }
}
