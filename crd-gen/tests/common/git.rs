//! A scratch git repository made with the git CLI (the sources under test read it
//! with gix, never through git).

use std::path::Path;
use std::process::{Command, Stdio};

/// `git ARGS` in `repo`, isolated from the user's and the system's configuration
/// (HOME is the repository's parent); panics with git's stderr when it fails.
pub fn git(repo: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(repo)
        .env("HOME", repo.parent().unwrap())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run git ({e}); it must be on PATH"));
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
