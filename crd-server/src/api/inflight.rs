//! kube-apiserver's max-in-flight filter (`server/filters/maxinflight.go`): at most
//! `--max-requests-inflight` read-only requests (get, list) and
//! `--max-mutating-requests-inflight` others are served at once; one more is answered
//! `429 Too many requests, please try again later.` with `Retry-After: 1` at once, as
//! kube-apiserver answers it. Long-running requests — watches, and the `attach`, `exec`,
//! `log`, `portforward` and `proxy` subresources — are not counted. A limit of 0 is no
//! limit. The request filter ([`crate::api::auth_filter`]) asks for a slot where
//! kube-apiserver's chain does: after authentication and impersonation, before
//! authorization.

use std::sync::atomic::{AtomicUsize, Ordering};

use axum::response::{IntoResponse, Response};
use http::{Method, StatusCode, Uri};

/// Subresources whose requests run as long as the client keeps them open.
const LONG_RUNNING_SUBRESOURCES: [&str; 5] = ["attach", "exec", "log", "portforward", "proxy"];

/// How the filter counts a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    ReadOnly,
    Mutating,
    LongRunning,
}

struct Slots {
    used: AtomicUsize,
    limit: usize,
}

/// A slot held while a request is served.
pub struct Held<'a>(&'a AtomicUsize);

impl Drop for Held<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Slots {
    fn new(limit: usize) -> Option<Slots> {
        (limit > 0).then(|| Slots {
            used: AtomicUsize::new(0),
            limit,
        })
    }

    fn take(&self) -> Option<Held<'_>> {
        self.used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < self.limit).then_some(n + 1)
            })
            .ok()
            .map(|_| Held(&self.used))
    }
}

/// The server's two limits (`--max-requests-inflight`,
/// `--max-mutating-requests-inflight`; 0 is none).
pub struct Limits {
    read_only: Option<Slots>,
    mutating: Option<Slots>,
}

impl Limits {
    pub fn new(read_only: usize, mutating: usize) -> Limits {
        Limits {
            read_only: Slots::new(read_only),
            mutating: Slots::new(mutating),
        }
    }

    /// A slot for the request, held until it is dropped (`Ok(None)`: not counted), or
    /// kube-apiserver's 429 past the limit.
    pub fn admit(&self, method: &Method, uri: &Uri) -> Result<Option<Held<'_>>, Response> {
        if self.read_only.is_none() && self.mutating.is_none() {
            return Ok(None);
        }
        let slots = match classify(method, uri) {
            Class::LongRunning => None,
            Class::ReadOnly => self.read_only.as_ref(),
            Class::Mutating => self.mutating.as_ref(),
        };
        match slots {
            None => Ok(None),
            Some(slots) => slots.take().map(Some).ok_or_else(too_many_requests),
        }
    }
}

