//! `git://REF?path=PATH`: files of a revision of the repository around a directory,
//! read with gitoxide (no git binary).

use std::path::Path;

use gix::bstr::ByteSlice;

use super::{Document, one_line};

/// The file PATH at revision `rev`, or every manifest below the directory PATH, of the
/// repository discovered from `dir` (as git finds it: `dir` or a parent).
pub(super) fn read(dir: &Path, rev: &str, path: &str) -> Result<Vec<Document>, String> {
    // gix's messages: `Could not find a git repository in "DIR" or in any of its
    // parents`, `couldn't parse revision, input="x": Reference "x" could not be found`.
    let repo = gix::discover(dir).map_err(|e| one_line(&e))?;
    let id = repo
        .rev_parse_single(rev)
        .map_err(|e| format!("unknown revision {rev:?}: {}", causes(&e)))?;
    let tree = id
        .object()
        .and_then(|o| o.peel_to_tree())
        .map_err(|e| format!("revision {rev:?} has no tree: {}", one_line(&e)))?;
    let path = normalize(path);
    let name = |file: &str| format!("git://{rev}?path={file}");
    if path.is_empty() {
        let mut out = Vec::new();
        walk(&tree, "", &name, &mut out)?;
        return Ok(out);
    }
    let entry = tree
        .lookup_entry_by_path(Path::new(&path))
        .map_err(|e| format!("cannot read {path} at {rev}: {}", one_line(&e)))?
        .ok_or_else(|| format!("path {path:?} does not exist in revision {rev:?}"))?;
    let object = entry
        .object()
        .map_err(|e| format!("cannot read {path} at {rev}: {}", one_line(&e)))?;
    if entry.mode().is_tree() {
        let mut out = Vec::new();
        walk(&object.into_tree(), &path, &name, &mut out)?;
        Ok(out)
    } else if entry.mode().is_blob() {
        Ok(vec![Document {
            name: name(&path),
            bytes: object.detach().data,
        }])
    } else {
        Err(format!(
            "{path} at {rev} is neither a file nor a directory (a symbolic link or a submodule)"
        ))
    }
}

/// `./a/b/` → `a/b`; `.` and the empty path are the repository root.
fn normalize(path: &str) -> String {
    let parts: Vec<&str> = path
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    parts.join("/")
}

/// Appends the manifests below `tree` (at `prefix`), recursively, in name order like
/// [`crate::walk::manifests`]: a directory's entries sorted by name, each
/// subdirectory where its name sorts. Symbolic links and submodules are skipped.
fn walk(
    tree: &gix::Tree<'_>,
    prefix: &str,
    name: &dyn Fn(&str) -> String,
    out: &mut Vec<Document>,
) -> Result<(), String> {
    let read_error = |e: &dyn std::error::Error| format!("cannot read {prefix}: {}", one_line(e));
    let mut entries = Vec::new();
    for entry in tree.iter() {
        let entry = entry.map_err(|e| read_error(&e))?;
        entries.push((entry.filename().to_owned(), entry.mode(), entry.object_id()));
    }
    // Git orders a directory `a` as `a/`; the file walker orders plain names.
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    for (file, mode, id) in entries {
        let file = file.to_str_lossy();
        let path = if prefix.is_empty() {
            file.into_owned()
        } else {
            format!("{prefix}/{file}")
        };
        if mode.is_tree() {
            let object = tree.repo.find_object(id).map_err(|e| read_error(&e))?;
            walk(&object.into_tree(), &path, name, out)?;
        } else if mode.is_blob() && crate::walk::is_manifest(Path::new(&path)) {
            let object = tree.repo.find_object(id).map_err(|e| read_error(&e))?;
            out.push(Document {
                name: name(&path),
                bytes: object.detach().data,
            });
        }
    }
    Ok(())
}

/// The causes of `e` without its own message (which only repeats the input).
fn causes(e: &(dyn std::error::Error + 'static)) -> String {
    match e.source() {
        Some(cause) => one_line(cause),
        None => e.to_string(),
    }
}
