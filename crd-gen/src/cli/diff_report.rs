//! How `crd-gen diff` prints its results: text lines, JSON lines, a Markdown report
//! for a pull-request comment, or GitHub Actions workflow commands (annotations).
//!
//! Text, JSON and GitHub print each change as it comes; Markdown collects them and
//! prints the report at the end, its verdict first. Messages about inputs go to
//! stderr in text and Markdown, into the stream in JSON and GitHub.

use std::collections::BTreeMap;
use std::path::Path;

use clap::ValueEnum;
use crd_runtime::diff::{Change, Class, Level, Policy, Rule};
use serde_json::json;

/// How results are printed.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Human-readable lines.
    Text,
    /// JSON lines, for tools.
    Json,
    /// A Markdown report to paste as a pull-request comment.
    Markdown,
    /// GitHub Actions workflow commands: one annotation per change.
    Github,
}

/// Collects and prints one run's results.
pub struct Report {
    format: Format,
    /// CRD name → the file it was read from (annotations point at it).
    files: BTreeMap<String, String>,
    changes: Vec<(Change, Level)>,
    errors: Vec<String>,
    counts: BTreeMap<Class, usize>,
    failing: usize,
}

impl Report {
    pub fn new(format: Format) -> Report {
        Report {
            format,
            files: BTreeMap::new(),
            changes: Vec::new(),
            errors: Vec::new(),
            counts: BTreeMap::new(),
            failing: 0,
        }
    }

    /// Remembers where `crd` was read from; a later call wins (the NEW side is read
    /// after OLD).
    pub fn source(&mut self, crd: &str, file: &str) {
        self.files.insert(crd.to_string(), file.to_string());
    }

    /// How many reported changes are at level error.
    pub fn failing(&self) -> usize {
        self.failing
    }

    /// Reports `change` at its level under `policy` (nothing for `ignore`).
    pub fn change(&mut self, change: &Change, policy: &Policy) {
        let level = policy.level(change.rule);
        if level == Level::Ignore {
            return;
        }
        *self.counts.entry(change.class()).or_default() += 1;
        self.failing += usize::from(level == Level::Error);
        let default = Policy::default_level(change.rule);
        match self.format {
            Format::Text if level == default => println!("{change} [{}]", change.class()),
            Format::Text => println!("{change} [{}, {level} by policy]", change.class()),
            Format::Json => println!(
                "{}",
                json!({
                    "kind": "change",
                    "crd": change.crd,
                    "version": change.version,
                    "path": change.path,
                    "rule": change.rule.name(),
                    "class": change.class().name(),
                    "level": level.name(),
                    "detail": change.detail,
                    "message": change.to_string(),
                })
            ),
            Format::Github => {
                let command = match (level, change.class()) {
                    (Level::Error, _) => "error",
                    (_, Class::Informational) => "notice",
                    _ => "warning",
                };
                let mut properties = Vec::new();
                if let Some(file) = self.files.get(&change.crd).and_then(|f| annotated_file(f)) {
                    properties.push(format!("file={}", escape_property(file)));
                }
                properties.push(format!("title={}", escape_property(change.rule.name())));
                println!(
                    "::{command} {}::{}",
                    properties.join(","),
                    escape_data(&change.to_string())
                );
            }
            Format::Markdown => self.changes.push((change.clone(), level)),
        }
    }

    /// An input or the policy cannot be read.
    pub fn error(&mut self, message: &str) {
        match self.format {
            Format::Text => eprintln!("{message}"),
            Format::Markdown => {
                eprintln!("{message}");
                self.errors.push(message.to_string());
            }
            Format::Json => println!("{}", json!({"kind": "error", "message": message})),
            Format::Github => println!("::error::{}", escape_data(message)),
        }
    }

    /// Something worth knowing that is no change (a CRD defined twice).
    pub fn note(&mut self, message: &str) {
        match self.format {
            Format::Text | Format::Markdown => eprintln!("note: {message}"),
            Format::Json => println!("{}", json!({"kind": "note", "message": message})),
            Format::Github => println!("::notice::{}", escape_data(message)),
        }
    }

    /// The last line (or, in Markdown, the whole report). `what` says what was done:
    /// `compared 3 CRDs`.
    pub fn finish(&self, what: &str, compared: usize) {
        let count = |class| self.counts.get(&class).copied().unwrap_or(0);
        let (breaking, compatible, informational) = (
            count(Class::Breaking),
            count(Class::Compatible),
            count(Class::Informational),
        );
        let summary = format!(
            "{what}: {breaking} breaking, {compatible} compatible, {informational} informational"
        );
        match self.format {
            Format::Text | Format::Github => println!("{summary}"),
            Format::Json => println!(
                "{}",
                json!({"kind": "summary", "compared": compared, "breaking": breaking, "compatible": compatible,
                       "informational": informational, "failing": self.failing})
            ),
            Format::Markdown => print!("{}", self.markdown(&summary)),
        }
    }

    /// Nothing was compared (bad arguments or policy): only a Markdown report is
    /// still printed, so a pull-request comment says why.
    pub fn abort(&self) {
        if self.format == Format::Markdown {
            print!("{}", self.markdown("nothing was compared"));
        }
    }

