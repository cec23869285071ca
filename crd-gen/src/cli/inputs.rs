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
/// files (sorted); `-` reads stdin. Errors name the path that could not be read.
pub fn read_inputs(paths: &[PathBuf]) -> Result<Vec<Input>, String> {
    let mut out = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" {
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .map_err(|e| format!("-: cannot read stdin: {e}"))?;
            out.push(Input {
                name: "-".into(),
                bytes,
            });
        } else if path.is_dir() {
            let mut files = Vec::new();
            walk(path, &mut files).map_err(|e| format!("{}: {e}", path.display()))?;
            files.sort();
            for file in files {
                out.push(read_file(&file)?);
            }
        } else {
            out.push(read_file(path)?);
        }
    }
    Ok(out)
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
