//! Command-line inputs: files, directories (walked recursively), `-` for stdin, and
//! the sources `kube://NAME`, `kube://` and `git://REF?path=PATH` ([`crd_gen::source`]).

use std::borrow::Cow;
use std::io::Read;
use std::path::PathBuf;
use std::sync::OnceLock;

/// `--context` and `--kubeconfig`, global flags set once by `main`: every command
/// reads its inputs through [`read_inputs`] / [`list_sources`] without passing them.
static SOURCE_OPTIONS: OnceLock<crd_gen::source::Options> = OnceLock::new();

/// Sets how `kube://` sources reach the cluster (called once, before any command runs).
pub fn set_source_options(options: crd_gen::source::Options) {
    // A second call would be a bug in main; the first options stay.
    let _ = SOURCE_OPTIONS.set(options);
}

/// One input to read: its display name and its bytes.
pub struct Input {
    /// The name used in messages (`-` for stdin).
    pub name: String,
    /// The raw content.
    pub bytes: Contents,
}

/// Files at least this large are mapped rather than read (see [`Contents`]).
const MAP_AT: u64 = 1 << 20;

/// An input's bytes: read into memory, or a large file mapped.
///
/// Reading a 34 MB file costs the kernel more than the copy: every page of a fresh
/// buffer is faulted in and zeroed before the file is copied into it, about 8 % of
/// `crd-gen validate`'s CPU on 100,000 objects (BENCHMARKS.md). A mapping shares the
/// page cache's pages instead. Like ripgrep, crd-gen maps only regular files it reads
/// once, start to end; a file truncated by another process while it is read would
/// end the process with SIGBUS, which is why small files and every other source are
/// read.
pub enum Contents {
    /// Read into memory.
    Read(Vec<u8>),
    /// A regular file mapped read-only.
    Mapped(memmap2::Mmap),
}

impl std::ops::Deref for Contents {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Contents::Read(bytes) => bytes,
            Contents::Mapped(map) => map,
        }
    }
}

/// Expands paths: directories are walked recursively for `*.yaml`, `*.yml` and `*.json`
/// files ([`crd_gen::walk`]); `-` reads stdin. Errors name the path that could not be read (the
/// first one in input order). Files are read on every core: on a large directory the
/// reads would otherwise be a serial step before any parsing starts.
pub fn read_inputs(paths: &[PathBuf]) -> Result<Vec<Input>, String> {
    let sources = list_sources(paths)?;
    crd_gen::par::map(&sources, Source::len, |source| {
        Ok(Input {
            name: source.name(),
            bytes: source.contents().map_err(|e| e.to_string())?,
        })
    })
    .into_iter()
    .collect()
}

/// The inputs `paths` name, not read yet (stdin is read here, once per `-`, in
/// order; a second `-` reads nothing; `kube://` and `git://` sources are fetched
/// here). Errors name a directory that cannot be walked or a source that cannot be
/// read (`kube://NAME: reason`).
pub fn list_sources(paths: &[PathBuf]) -> Result<Vec<Source>, String> {
    let mut sources = Vec::new();
    for path in paths {
        let options = SOURCE_OPTIONS.get_or_init(Default::default);
        let fetched = match path.to_str() {
            Some(arg) => crd_gen::source::read(arg, options).map_err(|e| e.to_string())?,
            None => None,
        };
        if let Some(documents) = fetched {
            sources.extend(documents.into_iter().map(Source::Fetched));
        } else if path.as_os_str() == "-" {
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .map_err(|e| format!("-: cannot read stdin: {e}"))?;
            sources.push(Source::Stdin(bytes));
        } else if path.is_dir() {
            let files = crd_gen::walk::manifests(path).map_err(|e| e.to_string())?;
            sources.extend(files.into_iter().map(Source::file));
        } else {
            sources.push(Source::file(path.clone()));
        }
    }
    Ok(sources)
}

