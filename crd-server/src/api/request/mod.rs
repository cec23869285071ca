//! A resource request parsed once: what it addresses ([`RequestInfo`]), its query
//! ([`Query`]) and the typed options each verb reads from it, and its media types.

pub mod info;
pub mod media;
pub mod query;

use http::HeaderMap;

pub use info::{RequestInfo, Verb};
pub use media::{BodyType, Representation};
pub use query::{DeleteOptions, FieldValidation, Propagation, Query, WriteOptions};

use crate::api::status::ApiError;

/// A parsed resource request (its body is read by the verb that takes one).
pub struct ResourceRequest {
    pub info: RequestInfo,
    pub query: Query,
    pub headers: HeaderMap,
}

impl ResourceRequest {
    /// The `Content-Type` of the body.
    pub fn body_type(&self) -> Result<BodyType, ApiError> {
        media::body_type(&self.headers)
    }

    /// The representation the client accepts.
    pub fn representation(&self) -> Result<Representation, ApiError> {
        media::representation(&self.headers)
    }

    /// The options of a write.
    pub fn write_options(&self) -> Result<WriteOptions, ApiError> {
        let agent = self
            .headers
            .get(http::header::USER_AGENT)
            .and_then(|v| v.to_str().ok());
        WriteOptions::from_query(&self.query, agent)
    }
}
