//! One CRD version → a module: the spec struct with `#[derive(CustomResource)]` and
//! every resource-level attribute (ATTRIBUTES.md §§ 1–2), then the nested types.

use crd_runtime::JSONSchemaProps;
use crd_runtime::model::{
    CustomResourceColumnDefinition, CustomResourceDefinition, CustomResourceDefinitionVersion,
};
use proc_macro2::TokenStream;
use quote::quote;

use super::derives;
use super::emit::{Emitter, implied_def};
use super::ir::TyKind;
use super::keywords::{Implied, Skip, fragment, node_keywords};
use super::leads::Leads;
use super::lower::{LowerOptions, Lowerer};
use super::naming;
use super::paths::{Import, Paths};
use super::{GenError, Options};

/// Properties of the root node that are not `spec`/`status` fields.
const TYPE_META: [&str; 3] = ["apiVersion", "kind", "metadata"];

/// Properties of a schema node (`properties`).
type Properties = std::collections::BTreeMap<String, Box<JSONSchemaProps>>;

/// The items of one version module. `root` is the version's `openAPIV3Schema`,
/// taken by value: its `spec` and `status` subtrees move into the type space and
/// the rest becomes `root(...)`, so no subtree is copied.
pub fn version_module(
    crd: &CustomResourceDefinition,
    version: &CustomResourceDefinitionVersion,
    root: JSONSchemaProps,
    opts: &Options,
    leads: &Leads,
) -> Result<Vec<syn::Item>, GenError> {
    let mut root = root;
    let mut props = root.properties.take().unwrap_or_default();
    // Printer columns look at the declared fields, spec and status included.
    let mut attrs = resource_attrs(crd, version, &props);
    let has_spec = props.contains_key("spec");
    let spec_node = props.remove("spec");
    let status_node = props.remove("status");

    let kind = &crd.spec.names.kind;
    let root_name = naming::type_name(&[kind]);
    let mut lower = Lowerer::new(
        LowerOptions {
            dedup: opts.dedup,
            k8s_types: opts.k8s_types,
        },
        &[root_name.as_str(), &format!("{root_name}List")],
    );

    let spec_name = lower.reserve(&format!("{root_name}Spec"));
    let spec_node = spec_node.unwrap_or_else(|| {
        Box::new(JSONSchemaProps {
            type_: Some("object".into()),
            ..Default::default()
        })
    });
    let spec_id = lower.lower_spec(spec_node, &spec_name);

    let status_name = lower.reserve(&format!("{root_name}Status"));
    // A list or map status may need its whole schema as a fragment (see below).
    let status_fragment = status_node
        .as_deref()
        .filter(|n| n.type_str() == "array" || n.additional_properties_schema().is_some())
        .map(super::keywords::fragment);
    let status = status_node.map(|node| lower.lower_named(node, &status_name));
    let space = lower.finish();
    // The derive defines the root and list types in the module too.
    let list_name = format!("{root_name}List");
    let defined = space.defs.iter().map(|d| d.name.as_str()).chain([
        root_name.as_str(),
        list_name.as_str(),
        status_name.as_str(),
    ]);
    let emitter = Emitter::new(
        &space,
        opts,
        Paths::new(defined, opts.runtime_tokens()),
        leads,
    );

    let mut status_schema = Vec::new();
    let mut status_alias = TokenStream::new();
    if let Some(status) = &status {
        if let TyKind::Named(id) = status.kind {
            let name = super::emit::ident(&space.get(id).name);
            attrs.push(quote!(status = #name));
        } else {
            // `status = ...` takes a type path: name the status type with an alias.
            let name = super::emit::ident(&status_name);
            let ty = emitter.ty(status);
            status_alias = quote! {
                /// The status of the resource.
                pub type #name = #ty;
            };
            attrs.push(quote!(status = #name));
            status_schema = match (emitter.node_keywords_typeless(status), status_fragment) {
                (Some(kws), _) => kws,
                // Items or values with keywords of their own: the schema as written.
                (None, Some(fragment)) => vec![quote!(schema = #fragment)],
                (None, None) => emitter.node_keywords_deep(status, false),
            };
        }
        if !version.has_status_subresource() {
            attrs.push(quote!(status_subresource = false));
        }
    } else if version.has_status_subresource() {
        attrs.push(quote!(status_subresource = true));
    }
    if !status_schema.is_empty() {
        attrs.push(quote!(status_schema(#(#status_schema),*)));
    }
    let spec_def = space.get(spec_id);
    let spec_kws = node_keywords(&spec_def.residual, implied_def(spec_def), Skip::default());
    if !spec_kws.is_empty() {
        attrs.push(quote!(spec_schema(#(#spec_kws),*)));
    }
    if root_name != *kind {
        let root_ident = super::emit::ident(&root_name);
        attrs.push(quote!(root_type = #root_ident));
    }
    let spec_has_required = match &spec_def.kind {
        super::ir::DefKind::Struct { fields, .. } => {
            fields.iter().any(|f| f.required) || spec_def.residual.required.is_some()
        }
        super::ir::DefKind::StringEnum { .. } | super::ir::DefKind::Newtype { .. } => false,
    };
    let (root_docs, root_kws) = root_keywords(
        root,
        RootProperties {
            has_spec,
            others: &props,
        },
        &emitter,
        spec_has_required,
    );
    if !root_kws.is_empty() {
        attrs.push(quote!(root(#(#root_kws),*)));
    }
    // The root holds the spec, an optional status and `ObjectMeta`.
    let root_traits = emitter.traits(spec_id).and(derives::OBJECT_META);
    let root_derives: Vec<TokenStream> = emitter.extra_derives(root_traits).collect();
    if !root_derives.is_empty() {
        attrs.push(quote!(derive = [#(#root_derives),*]));
    }

    let spec = emitter.def(
        spec_id,
        Some(super::emit::Resource {
            derive: emitter.paths.import(Import::CustomResource),
            attr: quote!(#(#attrs),*),
            docs: root_docs,
        }),
    );
    let rest = emitter.defs(&[spec_id.0]);
    // `use` lines and the status alias are small: parsed one by one.
    let format_error = |e: syn::Error| GenError::Format {
        crd: crd.name().to_string(),
        message: e.to_string(),
    };
    let uses: syn::File = syn::parse2(emitter.paths.uses()).map_err(format_error)?;
    let mut items = uses.items;
    items.push(spec);
    if !status_alias.is_empty() {
        items.push(syn::parse2(status_alias).map_err(format_error)?);
    }
    items.extend(rest);
    Ok(items)
}

/// The root's properties other than `spec` and `status`, and whether it had `spec`.
struct RootProperties<'a> {
    has_spec: bool,
    others: &'a Properties,
}

/// `root(...)`: the root node's own keywords, `required` exactly as written, and the
/// `apiVersion`/`kind`/`metadata` and other non-spec/status property schemas.
/// `residual` is the root without its `properties`.
fn root_keywords(
    mut residual: JSONSchemaProps,
    properties: RootProperties<'_>,
    emitter: &Emitter<'_>,
    spec_has_required: bool,
) -> (Vec<syn::Attribute>, Vec<TokenStream>) {
    let required = residual.required.take().unwrap_or_default();
    let (docs, documented) = emitter.lead(residual.description.as_deref(), None);
    let mut kws = node_keywords(
        &residual,
        Implied {
            type_: Some("object"),
            ..Implied::default()
        },
        Skip {
            description: documented,
        },
    );
    // crd-derive lists `spec` exactly when the spec has required properties.
    let mut wanted = required.clone();
    wanted.sort();
    wanted.dedup();
    let computed: Vec<String> = if spec_has_required {
        vec!["spec".into()]
    } else {
        Vec::new()
    };
    if wanted != computed {
        kws.push(quote!(required = [#(#required),*]));
    }
    if !properties.has_spec {
        kws.push(quote!(omit_spec));
    }
    for (name, node) in properties.others {
        let inner = if TYPE_META.contains(&name.as_str()) && node.properties.is_none() {
            node_keywords(node, Implied::default(), Skip::default())
        } else {
            let schema = fragment(node);
            vec![quote!(schema = #schema)]
        };
        kws.push(quote!(property(name = #name #(, #inner)*)));
    }
    (docs, kws)
}

/// Names, scope, version flags, subresources, printer columns, conversion, labels.
fn resource_attrs(
    crd: &CustomResourceDefinition,
    version: &CustomResourceDefinitionVersion,
    properties: &Properties,
) -> Vec<TokenStream> {
    let spec = &crd.spec;
    let names = &spec.names;
    let (group, vname, kind, plural) = (&spec.group, &version.name, &names.kind, &names.plural);
    let mut a = vec![
        quote!(group = #group),
        quote!(version = #vname),
        quote!(kind = #kind),
        quote!(plural = #plural),
    ];
    if let Some(s) = &names.singular {
        a.push(quote!(singular = #s));
    }
    if let Some(l) = &names.list_kind
        && *l != format!("{kind}List")
    {
        a.push(quote!(list_kind = #l));
    }
    if let Some(s) = &names.short_names {
        a.push(quote!(short_names = [#(#s),*]));
    }
    if let Some(c) = &names.categories {
        a.push(quote!(categories = [#(#c),*]));
    }
    if spec.scope == "Namespaced" {
        a.push(quote!(namespaced));
    }
    if !version.served {
        a.push(quote!(served = false));
    }
    if !version.storage {
        a.push(quote!(storage = false));
    }
    if let Some(d) = version.deprecated {
        a.push(quote!(deprecated = #d));
    }
    if let Some(w) = &version.deprecation_warning {
        a.push(quote!(deprecation_warning = #w));
    }
    if let Some(scale) = version.subresources.as_ref().and_then(|s| s.scale.as_ref()) {
        let (s, st) = (&scale.spec_replicas_path, &scale.status_replicas_path);
        let label = scale
            .label_selector_path
            .as_ref()
            .map(|l| quote!(, label_selector_path = #l));
        a.push(quote!(scale(spec_replicas_path = #s, status_replicas_path = #st #label)));
    }
    for col in version.additional_printer_columns.iter().flatten() {
        a.push(printcolumn(col, properties));
    }
    for f in version.selectable_fields.iter().flatten() {
        let p = &f.json_path;
        a.push(quote!(selectable_field = #p));
    }
    for (k, v) in crd.metadata.labels.iter().flatten() {
        a.push(quote!(label(#k, #v)));
    }
    for (k, v) in crd.metadata.annotations.iter().flatten() {
        a.push(quote!(annotation(#k, #v)));
    }
    if let Some(c) = &spec.conversion {
        let strategy = &c.strategy;
        let mut parts = vec![quote!(strategy = #strategy)];
        if let Some(w) = &c.webhook {
            let rv = &w.conversion_review_versions;
            parts.push(quote!(review_versions = [#(#rv),*]));
            if let Some(cc) = &w.client_config {
                if let Some(u) = &cc.url {
                    parts.push(quote!(url = #u));
                }
                if let Some(s) = &cc.service {
                    let (ns, n) = (&s.namespace, &s.name);
                    parts.push(quote!(service_namespace = #ns, service_name = #n));
                    if let Some(p) = &s.path {
                        parts.push(quote!(service_path = #p));
                    }
                    if let Some(p) = s.port {
                        let p = proc_macro2::Literal::i64_unsuffixed(i64::from(p));
                        parts.push(quote!(service_port = #p));
                    }
                }
                if let Some(ca) = &cc.ca_bundle {
                    parts.push(quote!(ca_bundle = #ca));
                }
            }
        }
        a.push(quote!(conversion(#(#parts),*)));
    }
    if let Some(p) = spec.preserve_unknown_fields {
        a.push(quote!(preserve_unknown_fields_legacy = #p));
    }
    a
}

fn printcolumn(col: &CustomResourceColumnDefinition, properties: &Properties) -> TokenStream {
    let (name, ty, path) = (&col.name, &col.type_, &col.json_path);
    let mut parts = vec![
        quote!(name = #name),
        quote!(type = #ty),
        quote!(json_path = #path),
    ];
    // The derive checks that a column names a field; the API server does not, and
    // some real CRDs keep columns for fields they dropped (velero PodVolumeBackup).
    if !path_names_a_field(properties, path) {
        parts.push(quote!(unchecked_path));
    }
    if let Some(d) = &col.description {
        parts.push(quote!(description = #d));
    }
    if let Some(f) = &col.format {
        parts.push(quote!(format = #f));
    }
    if let Some(p) = col.priority {
        let p = proc_macro2::Literal::i64_unsuffixed(i64::from(p));
        parts.push(quote!(priority = #p));
    }
    quote!(printcolumn(#(#parts),*))
}

/// Whether the first two segments of a column's JSONPath (`.status.phase`,
/// `.metadata.creationTimestamp`) name properties the derive can see; `properties`
/// are the root's.
fn path_names_a_field(properties: &Properties, path: &str) -> bool {
    let mut segments = path
        .strip_prefix('.')
        .unwrap_or(path)
        .split(['.', '['])
        .take(2);
    let (Some(first), second) = (segments.next(), segments.next()) else {
        return false;
    };
    // Every object has metadata, whether or not the schema declares it.
    if first == "metadata" {
        return second.is_none_or(|f| crd_runtime::meta::OBJECT_META_FIELDS.contains(&f));
    }
    let Some(node) = properties.get(first) else {
        return false;
    };
    match second {
        None => true,
        Some(f) => node.properties.as_ref().is_some_and(|p| p.contains_key(f)),
    }
}

#[cfg(test)]
mod path_tests {
    use super::path_names_a_field;
    use crd_runtime::JSONSchemaProps;

    fn root() -> super::Properties {
        let root: JSONSchemaProps = serde_json::from_value(serde_json::json!({
            "type": "object",
            "properties": {
                "spec": {"type": "object", "properties": {"replicas": {"type": "integer"}}},
                "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
            }
        }))
        .unwrap();
        root.properties.unwrap()
    }

    #[test]
    fn columns_pointing_at_declared_fields_are_checked() {
        let r = root();
        assert!(path_names_a_field(&r, ".spec.replicas"));
        assert!(path_names_a_field(&r, ".metadata.creationTimestamp"));
        assert!(path_names_a_field(&r, ".spec"));
    }

    #[test]
    fn columns_pointing_at_undeclared_fields_are_unchecked() {
        let r = root();
        assert!(!path_names_a_field(&r, ".spec.gone"));
        assert!(!path_names_a_field(&r, ".metadata.nope"));
        assert!(!path_names_a_field(&r, ".status.conditions[0].type"));
        assert!(!path_names_a_field(&r, ".other.x"));
    }
}
