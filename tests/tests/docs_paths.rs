//! Every repository path the docs mention exists: README.md, docs/*.md, BENCHMARKS.md
//! and FUZZING.md.
//!
//! Two kinds of mention are checked:
//!
//! - **Code**: a token inside backticks (inline code or a fenced block) that contains a
//!   `/` and starts with a top-level entry of the repository (`crd-server/src/lib.rs`,
//!   `docs/examples/crontabs.yaml`, `.ci/run`) or with `../shared/`. It is resolved from
//!   the repository root. URLs, absolute paths (`/apis/...`, `/tmp/...`), `apiVersion`s
//!   (`apiextensions.k8s.io/v1`), globs (`crds/*.yaml`) and placeholders ending in `...`
//!   are not paths. A `:line:col` or `::test_name` suffix is cut off.
//! - **Links**: the target of a markdown link that is not a URL, resolved from the
//!   linking file's directory, as GitHub resolves it; a `#anchor` must name a heading of
//!   the target file.
//!
//! Paths that a `.gitignore` of the repository ignores (`target/`, `fuzz/corpus/`) are
//! outputs of commands, not files of the repository, and are not checked.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// How a path was mentioned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// In backticks: relative to the repository root.
    Code,
    /// A markdown link target: relative to the linking file.
    Link,
}

/// One mention of a path, with its 1-based line.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Mention {
    line: usize,
    kind: Kind,
    target: String,
}

/// The mentions of repository paths in `markdown`. `top_level` holds the names of the
/// repository's top-level files and directories.
fn mentions(markdown: &str, top_level: &BTreeSet<String>) -> Vec<Mention> {
    let mut out = Vec::new();
    // The backtick fence of the fenced block we are in, if any.
    let mut fence: Option<String> = None;
    for (i, line) in markdown.lines().enumerate() {
        let line_no = i + 1;
        let trimmed = line.trim_start();
        if let Some(open) = &fence {
            if trimmed.starts_with(open.as_str()) && trimmed.trim_end().chars().all(|c| c == '`') {
                fence = None;
            } else {
                code_paths(line, line_no, top_level, &mut out);
            }
            continue;
        }
        if trimmed.starts_with("```") {
            fence = Some(trimmed.chars().take_while(|&c| c == '`').collect());
            continue;
        }
        scan_prose(line, line_no, top_level, &mut out);
    }
    out
}

/// Splits a prose line into inline code spans (checked as code) and the text between
/// them (checked for links).
fn scan_prose(line: &str, line_no: usize, top_level: &BTreeSet<String>, out: &mut Vec<Mention>) {
    let mut rest = line;
    loop {
        let Some(open) = rest.find('`') else {
            links(rest, line_no, out);
            return;
        };
        links(&rest[..open], line_no, out);
        let ticks = rest[open..].chars().take_while(|&c| c == '`').count();
        let after = &rest[open + ticks..];
        let delimiter = "`".repeat(ticks);
        match after.find(&delimiter) {
            Some(close) => {
                code_paths(&after[..close], line_no, top_level, out);
                rest = &after[close + ticks..];
            }
            // An unclosed backtick is literal text.
            None => {
                links(after, line_no, out);
                return;
            }
        }
    }
}

/// Markdown link targets in `text` (which holds no code): `[label](target "title")`.
fn links(text: &str, line_no: usize, out: &mut Vec<Mention>) {
    let mut rest = text;
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        let Some(end) = after.find(')') else { return };
        let target = after[..end].split_whitespace().next().unwrap_or("");
        let target = target.trim_start_matches('<').trim_end_matches('>');
        if !target.is_empty() && !is_url(target) {
            out.push(Mention {
                line: line_no,
                kind: Kind::Link,
                target: target.to_string(),
            });
        }
        rest = &after[end..];
    }
}

fn is_url(target: &str) -> bool {
    target.contains("://") || target.starts_with("mailto:")
}

