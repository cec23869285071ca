//! CRD-level rules (`ValidateCustomResourceDefinition` upstream): metadata name,
//! group, scope, names, versions (unique DNS-1035 names, exactly one storage
//! version), schemas required, per-version settings, conversion and status.

use crate::field::{BadValue, ErrorList, FieldError, Path};
use crate::model::{
    CustomResourceColumnDefinition, CustomResourceSubresources, CustomResourceValidation,
    JSONSchemaProps, SelectableField,
};

use super::crd_names::{
    UNIQUE_VERSION_NAMES, deprecation_warning_problems, validate_group, validate_names,
    validate_stored_versions, validate_version_name,
};
use super::internal::{InternalCrd, InternalSpec, InternalVersion, has_status};
use super::{CheckOptions, conversion, objectmeta, printer_columns, schema};
use crate::names::dns1035_label;

/// Validates a CRD in the internal form. `check_identical` enables the rules that
/// per-version fields must not all be identical, which only make sense for the
/// internal form (a v1 object is promoted before it gets there).
pub(crate) fn validate_internal(
    crd: &InternalCrd,
    opts: &CheckOptions,
    check_identical: bool,
) -> ErrorList {
    let spec = &crd.spec;
    let required_name = format!("{}.{}", spec.names.plural, spec.group);
    let mut errs =
        objectmeta::validate_crd_metadata(&crd.metadata, &required_name, &Path::new("metadata"));
    errs.extend(validate_spec(
        spec,
        opts,
        check_identical,
        &Path::new("spec"),
    ));
    errs.extend(validate_names(
        &crd.status.accepted_names,
        &Path::new("status").child("acceptedNames"),
    ));
    errs.extend(validate_stored_versions(
        &crd.status.stored_versions,
        &spec.versions,
        &Path::new("status").child("storedVersions"),
    ));
    errs.extend(objectmeta::validate_api_approval(
        &spec.group,
        &crd.metadata,
    ));
    if spec.preserve_unknown_fields == Some(true) {
        errs.push(FieldError::invalid(
            Path::new("spec").child("preserveUnknownFields"),
            BadValue::Bool(true),
            "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
        ));
    }
    errs
}

fn versions_value(versions: &[InternalVersion]) -> BadValue {
    super::crd_names::versions_value(versions.iter().map(|v| v.name.as_str()))
}

fn schemas(spec: &InternalSpec) -> impl Iterator<Item = &JSONSchemaProps> {
    let top = spec
        .validation
        .as_ref()
        .and_then(|v| v.open_api_v3_schema.as_ref());
    top.into_iter().chain(
        spec.versions
            .iter()
            .filter_map(|v| v.schema.as_ref()?.open_api_v3_schema.as_ref()),
    )
}

/// Whether any node satisfies `pred` (iterative: schemas built in code may be deep).
fn schema_has(s: &JSONSchemaProps, pred: &dyn Fn(&JSONSchemaProps) -> bool) -> bool {
    let mut stack = vec![s];
    while let Some(node) = stack.pop() {
        if pred(node) {
            return true;
        }
        node.for_each_child(&mut |_, c| stack.push(c));
    }
    false
}

fn has_kubernetes_extensions(s: &JSONSchemaProps) -> bool {
    s.is_embedded_resource()
        || s.x_kubernetes_preserve_unknown_fields.is_some()
        || s.is_int_or_string()
        || s.x_kubernetes_list_map_keys
            .as_ref()
            .is_some_and(|k| !k.is_empty())
        || s.x_kubernetes_list_type.is_some()
        || s.x_kubernetes_validations
            .as_ref()
            .is_some_and(|k| !k.is_empty())
}

