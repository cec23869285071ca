//! Parser error messages in the project's words: positions are reported separately,
//! and no parser-internal (Rust `Debug`) text reaches users.

use super::MAX_DEPTH;

pub(super) fn strip_json_location(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

pub(super) fn yaml_message(msg: &str) -> String {
    let first = msg.lines().next().unwrap_or(msg);
    if let Some(breach) = first.strip_prefix("budget breached: ") {
        return budget_message(breach);
    }
    let first = first.find(" at line ").map_or(first, |i| &first[..i]);
    if first.contains("Depth") || first.contains("recursion limit") {
        format!("document nests deeper than {MAX_DEPTH} levels")
    } else {
        first.to_string()
    }
}

/// The parser's budget breach (printed by it as Rust `Debug` text, e.g.
/// `RecordedAnchorEvents { recorded_anchor_events: 1000001 }`) in words.
fn budget_message(breach: &str) -> String {
    let name: String = breach
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect();
    let what = match name.as_str() {
        "Depth" => return format!("document nests deeper than {MAX_DEPTH} levels"),
        "RecordedAnchorEvents" | "AliasExpansion" | "Aliases" => {
            "aliases expand to too much data (an alias bomb?)"
        }
        "Anchors" => "too many anchors",
        "Events" | "Nodes" => "too many YAML nodes",
        "Documents" => "too many documents",
        "TotalScalarBytes" | "InputBytes" | "ReaderInputBytes" => "too much text",
        _ => "a size limit is exceeded",
    };
    format!("the YAML cannot be read safely: {what}")
}

#[cfg(test)]
mod tests {
    use crate::load::parse_documents;

    #[test]
    fn alias_bombs_are_reported_in_words() {
        let mut text = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
        for (i, c) in "bcdefghi".chars().enumerate() {
            let prev = (b'a' + i as u8) as char;
            let refs = vec![format!("*{prev}"); 10].join(", ");
            text.push_str(&format!("{c}: &{c} [{refs}]\n"));
        }
        let err = parse_documents("bomb.yaml", &text).unwrap_err().to_string();
        assert!(
            err.ends_with(
                "the YAML cannot be read safely: aliases expand to too much data (an alias bomb?)"
            ),
            "{err}"
        );
        assert!(!err.contains('{'), "{err}");
    }
}