    fn markdown(&self, summary: &str) -> String {
        let verdict = if !self.errors.is_empty() {
            "errors"
        } else if self.failing > 0 {
            "failed"
        } else if self.changes.is_empty() {
            "passed, no changes"
        } else {
            "passed with warnings"
        };
        let mut out = format!("## crd-gen diff: {verdict}\n\n");
        let mut summary = upper_first(summary);
        if self.failing > 0 {
            summary.push_str(&format!("; {} at level error", self.failing));
        }
        out.push_str(&format!("{summary}.\n\n"));
        if !self.errors.is_empty() {
            out.push_str("Errors:\n\n");
            for error in &self.errors {
                out.push_str(&format!("- {}\n", escape_markdown(error)));
            }
            out.push('\n');
        }
        if self.changes.is_empty() {
            if self.errors.is_empty() {
                out.push_str("No changes.\n");
            }
            return out;
        }
        out.push_str("| Level | CRD | Version | Field | Rule | Detail |\n");
        out.push_str("| --- | --- | --- | --- | --- | --- |\n");
        for (change, level) in &self.changes {
            let marker = match level {
                Level::Error => "**ERROR**",
                _ => "WARNING",
            };
            out.push_str(&format!(
                "| {marker} | {} | {} | {} | {} | {} |\n",
                code(&change.crd),
                code(change.version.as_deref().unwrap_or("-")),
                code(&change.path),
                code(change.rule.name()),
                escape_markdown(&change.detail),
            ));
        }
        out
    }
}

/// `--rules`: every rule with its class, default level and reason.
pub fn print_rules(format: Format) {
    if format == Format::Markdown {
        println!("| Rule | Class | Default level | Why |");
        println!("| --- | --- | --- | --- |");
    }
    for rule in Rule::ALL {
        let level = Policy::default_level(*rule);
        match format {
            Format::Text | Format::Github => println!(
                "{:<34} {:<13} {:<6} {}",
                rule.name(),
                rule.class(),
                level,
                rule.why()
            ),
            Format::Json => println!(
                "{}",
                json!({"rule": rule.name(), "class": rule.class().name(), "defaultLevel": level.name(), "why": rule.why()})
            ),
            Format::Markdown => println!(
                "| {} | {} | {} | {} |",
                code(rule.name()),
                rule.class(),
                level,
                escape_markdown(rule.why())
            ),
        }
    }
}

fn upper_first(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// A Markdown code span inside a table cell: a fence longer than any run of
/// backticks inside, `|` escaped (GitHub's tables split on it even in code).
fn code(text: &str) -> String {
    let text = text.replace(['\r', '\n'], " ").replace('|', "\\|");
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// Text in a table cell: one line, Markdown punctuation that could start
/// emphasis, code, HTML or a cell boundary escaped.
fn escape_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\r' | '\n' => out.push(' '),
            '\\' | '|' | '`' | '*' | '_' | '<' | '>' | '[' | ']' | '#' | '~' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// A workflow command's message (`%`, CR and LF encoded, as the runner decodes them).
pub(crate) fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// The file an annotation points at: a file on disk as given, or the path inside the
/// repository of a `git://REF?path=PATH` source (GitHub resolves annotations from the
/// repository root); none for stdin and `kube://`.
fn annotated_file(source: &str) -> Option<&str> {
    if let Some(rest) = source.strip_prefix("git://") {
        return rest
            .split_once("?path=")
            .map(|(_, path)| path)
            .filter(|p| !p.is_empty());
    }
    Path::new(source).is_file().then_some(source)
}

/// A workflow command's property value: as a message, plus `:` and `,`.
pub(crate) fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workflow_commands_encode_what_the_runner_decodes() {
        assert_eq!(escape_data("50% a\r\nb: c, d"), "50%25 a%0D%0Ab: c, d");
        assert_eq!(escape_property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
    }

    #[test]
    fn annotations_point_at_repository_paths() {
        assert_eq!(
            annotated_file("git://main?path=config/crd/a.yaml"),
            Some("config/crd/a.yaml")
        );
        assert_eq!(annotated_file("git://main"), None);
        assert_eq!(annotated_file("kube://crontabs.stable.example.com"), None);
        assert_eq!(annotated_file("-"), None);
        assert_eq!(annotated_file("Cargo.toml"), Some("Cargo.toml"));
    }

    #[test]
    fn markdown_cells_keep_to_their_cell() {
        assert_eq!(code("spec.ports[*]"), "`spec.ports[*]`");
        assert_eq!(code("a|b"), "`a\\|b`");
        assert_eq!(code("x`y"), "``x`y``");
        assert_eq!(code("`y"), "`` `y ``");
        assert_eq!(
            escape_markdown("pattern \"^a|b$\" added `x` <root>\n_*"),
            "pattern \"^a\\|b$\" added \\`x\\` \\<root\\> \\_\\*"
        );
        assert_eq!(upper_first("compared 1 CRDs"), "Compared 1 CRDs");
    }
}
