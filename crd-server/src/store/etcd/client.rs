//! The members of an etcd cluster and how one request reaches them: a gRPC channel per
//! endpoint, tried in turn from the one that answered last, with the rounds, timeout and
//! write-safety rules of etcd's own client balancer.

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tonic::transport::{Channel, Endpoint};
use tonic::{Code, Status};

use super::super::StoreError;

/// A request that gets no answer in this time fails (and the next endpoint is tried).
pub(super) const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// Passes over the endpoints before a request fails, the pause growing by this much
/// each time (about the time etcd takes to elect a new leader).
const ROUNDS: u32 = 4;
const ROUND_PAUSE: Duration = Duration::from_millis(250);
/// The largest answer taken (etcd's own limit on what it sends); tonic's default of
/// 4 MiB would fail a list of a few thousand objects.
pub(super) const MAX_ANSWER: usize = i32::MAX as usize;

/// Whether a request changes the store: a write is sent again only when it cannot have
/// been applied, since a write sent twice could be applied twice.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Read,
    Write,
}

/// What one member made of a request.
pub(super) enum Answer<T> {
    /// Its answer.
    Ok(T),
    /// Its refusal: a gRPC status etcd sent.
    Refused(Status),
    /// It was not reached: nothing was sent.
    Unreached(String),
    /// The request went out but no answer came back.
    Lost(String),
}

/// Sorts a failed call: a status that etcd sent, one that says the connection could not
/// be made (nothing was sent), or one for a request whose answer was lost.
pub(super) fn classify<T>(status: Status) -> Answer<T> {
    let mut source: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(&status);
    if source.is_none() {
        return Answer::Refused(status);
    }
    while let Some(e) = source {
        if e.is::<tonic::ConnectError>() {
            return Answer::Unreached(status.message().to_string());
        }
        source = e.source();
    }
    Answer::Lost(status.message().to_string())
}

/// Errors another member, or the same one a moment later, may not give: no leader or
/// a leader changing, a member stopping, an overloaded or unreachable one.
pub(super) fn transient(code: Code, message: &str) -> bool {
    code == Code::Unavailable
        || code == Code::DeadlineExceeded
        || [
            "no leader",
            "leader changed",
            "request timed out",
            "server stopped",
            "too many requests",
            "not capable",
        ]
        .iter()
        .any(|m| message.contains(m))
}

/// Errors that say the request was refused before it was proposed.
pub(super) fn not_applied(message: &str) -> bool {
    message.contains("no leader")
        || message.contains("server stopped")
        || message.contains("too many requests")
}

/// The cluster's client endpoints, one lazily connected HTTP/2 channel each.
pub(super) struct Members {
    endpoints: Vec<String>,
    channels: Vec<Channel>,
    /// The endpoint that answered last, tried first.
    preferred: AtomicUsize,
}

impl Members {
    /// Channels to `endpoints` (`http://127.0.0.1:2379`, ...); nothing is dialled yet.
    pub(super) fn new(endpoints: &[String]) -> Result<Members, StoreError> {
        if endpoints.is_empty() {
            return Err(StoreError::Unavailable("no etcd endpoint given".into()));
        }
        let endpoints: Vec<String> = endpoints
            .iter()
            .map(|e| e.trim_end_matches('/').to_string())
            .collect();
        let channels = endpoints
            .iter()
            .map(|url| {
                let endpoint = Endpoint::from_shared(url.clone())
                    .map_err(|e| StoreError::Unavailable(format!("bad etcd URL {url}: {e}")))?;
                Ok(endpoint
                    .connect_timeout(Duration::from_secs(2))
                    .tcp_nodelay(true)
                    // Large lists and watch bursts: windows of MiBs, not HTTP/2's 64 KiB.
                    .initial_stream_window_size(Some(4 << 20))
                    .initial_connection_window_size(Some(16 << 20))
                    .connect_lazy())
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        Ok(Members {
            endpoints,
            channels,
            preferred: AtomicUsize::new(0),
        })
    }

    /// The endpoints, in the order given.
    pub(super) fn endpoints(&self) -> &[String] {
        &self.endpoints
    }

    /// The endpoints to try, from the preferred one: `(index, url, channel)`.
    pub(super) fn in_turn(&self) -> impl Iterator<Item = (usize, &str, Channel)> + '_ {
        let first = self.preferred.load(Ordering::Relaxed);
        (0..self.endpoints.len()).map(move |i| {
            let at = (first + i) % self.endpoints.len();
            (at, self.endpoints[at].as_str(), self.channels[at].clone())
        })
    }

    /// Remembers the endpoint that answered.
    pub(super) fn answered(&self, at: usize) {
        self.preferred.store(at, Ordering::Relaxed);
    }

    /// Sends one request through `send`, trying each endpoint in turn from the one that
    /// answered last (what etcd's client balancer does: a dead member costs one refused
    /// connection, then the others serve). A read is tried again elsewhere whatever
    /// went wrong; a write only when it cannot have been applied — the member was not
    /// reached, or refused it before proposing it (no leader, stopping, overloaded).
    ///
    /// `Ok(Err(status))` is etcd's own refusal, for the caller to interpret.
    pub(super) async fn call<T, F, Fut>(
        &self,
        kind: Kind,
        send: F,
    ) -> Result<Result<T, Status>, StoreError>
    where
        F: Fn(Channel) -> Fut,
        Fut: Future<Output = Result<tonic::Response<T>, Status>>,
    {
        let mut last = String::new();
        for round in 0..ROUNDS {
            if round > 0 {
                // Between rounds: an election in progress (about a second by default).
                tokio::time::sleep(ROUND_PAUSE * round).await;
            }
            for (at, endpoint, channel) in self.in_turn() {
                let answer = match tokio::time::timeout(REQUEST_TIMEOUT, send(channel)).await {
                    Ok(Ok(response)) => Answer::Ok(response.into_inner()),
                    Ok(Err(status)) => classify(status),
                    Err(_) => Answer::Lost(format!("no answer in {}s", REQUEST_TIMEOUT.as_secs())),
                };
                match answer {
                    Answer::Ok(v) => {
                        self.answered(at);
                        return Ok(Ok(v));
                    }
                    Answer::Refused(status) => {
                        let message = status.message();
                        if !transient(status.code(), message) {
                            self.answered(at);
                            return Ok(Err(status));
                        }
                        if kind == Kind::Write && !not_applied(message) {
                            return Ok(Err(status));
                        }
                        last = format!("{endpoint}: {message}");
                    }
                    Answer::Unreached(e) => last = format!("{endpoint}: {e}"),
                    Answer::Lost(e) if kind == Kind::Read => last = format!("{endpoint}: {e}"),
                    Answer::Lost(e) => {
                        return Err(StoreError::Unavailable(format!(
                            "etcd: the outcome of the write is unknown ({endpoint}: {e})"
                        )));
                    }
                }
            }
        }
        Err(StoreError::Unavailable(format!(
            "etcd unreachable ({last})"
        )))
    }
}