fn validate_spec(
    spec: &InternalSpec,
    opts: &CheckOptions,
    check_identical: bool,
    path: &Path,
) -> ErrorList {
    let mut errs = ErrorList::new();
    let mut opts = opts.clone();
    errs.extend(validate_group(&spec.group, &path.child("group")));
    super::one_of(
        &mut errs,
        path.child("scope"),
        &spec.scope,
        &["Cluster", "Namespaced"],
    );

    let preserve = spec.preserve_unknown_fields == Some(true);
    // Pruning (preserveUnknownFields false) needs structural schemas.
    if !preserve {
        opts.require_structural_schema = true;
    }
    let top_schema = spec
        .validation
        .as_ref()
        .and_then(|v| v.open_api_v3_schema.as_ref());
    if top_schema.is_none() && (opts.require_open_api_schema || !preserve) {
        for (i, v) in spec.versions.iter().enumerate() {
            let missing = v
                .schema
                .as_ref()
                .and_then(|s| s.open_api_v3_schema.as_ref())
                .is_none();
            let p = path
                .child("versions")
                .index(i)
                .child("schema")
                .child("openAPIV3Schema");
            if opts.require_open_api_schema && missing {
                errs.push(FieldError::required(p, "schemas are required"));
            } else if !opts.require_open_api_schema && v.served && missing {
                errs.push(FieldError::required(
                    p,
                    "because otherwise all fields are pruned",
                ));
            }
        }
    }
    if opts.allow_defaults && schemas(spec).any(|s| schema_has(s, &|n| n.default.is_some())) {
        opts.require_structural_schema = true;
        if spec.preserve_unknown_fields != Some(false) {
            errs.push(FieldError::invalid(
                path.child("preserveUnknownFields"),
                BadValue::Bool(true),
                "must be false in order to use defaults in the schema",
            ));
        }
    }
    if schemas(spec).any(|s| schema_has(s, &has_kubernetes_extensions)) {
        opts.require_structural_schema = true;
    }

    let mut storage = 0;
    let mut names = std::collections::HashSet::new();
    let mut unique = true;
    for (i, v) in spec.versions.iter().enumerate() {
        let vp = path.child("versions").index(i);
        storage += usize::from(v.storage);
        unique &= names.insert(v.name.as_str());
        errs.extend(validate_version_name(&v.name, &vp.child("name")));
        let status = has_status(spec.subresources_for(i));
        errs.extend(validate_version(v, &vp, status, &opts));
    }

    let forbid_both = |errs: &mut ErrorList, name: &str, top: bool, per: bool| {
        if top && per {
            errs.push(FieldError::forbidden(
                path.child(name),
                format!(
                    "top-level and per-version {} are mutually exclusive",
                    if name == "validation" {
                        "schemas"
                    } else {
                        name
                    }
                ),
            ));
        }
    };
    forbid_both(
        &mut errs,
        "validation",
        spec.validation.is_some(),
        spec.versions.iter().any(|v| v.schema.is_some()),
    );
    forbid_both(
        &mut errs,
        "subresources",
        spec.subresources.is_some(),
        spec.versions.iter().any(|v| v.subresources.is_some()),
    );
    forbid_both(
        &mut errs,
        "additionalPrinterColumns",
        !spec.additional_printer_columns.is_empty(),
        spec.versions
            .iter()
            .any(|v| !v.additional_printer_columns.is_empty()),
    );

    if check_identical && !spec.versions.is_empty() {
        let vs = &spec.versions;
        let identical = [
            (
                vs.iter()
                    .all(|v| v.schema.is_some() && v.schema == vs[0].schema),
                "schemas",
                "validation",
            ),
            (
                vs.iter()
                    .all(|v| v.subresources.is_some() && v.subresources == vs[0].subresources),
                "subresources",
                "subresources",
            ),
            (
                vs.iter().all(|v| {
                    !v.additional_printer_columns.is_empty()
                        && v.additional_printer_columns == vs[0].additional_printer_columns
                }),
                "additionalPrinterColumns",
                "additionalPrinterColumns",
            ),
        ];
        for (same, what, top) in identical {
            if same {
                errs.push(FieldError::invalid(
                    path.child("versions"),
                    versions_value(vs),
                    format!("per-version {what} may not all be set to identical values (top-level {top} should be used instead)"),
                ));
            }
        }
    }
    if !unique {
        errs.push(FieldError::invalid(
            path.child("versions"),
            versions_value(&spec.versions),
            UNIQUE_VERSION_NAMES,
        ));
    }
    if storage != 1 {
        errs.push(FieldError::invalid(
            path.child("versions"),
            versions_value(&spec.versions),
            "must have exactly one version marked as storage version",
        ));
    }
    if opts.require_served_version
        && !spec.versions.is_empty()
        && !spec.versions.iter().any(|v| v.served)
    {
        errs.push(FieldError::invalid(
            path.child("versions"),
            versions_value(&spec.versions),
            "must have at least one version marked as served",
        ));
    }
    if !spec.version.is_empty() {
        let vp = path.child("version");
        let problems = dns1035_label(&spec.version);
        if !problems.is_empty() {
            errs.push(FieldError::invalid(
                vp.clone(),
                BadValue::Str(spec.version.clone()),
                problems.join(","),
            ));
        }
        if spec
            .versions
            .first()
            .is_some_and(|v| v.name != spec.version)
        {
            errs.push(FieldError::invalid(
                vp,
                BadValue::Str(spec.version.clone()),
                "must match the first version in spec.versions",
            ));
        }
    }

    let n = &spec.names;
    let names_path = path.child("names");
    for (value, name) in [
        (n.plural.as_str(), "plural"),
        (n.singular.as_deref().unwrap_or(""), "singular"),
        (n.kind.as_str(), "kind"),
        (n.list_kind.as_deref().unwrap_or(""), "listKind"),
    ] {
        if value.is_empty() {
            errs.push(FieldError::required(names_path.child(name), ""));
        }
    }
    errs.extend(validate_names(n, &names_path));

    errs.extend(validate_parts(
        Parts {
            validation: spec.validation.as_ref(),
            schema_field: "validation",
            subresources: spec.subresources.as_ref(),
            columns: &spec.additional_printer_columns,
            selectable: &spec.selectable_fields,
            no_schema: "selectableFields may only be set when validations.schema is included",
        },
        spec.any_status_enabled(),
        &opts,
        path,
    ));

    let conv = spec.conversion.as_ref();
    if conv.is_some_and(|c| c.strategy != "None")
        && spec.preserve_unknown_fields != Some(false)
        && let Some(c) = conv
    {
        errs.push(FieldError::invalid(
            path.child("conversion").child("strategy"),
            BadValue::Str(c.strategy.clone()),
            "must be None if spec.preserveUnknownFields is true",
        ));
    }
    errs.extend(conversion::validate_conversion(
        conv,
        opts.require_recognized_conversion_review_version,
        &path.child("conversion"),
    ));
    errs
}

