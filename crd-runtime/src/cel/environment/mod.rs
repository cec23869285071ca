//! The Kubernetes CEL environments: which libraries and language settings an
//! expression is compiled with, by server release and by whether the
//! expression is new or stored.
//!
//! Also what an expression is parsed with: the parser with each release's macros
//! (`syntax`), cel-go's parser limits (`parse_limits`) and walks of the parsed
//! tree (`ast`).

pub(in crate::cel) mod ast;
pub(in crate::cel) mod parse_limits;
pub(in crate::cel) mod releases;
pub(in crate::cel) mod syntax;

/// The Kubernetes CEL environment an expression is compiled in.
///
/// A 1.N server has two (`environment.EnvSet`): expressions it has not stored
/// before are compiled at its compatibility version 1.(N-1)
/// ([`CelEnvironment::for_kube`]), so that a rollback to 1.(N-1) can still run
/// them; expressions already stored (the rules of an installed CRD or policy,
/// and rules an update leaves unchanged) at 1.N
/// ([`CelEnvironment::stored_for_kube`]). See [`crate::cel::environment::releases`] for what
/// each release declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CelEnvironment {
    /// Property names that are CEL keywords (`if`, `namespace`, ...) can be
    /// selected as they are (`self.if`), not only escaped (`self.__if__`):
    /// compatibility version 1.31 and later.
    pub keywords_as_field_names: bool,
    /// A failed rule prints the value of a scalar and no value for an object or
    /// array, instead of the schema type (servers of 1.35 and later).
    pub prints_values: bool,
    /// The compatibility version (minor of 1.x) whose base.go libraries are
    /// declared: the format library from 1.31, semver from 1.33 (older
    /// environments report `undeclared reference`).
    pub libraries: u32,
    /// The server release (minor of 1.x): what comes with the cel-go it
    /// vendors (`first`/`last` from 1.33) rather than with base.go.
    pub release: u32,
}

impl CelEnvironment {
    /// The newest environment this crate implements (stored expressions of the
    /// newest release).
    pub const NEWEST: CelEnvironment = CelEnvironment {
        keywords_as_field_names: true,
        prints_values: true,
        libraries: crate::KubeVersion::NEWEST.minor(),
        release: crate::KubeVersion::NEWEST.minor(),
    };

    /// The environment a Kubernetes `major.minor` server compiles new
    /// expressions in (compatibility version one release earlier).
    pub fn for_version(major: u32, minor: u32) -> Self {
        if major > 1 {
            return Self::stored_for_version(major, minor);
        }
        let compat = minor.saturating_sub(1);
        CelEnvironment {
            // The stored environment always recognizes keywords (its
            // compatibility version is unbounded); the new one from 1.31 on.
            keywords_as_field_names: compat >= 31,
            prints_values: minor >= 35,
            libraries: compat,
            release: minor,
        }
    }

    /// The environment of new expressions at compatibility version
    /// `major.minor` (`celEnvironmentCompatibilityVersion`), on the server
    /// release after it.
    pub fn for_compatibility_version(major: u32, minor: u32) -> Self {
        if major > 1 {
            return Self::stored_for_version(major, minor);
        }
        Self::for_version(1, minor.saturating_add(1))
    }

    /// The environment a Kubernetes `major.minor` server compiles stored
    /// expressions in (every library of its base.go that is not removed).
    pub fn stored_for_version(major: u32, minor: u32) -> Self {
        let minor = if major > 1 { u32::MAX } else { minor };
        CelEnvironment {
            keywords_as_field_names: minor >= 31,
            prints_values: minor >= 35,
            libraries: minor,
            release: minor,
        }
    }

    /// The environment of new expressions on a `version` server.
    pub fn for_kube(version: crate::KubeVersion) -> Self {
        Self::for_version(1, version.minor())
    }

    /// The environment of stored expressions on a `version` server: rules of
    /// installed CRDs and policies evaluated at run time, and rules an update
    /// does not change.
    pub fn stored_for_kube(version: crate::KubeVersion) -> Self {
        Self::stored_for_version(1, version.minor())
    }
}

impl Default for CelEnvironment {
    fn default() -> Self {
        Self::NEWEST
    }
}
