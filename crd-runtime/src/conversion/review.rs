//! The `apiextensions.k8s.io/v1` `ConversionReview` a conversion webhook answers.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{ConversionError, Converter};

/// A `ConversionReview`: the API server sends `request`, the webhook returns
/// `response`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ConversionReview {
    /// `apiextensions.k8s.io/v1`.
    #[serde(rename = "apiVersion")]
    pub api_version: String,
    /// `ConversionReview`.
    pub kind: String,
    /// What to convert.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<ConversionRequest>,
    /// The converted objects, or why not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<ConversionResponse>,
}

/// `request` of a [`ConversionReview`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ConversionRequest {
    /// Echoed in the response.
    pub uid: String,
    /// The `group/version` to convert to.
    #[serde(rename = "desiredAPIVersion")]
    pub desired_api_version: String,
    /// The objects, possibly of different versions.
    #[serde(default)]
    pub objects: Vec<Value>,
}

/// `response` of a [`ConversionReview`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ConversionResponse {
    /// The request's `uid`.
    pub uid: String,
    /// The objects in the desired version, in the request's order (empty on failure).
    #[serde(rename = "convertedObjects", default)]
    pub converted_objects: Vec<Value>,
    /// A `Status`: `{"status": "Success"}` or `{"status": "Failure", "message": ...}`.
    pub result: Value,
}

const API_VERSION: &str = "apiextensions.k8s.io/v1";

/// The webhook's answer to a `ConversionReview` body: every object converted to the
/// desired version in order (`Success`), or none and a `Failure` result whose message
/// names the first object that failed. `Err` when the body is no `ConversionReview`
/// with a request (the HTTP service answers 400).
pub fn review<H>(
    converter: &Converter<H>,
    body: &[u8],
) -> Result<ConversionReview, ConversionError> {
    let request: ConversionReview = serde_json::from_slice(body)
        .map_err(|e| ConversionError(format!("the body is not a ConversionReview: {e}")))?;
    if request.kind != "ConversionReview" || request.api_version != API_VERSION {
        return Err(ConversionError(format!(
            "expected a ConversionReview of {API_VERSION}, got kind {:?} of {:?}",
            request.kind, request.api_version
        )));
    }
    let request = request
        .request
        .ok_or_else(|| ConversionError("the ConversionReview has no request".into()))?;
    let converted: Result<Vec<Value>, ConversionError> = request
        .objects
        .iter()
        .map(|o| converter.convert(o, &request.desired_api_version))
        .collect();
    let (converted_objects, result) = match converted {
        Ok(objects) => (objects, json!({"status": "Success"})),
        Err(e) => (
            Vec::new(),
            json!({"status": "Failure", "message": e.to_string()}),
        ),
    };
    Ok(ConversionReview {
        api_version: API_VERSION.into(),
        kind: "ConversionReview".into(),
        request: None,
        response: Some(ConversionResponse {
            uid: request.uid,
            converted_objects,
            result,
        }),
    })
}
