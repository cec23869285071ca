//! One test server per process: started on a thread with its own tokio runtime, so
//! that it keeps serving while each `#[tokio::test]` builds and drops its own runtime.

use std::sync::OnceLock;

use super::{TestServer, TestServerBuilder};
use crate::config::StartError;

/// The process's shared server, or why it could not start (kept: every later caller
/// gets the same answer rather than a second attempt).
static SHARED: OnceLock<Result<TestServer, String>> = OnceLock::new();

pub(super) fn get_or_start(builder: TestServerBuilder) -> Result<&'static TestServer, StartError> {
    SHARED
        .get_or_init(|| start_on_own_thread(builder))
        .as_ref()
        .map_err(|e| StartError::Config(e.clone()))
}

fn start_on_own_thread(builder: TestServerBuilder) -> Result<TestServer, String> {
    let (tx, rx) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("crd-server-shared".into())
        .spawn(move || {
            let runtime = match crate::server::runtime_builder()
                .worker_threads(2)
                .thread_name("crd-server-shared")
                .build()
            {
                Ok(rt) => rt,
                Err(e) => {
                    let _ = tx.send(Err(format!("shared test server runtime: {e}")));
                    return;
                }
            };
            runtime.block_on(async move {
                let started = builder.start().await.map_err(|e| e.to_string());
                let ok = started.is_ok();
                let _ = tx.send(started);
                if ok {
                    // The server's tasks run on this runtime until the process exits.
                    std::future::pending::<()>().await;
                }
            });
        });
    if let Err(e) = spawned {
        return Err(format!("shared test server thread: {e}"));
    }
    rx.recv()
        .unwrap_or_else(|_| Err("the shared test server's thread ended before starting".into()))
}