/// The repository paths among the tokens of a piece of code.
fn code_paths(code: &str, line_no: usize, top_level: &BTreeSet<String>, out: &mut Vec<Mention>) {
    let separators = |c: char| c.is_whitespace() || "\"'`(),;|<>".contains(c);
    for token in code.split(separators) {
        if let Some(path) = as_repository_path(token, top_level) {
            out.push(Mention {
                line: line_no,
                kind: Kind::Code,
                target: path,
            });
        }
    }
}

/// `token` as a repository path, if it is one.
fn as_repository_path(token: &str, top_level: &BTreeSet<String>) -> Option<String> {
    // `--crds=PATH`, `CRD_GEN=PATH`: the value.
    let token = token.rsplit('=').next().unwrap_or(token);
    // curl's `--data @FILE`.
    let token = token.strip_prefix('@').unwrap_or(token);
    if is_url(token) || token.ends_with("...") {
        return None;
    }
    // `file.rs::test_name`, `file:line:column: message`.
    let token = token.split(':').next().unwrap_or(token);
    let token = token.trim_end_matches(['.', '!', '?']);
    let token = token.strip_prefix("./").unwrap_or(token);
    if !token.contains('/')
        || token.starts_with('/')
        || token.contains(['*', '?', '[', ']', '{', '}', '$', '~', '%', '#'])
    {
        return None;
    }
    if token.starts_with("../shared/") {
        return Some(token.to_string());
    }
    let first = token.split('/').next().unwrap_or("");
    top_level.contains(first).then(|| token.to_string())
}

/// GitHub's anchor for a heading: lower case, spaces to `-`, punctuation other than
/// `-` and `_` dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a markdown file's headings (outside fenced blocks), with GitHub's
/// `-1`, `-2` suffixes for repeated headings.
fn anchors(markdown: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut in_fence = false;
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence || !trimmed.starts_with('#') {
            continue;
        }
        let text = trimmed.trim_start_matches('#');
        if !text.starts_with(' ') {
            continue;
        }
        let base = slug(text.trim_end_matches('#'));
        let mut anchor = base.clone();
        let mut n = 0;
        while out.contains(&anchor) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
        out.insert(anchor);
    }
    out
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// The names a `.gitignore` in `dir` ignores (only the plain-name patterns the
/// repository uses: `/target`, `corpus/`).
fn ignored_names(dir: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(dir.join(".gitignore")).unwrap_or_default();
    text.lines()
        .map(|l| l.trim().trim_start_matches('/').trim_end_matches('/'))
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.contains(['/', '*', '!']))
        .map(str::to_string)
        .collect()
}

/// Whether a `.gitignore` on the way from the root ignores `path` (relative to the root).
fn is_ignored(root: &Path, path: &Path) -> bool {
    let mut dir = root.to_path_buf();
    for component in path.components() {
        let name = component.as_os_str().to_string_lossy().to_string();
        if name == ".." || name == "." {
            return false;
        }
        if ignored_names(&dir).contains(&name) {
            return true;
        }
        dir.push(&name);
    }
    false
}

/// The repository's top-level entries: what the root holds, less `.git` and what the
/// root `.gitignore` ignores.
fn top_level(root: &Path) -> BTreeSet<String> {
    let ignored = ignored_names(root);
    std::fs::read_dir(root)
        .expect("the repository root is readable")
        .map(|e| {
            e.expect("a directory entry")
                .file_name()
                .to_string_lossy()
                .to_string()
        })
        .filter(|name| name != ".git" && !ignored.contains(name))
        .collect()
}

/// The checked documents, relative to the root.
fn documents(root: &Path) -> Vec<PathBuf> {
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ exists")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .map(|p| p.strip_prefix(root).expect("under the root").to_path_buf())
        .collect();
    docs.sort();
    let mut all: Vec<PathBuf> = ["README.md", "BENCHMARKS.md", "FUZZING.md"]
        .iter()
        .map(PathBuf::from)
        .collect();
    all.extend(docs);
    all
}

