//! REST paths of a resource, as the API server routes them:
//! `/apis/{group}/{version}[/namespaces/{ns}]/{plural}[/{name}[/{subresource}]]`.
//!
//! Names and namespaces are checked with the API server's path-segment rule
//! (`IsValidPathSegmentName`: not `.` or `..`, no `/` or `%`), so a bad name fails here
//! with the server's wording instead of addressing another object; every other byte that
//! is not URL-safe is percent-encoded.

use std::fmt;

/// Why a REST path could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathError {
    /// A namespaced resource needs a namespace to address one object.
    NamespaceRequired {
        /// The kind.
        kind: &'static str,
    },
    /// A cluster-scoped resource has no namespace.
    NamespaceNotAllowed {
        /// The kind.
        kind: &'static str,
        /// The namespace given.
        namespace: String,
    },
    /// The CRD does not enable this subresource.
    NoSubresource {
        /// The kind.
        kind: &'static str,
        /// `status` or `scale`.
        subresource: &'static str,
    },
    /// A name or namespace cannot be a path segment.
    InvalidSegment {
        /// `name` or `namespace`.
        field: &'static str,
        /// The value.
        value: String,
        /// The API server's message.
        reason: &'static str,
    },
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PathError::NamespaceRequired { kind } => {
                write!(f, "{kind} is namespaced: a namespace is required")
            }
            PathError::NamespaceNotAllowed { kind, namespace } => write!(
                f,
                "{kind} is cluster-scoped: namespace {namespace:?} is not allowed"
            ),
            PathError::NoSubresource { kind, subresource } => write!(
                f,
                "the {kind} CRD does not enable the {subresource} subresource"
            ),
            PathError::InvalidSegment {
                field,
                value,
                reason,
            } => write!(
                f,
                "{field}: Invalid value: {}: {reason}",
                crate::go::quote(value)
            ),
        }
    }
}

impl std::error::Error for PathError {}

/// The identity a path is built from (the consts of a `CustomResourceExt`).
#[derive(Clone, Copy, Debug)]
pub struct PathSpec {
    /// API group (empty for the core group).
    pub group: &'static str,
    /// Version.
    pub version: &'static str,
    /// Kind, for error messages.
    pub kind: &'static str,
    /// Plural resource name.
    pub plural: &'static str,
    /// Whether the resource is namespaced.
    pub namespaced: bool,
}

/// `IsValidPathSegmentName` of the API server.
fn check_segment(field: &'static str, value: &str) -> Result<(), PathError> {
    let reason = if value.is_empty() {
        Some("may not be empty")
    } else if value == "." {
        Some("may not be '.'")
    } else if value == ".." {
        Some("may not be '..'")
    } else if value.contains('/') {
        Some("may not contain '/'")
    } else if value.contains('%') {
        Some("may not contain '%'")
    } else {
        None
    };
    match reason {
        Some(reason) => Err(PathError::InvalidSegment {
            field,
            value: value.to_string(),
            reason,
        }),
        None => Ok(()),
    }
}

/// Percent-encodes every byte outside RFC 3986's unreserved set and `:@`.
fn push_segment(out: &mut String, value: &str) {
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~:@".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
}

impl PathSpec {
    fn prefix(&self, namespace: Option<&str>) -> Result<String, PathError> {
        let mut out = if self.group.is_empty() {
            format!("/api/{}", self.version)
        } else {
            format!("/apis/{}/{}", self.group, self.version)
        };
        match (namespace, self.namespaced) {
            (Some(ns), true) => {
                check_segment("namespace", ns)?;
                out.push_str("/namespaces/");
                push_segment(&mut out, ns);
            }
            (Some(ns), false) => {
                return Err(PathError::NamespaceNotAllowed {
                    kind: self.kind,
                    namespace: ns.to_string(),
                });
            }
            (None, _) => {}
        }
        out.push('/');
        out.push_str(self.plural);
        Ok(out)
    }

    /// The collection: list, watch, create (`namespace = None` of a namespaced
    /// resource lists across all namespaces).
    pub fn collection(&self, namespace: Option<&str>) -> Result<String, PathError> {
        self.prefix(namespace)
    }

