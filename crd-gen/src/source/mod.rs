//! Sources of CRDs beyond files: `kube://NAME` and `kube://` (a cluster, feature `kube`)
//! and `git://REF?path=PATH` (a revision of the repository around the working
//! directory, feature `git`). The CLI accepts them wherever it reads CRDs; build
//! scripts can call [`read`] too (docs/sources.md).

use std::fmt;
use std::path::PathBuf;

#[cfg(feature = "git")]
mod git;
#[cfg(feature = "kube")]
mod kube;

/// How `kube://` sources reach the cluster: kubectl's `--context` and `--kubeconfig`.
/// Without either, the kubeconfig is found as kubectl finds it (`KUBECONFIG`, then
/// `~/.kube/config`; in a pod, the service account).
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The kubeconfig context to use instead of its `current-context`.
    pub context: Option<String>,
    /// The kubeconfig file to read instead of `KUBECONFIG` / `~/.kube/config`.
    pub kubeconfig: Option<PathBuf>,
}

/// One document a source produced: its display name and its bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Document {
    /// `kube://NAME` for a CRD read from a cluster, `git://REF?path=FILE` for a file
    /// read from a revision.
    pub name: String,
    /// YAML or JSON, as [`crate::load_input`] takes it.
    pub bytes: Vec<u8>,
}

/// What a `kube://` or `git://` argument names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location<'a> {
    /// `kube://NAME` (`Some`) or `kube://` (`None`: every CRD of the cluster).
    Kube(Option<&'a str>),
    /// `git://REF?path=PATH`: PATH (a file or a directory, relative to the repository
    /// root) at revision REF.
    Git {
        /// Anything `git rev-parse` takes: a branch, a tag, a commit, `HEAD~1`.
        rev: &'a str,
        /// The file or directory, relative to the repository root.
        path: &'a str,
    },
}

/// A source that cannot be read; displayed as `SOURCE: reason` on one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceError {
    /// The argument as given (`kube://NAME`, `git://REF?path=PATH`).
    pub source: String,
    /// Why, in one line.
    pub message: String,
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.source, self.message)
    }
}

impl std::error::Error for SourceError {}

/// Whether `arg` is a `kube://` or `git://` source rather than a path.
pub fn is_source(arg: &str) -> bool {
    arg.starts_with("kube://") || arg.starts_with("git://")
}

/// Parses a `kube://` or `git://` argument; `Ok(None)` when `arg` is neither (a path).
pub fn parse(arg: &str) -> Result<Option<Location<'_>>, SourceError> {
    let error = |message: &str| SourceError {
        source: arg.to_string(),
        message: message.to_string(),
    };
    if let Some(name) = arg.strip_prefix("kube://") {
        if name.contains('/') || name.contains('?') {
            return Err(error(
                "expected kube://NAME (a CRD name such as crontabs.stable.example.com) or kube://",
            ));
        }
        return Ok(Some(Location::Kube((!name.is_empty()).then_some(name))));
    }
    let Some(rest) = arg.strip_prefix("git://") else {
        return Ok(None);
    };
    let Some((rev, path)) = rest.split_once("?path=") else {
        return Err(error("expected git://REF?path=PATH (missing `?path=`)"));
    };
    if rev.is_empty() {
        return Err(error(
            "expected git://REF?path=PATH (missing the revision REF)",
        ));
    }
    Ok(Some(Location::Git { rev, path }))
}

/// Reads a `kube://` or `git://` source: one [`Document`] per CRD (kube) or per file
/// (git; a directory is walked recursively for `*.yaml`, `*.yml` and `*.json` files in
/// name order, as [`crate::walk::manifests`] walks one on disk). `Ok(None)` when `arg`
/// is a path. A source whose feature is compiled out is an error saying so.
pub fn read(arg: &str, options: &Options) -> Result<Option<Vec<Document>>, SourceError> {
    let Some(location) = parse(arg)? else {
        return Ok(None);
    };
    let message = match location {
        Location::Kube(name) => read_kube(name, options),
        Location::Git { rev, path } => read_git(rev, path),
    };
    message.map(Some).map_err(|message| SourceError {
        source: arg.to_string(),
        message,
    })
}

#[cfg(feature = "kube")]
fn read_kube(name: Option<&str>, options: &Options) -> Result<Vec<Document>, String> {
    kube::read(name, options)
}

#[cfg(not(feature = "kube"))]
fn read_kube(_: Option<&str>, _: &Options) -> Result<Vec<Document>, String> {
    Err("crd-gen was built without feature `kube`".to_string())
}

#[cfg(feature = "git")]
fn read_git(rev: &str, path: &str) -> Result<Vec<Document>, String> {
    let cwd =
        std::env::current_dir().map_err(|e| format!("cannot read the working directory: {e}"))?;
    git::read(&cwd, rev, path)
}

#[cfg(not(feature = "git"))]
fn read_git(_: &str, _: &str) -> Result<Vec<Document>, String> {
    Err("crd-gen was built without feature `git`".to_string())
}

/// An error and its causes on one line (`a: b: c`), leaving out a cause its parent
/// already quotes and bare kind tags (`NotFound`).
#[cfg(any(feature = "kube", feature = "git"))]
fn one_line(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let c_text = c.to_string();
        if c_text.contains(' ') && !text.contains(&c_text) {
            text = format!("{text}: {c_text}");
        }
        cause = c.source();
    }
    text.replace('\n', " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sources_and_leaves_paths_alone() {
        assert_eq!(parse("crds/a.yaml").unwrap(), None);
        assert_eq!(parse("-").unwrap(), None);
        assert_eq!(parse("kube://").unwrap(), Some(Location::Kube(None)));
        assert_eq!(
            parse("kube://crontabs.stable.example.com").unwrap(),
            Some(Location::Kube(Some("crontabs.stable.example.com")))
        );
        assert_eq!(
            parse("git://HEAD~1?path=config/crd").unwrap(),
            Some(Location::Git {
                rev: "HEAD~1",
                path: "config/crd"
            })
        );
        let err = parse("git://main").unwrap_err();
        assert_eq!(
            err.to_string(),
            "git://main: expected git://REF?path=PATH (missing `?path=`)"
        );
        assert!(parse("git://?path=x").is_err());
        assert!(parse("kube://a/b").is_err());
    }

    #[cfg(not(feature = "kube"))]
    #[test]
    fn kube_compiled_out_says_so() {
        let e = read("kube://x", &Options::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "kube://x: crd-gen was built without feature `kube`"
        );
    }

    #[cfg(not(feature = "git"))]
    #[test]
    fn git_compiled_out_says_so() {
        let e = read("git://HEAD?path=x", &Options::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "git://HEAD?path=x: crd-gen was built without feature `git`"
        );
    }
}