/// Where a mention points, or `None` when it is not checked (ignored outputs).
fn resolve(root: &Path, doc: &Path, mention: &Mention) -> Option<(PathBuf, Option<String>)> {
    let (path, anchor) = match mention.target.split_once('#') {
        Some((p, a)) => (p, Some(a.to_string())),
        None => (mention.target.as_str(), None),
    };
    let relative = match mention.kind {
        Kind::Code => PathBuf::from(path),
        Kind::Link if path.is_empty() => doc.to_path_buf(),
        Kind::Link => doc.parent().unwrap_or(Path::new("")).join(path),
    };
    let relative = normalize(&relative);
    if let Ok(rest) = relative.strip_prefix("../shared") {
        return Some((crd_toolkit_tests::shared_dir().join(rest), anchor));
    }
    if is_ignored(root, &relative) {
        return None;
    }
    Some((root.join(relative), anchor))
}

/// `docs/../BENCHMARKS.md` → `BENCHMARKS.md` (leading `..` kept).
fn normalize(path: &Path) -> PathBuf {
    let mut out: Vec<String> = Vec::new();
    for component in path.components() {
        let c = component.as_os_str().to_string_lossy().to_string();
        match c.as_str() {
            "." => {}
            ".." if out.last().is_some_and(|l| l != "..") => {
                out.pop();
            }
            _ => out.push(c),
        }
    }
    out.iter().collect()
}

#[test]
fn every_path_the_docs_mention_exists() {
    let root = root();
    let top = top_level(&root);
    let mut missing = Vec::new();
    let mut checked = 0;
    for doc in documents(&root) {
        let text = std::fs::read_to_string(root.join(&doc))
            .unwrap_or_else(|e| panic!("{}: {e}", doc.display()));
        for mention in mentions(&text, &top) {
            let Some((path, anchor)) = resolve(&root, &doc, &mention) else {
                continue;
            };
            checked += 1;
            let place = format!("{}:{}", doc.display(), mention.line);
            if !path.exists() {
                missing.push(format!("{place}: `{}` does not exist", mention.target));
                continue;
            }
            if let Some(anchor) = anchor.filter(|a| !a.is_empty()) {
                let target_text = std::fs::read_to_string(&path).unwrap_or_default();
                if !anchors(&target_text).contains(&anchor) {
                    missing.push(format!(
                        "{place}: `{}`: no heading with anchor #{anchor}",
                        mention.target
                    ));
                }
            }
        }
    }
    eprintln!("{checked} mentions of repository paths checked");
    assert!(
        checked > 100,
        "only {checked} paths found: is the extractor broken?"
    );
    assert!(
        missing.is_empty(),
        "the docs mention paths that do not exist:\n{}",
        missing.join("\n")
    );
}

#[cfg(test)]
mod extractor {
    use super::*;