    /// One object: get, replace, patch, delete.
    pub fn object(&self, namespace: Option<&str>, name: &str) -> Result<String, PathError> {
        if self.namespaced && namespace.is_none() {
            return Err(PathError::NamespaceRequired { kind: self.kind });
        }
        let mut out = self.prefix(namespace)?;
        check_segment("name", name)?;
        out.push('/');
        push_segment(&mut out, name);
        Ok(out)
    }

    /// A subresource of one object, when `enabled`.
    pub fn subresource(
        &self,
        namespace: Option<&str>,
        name: &str,
        subresource: &'static str,
        enabled: bool,
    ) -> Result<String, PathError> {
        if !enabled {
            return Err(PathError::NoSubresource {
                kind: self.kind,
                subresource,
            });
        }
        let mut out = self.object(namespace, name)?;
        out.push('/');
        out.push_str(subresource);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CRONTAB: PathSpec = PathSpec {
        group: "stable.example.com",
        version: "v1",
        kind: "CronTab",
        plural: "crontabs",
        namespaced: true,
    };
    const CLUSTER: PathSpec = PathSpec {
        group: "example.com",
        version: "v1alpha1",
        kind: "Widget",
        plural: "widgets",
        namespaced: false,
    };

    #[test]
    fn namespaced_paths() {
        assert_eq!(
            CRONTAB.collection(Some("jobs")).unwrap(),
            "/apis/stable.example.com/v1/namespaces/jobs/crontabs"
        );
        assert_eq!(
            CRONTAB.collection(None).unwrap(),
            "/apis/stable.example.com/v1/crontabs"
        );
        assert_eq!(
            CRONTAB.object(Some("jobs"), "daily").unwrap(),
            "/apis/stable.example.com/v1/namespaces/jobs/crontabs/daily"
        );
        assert_eq!(
            CRONTAB
                .subresource(Some("jobs"), "daily", "status", true)
                .unwrap(),
            "/apis/stable.example.com/v1/namespaces/jobs/crontabs/daily/status"
        );
        assert_eq!(
            CRONTAB.object(None, "daily"),
            Err(PathError::NamespaceRequired { kind: "CronTab" })
        );
    }

    #[test]
    fn cluster_scoped_paths() {
        assert_eq!(
            CLUSTER.object(None, "w").unwrap(),
            "/apis/example.com/v1alpha1/widgets/w"
        );
        assert_eq!(
            CLUSTER.subresource(None, "w", "scale", true).unwrap(),
            "/apis/example.com/v1alpha1/widgets/w/scale"
        );
        let err = CLUSTER.collection(Some("ns")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Widget is cluster-scoped: namespace \"ns\" is not allowed"
        );
    }

    #[test]
    fn core_group_uses_api_prefix() {
        let pods = PathSpec {
            group: "",
            version: "v1",
            kind: "Pod",
            plural: "pods",
            namespaced: true,
        };
        assert_eq!(
            pods.object(Some("default"), "p").unwrap(),
            "/api/v1/namespaces/default/pods/p"
        );
    }

    #[test]
    fn disabled_subresource_is_an_error() {
        let err = CLUSTER.subresource(None, "w", "status", false).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the Widget CRD does not enable the status subresource"
        );
    }

    #[test]
    fn unsafe_segments_are_rejected_with_the_server_wording() {
        for (name, reason) in [
            ("", "may not be empty"),
            (".", "may not be '.'"),
            ("..", "may not be '..'"),
            ("a/b", "may not contain '/'"),
            ("a%2F", "may not contain '%'"),
        ] {
            let err = CRONTAB.object(Some("jobs"), name).unwrap_err();
            assert_eq!(
                err,
                PathError::InvalidSegment {
                    field: "name",
                    value: name.into(),
                    reason
                }
            );
        }
        let err = CRONTAB.collection(Some("../kube-system")).unwrap_err();
        assert!(matches!(
            err,
            PathError::InvalidSegment {
                field: "namespace",
                ..
            }
        ));
    }

    #[test]
    fn other_bytes_are_percent_encoded() {
        assert_eq!(
            CRONTAB.object(Some("jobs"), "a b?c#d").unwrap(),
            "/apis/stable.example.com/v1/namespaces/jobs/crontabs/a%20b%3Fc%23d"
        );
        assert_eq!(
            CRONTAB.object(Some("jobs"), "é").unwrap(),
            "/apis/stable.example.com/v1/namespaces/jobs/crontabs/%C3%A9"
        );
    }
}
