//! Which Kubernetes release to behave like.
//!
//! The API server's custom-resource handling changes between releases. What this
//! crate follows per version:
//!
//! | since | change |
//! | --- | --- |
//! | 1.30 | validation ratcheting on by default (beta; the gate can be turned off) |
//! | 1.31 | CEL: property names that are CEL keywords are selectable as they are; the format library |
//! | 1.33 | validation ratcheting GA (always on); the semver library |
//! | 1.34 | formats `k8s-short-name` and `k8s-long-name` are checked (dropped before) |
//! | 1.35 | CEL rule failures print scalar values (`Invalid value: 5`) and no value for objects and arrays, instead of the type (`Invalid value: "object"`) |

use std::fmt;
use std::str::FromStr;

/// A Kubernetes minor release, 1.30 to [`KubeVersion::NEWEST`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KubeVersion {
    minor: u32,
}

/// A version outside the supported range, or not `MAJOR.MINOR`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnsupportedKubeVersion(pub String);

impl fmt::Display for UnsupportedKubeVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unsupported Kubernetes version {:?}: use {} to {}",
            self.0,
            KubeVersion::OLDEST,
            KubeVersion::NEWEST
        )
    }
}

impl std::error::Error for UnsupportedKubeVersion {}

impl KubeVersion {
    /// The oldest release followed.
    pub const OLDEST: KubeVersion = KubeVersion { minor: 30 };
    /// The newest release followed (the default).
    pub const NEWEST: KubeVersion = KubeVersion { minor: 37 };

    /// `1.minor`, if supported.
    pub fn new(minor: u32) -> Result<KubeVersion, UnsupportedKubeVersion> {
        let v = KubeVersion { minor };
        if (Self::OLDEST..=Self::NEWEST).contains(&v) {
            Ok(v)
        } else {
            Err(UnsupportedKubeVersion(format!("1.{minor}")))
        }
    }

    /// Every supported release, oldest first.
    pub fn all() -> impl Iterator<Item = KubeVersion> {
        (Self::OLDEST.minor..=Self::NEWEST.minor).map(|minor| KubeVersion { minor })
    }

    /// The minor number (`35` for 1.35).
    pub const fn minor(self) -> u32 {
        self.minor
    }

    /// Whether this release is `1.minor` or later.
    pub fn at_least(self, minor: u32) -> bool {
        self.minor >= minor
    }

    /// Whether validation ratcheting is on unless turned off (1.30 and later).
    pub fn ratcheting_by_default(self) -> bool {
        self.at_least(30)
    }

    /// Whether the `CRDValidationRatcheting` gate can still be turned off (before 1.33).
    pub fn ratcheting_can_be_disabled(self) -> bool {
        !self.at_least(33)
    }

    /// Whether `k8s-short-name` / `k8s-long-name` are known formats (1.34 and later).
    pub fn k8s_name_formats(self) -> bool {
        self.at_least(34)
    }

    /// Whether CEL failures print scalar values and omit object/array values (1.35
    /// and later) rather than printing the schema type.
    pub fn cel_prints_values(self) -> bool {
        self.at_least(35)
    }
}

impl Default for KubeVersion {
    fn default() -> Self {
        Self::NEWEST
    }
}

impl fmt::Display for KubeVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "1.{}", self.minor)
    }
}

impl FromStr for KubeVersion {
    type Err = UnsupportedKubeVersion;

    /// `1.35`, `v1.35` or `1.35.2` (the patch is ignored).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || UnsupportedKubeVersion(s.to_string());
        let t = s.strip_prefix('v').unwrap_or(s);
        let mut parts = t.split('.');
        let (Some("1"), Some(minor)) = (parts.next(), parts.next()) else {
            return Err(bad());
        };
        if parts.clone().count() > 1 || parts.any(|p| p.parse::<u32>().is_err()) {
            return Err(bad());
        }
        let minor: u32 = minor.parse().map_err(|_| bad())?;
        KubeVersion::new(minor).map_err(|_| bad())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_bounds() {
        assert_eq!("1.35".parse::<KubeVersion>().unwrap().minor(), 35);
        assert_eq!("v1.30.4".parse::<KubeVersion>().unwrap().minor(), 30);
        for bad in ["1.29", "1.38", "2.0", "1", "1.x", "", "1.35.1.2", "1.35.x"] {
            let e = bad.parse::<KubeVersion>().unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("unsupported Kubernetes version {bad:?}: use 1.30 to 1.37")
            );
        }
        assert_eq!(KubeVersion::all().count(), 8);
        assert_eq!(KubeVersion::default().to_string(), "1.37");
        let v134 = KubeVersion::new(34).unwrap();
        assert!(v134.k8s_name_formats() && !v134.cel_prints_values());
        assert!(KubeVersion::new(32).unwrap().ratcheting_can_be_disabled());
        assert!(!KubeVersion::new(33).unwrap().ratcheting_can_be_disabled());
    }
}