    fn top() -> BTreeSet<String> {
        [
            "README.md",
            "docs",
            "examples",
            "crd-server",
            "fuzz",
            ".ci",
            "scripts",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    }

    fn targets(markdown: &str) -> Vec<(usize, Kind, String)> {
        mentions(markdown, &top())
            .into_iter()
            .map(|m| (m.line, m.kind, m.target))
            .collect()
    }

    fn code(line: usize, target: &str) -> (usize, Kind, String) {
        (line, Kind::Code, target.to_string())
    }

    fn link(line: usize, target: &str) -> (usize, Kind, String) {
        (line, Kind::Link, target.to_string())
    }

    #[test]
    fn api_versions_api_paths_urls_and_globs_are_not_paths() {
        let md = "Served as `apiextensions.k8s.io/v1` at `/apis/stable.example.com/v1/namespaces/default/crontabs`,\n\
                  see <https://kubernetes.io/docs/> or `https://github.com/cberner/redb`; `crds/*.yaml`,\n\
                  `examples/*.rs`, `stable.example.com/v2`, `/tmp/crontab-rs` and `~/.kube/cache`.";
        assert_eq!(targets(md), []);
    }

    #[test]
    fn code_spans_keep_the_path_and_drop_positions_and_test_names() {
        let md = "Test: `examples/tests/crontab_resource.rs::an_object_stored_without_spec`.\n\
                  Error at `docs/examples/ranges.jsonl:4:1: key must be a string`; runs `.ci/run`.";
        assert_eq!(
            targets(md),
            [
                code(1, "examples/tests/crontab_resource.rs"),
                code(2, "docs/examples/ranges.jsonl"),
                code(2, ".ci/run"),
            ]
        );
    }

    #[test]
    fn placeholders_and_unknown_top_level_names_are_skipped() {
        let md = "Replay `fuzz/artifacts/TARGET/crash-...` (see `crd-server/src/...`), not `src/lib.rs`\n\
                  nor `target/release/crd-gen`; but `../shared/fixtures/crontab/crd-full.yaml` is one.";
        assert_eq!(
            targets(md),
            [code(2, "../shared/fixtures/crontab/crd-full.yaml")]
        );
    }

    #[test]
    fn commands_in_fenced_blocks_are_tokenized() {
        let md = "```sh\n\
                  cargo run -p crd-server -- --crds=../shared/fixtures/crontab/crd-full.yaml &\n\
                  curl --data @docs/examples/conversion-review.json https://127.0.0.1:8443/convert\n\
                  sed \"s/CA/x/\" docs/examples/crontab-conversion-crd.yaml > /tmp/crd.yaml\n\
                  ```\n\
                  [prose](docs/inside-prose.md) after the block";
        assert_eq!(
            targets(md),
            [
                code(2, "../shared/fixtures/crontab/crd-full.yaml"),
                code(3, "docs/examples/conversion-review.json"),
                code(4, "docs/examples/crontab-conversion-crd.yaml"),
                link(6, "docs/inside-prose.md"),
            ]
        );
    }

    #[test]
    fn links_are_found_outside_code_only() {
        let md = "See [the guide](docs/derive.md#a-kind), [results](../FUZZING.md \"title\") and\n\
                  [up](#set-up); `[code](not/a-link.md)`; [web](https://example.com/x.md).\n\
                  ````md\n\
                  [fenced](docs/fenced.md) ``` still fenced\n\
                  ````";
        assert_eq!(
            targets(md),
            [
                link(1, "docs/derive.md#a-kind"),
                link(1, "../FUZZING.md"),
                link(2, "#set-up"),
                // In a fenced block, link syntax is code: the path is still checked.
                code(4, "docs/fenced.md"),
            ]
        );
    }

    #[test]
    fn double_backtick_spans_and_unclosed_backticks() {
        let md = "``a `docs/x.md` b`` and an unclosed ` tick then [l](docs/y.md)";
        assert_eq!(targets(md), [code(1, "docs/x.md"), link(1, "docs/y.md")]);
    }

    #[test]
    fn anchors_follow_github() {
        let md = "# crd-toolkit\n## Which Kubernetes: `--kube-version`\n### app: the API without a listener\n\
                  ```\n# not a heading\n```\n## Set-up\n## Set-up\n#hashtag";
        let got = anchors(md);
        let want: BTreeSet<String> = [
            "crd-toolkit",
            "which-kubernetes---kube-version",
            "app-the-api-without-a-listener",
            "set-up",
            "set-up-1",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn gitignored_outputs_are_not_checked() {
        let root = root();
        assert!(is_ignored(&root, Path::new("target/release/crd-gen")));
        assert!(is_ignored(&root, Path::new("fuzz/corpus/cel_eval")));
        assert!(!is_ignored(&root, Path::new("fuzz/run.sh")));
        assert_eq!(
            normalize(Path::new("docs/../BENCHMARKS.md")),
            PathBuf::from("BENCHMARKS.md")
        );
        assert_eq!(
            normalize(Path::new("../shared/x")),
            PathBuf::from("../shared/x")
        );
    }
}
