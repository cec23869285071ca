//! The rules of a versioned module: the order of each member's actions, names that
//! collide in a version, the `deprecated_` prefix, and derives the macro adds itself.

use serde_derive_internals::Ctxt;

use super::model::{Member, Model, VType};

/// `v1`, `v1beta2`, `v2alpha1`: a Kubernetes version name (and so a module name).
pub fn is_version(name: &str) -> bool {
    let Some(rest) = name.strip_prefix('v') else {
        return false;
    };
    let digits =
        |s: &str| !s.is_empty() && !s.starts_with('0') && s.bytes().all(|b| b.is_ascii_digit());
    let split = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let (major, tail) = rest.split_at(split);
    if !digits(major) {
        return false;
    }
    tail.is_empty()
        || ["alpha", "beta"]
            .iter()
            .any(|p| tail.strip_prefix(p).is_some_and(digits))
}

fn err(cx: &Ctxt, span: proc_macro2::Span, msg: String) {
    cx.syn_error(syn::Error::new(span, msg));
}

/// The rules on one member's actions.
fn member(cx: &Ctxt, m: &Member, versions: &[String], is_field: bool) {
    let name = m.key();
    let v = |i: usize| versions[i].as_str();
    if let Some(a) = &m.added
        && a.index == 0
    {
        err(
            cx,
            a.span,
            format!(
                "`{name}` is `added` in `{}`, the first version: it has always been there, drop `added(...)`",
                v(0)
            ),
        );
    }
    if let Some(r) = &m.removed
        && r.index == 0
    {
        err(
            cx,
            r.span,
            format!(
                "`{name}` is `removed` in `{}`, the first version: it was never there, drop the member",
                v(0)
            ),
        );
    }
    if let (Some(a), Some(r)) = (&m.added, &m.removed)
        && a.index >= r.index
    {
        err(
            cx,
            a.span,
            format!(
                "`{name}` is `added` in `{}` but `removed` in `{}`: a member is added before it is removed",
                v(a.index),
                v(r.index)
            ),
        );
    }
    let mut seen = Vec::new();
    for c in &m.changes {
        let what = if c.deprecation.is_some() {
            "deprecated"
        } else {
            "changed"
        };
        if let Some(a) = &m.added
            && c.index <= a.index
        {
            err(
                cx,
                c.span,
                format!(
                    "`{name}` is `{what}` in `{}`, not after it is `added` in `{}`",
                    v(c.index),
                    v(a.index)
                ),
            );
        }
        if let Some(r) = &m.removed
            && c.index >= r.index
        {
            err(
                cx,
                c.span,
                format!(
                    "`{name}` is `{what}` in `{}`, after it is `removed` in `{}`",
                    v(c.index),
                    v(r.index)
                ),
            );
        }
        if c.index == 0 {
            err(
                cx,
                c.span,
                format!(
                    "`{name}` is `{what}` in `{}`, the first version: there is no earlier version to change from",
                    v(0)
                ),
            );
        }
        if seen.contains(&c.index) {
            err(
                cx,
                c.span,
                format!(
                    "`{name}` has two `changed`/`deprecated` actions in `{}`: merge them",
                    v(c.index)
                ),
            );
        }
        seen.push(c.index);
        if c.deprecation.is_some() {
            if !name.starts_with("deprecated_") {
                err(
                    cx,
                    m.ident.span(),
                    format!(
                        "`{name}` is `deprecated` in `{}`: its name must start with `deprecated_` (`deprecated_{name}`); earlier versions call it `{name}`",
                        v(c.index)
                    ),
                );
            }
            if m.changes.iter().any(|o| o.index > c.index) {
                err(
                    cx,
                    c.span,
                    format!("`{name}` cannot change after it is deprecated"),
                );
            }
            continue;
        }
        if c.from_name.is_none() && c.from_type.is_none() {
            err(
                cx,
                c.span,
                format!(
                    "`changed(...)` of `{name}` needs `from_name` or `from_type`: what changed in `{}`?",
                    v(c.index)
                ),
            );
        }
        if let Some(n) = &c.from_name
            && n.value.starts_with("deprecated_")
        {
            err(
                cx,
                n.span,
                format!(
                    "`from_name = \"{}\"`: a `deprecated_` name comes from `deprecated(...)`, not from `changed(...)`",
                    n.value
                ),
            );
        }
        if c.from_type.is_none() && (c.upgrade_with.is_some() || c.downgrade_with.is_some()) {
            err(
                cx,
                c.span,
                format!(
                    "`changed(...)` of `{name}` has `upgrade_with`/`downgrade_with` but no `from_type`"
                ),
            );
        }
        if !is_field && c.from_type.is_some() {
            err(
                cx,
                c.span,
                format!("`{name}` is a variant: `from_type` is for fields"),
            );
        }
    }
}

/// Two members with one name in some version (a rename onto an existing name).
fn collisions(cx: &Ctxt, t: &VType, versions: &[String]) {
    let mut reported: Vec<String> = Vec::new();
    for (vi, version) in versions.iter().enumerate() {
        let mut names: Vec<(String, &Member)> = Vec::new();
        for m in t.members.iter().filter(|m| m.present(vi)) {
            let ident = m.ident_at(vi).to_string();
            if let Some((_, first)) = names.iter().find(|(n, _)| *n == ident) {
                // Point at the rename that caused it.
                let (culprit, other) = if first.ident != ident {
                    (*first, m)
                } else {
                    (m, *first)
                };
                if reported.contains(&culprit.key()) {
                    continue;
                }
                reported.push(culprit.key());
                let span = culprit
                    .changes
                    .iter()
                    .filter(|c| c.index > vi)
                    .find_map(|c| c.from_name.as_ref().map(|n| n.span))
                    .unwrap_or(culprit.ident.span());
                err(
                    cx,
                    span,
                    format!(
                        "`{}` would be called `{ident}` in `{version}`, a name `{}` already has there",
                        culprit.key(),
                        other.key()
                    ),
                );
            } else {
                names.push((ident, m));
            }
        }
    }
}

/// Every rule, on the whole model.
pub fn check(cx: &Ctxt, model: &Model) {
    let versions: Vec<String> = model.versions.iter().map(|v| v.name.clone()).collect();
    for v in model.versions.iter().filter(|v| !is_version(&v.name)) {
        err(
            cx,
            v.span,
            format!(
                "`{}` is not a Kubernetes version name like `v1`, `v1beta1` or `v2alpha3`",
                v.name
            ),
        );
    }
    for t in &model.types {
        if !t.input.generics.params.is_empty() {
            cx.error_spanned_by(&t.input.generics, "versioned types cannot be generic");
        }
        for attr in t.input.attrs.iter().filter(|a| a.path().is_ident("derive")) {
            let _ = attr.parse_nested_meta(|meta| {
                if meta.path.segments.last().is_some_and(|s| s.ident == "CustomResource") {
                    cx.error_spanned_by(
                        &meta.path,
                        "do not derive `CustomResource` in a versioned module: `#[versioned]` derives it for every version",
                    );
                }
                Ok(())
            });
        }
        for m in &t.members {
            member(cx, m, &versions, !t.is_enum());
        }
        collisions(cx, t, &versions);
    }
}

#[cfg(test)]
mod tests {
    use super::is_version;

    #[test]
    fn version_names() {
        for ok in ["v1", "v10", "v1beta1", "v2alpha3"] {
            assert!(is_version(ok), "{ok}");
        }
        for bad in ["1", "v0", "v01", "v1gamma1", "v1beta", "V1", "v1-beta1"] {
            assert!(!is_version(bad), "{bad}");
        }
    }
}