/// kube-apiserver's answer past the limit: plain text, not a `Status`.
fn too_many_requests() -> Response {
    (
        StatusCode::TOO_MANY_REQUESTS,
        [
            (http::header::RETRY_AFTER, "1"),
            (http::header::CONTENT_TYPE, "text/plain; charset=utf-8"),
            (http::header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        "Too many requests, please try again later.\n",
    )
        .into_response()
}

fn truthy(v: &str) -> bool {
    matches!(v, "true" | "1" | "True" | "TRUE")
}

/// The class of a request, read from its method and path as kube-apiserver's
/// `RequestInfoFactory` reads its verb and subresource.
fn classify(method: &Method, uri: &Uri) -> Class {
    let mut segs = uri.path().split('/').filter(|s| !s.is_empty());
    let resource_path = match segs.next() {
        Some("api") => segs.next().is_some(),
        Some("apis") => segs.next().is_some() && segs.next().is_some(),
        _ => false,
    };
    if !resource_path {
        // A non-resource request's verb is its method: only GET reads.
        return if method == Method::GET {
            Class::ReadOnly
        } else {
            Class::Mutating
        };
    }
    // What decides the class is in the first segments (`watch/namespaces/{ns}/{r}/{name}/{sub}`):
    // kept on the stack, as every request is classified.
    let mut kept = [""; 7];
    let mut n = 0;
    for (slot, seg) in kept.iter_mut().zip(segs) {
        *slot = seg;
        n += 1;
    }
    let rest = &kept[..n];
    let (watch_path, rest) = match rest.split_first() {
        Some((&"watch", tail)) => (true, tail),
        _ => (false, rest),
    };
    // `namespaces/{ns}/{resource}...`; `namespaces/{name}/status` is the namespace's own.
    let rest = match rest {
        ["namespaces", _, r, tail @ ..]
            if !(tail.is_empty() && ["status", "finalize"].contains(r)) =>
        {
            &rest[2..]
        }
        _ => rest,
    };
    let reads = method == Method::GET || method == Method::HEAD;
    let watch_param = uri.query().unwrap_or("").split('&').any(|kv| {
        kv.split_once('=')
            .is_some_and(|(k, v)| k == "watch" && truthy(v))
    });
    let subresource = rest.get(2).copied();
    if (reads && (watch_path || watch_param))
        || subresource.is_some_and(|s| LONG_RUNNING_SUBRESOURCES.contains(&s))
    {
        return Class::LongRunning;
    }
    if reads {
        Class::ReadOnly
    } else {
        Class::Mutating
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(method: Method, uri: &str) -> Class {
        classify(&method, &uri.parse().unwrap())
    }

    #[test]
    fn requests_are_counted_as_kube_apiserver_counts_them() {
        use Class::*;
        let cases = [
            (Method::GET, "/api/v1/namespaces/ns/configmaps", ReadOnly),
            (Method::GET, "/api/v1/namespaces/ns/configmaps/a", ReadOnly),
            (Method::POST, "/api/v1/namespaces/ns/configmaps", Mutating),
            (
                Method::PATCH,
                "/apis/apps/v1/namespaces/ns/deployments/d/status",
                Mutating,
            ),
            (
                Method::DELETE,
                "/apis/stable.example.com/v1/crontabs",
                Mutating,
            ),
            (
                Method::GET,
                "/api/v1/namespaces/ns/configmaps?watch=true",
                LongRunning,
            ),
            (
                Method::GET,
                "/api/v1/namespaces/ns/configmaps?limit=5&watch=1",
                LongRunning,
            ),
            (
                Method::GET,
                "/api/v1/namespaces/ns/configmaps?watch=false",
                ReadOnly,
            ),
            (
                Method::GET,
                "/api/v1/watch/namespaces/ns/configmaps",
                LongRunning,
            ),
            (Method::GET, "/api/v1/namespaces/ns/pods/p/log", LongRunning),
            (
                Method::POST,
                "/api/v1/namespaces/ns/pods/p/exec?command=ls",
                LongRunning,
            ),
            (
                Method::GET,
                "/api/v1/namespaces/ns/services/s/proxy/path",
                LongRunning,
            ),
            (
                Method::GET,
                "/api/v1/namespaces/ns/services/s/proxy/a/b/c/d/e",
                LongRunning,
            ),
            (Method::GET, "/api/v1/namespaces/log", ReadOnly),
            (Method::PUT, "/api/v1/namespaces/ns/finalize", Mutating),
            (Method::GET, "/apis", ReadOnly),
            (Method::GET, "/openapi/v3", ReadOnly),
            (Method::POST, "/version", Mutating),
        ];
        for (method, uri, want) in cases {
            assert_eq!(class(method.clone(), uri), want, "{method} {uri}");
        }
    }

    #[test]
    fn slots_are_taken_up_to_the_limit_and_given_back() {
        let slots = Slots::new(2).unwrap();
        let a = slots.take().expect("first");
        let _b = slots.take().expect("second");
        assert!(slots.take().is_none(), "past the limit");
        drop(a);
        assert!(slots.take().is_some(), "a slot given back is taken again");
        assert!(Slots::new(0).is_none(), "0 is no limit");
    }
}
