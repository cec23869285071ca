//! Running the `crd-gen` binary the way a script does.

use std::io::Write;
use std::process::{Command, Stdio};

pub const BIN: &str = env!("CARGO_BIN_EXE_crd-gen");

/// Runs `crd-gen ARGS` with `stdin` written on a thread (so a large input cannot
/// block against a full stdout pipe): exit code, stdout, stderr.
pub fn run_with_stdin(args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("crd-gen starts");
    let input = stdin.to_vec();
    let mut pipe = child.stdin.take().expect("stdin is piped");
    let writer = std::thread::spawn(move || {
        // The command may exit without reading all of its input.
        let _ = pipe.write_all(&input);
    });
    let out = child.wait_with_output().expect("crd-gen runs");
    writer.join().expect("the stdin writer finishes");
    (
        out.status.code().expect("exited normally, not by a signal"),
        String::from_utf8(out.stdout).expect("stdout is UTF-8"),
        String::from_utf8(out.stderr).expect("stderr is UTF-8"),
    )
}
