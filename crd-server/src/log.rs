//! The server's own log lines (on standard error, as kube-apiserver logs): an injected
//! fault, a failed compaction. A closed standard error is no reason to stop serving.

use std::io::Write as _;

/// Writes `E <message>`: something failed that the server carries on without.
pub(crate) fn error(message: std::fmt::Arguments<'_>) {
    line('E', message);
}

/// Writes `I <message>`: something a test or an operator wants to see happen.
pub(crate) fn info(message: std::fmt::Arguments<'_>) {
    line('I', message);
}

fn line(level: char, message: std::fmt::Arguments<'_>) {
    let now = chrono::Utc::now().format("%H:%M:%S%.6f");
    let _ = writeln!(
        std::io::stderr().lock(),
        "{level} {now} crd-server: {message}"
    );
}
