//! What a fault rule does to a resource request ([`crate::faults`]): answers it with
//! kube-apiserver's `Status` for the rule's code instead of serving it, holds its answer
//! back for the rule's delay, or ends its watch stream after so many events. Every
//! injection is logged.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use http::StatusCode;
use serde_json::json;

use crate::api::request::{RequestInfo, ResourceRequest};
use crate::api::state::Shared;
use crate::api::status::{ApiError, Qualified};
use crate::faults::{Injection, Request};

/// The request as fault rules see it.
pub(crate) fn fault_request<'a>(info: &'a RequestInfo, user: Option<&'a str>) -> Request<'a> {
    Request {
        verb: info.verb.as_str(),
        group: &info.group,
        resource: &info.resource,
        subresource: info.subresource.as_deref(),
        namespace: info.namespace.as_deref(),
        name: info.name.as_deref(),
        user,
    }
}

/// What a client asking for a retry reads in an injected answer.
const TOO_MANY: &str = "Too many requests, please try again later.";

/// Serves `req` as `injection` says (`serve` serves it normally).
pub(crate) async fn serve<S, F>(
    shared: &Arc<Shared>,
    injection: Injection,
    method: &http::Method,
    path: &str,
    req: ResourceRequest,
    serve: S,
) -> Result<Response, ApiError>
where
    S: FnOnce(ResourceRequest) -> F,
    F: std::future::Future<Output = Result<Response, ApiError>>,
{
    let said = format!("fault rule {} ({})", injection.rule, injection.text);
    if let Some(code) = injection.code {
        if let Some(delay) = injection.delay {
            tokio::time::sleep(delay).await;
        }
        let answer = answer(shared, &injection, code, &req).await;
        let status = answer.as_ref().map_or_else(
            |e| format!("{} {}", e.code.as_u16(), e.reason),
            |_| "200 with an ERROR event (410 Expired)".to_string(),
        );
        crate::log::info(format_args!("{said}: {method} {path} answered {status}"));
        return answer;
    }
    // Served, then the answer is held back: what the request does happens, the client
    // learns of it late (and may have given up by then).
    let resp = serve(req).await;
    if let Some(delay) = injection.delay {
        crate::log::info(format_args!(
            "{said}: {method} {path} answer held back {delay:?}"
        ));
        tokio::time::sleep(delay).await;
    }
    match (injection.close_after, resp) {
        (Some(events), Ok(resp)) if resp.status() == StatusCode::OK => {
            crate::log::info(format_args!(
                "{said}: {method} {path} watch ends after {events} event(s)"
            ));
            let (parts, body) = resp.into_parts();
            Ok(Response::from_parts(parts, close_after(body, events)))
        }
        (_, resp) => resp,
    }
}

/// The answer of an injected code: kube-apiserver's `Status` for it (a 410 on a watch:
/// 200, then one ERROR event, as its watch cache answers an expired watch).
async fn answer(
    shared: &Arc<Shared>,
    injection: &Injection,
    code: u16,
    req: &ResourceRequest,
) -> Result<Response, ApiError> {
    let info = &req.info;
    let q = Qualified {
        group: info.group.clone(),
        plural: info.resource.clone(),
        kind: String::new(),
    };
    let name = info.name.as_deref().unwrap_or("");
    let cause = format!(
        "injected by crd-server fault rule {} ({})",
        injection.rule, injection.text
    );
    let retry = injection.retry_after;
    Err(match code {
        409 => ApiError::conflict(&q, name),
        429 => ApiError::too_many_requests(TOO_MANY, retry.unwrap_or(1)),
        500 => ApiError::internal_error(&cause),
        503 => {
            let e = ApiError::unavailable(cause);
            match retry {
                Some(s) => e.retry_after(s),
                None => e,
            }
        }
        504 => ApiError::timeout(crate::api::status::DEADLINE, retry.unwrap_or(0)),
        // 410, which rules give watches only.
        _ => {
            let from = req
                .query
                .resource_version
                .as_deref()
                .and_then(|rv| rv.parse::<u64>().ok())
                .unwrap_or(0);
            let current = shared.store.current_revision().await.unwrap_or(from);
            let expired = ApiError::gone(from, current.max(from));
            let mut line =
                serde_json::to_vec(&json!({"type": "ERROR", "object": expired.to_status()}))
                    .unwrap_or_default();
            line.push(b'\n');
            return Ok((
                StatusCode::OK,
                [
                    (http::header::CONTENT_TYPE, "application/json"),
                    (http::header::CACHE_CONTROL, "no-cache, private"),
                ],
                line,
            )
                .into_response());
        }
    })
}

/// A watch body that ends after `events` lines.
fn close_after(body: Body, events: u64) -> Body {
    let chunks = body.into_data_stream();
    let stream = futures::stream::unfold((chunks, events), |(mut chunks, left)| async move {
        if left == 0 {
            return None;
        }
        let chunk = match chunks.next().await? {
            Ok(chunk) => chunk,
            Err(e) => return Some((Err(e), (chunks, 0))),
        };
        let mut left = left;
        let mut end = chunk.len();
        for (i, _) in chunk.iter().enumerate().filter(|(_, b)| **b == b'\n') {
            left -= 1;
            if left == 0 {
                end = i + 1;
                break;
            }
        }
        Some((Ok::<Bytes, axum::Error>(chunk.slice(..end)), (chunks, left)))
    });
    Body::from_stream(stream)
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    #[tokio::test]
    async fn a_watch_body_ends_after_so_many_lines_wherever_chunks_break() {
        let chunks: Vec<Result<Bytes, std::io::Error>> = vec![
            Ok(Bytes::from_static(b"{\"a\":1}\n{\"b\"")),
            Ok(Bytes::from_static(b":2}\n{\"c\":3}\n{\"d\":4}\n")),
            Ok(Bytes::from_static(b"{\"e\":5}\n")),
        ];
        let body = Body::from_stream(futures::stream::iter(chunks));
        let out = close_after(body, 3).collect().await.unwrap().to_bytes();
        assert_eq!(&out[..], b"{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n");
    }
}
