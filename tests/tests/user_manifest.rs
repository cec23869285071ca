//! The Cargo.toml lines the docs tell a user to write are the lines of `downstream/`, the
//! user's crate CI builds outside the workspace (with `path = "../…"` added so that it
//! builds this checkout), and no manifest of the repository needs a `[patch]`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn read(rel: &str) -> String {
    let path = repo().join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `(section, line)` for every `key = value` line of `toml`, comments and blank lines
/// skipped; lines before any header are in section `""`.
fn entries(toml: &str) -> Vec<(String, String)> {
    let mut section = String::new();
    let mut out = Vec::new();
    for line in toml.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line.starts_with('[') {
            section = line.to_string();
            continue;
        }
        out.push((section.clone(), line.to_string()));
    }
    out
}

/// The dependency lines of the ```toml blocks of a markdown text.
fn doc_entries(markdown: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut block: Option<String> = None;
    for line in markdown.lines() {
        match &mut block {
            None if line.trim() == "```toml" => block = Some(String::new()),
            Some(text) if line.trim() == "```" => {
                out.extend(
                    entries(text)
                        .into_iter()
                        .filter(|(section, _)| section.contains("dependencies")),
                );
                block = None;
            }
            Some(text) => {
                text.push_str(line);
                text.push('\n');
            }
            None => {}
        }
    }
    out
}

/// `downstream/Cargo.toml`'s dependency lines as a user writes them: `path = "…", `
/// removed.
fn downstream_entries() -> BTreeSet<(String, String)> {
    entries(&read("downstream/Cargo.toml"))
        .into_iter()
        .filter(|(section, _)| section.contains("dependencies"))
        .map(|(section, line)| (section, without_path(&line)))
        .collect()
}

fn without_path(line: &str) -> String {
    let Some(start) = line.find("path = \"") else {
        return line.to_string();
    };
    let end = start + "path = \"".len() + line[start + 8..].find('"').unwrap() + 1;
    // `path` may stand between other keys or last: drop one of its separators.
    match line[end..].strip_prefix(", ") {
        Some(rest) => format!("{}{rest}", &line[..start]),
        None => format!(
            "{}{}",
            line[..start].strip_suffix(", ").unwrap_or(&line[..start]),
            &line[end..]
        ),
    }
}

/// The guides that show a user's Cargo.toml lines for the crate shape `downstream/` has.
const DOCS: [&str; 11] = [
    "README.md",
    "docs/admission.md",
    "docs/derive.md",
    "docs/generate.md",
    "docs/operator.md",
    "docs/server.md",
    "crd-runtime/README.md",
    "crd-derive/README.md",
    "crd-gen/README.md",
    "crd-server/README.md",
    "crd-webhook/README.md",
];

#[test]
fn the_docs_lines_are_the_downstream_crates() {
    let downstream = downstream_entries();
    let mut missing = Vec::new();
    for doc in DOCS {
        let lines = doc_entries(&read(doc));
        assert!(!lines.is_empty(), "{doc} shows no Cargo.toml lines");
        for (section, line) in lines {
            if !downstream.contains(&(section.clone(), line.clone())) {
                missing.push(format!("{doc}: {section} {line}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "lines the docs show that downstream/Cargo.toml does not use (without its paths):\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_readme_shows_every_toolkit_line_of_the_downstream_crate() {
    let readme: BTreeSet<_> = doc_entries(&read("README.md")).into_iter().collect();
    let toolkit: Vec<_> = downstream_entries()
        .into_iter()
        .filter(|(_, line)| line.starts_with("crd-"))
        .collect();
    assert_eq!(toolkit.len(), 5, "{toolkit:?}");
    for entry in toolkit {
        assert!(readme.contains(&entry), "README.md lacks {entry:?}");
    }
}

#[test]
fn the_downstream_crate_depends_on_the_toolkit_by_version_and_path() {
    for (section, line) in entries(&read("downstream/Cargo.toml")) {
        if line.starts_with("crd-") && section.contains("dependencies") {
            assert!(
                line.contains("version = \"0.1\"") && line.contains("path = \"../crd-"),
                "{section} {line}"
            );
        }
    }
    assert_eq!(
        without_path(r#"a = { version = "1", path = "../a", features = ["x"] }"#),
        r#"a = { version = "1", features = ["x"] }"#
    );
}

/// Every Cargo.toml of the repository, outside target directories.
fn manifests(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if name != "target" && !name.starts_with('.') {
                manifests(&path, out);
            }
        } else if name == "Cargo.toml" {
            out.push(path);
        }
    }
}

#[test]
fn no_manifest_needs_a_patch() {
    let mut found = Vec::new();
    manifests(&repo(), &mut found);
    assert!(found.len() >= 10, "{found:?}");
    for path in found {
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            !text.lines().any(|l| l.trim_start().starts_with("[patch")),
            "{} has a [patch] section: a dependent would have to copy it",
            path.display()
        );
    }
}
