//! The one directory walker of crd-gen: which files a directory contributes, in which
//! order, and which path an I/O error names. The CLI, [`crate::Config::compile`] (build
//! scripts) and the scratch workspace all list directories through it.

use std::path::{Path, PathBuf};

use crate::Error;

/// Whether a file found in a directory is a manifest: `*.yaml`, `*.yml` or `*.json`.
/// Files named explicitly are read whatever their name.
pub fn is_manifest(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e, "yaml" | "yml" | "json"))
}

/// The entries of `dir` (files and directories, not recursive), sorted by name.
/// An error names `dir`.
pub fn entries(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let io = |source| Error::Io {
        path: dir.to_path_buf(),
        source,
    };
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        out.push(entry.map_err(io)?.path());
    }
    out.sort();
    Ok(out)
}

/// The manifests below `dir`, recursively, in path order (a directory's files and
/// subdirectories by name, each subdirectory where its name sorts). Directories
/// reached through symbolic links are walked too. An error names the directory that
/// could not be read.
pub fn manifests(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let mut out = Vec::new();
    walk(dir, &mut out)?;
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), Error> {
    for path in entries(dir)? {
        if path.is_dir() {
            walk(&path, out)?;
        } else if is_manifest(&path) {
            out.push(path);
        }
    }
    Ok(())
}

/// Expands `paths` in order: a directory becomes its [`manifests`], anything else is
/// kept as given (a missing file is reported by whoever reads it).
pub fn expand(paths: &[impl AsRef<Path>]) -> Result<Vec<PathBuf>, Error> {
    let mut out = Vec::new();
    for p in paths {
        let p = p.as_ref();
        if p.is_dir() {
            out.extend(manifests(p)?);
        } else {
            out.push(p.to_path_buf());
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(path: &Path) {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, "x").expect("write");
    }

    #[test]
    fn manifests_are_found_recursively_in_path_order() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        for name in [
            "b.yaml",
            "a/z.json",
            "a.yml",
            "a/b/c.yaml",
            "README.md",
            "a/notes.txt",
            "c.JSON",
            "d.yaml.bak",
        ] {
            touch(&root.join(name));
        }
        std::fs::create_dir(root.join("empty.yaml")).expect("mkdir");
        let found: Vec<PathBuf> = manifests(root)
            .expect("walk")
            .into_iter()
            .map(|p| p.strip_prefix(root).expect("below root").to_path_buf())
            .collect();
        let want: Vec<PathBuf> = ["a/b/c.yaml", "a/z.json", "a.yml", "b.yaml"]
            .iter()
            .map(PathBuf::from)
            .collect();
        assert_eq!(found, want);

        let single = root.join("README.md");
        let expanded = expand(&[single.clone(), root.join("a")]).expect("expand");
        assert_eq!(
            expanded,
            [single, root.join("a/b/c.yaml"), root.join("a/z.json")]
        );
    }

    #[test]
    fn errors_name_the_directory_that_could_not_be_read() {
        let dir = tempfile::tempdir().expect("temp dir");
        let gone = dir.path().join("gone");
        let err = manifests(&gone).expect_err("a missing directory fails");
        assert!(
            matches!(&err, Error::Io { path, .. } if *path == gone),
            "{err}"
        );
        assert!(err.to_string().starts_with(&gone.display().to_string()));
        // A file is no directory to list.
        let file = dir.path().join("f.yaml");
        touch(&file);
        let err = entries(&file).expect_err("not a directory");
        assert!(
            matches!(&err, Error::Io { path, .. } if *path == file),
            "{err}"
        );
    }
}