/// One input before reading.
pub enum Source {
    /// What stdin held.
    Stdin(Vec<u8>),
    /// A file and its size when listed (0 if unknown): larger inputs start first.
    File { path: PathBuf, size: usize },
    /// A CRD read from a cluster or a file read from a git revision.
    Fetched(crd_gen::source::Document),
}

impl Source {
    fn file(path: PathBuf) -> Source {
        let size = std::fs::metadata(&path).map_or(0, |m| m.len() as usize);
        Source::File { path, size }
    }

    /// The name used in messages (`-` for stdin).
    pub fn name(&self) -> String {
        match self {
            Source::Stdin(_) => "-".into(),
            Source::File { path, .. } => path.display().to_string(),
            Source::Fetched(document) => document.name.clone(),
        }
    }

    /// About how many bytes it holds.
    pub fn len(&self) -> usize {
        match self {
            Source::Stdin(bytes) => bytes.len(),
            Source::File { size, .. } => *size,
            Source::Fetched(document) => document.bytes.len(),
        }
    }

    /// Its content as [`Contents`]: a regular file of [`MAP_AT`] bytes or more is
    /// mapped, everything else read. Errors as [`Source::read`].
    pub fn contents(&self) -> Result<Contents, crd_gen::Error> {
        if let Source::File { path, .. } = self {
            let io = |source| crd_gen::Error::Io {
                path: path.clone(),
                source,
            };
            let file = std::fs::File::open(path).map_err(io)?;
            let meta = file.metadata().map_err(io)?;
            if meta.is_file() && meta.len() >= MAP_AT {
                // SAFETY: the mapping is read-only and private to this process; the
                // one hazard, another process truncating the file while it is read,
                // is documented on `Contents`. `populate` maps every page up front.
                // A file that cannot be mapped (some file systems) is read instead.
                if let Ok(map) = unsafe { memmap2::MmapOptions::new().populate().map(&file) } {
                    return Ok(Contents::Mapped(map));
                }
            }
        }
        self.read().map(|bytes| Contents::Read(bytes.into_owned()))
    }

    /// Its content; an unreadable file is an [`crd_gen::Error::Io`] naming it.
    pub fn read(&self) -> Result<Cow<'_, [u8]>, crd_gen::Error> {
        match self {
            Source::Stdin(bytes) => Ok(Cow::Borrowed(bytes)),
            Source::Fetched(document) => Ok(Cow::Borrowed(&document.bytes)),
            Source::File { path, .. } => {
                std::fs::read(path)
                    .map(Cow::Owned)
                    .map_err(|source| crd_gen::Error::Io {
                        path: path.clone(),
                        source,
                    })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_in_input_order_and_reports_the_first_unreadable_path() {
        let temp = tempfile::tempdir().expect("temp dir");
        let dir = temp.path();
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
        let bodies: Vec<&[u8]> = inputs.iter().map(|i| &*i.bytes).collect();
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
    }

    #[test]
    fn maps_large_files_and_reads_small_ones_with_the_same_bytes() {
        let temp = tempfile::tempdir().expect("temp dir");
        let large = temp.path().join("large.jsonl");
        let line = b"{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\"}\n";
        let body: Vec<u8> = line
            .iter()
            .copied()
            .cycle()
            .take(MAP_AT as usize + line.len())
            .collect();
        std::fs::write(&large, &body).expect("write");
        let small = temp.path().join("small.yaml");
        std::fs::write(&small, "kind: ConfigMap\n").expect("write");

        let inputs = read_inputs(&[large, small]).expect("readable");
        assert!(matches!(inputs[0].bytes, Contents::Mapped(_)));
        assert_eq!(&*inputs[0].bytes, body.as_slice());
        assert!(matches!(inputs[1].bytes, Contents::Read(_)));
        assert_eq!(&*inputs[1].bytes, b"kind: ConfigMap\n");
    }
}
