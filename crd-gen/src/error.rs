//! The error type of the library, and which input a generation error came from.

use std::fmt;
use std::path::PathBuf;

use crd_runtime::CustomResourceDefinition;
use crd_runtime::load::LoadError;

use crate::Config;
use crate::codegen::GenError;

/// Everything that can go wrong generating code.
#[derive(Debug)]
pub enum Error {
    /// A file or directory could not be read or written.
    Io {
        /// The path involved.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A manifest is not valid YAML/JSON or not a valid CRD.
    Load(LoadError),
    /// A CRD could not be turned into Rust.
    Generate(GenError),
    /// A CRD of the input (file) `input` could not be turned into Rust.
    Input {
        /// The input's name, as given (a path, or `-` for stdin).
        input: String,
        /// Why.
        source: GenError,
    },
    /// `OUT_DIR` is not set and no output directory was configured.
    NoOutDir,
    /// `--k8s-version` names a Kubernetes version without k8s-openapi schemas.
    UnsupportedK8sVersion(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Error::Load(e) => e.fmt(f),
            Error::Generate(e) => e.fmt(f),
            // One line per problem, each naming the input (errors may span lines).
            Error::Input { input, source } => {
                for (i, line) in source.to_string().lines().enumerate() {
                    let sep = if i == 0 { "" } else { "\n" };
                    write!(f, "{sep}{input}: {line}")?;
                }
                Ok(())
            }
            Error::NoOutDir => f.write_str(
                "OUT_DIR is not set (not running in a build script?): call Config::out_dir",
            ),
            Error::UnsupportedK8sVersion(v) => write!(
                f,
                "Kubernetes version {v:?} has no k8s-openapi schemas (supported: {})",
                crd_runtime::k8s_schemas::VERSIONS.join(", ")
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            Error::Load(e) => Some(e),
            Error::Generate(e) | Error::Input { source: e, .. } => Some(e),
            Error::NoOutDir | Error::UnsupportedK8sVersion(_) => None,
        }
    }
}

impl From<GenError> for Error {
    fn from(e: GenError) -> Self {
        Error::Generate(e)
    }
}

impl From<LoadError> for Error {
    fn from(e: LoadError) -> Self {
        Error::Load(e)
    }
}

impl Config {
    /// `err` naming the input it came from: a [`Error::Generate`] becomes an
    /// [`Error::Input`] when one of `inputs` (named by `name`, read by `load`) holds a
    /// CRD that fails the same way; anything else is returned as it is. Generation
    /// works on CRDs, not files, so this reads the inputs again: it is meant for the
    /// error path only.
    pub fn naming_input<T>(
        &self,
        err: Error,
        inputs: &[T],
        name: impl Fn(&T) -> String,
        load: impl Fn(&T) -> Result<Vec<CustomResourceDefinition>, Error>,
    ) -> Error {
        let Error::Generate(e) = err else {
            return err;
        };
        // Two inputs may define CRDs of the same name: the one that fails is named.
        let fails = |crd: CustomResourceDefinition| {
            crd.name() == e.crd()
                && matches!(self.generate(&[crd]), Err(Error::Generate(g)) if g == e)
        };
        // The inputs' CRDs are loaded and dropped again: on a stack for deep schemas.
        let failing = crate::deep_safe(|| {
            inputs
                .iter()
                .find(|input| load(input).is_ok_and(|crds| crds.into_iter().any(fails)))
        });
        match failing {
            Some(input) => Error::Input {
                input: name(input),
                source: e,
            },
            None => Error::Generate(e),
        }
    }
}
