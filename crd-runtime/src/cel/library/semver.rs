//! `semver(<string>)` and `isSemver(<string>)` as the API server has them:
//! strings are checked by blang/semver's `Parse` rules and rejected in its words
//! (`No Major.Minor.Patch elements found`, …). The normalizing two-argument forms
//! and the values are kube-cel's.

use std::sync::Arc;

use kube_cel::cel::extractors::Arguments;
use kube_cel::cel::objects::Value;
use kube_cel::cel::{Context, ExecutionError, ResolveResult};

use super::delegate::call;
use crate::cel::cost::budget::{charge, charge_traversal};
use crate::go::quote;

pub(crate) fn register(ctx: &mut Context<'_>) {
    ctx.add_function("semver", semver);
    ctx.add_function("isSemver", is_semver);
}

fn only(s: &str, allowed: impl Fn(u8) -> bool) -> bool {
    s.bytes().all(allowed)
}

fn leading_zero(s: &str) -> bool {
    s.len() > 1 && s.starts_with('0')
}

fn number(s: &str, what: &str, upper: &str) -> Result<(), String> {
    if s.is_empty() || !only(s, |c| c.is_ascii_digit()) {
        return Err(format!(
            "Invalid character(s) found in {what} number {}",
            quote(s)
        ));
    }
    if leading_zero(s) {
        return Err(format!(
            "{upper} number must not contain leading zeroes {}",
            quote(s)
        ));
    }
    s.parse::<u64>().map(|_| ()).map_err(|_| {
        format!(
            "strconv.ParseUint: parsing {}: value out of range",
            quote(s)
        )
    })
}

fn ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-'
}

/// blang/semver v4 `Parse`.
pub(crate) fn check(s: &str) -> Result<(), String> {
    if s.is_empty() {
        return Err("Version string empty".into());
    }
    let parts: Vec<&str> = s.splitn(3, '.').collect();
    let [major, minor, rest] = parts[..] else {
        return Err("No Major.Minor.Patch elements found".into());
    };
    number(major, "major", "Major")?;
    number(minor, "minor", "Minor")?;
    let pre = rest.find('-');
    let build = rest.find('+');
    let end = match (pre, build) {
        (Some(p), Some(b)) => p.min(b),
        (Some(p), None) => p,
        (None, Some(b)) => b,
        (None, None) => rest.len(),
    };
    number(&rest[..end], "patch", "Patch")?;
    let (pre_part, build_part) = match build {
        Some(b) if pre.is_none_or(|p| b < p) => (None, Some(&rest[b + 1..])),
        Some(b) => (Some(&rest[end + 1..b]), Some(&rest[b + 1..])),
        None => (pre.map(|p| &rest[p + 1..]), None),
    };
    identifiers(pre_part, "Prerelease is empty", "prerelease", |id| {
        if only(id, |c| c.is_ascii_digit()) && leading_zero(id) {
            return Err(format!(
                "Numeric PreRelease version must not contain leading zeroes {}",
                quote(id)
            ));
        }
        Ok(())
    })?;
    identifiers(
        build_part,
        "Build meta data is empty",
        "build meta data",
        |_| Ok(()),
    )
}

/// Checks the dot-separated identifiers of a prerelease or build part (`name`, as the
/// messages call it) one after the other, each also by `more`.
fn identifiers(
    part: Option<&str>,
    empty: &str,
    name: &str,
    more: impl Fn(&str) -> Result<(), String>,
) -> Result<(), String> {
    for id in part
        .map(|p| p.split('.').collect::<Vec<_>>())
        .unwrap_or_default()
    {
        if id.is_empty() {
            return Err(empty.into());
        }
        if !only(id, ident_char) {
            return Err(format!(
                "Invalid character(s) found in {name} {}",
                quote(id)
            ));
        }
        more(id)?;
    }
    Ok(())
}

/// The strict one-argument form, or `None` for the normalizing form.
fn strict(args: &[Value]) -> Option<&Arc<String>> {
    match args {
        [Value::String(s)] => Some(s),
        _ => None,
    }
}

/// The API server's call cost of `semver`/`isSemver`: a traversal of the string.
fn charge_first_string(args: &[Value]) -> Result<(), ExecutionError> {
    match args.first() {
        Some(Value::String(s)) => charge_traversal(s, 1.0),
        _ => charge(1),
    }
}

fn semver(Arguments(args): Arguments) -> ResolveResult {
    charge_first_string(&args)?;
    if let Some(s) = strict(&args) {
        check(s).map_err(|e| ExecutionError::function_error("semver", e))?;
        return call("semver(a)", &args);
    }
    call("semver(a, b)", &args)
}

fn is_semver(Arguments(args): Arguments) -> ResolveResult {
    charge_first_string(&args)?;
    if let Some(s) = strict(&args) {
        let ok = check(s).is_ok() && call("semver(a)", &args).is_ok();
        return Ok(Value::Bool(ok));
    }
    call("isSemver(a, b)", &args)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_fail_in_blangs_words() {
        assert_eq!(
            check("v1.0").unwrap_err(),
            "No Major.Minor.Patch elements found"
        );
        assert_eq!(check("").unwrap_err(), "Version string empty");
        assert_eq!(
            check("v1.0.0").unwrap_err(),
            r#"Invalid character(s) found in major number "v1""#
        );
        assert_eq!(
            check("01.1.1").unwrap_err(),
            r#"Major number must not contain leading zeroes "01""#
        );
        for (bad, part) in [
            ("1.0.0-", "Prerelease is empty"),
            ("1.0.0-01", "leading zeroes"),
            ("1.0.0+", "Build meta data is empty"),
        ] {
            let err = check(bad).unwrap_err();
            assert!(err.contains(part), "{bad}: {err}");
        }
        for ok in [
            "1.2.3",
            "1.2.3-beta.1+build.1",
            "0.0.0",
            "1.2.3+x-y",
            "1.2.3-a+b",
        ] {
            assert_eq!(check(ok), Ok(()), "{ok}");
        }
    }
}
