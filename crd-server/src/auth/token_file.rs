//! `--token-auth-file`: static bearer tokens, one CSV record each —
//! `token,user,uid[,"group1,group2"]` — read as kube-apiserver's token file
//! authenticator reads them (fields trimmed of leading spaces, quoted fields may hold
//! commas, empty tokens skipped, the last of duplicate tokens kept).

use std::collections::HashMap;
use std::path::Path;

use crd_runtime::rbac::UserInfo;

/// The users of a token file, by token.
pub fn read(path: &Path) -> Result<HashMap<String, UserInfo>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse(&path.display().to_string(), &text)
}

/// The users of a token file's text (`source` names it in errors).
pub fn parse(source: &str, text: &str) -> Result<HashMap<String, UserInfo>, String> {
    let mut tokens = HashMap::new();
    for (number, record) in records(source, text)? {
        if record.len() < 3 {
            return Err(format!(
                "token file '{source}' must have at least 3 columns (token, user name, user uid), found {} (line {number})",
                record.len()
            ));
        }
        if record[0].is_empty() {
            eprintln!(
                "warning: empty token has been found in token file '{source}', line {number}"
            );
            continue;
        }
        let mut groups: Vec<String> = match record.get(3) {
            Some(g) if !g.is_empty() => g.split(',').map(str::to_string).collect(),
            _ => Vec::new(),
        };
        groups.retain(|g| !g.is_empty());
        let user = UserInfo {
            name: record[1].clone(),
            uid: record[2].clone(),
            groups,
            ..UserInfo::default()
        };
        if tokens.insert(record[0].clone(), user).is_some() {
            eprintln!(
                "warning: duplicate token has been found in token file '{source}', line {number}"
            );
        }
    }
    Ok(tokens)
}

/// The CSV records of `text` with their line numbers (blank lines skipped), as Go's
/// `encoding/csv` reads them with `TrimLeadingSpace`.
fn records(source: &str, text: &str) -> Result<Vec<(usize, Vec<String>)>, String> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    let mut line = 1usize;
    loop {
        // Skip blank lines.
        while matches!(chars.peek(), Some('\n') | Some('\r')) {
            if chars.next() == Some('\n') {
                line += 1;
            }
        }
        if chars.peek().is_none() {
            return Ok(out);
        }
        let start = line;
        let mut record = Vec::new();
        loop {
            while matches!(chars.peek(), Some(' ') | Some('\t')) {
                chars.next();
            }
            let mut field = String::new();
            if chars.peek() == Some(&'"') {
                chars.next();
                loop {
                    match chars.next() {
                        Some('"') if chars.peek() == Some(&'"') => {
                            chars.next();
                            field.push('"');
                        }
                        Some('"') => break,
                        Some(c) => {
                            if c == '\n' {
                                line += 1;
                            }
                            field.push(c);
                        }
                        None => {
                            return Err(format!(
                                "token file '{source}': line {start}: extraneous or missing \" in quoted-field"
                            ));
                        }
                    }
                }
                if !matches!(chars.peek(), None | Some(',') | Some('\n') | Some('\r')) {
                    return Err(format!(
                        "token file '{source}': line {line}: extraneous or missing \" in quoted-field"
                    ));
                }
            } else {
                while let Some(&c) = chars.peek() {
                    if c == ',' || c == '\n' || c == '\r' {
                        break;
                    }
                    if c == '"' {
                        return Err(format!(
                            "token file '{source}': line {line}: bare \" in non-quoted-field"
                        ));
                    }
                    field.push(c);
                    chars.next();
                }
            }
            record.push(field);
            match chars.next() {
                Some(',') => continue,
                Some('\r') => {
                    if chars.peek() == Some(&'\n') {
                        chars.next();
                    }
                    line += 1;
                    break;
                }
                Some('\n') => {
                    line += 1;
                    break;
                }
                _ => break,
            }
        }
        out.push((start, record));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_read_as_kube_apiservers_token_file() {
        let text = "t1,alice,1001,\"dev,ops\"\n\n t2, bob ,1002\nt3,carol,1003,ops\n";
        let tokens = parse("tokens.csv", text).unwrap();
        assert_eq!(tokens["t1"].name, "alice");
        assert_eq!(tokens["t1"].uid, "1001");
        assert_eq!(tokens["t1"].groups, ["dev", "ops"]);
        // Leading spaces are trimmed, trailing ones kept (Go's TrimLeadingSpace).
        assert_eq!(tokens["t2"].name, "bob ");
        assert!(tokens["t2"].groups.is_empty());
        assert_eq!(tokens["t3"].groups, ["ops"]);
    }

    #[test]
    fn malformed_files_name_the_file_and_line() {
        assert_eq!(
            parse("tokens.csv", "t1,alice,1\nt2,bob\n").unwrap_err(),
            "token file 'tokens.csv' must have at least 3 columns (token, user name, user uid), found 2 (line 2)"
        );
        assert_eq!(
            parse("tokens.csv", "t1,\"alice,1\n").unwrap_err(),
            "token file 'tokens.csv': line 1: extraneous or missing \" in quoted-field"
        );
        assert_eq!(
            parse("tokens.csv", "t1,al\"ice,1\n").unwrap_err(),
            "token file 'tokens.csv': line 1: bare \" in non-quoted-field"
        );
        // An empty token is skipped, not an error.
        assert!(parse("tokens.csv", ",alice,1\n").unwrap().is_empty());
    }
}
