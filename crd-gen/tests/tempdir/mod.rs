//! Scratch directories for CLI tests that delete themselves, so the large
//! hostile inputs (50 MB files, 10,000-level schemas) never pile up in /tmp.

use std::ops::Deref;
use std::path::{Path, PathBuf};

/// A fresh directory under the system temp dir, removed when dropped
/// (also when the test panics).
pub struct TempDir(PathBuf);

impl TempDir {
    /// Creates `<tmp>/<prefix>-<pid>-<test>`, emptying any leftover first.
    pub fn new(prefix: &str, test: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("{prefix}-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Deref for TempDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
