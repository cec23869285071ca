//! Writing all CRDs of a crate as one YAML stream, and checking a committed copy.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::model::CustomResourceDefinition;

/// Why a manifest could not be rendered, written or checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ManifestError {
    /// YAML serialization failed.
    Yaml(String),
    /// Reading or writing the file failed.
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        message: String,
    },
    /// The CRDs break objects or clients of the previous release
    /// ([`Manifest::check_compatible_with`]).
    Incompatible {
        /// The directory holding the previous release's CRDs.
        release: PathBuf,
        /// Each change at level `error`, as `crd-gen diff` prints it.
        changes: Vec<String>,
    },
    /// The committed file differs from what the code generates.
    Drift {
        /// The file.
        path: PathBuf,
        /// The first differing line (1-based) with both versions of it.
        first_difference: String,
    },
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ManifestError::Yaml(m) => write!(f, "cannot render YAML: {m}"),
            ManifestError::Io { path, message } => write!(f, "{}: {message}", path.display()),
            ManifestError::Incompatible { release, changes } => {
                write!(
                    f,
                    "the CRDs are not compatible with the release in {}:",
                    release.display()
                )?;
                for change in changes {
                    write!(f, "\n  {change}")?;
                }
                Ok(())
            }
            ManifestError::Drift {
                path,
                first_difference,
            } => write!(
                f,
                "{} is out of date with the code ({first_difference}); \
                 rerun with UPDATE_GOLDEN=1 to rewrite it",
                path.display()
            ),
        }
    }
}

impl std::error::Error for ManifestError {}

/// An ordered collection of CRDs rendered as one multi-document YAML stream
/// (`kubectl apply -f crds.yaml`).
///
/// ```
/// use crd_runtime::{CustomResourceDefinition, Manifest};
/// let crd: CustomResourceDefinition = serde_json::from_str(
///     r#"{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition"}"#,
/// ).unwrap();
/// let m = Manifest::new().crd(crd);
/// assert!(m.to_yaml().unwrap().starts_with("---\n"));
/// ```
#[derive(Clone, Debug, Default)]
pub struct Manifest {
    crds: Vec<CustomResourceDefinition>,
}

impl Manifest {
    /// An empty manifest.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a CRD (e.g. `T::crd()` or the result of [`super::merge_versions`]).
    pub fn crd(mut self, crd: CustomResourceDefinition) -> Self {
        self.crds.push(crd);
        self
    }

    /// The CRDs, in insertion order.
    pub fn crds(&self) -> &[CustomResourceDefinition] {
        &self.crds
    }

    /// The YAML stream: one `---`-separated document per CRD.
    pub fn to_yaml(&self) -> Result<String, ManifestError> {
        crate::load::to_yaml_documents(&self.crds).map_err(ManifestError::Yaml)
    }

    /// Writes the YAML stream to `path` (only when the content changed).
    pub fn write(&self, path: impl AsRef<Path>) -> Result<(), ManifestError> {
        let path = path.as_ref();
        let yaml = self.to_yaml()?;
        if std::fs::read_to_string(path).ok().as_deref() == Some(yaml.as_str()) {
            return Ok(());
        }
        std::fs::write(path, yaml).map_err(|e| ManifestError::Io {
            path: path.to_path_buf(),
            message: e.to_string(),
        })
    }

    /// Compares the committed file at `path` with the generated YAML. With the
    /// environment variable `UPDATE_GOLDEN=1` the file is rewritten instead.
    pub fn check_file(&self, path: impl AsRef<Path>) -> Result<(), ManifestError> {
        let path = path.as_ref();
        if std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1") {
            return self.write(path);
        }
        let yaml = self.to_yaml()?;
        let committed = std::fs::read_to_string(path).map_err(|e| ManifestError::Io {
            path: path.to_path_buf(),
            message: format!("{e} (run with UPDATE_GOLDEN=1 to create it)"),
        })?;
        match first_difference(&committed, &yaml) {
            None => Ok(()),
            Some(first_difference) => Err(ManifestError::Drift {
                path: path.to_path_buf(),
                first_difference,
            }),
        }
    }

    /// [`Manifest::check_file`] for tests: panics with the drift report.
    #[track_caller]
    pub fn assert_file_matches(&self, path: impl AsRef<Path>) {
        if let Err(e) = self.check_file(path) {
            panic!("{e}");
        }
    }
}

fn first_difference(committed: &str, generated: &str) -> Option<String> {
    if committed == generated {
        return None;
    }
    let mut a = committed.lines();
    let mut b = generated.lines();
    let mut line = 1;
    loop {
        match (a.next(), b.next()) {
            (Some(x), Some(y)) if x == y => line += 1,
            (x, y) => {
                return Some(format!(
                    "line {line}: committed {:?}, generated {:?}",
                    x.unwrap_or("<end of file>"),
                    y.unwrap_or("<end of file>")
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drift_is_reported_with_the_line() {
        assert_eq!(first_difference("a\nb\n", "a\nb\n"), None);
        assert_eq!(
            first_difference("a\nb\n", "a\nc\n").unwrap(),
            r#"line 2: committed "b", generated "c""#
        );
        assert_eq!(
            first_difference("a\n", "a\nc\n").unwrap(),
            r#"line 2: committed "<end of file>", generated "c""#
        );
    }

    #[test]
    fn check_file_detects_drift_and_missing_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("crds.yaml");
        let crd: CustomResourceDefinition = serde_json::from_str(
            r#"{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition"}"#,
        )
        .unwrap();
        let m = Manifest::new().crd(crd);
        assert!(matches!(m.check_file(&path), Err(ManifestError::Io { .. })));
        m.write(&path).unwrap();
        m.check_file(&path).unwrap();
        std::fs::write(&path, "---\nchanged: true\n").unwrap();
        let e = m.check_file(&path).unwrap_err();
        assert!(e.to_string().contains("line 2"), "{e}");
    }
}
