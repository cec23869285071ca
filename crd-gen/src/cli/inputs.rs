//! Command-line inputs: files, directories (walked recursively) and `-` for stdin.

use std::io::Read;
use std::path::{Path, PathBuf};

/// One input to read: its display name and its bytes.
pub struct Input {
    /// The name used in messages (`-` for stdin).
    pub name: String,
    /// The raw content.
    pub bytes: Vec<u8>,
}

/// Expands paths: directories are walked recursively for `*.yaml`, `*.yml` and `*.json`
/// files (sorted); `-` reads stdin. Errors name the path that could not be read (the
/// first one in input order). Files are read on every core: on a large directory the
/// reads would otherwise be a serial step before any parsing starts.
pub fn read_inputs(paths: &[PathBuf]) -> Result<Vec<Input>, String> {
    let mut sources = Vec::new();
    // Stdin is read up front, once per `-`, in order (a second `-` reads nothing).
    let mut stdin_reads = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" {
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .map_err(|e| format!("-: cannot read stdin: {e}"))?;
            sources.push(Source::Stdin(stdin_reads.len()));
            stdin_reads.push(bytes);
        } else if path.is_dir() {
            let mut files = Vec::new();
            walk(path, &mut files).map_err(|e| format!("{}: {e}", path.display()))?;
            files.sort();
            sources.extend(files.into_iter().map(Source::File));
        } else {
            sources.push(Source::File(path.clone()));
        }
    }
    let read = crd_gen::par::map(
        &sources,
        |_| 1,
        |source| match source {
            Source::File(path) => read_file(path).map(Some),
            Source::Stdin(_) => Ok(None),
        },
    );
    sources
        .iter()
        .zip(read)
        .map(|(source, input)| match (source, input?) {
            (_, Some(input)) => Ok(input),
            (Source::Stdin(k), None) => Ok(Input {
                name: "-".into(),
                bytes: std::mem::take(&mut stdin_reads[*k]),
            }),
            (Source::File(path), None) => unreachable!("{} was read", path.display()),
        })
        .collect()
}

/// An input before reading: the `k`th stdin read, or a file.
enum Source {
    Stdin(usize),
    File(PathBuf),
}

fn read_file(path: &Path) -> Result<Input, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Input {
        name: path.display().to_string(),
        bytes,
    })
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            walk(&path, out)?;
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| matches!(e, "yaml" | "yml" | "json"))
        {
            out.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_in_input_order_and_reports_the_first_unreadable_path() {
        let dir = std::env::temp_dir().join(format!("crd-gen-inputs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let sub = dir.join("sub");
        std::fs::create_dir_all(&sub).expect("mkdir");
        for (name, body) in [
            ("b.yaml", "b"),
            ("a.yml", "a"),
            ("c.json", "c"),
            ("skip.txt", "x"),
        ] {
            std::fs::write(sub.join(name), body).expect("write");
        }
        let single = dir.join("single.yaml");
        std::fs::write(&single, "s").expect("write");

        let inputs = read_inputs(&[single.clone(), sub.clone()]).expect("readable");
        let bodies: Vec<&[u8]> = inputs.iter().map(|i| i.bytes.as_slice()).collect();
        assert_eq!(bodies, [b"s", b"a", b"b", b"c"]);
        assert_eq!(inputs[1].name, sub.join("a.yml").display().to_string());

        let missing = dir.join("missing.yaml");
        let also_missing = dir.join("also-missing.yaml");
        let err = read_inputs(&[sub, missing.clone(), single, also_missing])
            .err()
            .expect("a missing file fails");
        assert!(
            err.starts_with(&missing.display().to_string()),
            "the first missing path is named: {err}"
        );
        std::fs::remove_dir_all(&dir).expect("clean up");
    }
}
