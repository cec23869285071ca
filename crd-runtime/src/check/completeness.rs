//! Structural completeness (`validateStructuralCompleteness` upstream): every
//! property, `items` or `additionalProperties` mentioned inside `allOf`/`anyOf`/
//! `oneOf`/`not` must also be specified in the structural part of the schema, so
//! that every value validation applies to a value with a known schema.
//!
//! Like upstream, only the junctors of the root node are followed (nested nodes'
//! junctors are checked for forbidden keywords by [`super::structural`]).

use crate::field::{ErrorList, FieldError, Path};
use crate::model::JSONSchemaProps;

use super::CheckOptions;

/// Checks that the root's value validations are backed by its structure.
pub fn validate_structural_completeness(
    s: &JSONSchemaProps,
    path: &Path,
    opts: &CheckOptions,
) -> ErrorList {
    let mut errs = ErrorList::new();
    junctors(s, s, path, path, opts, &mut errs);
    errs
}

fn required(s_path: &Path, v_path: &Path) -> FieldError {
    FieldError::required(s_path.clone(), format!("because it is defined in {v_path}"))
}

/// The junctors of value-validation node `v`, checked against structural node `s`.
fn junctors(
    v: &JSONSchemaProps,
    s: &JSONSchemaProps,
    s_path: &Path,
    v_path: &Path,
    opts: &CheckOptions,
    errs: &mut ErrorList,
) {
    let has_junctors = v.not.is_some()
        || v.all_of.as_ref().is_some_and(|l| !l.is_empty())
        || v.any_of.as_ref().is_some_and(|l| !l.is_empty())
        || v.one_of.as_ref().is_some_and(|l| !l.is_empty());
    if !has_junctors {
        return;
    }
    if let Some(not) = v.not.as_deref() {
        nested(not, Some(s), s_path, &v_path.child("not"), opts, errs);
    }
    for (name, list) in [
        ("allOf", &v.all_of),
        ("anyOf", &v.any_of),
        ("oneOf", &v.one_of),
    ] {
        for (i, n) in list.iter().flatten().enumerate() {
            nested(n, Some(s), s_path, &v_path.child(name).index(i), opts, errs);
        }
    }
}

fn nested(
    v: &JSONSchemaProps,
    s: Option<&JSONSchemaProps>,
    s_path: &Path,
    v_path: &Path,
    opts: &CheckOptions,
    errs: &mut ErrorList,
) {
    let Some(s) = s else {
        errs.push(required(s_path, v_path));
        return;
    };
    junctors(v, s, s_path, v_path, opts, errs);
    if let Some(items) = v.items_schema() {
        nested(
            items,
            s.items_schema(),
            &s_path.child("items"),
            &v_path.child("items"),
            opts,
            errs,
        );
    }
    let s_additional = s.additional_properties_schema();
    for (k, v_fld) in v.properties.iter().flatten() {
        let v_fld_path = v_path.child("properties").key(k);
        match s.properties.as_ref().and_then(|p| p.get(k)) {
            Some(s_fld) => nested(
                v_fld,
                Some(s_fld),
                &s_path.child("properties").key(k),
                &v_fld_path,
                opts,
                errs,
            ),
            None => match s_additional {
                Some(ap) if opts.allow_validation_properties_with_additional_properties => nested(
                    v_fld,
                    Some(ap),
                    &s_path.child("additionalProperties"),
                    &v_fld_path,
                    opts,
                    errs,
                ),
                _ => errs.push(required(&s_path.child("properties").key(k), &v_fld_path)),
            },
        }
    }
    if opts.allow_nested_additional_properties
        && let Some(v_ap) = v.additional_properties_schema()
    {
        nested(
            v_ap,
            s_additional,
            &s_path.child("additionalProperties"),
            &v_path.child("additionalProperties"),
            opts,
            errs,
        );
    }
}