fn validate_version(
    v: &InternalVersion,
    path: &Path,
    status_enabled: bool,
    opts: &CheckOptions,
) -> ErrorList {
    let mut errs = ErrorList::new();
    for msg in deprecation_warning_problems(v.deprecated, v.deprecation_warning.as_deref()) {
        errs.push(FieldError::invalid(
            path.child("deprecationWarning"),
            v.deprecation_warning
                .clone()
                .map_or(BadValue::Json(serde_json::Value::Null), BadValue::Str),
            msg,
        ));
    }
    errs.extend(validate_parts(
        Parts {
            validation: v.schema.as_ref(),
            schema_field: "schema",
            subresources: v.subresources.as_ref(),
            columns: &v.additional_printer_columns,
            selectable: &v.selectable_fields,
            no_schema: "selectableFields may only be set when version.schema.openAPIV3Schema is not included",
        },
        status_enabled,
        opts,
        path,
    ));
    errs
}

/// What a CRD holds both at the top level and per version.
struct Parts<'a> {
    validation: Option<&'a CustomResourceValidation>,
    /// Where `validation` is (`validation` at the top level, `schema` in a version).
    schema_field: &'static str,
    subresources: Option<&'a CustomResourceSubresources>,
    columns: &'a [CustomResourceColumnDefinition],
    selectable: &'a [SelectableField],
    /// The message for selectable fields without a schema to select from.
    no_schema: &'static str,
}

/// The schema, subresources, printer columns and selectable fields of `parts`.
fn validate_parts(
    parts: Parts<'_>,
    status_enabled: bool,
    opts: &CheckOptions,
    path: &Path,
) -> ErrorList {
    let mut errs = schema::validate_validation(
        parts.validation,
        status_enabled,
        opts,
        &path.child(parts.schema_field),
    );
    errs.extend(printer_columns::validate_subresources(
        parts.subresources,
        &path.child("subresources"),
    ));
    for (i, col) in parts.columns.iter().enumerate() {
        errs.extend(printer_columns::validate_column(
            col,
            &path.child("additionalPrinterColumns").index(i),
        ));
    }
    if !parts.selectable.is_empty() {
        match parts.validation.and_then(|v| v.open_api_v3_schema.as_ref()) {
            None => errs.push(FieldError::invalid(
                path.child("selectableFields"),
                BadValue::Str(String::new()),
                parts.no_schema,
            )),
            Some(s) => errs.extend(printer_columns::validate_selectable_fields(
                parts.selectable,
                s,
                &path.child("selectableFields"),
            )),
        }
    }
    errs
}

#[cfg(test)]
mod tests {
    use crate::check::{CheckOptions, validate_crd};
    use crate::load::load_crds;

    const CRONTAB: &str = include_str!("../../tests/data/crontab-full.yaml");

    #[test]
    fn versions_served_storage_and_names() {
        let mut crd = load_crds("c.yaml", CRONTAB).unwrap().crds.remove(0).crd;
        let mut v2 = crd.spec.versions[0].clone();
        v2.storage = false;
        crd.spec.versions.push(v2);
        crd.spec.versions.iter_mut().for_each(|v| v.served = false);
        crd.spec.names.short_names = Some(vec!["Bad".into()]);
        let got = validate_crd(&crd, &CheckOptions::v1_create()).strings();
        assert!(
            got.contains(
                &r#"spec.versions: Invalid value: ["v1","v1"]: must contain unique version names"#
                    .to_string()
            ),
            "{got:?}"
        );
        assert!(got.contains(&r#"spec.versions: Invalid value: ["v1","v1"]: must have at least one version marked as served"#.to_string()), "{got:?}");
        assert!(
            got.iter().any(|e| e.starts_with(
                r#"spec.names.shortNames[0]: Invalid value: "Bad": a DNS-1035 label"#
            )),
            "{got:?}"
        );
        // Upstream does not require a served version.
        let server = validate_crd(&crd, &CheckOptions::api_server_create()).strings();
        assert!(!server.iter().any(|e| e.contains("served")), "{server:?}");
    }
}
