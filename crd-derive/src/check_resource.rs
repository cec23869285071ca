//! Resource-level rules: names, subresources and JSONPaths, checked at compile time.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use serde_derive_internals::Ctxt;

use crate::attr::resource::ResourceAttrs;
use crate::attr::value::Sp;
use crate::check::json_path;
use crate::tokens::{Rt, respan};

fn err(cx: &Ctxt, span: Span, msg: impl std::fmt::Display) {
    cx.syn_error(syn::Error::new(span, msg));
}

/// Lower-case letters, digits and '-', neither first nor last: one DNS label,
/// without the length limit.
fn is_label_text(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !s.starts_with('-')
        && !s.ends_with('-')
}

fn is_dns_label(s: &str) -> bool {
    s.len() <= 63 && is_label_text(s)
}

/// The API server's DNS-1123 subdomain: at most 253 characters, dot-separated labels
/// of lower-case letters, digits and '-' that start and end with a letter or digit
/// (unlike a lone label, a subdomain label has no 63-character limit).
fn is_dns_subdomain(s: &str) -> bool {
    s.len() <= 253 && s.split('.').all(is_label_text)
}

/// `postgresql` → `Postgresql`, `my-kind` → `MyKind`: a suggested root type name.
fn upper_camel(kind: &str) -> String {
    kind.split('-')
        .flat_map(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase())
                .into_iter()
                .chain(chars)
        })
        .collect()
}

/// The default plural of a kind: lower-cased, English plural rules.
pub fn plural_of(kind: &str) -> String {
    let k = kind.to_lowercase();
    if k.ends_with('s')
        || k.ends_with('x')
        || k.ends_with('z')
        || k.ends_with("ch")
        || k.ends_with("sh")
    {
        format!("{k}es")
    } else if k.ends_with('y')
        && !k.ends_with("ay")
        && !k.ends_with("ey")
        && !k.ends_with("oy")
        && !k.ends_with("uy")
    {
        format!("{}ies", &k[..k.len() - 1])
    } else {
        format!("{k}s")
    }
}

/// Metadata fields a printer column or selectable field may point at.
const METADATA_FIELDS: &[&str] = &[
    "name",
    "namespace",
    "generateName",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
    "selfLink",
];

/// Checks names and versions; returns (group, version, kind) when all are present.
pub fn identity(
    cx: &Ctxt,
    a: &ResourceAttrs,
    span: Span,
) -> Option<(Sp<String>, Sp<String>, Sp<String>)> {
    for (v, key) in [
        (&a.group, "group"),
        (&a.version, "version"),
        (&a.kind, "kind"),
    ] {
        if v.is_none() {
            err(cx, span, format!("missing `#[crd({key} = \"...\")]`"));
        }
    }
    let (group, version, kind) = (a.group.clone()?, a.version.clone()?, a.kind.clone()?);
    if !group.value.contains('.') || !is_dns_subdomain(&group.value) {
        err(
            cx,
            group.span,
            "`group` must be a lower-case DNS subdomain with at least one dot, like \"stable.example.com\"",
        );
    }
    // The API server's rule: a DNS-1035 label ("v1", "v2beta1", but also "stable").
    let v = &version.value;
    if !is_dns_label(v) || !v.starts_with(|c: char| c.is_ascii_lowercase()) {
        err(
            cx,
            version.span,
            "`version` must be a DNS-1035 label (lower-case letters, digits and '-', starting with a letter), like \"v1\" or \"v2beta1\"",
        );
    }
    let k = &kind.value;
    let camel = k.starts_with(|c: char| c.is_ascii_uppercase())
        && k.chars().all(|c| c.is_ascii_alphanumeric());
    // The API server only asks that the lower-cased kind be a DNS-1035 label
    // (`postgresql` is a real kind); the Rust root type then needs its own name.
    let lower = k.to_lowercase();
    if !is_dns_label(&lower) || !lower.starts_with(|c: char| c.is_ascii_lowercase()) {
        err(
            cx,
            kind.span,
            "`kind` must be letters, digits and '-', starting with a letter (the API server's rule), like \"CronTab\"",
        );
    } else if !camel && a.root_type.is_none() {
        err(
            cx,
            kind.span,
            format!(
                "`kind` {k:?} is not a CamelCase Rust type name: name the root type with `root_type = {}`",
                upper_camel(k)
            ),
        );
    }
    for s in [&a.plural, &a.singular].into_iter().flatten() {
        if !is_dns_label(&s.value) {
            err(
                cx,
                s.span,
                "must be a lower-case DNS label, like \"crontabs\"",
            );
        }
    }
    for s in a.short_names.iter().chain(&a.categories) {
        if !is_dns_label(&s.value) {
            err(cx, s.span, "must be a lower-case DNS label");
        }
    }
    Some((group, version, kind))
}

