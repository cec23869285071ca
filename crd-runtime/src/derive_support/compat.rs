//! [`Manifest::check_compatible_with`]: the CRDs a crate derives against the YAML
//! of its previous release, with [`crate::diff`]'s rules.

use std::path::{Path, PathBuf};

use super::manifest::{Manifest, ManifestError};
use crate::diff::{Change, Level, Policy, diff_all};
use crate::model::CustomResourceDefinition;

impl Manifest {
    /// Compares these CRDs (the new revision) with every CRD in the `*.yaml`,
    /// `*.yml` and `*.json` files under `dir` (the previous release), matched by
    /// name. Returns the changes `policy` reports (all but `ignore`), or
    /// [`ManifestError::Incompatible`] listing those at level `error`.
    pub fn check_compatible_with(
        &self,
        dir: impl AsRef<Path>,
        policy: &Policy,
    ) -> Result<Vec<Change>, ManifestError> {
        let dir = dir.as_ref();
        let previous = read_release(dir)?;
        let changes: Vec<Change> = diff_all(&previous, self.crds())
            .into_iter()
            .filter(|c| policy.level(c.rule) != Level::Ignore)
            .collect();
        let breaking: Vec<String> = changes
            .iter()
            .filter(|c| policy.level(c.rule) == Level::Error)
            .map(|c| format!("{c} [{}]", c.class()))
            .collect();
        if breaking.is_empty() {
            Ok(changes)
        } else {
            Err(ManifestError::Incompatible {
                release: dir.to_path_buf(),
                changes: breaking,
            })
        }
    }

    /// [`Manifest::check_compatible_with`] under the default policy, for tests:
    /// panics listing every breaking change.
    #[track_caller]
    pub fn assert_compatible_with(&self, dir: impl AsRef<Path>) {
        if let Err(e) = self.check_compatible_with(dir, &Policy::default()) {
            panic!("{e}");
        }
    }
}

/// Every CRD in the files under `dir`, in file order.
fn read_release(dir: &Path) -> Result<Vec<CustomResourceDefinition>, ManifestError> {
    let mut files = Vec::new();
    collect(dir, &mut files)?;
    files.sort();
    let mut crds = Vec::new();
    for file in files {
        let bytes = std::fs::read(&file).map_err(|e| io_error(&file, e))?;
        let loaded = crate::load::load_crds_bytes(&file.display().to_string(), &bytes)
            .map_err(|e| ManifestError::Yaml(e.to_string()))?;
        crds.extend(loaded.crds.into_iter().map(|d| d.crd));
    }
    Ok(crds)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), ManifestError> {
    for entry in std::fs::read_dir(dir).map_err(|e| io_error(dir, e))? {
        let path = entry.map_err(|e| io_error(dir, e))?.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml" | "json")
        ) {
            out.push(path);
        }
    }
    Ok(())
}

fn io_error(path: &Path, e: std::io::Error) -> ManifestError {
    ManifestError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crontab(maximum: u32) -> CustomResourceDefinition {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../shared/fixtures/crontab/crd-full.yaml"
        ))
        .expect("the CronTab fixture");
        let text = text.replacen("maximum: 10", &format!("maximum: {maximum}"), 1);
        crate::load::load_crds("crontab.yaml", &text)
            .expect("a CRD")
            .crds
            .remove(0)
            .crd
    }

    /// A release directory holding `crd` as `v1.2.0/crds.yaml`, removed when dropped.
    fn release_dir(crd: &CustomResourceDefinition) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("v1.2.0")).unwrap();
        Manifest::new()
            .crd(crd.clone())
            .write(dir.path().join("v1.2.0/crds.yaml"))
            .unwrap();
        dir
    }

    #[test]
    fn loosening_passes_and_tightening_fails_with_the_change() {
        let release = release_dir(&crontab(10));
        let dir = release.path();
        let looser = Manifest::new().crd(crontab(20));
        let changes = looser
            .check_compatible_with(dir, &Policy::default())
            .unwrap();
        assert_eq!(changes.len(), 1);
        looser.assert_compatible_with(dir);

        let tighter = Manifest::new().crd(crontab(5));
        let err = tighter
            .check_compatible_with(dir, &Policy::default())
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            format!(
                "the CRDs are not compatible with the release in {}:\n  crontabs.stable.example.com: v1: spec.replicas: \
                 maximum-tightened: maximum lowered from 10 to 5 [breaking]",
                dir.display()
            )
        );
        let dropped = Manifest::new();
        assert!(
            dropped
                .check_compatible_with(dir, &Policy::default())
                .unwrap_err()
                .to_string()
                .contains("crd-removed")
        );
    }

    #[test]
    fn a_missing_release_directory_is_named() {
        let err = Manifest::new()
            .check_compatible_with("/no/such/release", &Policy::default())
            .unwrap_err();
        assert!(err.to_string().starts_with("/no/such/release: "), "{err}");
    }
}