/// Checks a path into the object; returns const assertions for `.status.<field>`.
///
/// `spec_fields` are the spec struct's serde property names (`None` when they cannot be
/// known syntactically, e.g. with `flatten`).
pub fn object_path(
    cx: &Ctxt,
    rt: &Rt,
    path: &Sp<String>,
    what: &str,
    spec_fields: Option<&[String]>,
    status: Option<&syn::Type>,
    extra_roots: &[String],
) -> Vec<TokenStream> {
    let lenient = what == "printer column json_path" || what == "selectable_field";
    let Some(segs) = json_path(cx, &path.value, path.span, what, lenient) else {
        return Vec::new();
    };
    let Some(first) = segs.first().map(String::as_str) else {
        return Vec::new();
    };
    let second = segs.get(1).map(String::as_str);
    match (first, second) {
        ("spec", Some(f)) => {
            if let Some(fields) = spec_fields
                && !fields.iter().any(|x| x == f)
            {
                err(
                    cx,
                    path.span,
                    format!(
                        "{what} {:?} points to no field: the spec has no property {f:?} (it has: {})",
                        path.value,
                        fields.join(", ")
                    ),
                );
            }
            Vec::new()
        }
        ("status", Some(f)) => match status {
            None => {
                err(
                    cx,
                    path.span,
                    format!("{what} points into `.status`, but there is no `status = ...`"),
                );
                Vec::new()
            }
            Some(ty) => {
                let p = rt.private();
                vec![respan(
                    quote!(const _: () = #p::check_path_field::<#ty>(#f);),
                    path.span,
                )]
            }
        },
        ("metadata", Some(f)) => {
            if !METADATA_FIELDS.contains(&f) {
                err(
                    cx,
                    path.span,
                    format!("{what} points to no metadata field {f:?}"),
                );
            }
            Vec::new()
        }
        ("spec" | "status" | "metadata", None) => Vec::new(),
        (root, _) if extra_roots.iter().any(|r| r == root) => Vec::new(),
        (root, _) => {
            err(
                cx,
                path.span,
                format!("{what} points to no field: the object has no top-level property {root:?}"),
            );
            Vec::new()
        }
    }
}

/// Subresource, column and selectable-field rules.
pub fn subresources(
    cx: &Ctxt,
    rt: &Rt,
    a: &ResourceAttrs,
    spec_fields: Option<&[String]>,
) -> Vec<TokenStream> {
    let mut consts = Vec::new();
    let extra: Vec<String> = a
        .root
        .properties
        .iter()
        .map(|(n, _)| n.value.clone())
        .collect();
    let status = a.status.as_ref();
    if let Some(scale) = &a.scale {
        if status.is_none() {
            err(
                cx,
                scale.span,
                "the scale subresource needs a status: add `status = YourStatusType`",
            );
        }
        if a.status_subresource.as_ref().is_some_and(|s| !s.value) {
            err(
                cx,
                scale.span,
                "the scale subresource needs the status subresource",
            );
        }
        let sp = &scale.spec_replicas_path;
        if !sp.value.starts_with(".spec.") {
            err(cx, sp.span, "`spec_replicas_path` must point under `.spec`");
        } else {
            consts.extend(object_path(
                cx,
                rt,
                sp,
                "spec_replicas_path",
                spec_fields,
                status,
                &extra,
            ));
        }
        let st = &scale.status_replicas_path;
        if !st.value.starts_with(".status.") {
            err(
                cx,
                st.span,
                "`status_replicas_path` must point under `.status`",
            );
        } else if status.is_some() {
            consts.extend(object_path(
                cx,
                rt,
                st,
                "status_replicas_path",
                spec_fields,
                status,
                &extra,
            ));
        }
        if let Some(l) = &scale.label_selector_path {
            if !(l.value.starts_with(".spec.") || l.value.starts_with(".status.")) {
                err(
                    cx,
                    l.span,
                    "`label_selector_path` must point under `.spec` or `.status`",
                );
            } else if status.is_some() || l.value.starts_with(".spec.") {
                consts.extend(object_path(
                    cx,
                    rt,
                    l,
                    "label_selector_path",
                    spec_fields,
                    status,
                    &extra,
                ));
            }
        }
    }
    // Two columns may share a name: the API server accepts it and kubectl prints both
    // (cluster-api's MachineDeployment has two "Available" columns).
    for c in &a.columns {
        if c.unchecked_path {
            let _ = json_path(
                cx,
                &c.json_path.value,
                c.json_path.span,
                "printer column json_path",
                true,
            );
            continue;
        }
        consts.extend(object_path(
            cx,
            rt,
            &c.json_path,
            "printer column json_path",
            spec_fields,
            status,
            &extra,
        ));
    }
    for f in &a.selectable_fields {
        consts.extend(object_path(
            cx,
            rt,
            f,
            "selectable_field",
            spec_fields,
            status,
            &extra,
        ));
    }
    if a.deprecation_warning.is_some() && a.deprecated != Some(true) {
        err(
            cx,
            Span::call_site(),
            "`deprecation_warning` needs `deprecated`",
        );
    }
    consts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plurals() {
        for (k, p) in [
            ("CronTab", "crontabs"),
            ("Policy", "policies"),
            ("Ingress", "ingresses"),
            ("Gateway", "gateways"),
            ("Box", "boxes"),
            ("Mesh", "meshes"),
        ] {
            assert_eq!(plural_of(k), p);
        }
    }
}
