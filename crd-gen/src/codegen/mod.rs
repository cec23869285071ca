//! CRD → Rust code generation.
//!
//! Pipeline per CRD version: [`lower`] builds a type space ([`ir`]) from the
//! `openAPIV3Schema`, named by the one naming policy ([`naming`]); [`emit`] and
//! [`resource`] turn it into Rust items with crd-derive attributes ([`keywords`],
//! [`json`], [`docs`]); [`format`](mod@format) prints them with prettyplease under an
//! `// @generated` header. Every step iterates in schema order (properties are sorted
//! maps), so the same input gives byte-identical output. Modules printed at once take
//! their doc comments and most-repeated attributes as placeholders that [`leads`]
//! replaces with prettyplease's own text for them after printing (the same bytes,
//! without a syntax tree per doc line).
//!
//! Items are `syn` syntax trees built directly ([`ast`]): struct, enum, field, type
//! and module skeletons, and doc attributes. The contents of every other attribute
//! (`#[crd(...)]`, `#[serde(...)]`, `#[derive(...)]`) are `quote!` tokens, which syn
//! keeps unparsed in `Meta::List`. So no generated text is ever parsed back, and
//! identifiers and string literals are still built by proc-macro2's constructors:
//! CRD text cannot inject code. Building the skeletons directly instead of quoting and
//! re-parsing the whole file made `generate` 1.34× faster on the corpus
//! (BENCHMARKS.md `## generate`); the output is byte-identical.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use crd_runtime::__private::depth::schema::{schema_depth, with_schema_stack};
use crd_runtime::CustomResourceDefinition;
use crd_runtime::check::{validate_identity, validate_property_types};
use crd_runtime::field::{ErrorList, Path};
use proc_macro2::TokenStream;
use quote::quote;

use leads::Leads;

mod ast;
mod case;
mod derives;
mod docs;
mod emit;
pub(crate) mod format;
mod ir;
mod json;
pub(crate) mod k8s;
mod keywords;
mod leads;
mod lower;
pub(crate) mod naming;
mod paths;
mod resource;

/// An identifier token for a name chosen by the naming policy (raw when needed).
pub(crate) fn emit_ident(name: &str) -> proc_macro2::Ident {
    emit::ident(name)
}

/// The map type for `additionalProperties`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MapType {
    /// `std::collections::BTreeMap` (deterministic order; the default).
    #[default]
    BTreeMap,
    /// `std::collections::HashMap`.
    HashMap,
}

/// Generator settings (the [`crate::Config`] builder and the CLI fill these in).
#[derive(Clone, Debug)]
pub struct Options {
    /// Only these versions (all when empty).
    pub versions: BTreeSet<String>,
    /// Only these kinds (all when empty).
    pub kinds: BTreeSet<String>,
    /// Extra derives for every generated type (paths such as `Default`, `Eq`); std
    /// derives go only where the fields allow them (see `derives.rs`).
    pub extra_derives: Vec<String>,
    /// Map type for `additionalProperties`.
    pub map_type: MapType,
    /// Descriptions as doc comments (otherwise as `description = "..."` keywords).
    pub docs: bool,
    /// Share identical definitions.
    pub dedup: bool,
    /// Path of the runtime crate (`::crd_runtime`), as Rust source. Text rather
    /// than tokens so that options can be shared by the generator's threads.
    pub runtime: String,
    /// Reuse k8s-openapi types where a node is one (`--k8s-types`), with the schemas
    /// of this Kubernetes version.
    pub k8s_types: Option<&'static k8s::K8sTypes>,
}

impl Options {
    /// [`Options::runtime`] as tokens (`::crd_runtime` when it does not parse).
    pub fn runtime_tokens(&self) -> TokenStream {
        self.runtime
            .parse()
            .unwrap_or_else(|_| quote!(::crd_runtime))
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            versions: BTreeSet::new(),
            kinds: BTreeSet::new(),
            extra_derives: Vec::new(),
            map_type: MapType::BTreeMap,
            docs: true,
            dedup: true,
            runtime: "::crd_runtime".to_string(),
            k8s_types: None,
        }
    }
}

/// Why a CRD could not be turned into Rust.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GenError {
    /// A schema the generator cannot represent.
    Schema {
        /// `metadata.name` of the CRD.
        crd: String,
        /// Field path inside the CRD.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// The CRD breaks API-server rules the generated code relies on: its names, or
    /// a `type` that is no OpenAPI type. No cluster accepts such a CRD, and crd-derive
    /// would refuse the generated attributes.
    Invalid {
        /// `metadata.name` of the CRD.
        crd: String,
        /// Every violation, as the API server words it (`field: Type: detail`).
        errors: Vec<String>,
    },
    /// The generated tokens did not parse as Rust (a generator bug).
    Format {
        /// `metadata.name` of the CRD.
        crd: String,
        /// The parser's message.
        message: String,
    },
}

impl fmt::Display for GenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenError::Schema { crd, path, message } => write!(f, "{crd}: {path}: {message}"),
            GenError::Invalid { crd, errors } => {
                for (i, e) in errors.iter().enumerate() {
                    let sep = if i == 0 { "" } else { "\n" };
                    write!(f, "{sep}{crd}: {e}")?;
                }
                Ok(())
            }
            GenError::Format { crd, message } => {
                write!(f, "{crd}: generated code does not parse: {message}")
            }
        }
    }
}

impl std::error::Error for GenError {}

impl GenError {
    /// `metadata.name` of the CRD that could not be generated.
    pub fn crd(&self) -> &str {
        match self {
            GenError::Schema { crd, .. }
            | GenError::Invalid { crd, .. }
            | GenError::Format { crd, .. } => crd,
        }
    }
}

/// The Rust code generated for one CRD.
#[derive(Clone, Debug)]
pub struct GeneratedCrd {
    /// `metadata.name` of the CRD.
    pub crd_name: String,
    /// The module (and file stem) name, unique within one generation run.
    pub module: String,
    /// `spec.names.kind`.
    pub kind: String,
    /// One entry per generated version, in CRD order.
    pub versions: Vec<GeneratedVersion>,
}

/// The items of one version module.
#[derive(Clone)]
pub struct GeneratedVersion {
    /// The version name (`v1beta1`).
    pub name: String,
    /// Its module identifier (`v1beta1`).
    pub module: String,
    /// The module's items, as syntax trees (built directly, not parsed).
    pub items: Vec<syn::Item>,
}

impl fmt::Debug for GeneratedVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GeneratedVersion")
            .field("name", &self.name)
            .field("module", &self.module)
            .field("items", &self.items.len())
            .finish()
    }
}

impl GeneratedCrd {
    /// The CRD's module file: a `pub mod <version>` per version, formatted, with the
    /// `// @generated` header.
    pub fn to_file(&self) -> Result<String, GenError> {
        self.clone().into_file()
    }

    /// [`GeneratedCrd::to_file`] without copying the syntax trees.
    pub fn into_file(self) -> Result<String, GenError> {
        let crd_name = self.crd_name;
        let mods = self
            .versions
            .into_iter()
            .map(|v| version_mod(&v.module, v.items, &v.name, &crd_name))
            .collect();
        Ok(format::header(&crd_name) + &format::unparse(mods))
    }
}

/// Lints the generated module may trip on CRD text, allowed as narrowly as possible:
/// descriptions are Markdown written for `kubectl explain`, not rustdoc (lazy
/// continuations, over-indented lists, tabs); and
/// `duplicated_attributes` keys nested attribute lists by their path, so two
/// `property(name = "apiVersion", type = "string")`, `property(name = "kind",
/// type = "string")` groups in one `#[crd(...)]` look like a repeated `type` to it.
fn version_mod(module: &str, items: Vec<syn::Item>, version: &str, crd_name: &str) -> syn::Item {
    let doc = format!(" Version `{version}` of the CRD `{crd_name}`.");
    let allow = quote!(
        clippy::doc_lazy_continuation,
        clippy::doc_overindented_list_items,
        clippy::tabs_in_doc_comments,
        clippy::duplicated_attributes
    );
    module_item(
        vec![ast::doc(&doc), ast::list("allow", allow)],
        module,
        items,
    )
}

/// `attrs pub mod name { items }`.
fn module_item(attrs: Vec<syn::Attribute>, name: &str, items: Vec<syn::Item>) -> syn::Item {
    syn::Item::Mod(syn::ItemMod {
        attrs,
        vis: ast::public(),
        unsafety: None,
        mod_token: Default::default(),
        ident: emit::ident(name),
        content: Some((Default::default(), items)),
        semi: None,
    })
}

/// All CRDs in one formatted file. `flat` puts every version module at the top level
/// (`<crd>_<version>`) instead of nesting them in a module per CRD.
pub fn single_file(generated: &[GeneratedCrd], flat: bool) -> Result<String, GenError> {
    let mut items = Vec::new();
    let mut top = naming::Scope::default();
    for g in generated {
        if flat {
            for v in &g.versions {
                let name = top.claim_ident(format!("{}_{}", g.module, v.module));
                items.push(version_mod(&name, v.items.clone(), &v.name, &g.crd_name));
            }
        } else {
            items.push(crd_mod(g.clone()));
        }
    }
    let names: Vec<&str> = generated.iter().map(|g| g.crd_name.as_str()).collect();
    Ok(format::header(&single_file_label(&names)) + &format::unparse(items))
}

/// The header label of a single file: the CRD's name, or how many CRDs it holds.
fn single_file_label(names: &[&str]) -> String {
    match names {
        [one] => one.to_string(),
        _ => format!("{} CRDs", names.len()),
    }
}

/// A CRD's module in a single file (nested layout): its version modules inside
/// `pub mod <module>`.
fn crd_mod(g: GeneratedCrd) -> syn::Item {
    let crd_name = &g.crd_name;
    let mods = g
        .versions
        .into_iter()
        .map(|v| version_mod(&v.module, v.items, &v.name, crd_name))
        .collect();
    let doc = format!(" The CustomResourceDefinition `{crd_name}`.");
    module_item(vec![ast::doc(&doc)], &g.module, mods)
}

/// [`generate`] then [`single_file`] with the nested layout, on every core: each
/// CRD's module is generated and formatted by a worker, and the texts are joined
/// under one header. prettyplease prints a file's items one after another, so the
/// result is the text of formatting the whole file at once.
pub fn single_file_nested(
    crds: &[CustomResourceDefinition],
    opts: &Options,
) -> Result<String, GenError> {
    let jobs = selected_modules(crds, opts);
    let modules = crate::par::map(
        &jobs,
        |(crd, _)| schema_size(crd),
        |(crd, module)| -> Result<Option<(String, String)>, GenError> {
            let text = printed(
                crd,
                module.clone(),
                opts,
                |_, v| v.open_api_schema().cloned(),
                |g| Ok(format::unparse(vec![crd_mod(g)])),
            )?;
            Ok(text.map(|text| (crd.name().to_string(), text)))
        },
    );
    let mut names = Vec::new();
    let mut body = String::new();
    for module in modules {
        if let Some((name, text)) = module? {
            names.push(name);
            body.push_str(&text);
        }
    }
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    Ok(format::header(&single_file_label(&names)) + &body)
}

/// Generates one module per CRD (CRDs without a selected version or kind are left
/// out). Module names are unique: the lower-cased kind, plus the group when two CRDs
/// share a kind.
pub fn generate(
    crds: &[CustomResourceDefinition],
    opts: &Options,
) -> Result<Vec<GeneratedCrd>, GenError> {
    let mut out = Vec::new();
    for (crd, module) in selected_modules(crds, opts) {
        if let Some(g) = generate_crd(crd, module, opts)? {
            out.push(g);
        }
    }
    Ok(out)
}

/// One CRD's module file, generated and formatted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedFile {
    /// `metadata.name` of the CRD.
    pub crd_name: String,
    /// The module (and file stem) name, as in [`GeneratedCrd::module`].
    pub module: String,
    /// The formatted file ([`GeneratedCrd::to_file`]).
    pub contents: String,
}

/// [`generate`] and [`GeneratedCrd::to_file`] in one step, spread over the machine's
/// cores (CRDs are independent; tokens never cross threads, only text). Same
/// output as the sequential path, byte for byte.
pub fn generate_files(
    crds: &[CustomResourceDefinition],
    opts: &Options,
) -> Result<Vec<GeneratedFile>, GenError> {
    let jobs = selected_modules(crds, opts);
    let files = crate::par::map(
        &jobs,
        |(crd, _)| schema_size(crd),
        |(crd, _)| crd_file(crd, opts),
    );
    let mut out = Vec::new();
    for ((crd, module), contents) in jobs.into_iter().zip(files) {
        if let Some(contents) = contents? {
            out.push(GeneratedFile {
                crd_name: crd.name().to_string(),
                module,
                contents,
            });
        }
    }
    Ok(out)
}

/// The CRDs `--kind` selects, each with its unique module name ([`module_names`]).
fn selected_modules<'a>(
    crds: &'a [CustomResourceDefinition],
    opts: &Options,
) -> Vec<(&'a CustomResourceDefinition, String)> {
    let selected: Vec<&CustomResourceDefinition> =
        crds.iter().filter(|c| kind_selected(c, opts)).collect();
    let keys: Vec<ModuleKey> = selected.iter().map(|c| ModuleKey::of(c)).collect();
    selected.into_iter().zip(module_names(&keys)).collect()
}

/// Whether `--kind` selects this CRD.
pub(crate) fn kind_selected(crd: &CustomResourceDefinition, opts: &Options) -> bool {
    opts.kinds.is_empty() || opts.kinds.contains(&crd.spec.names.kind)
}

/// What a CRD's module name is made of (see [`module_names`]).
#[derive(Clone, Debug)]
pub(crate) struct ModuleKey {
    crd_name: String,
    singular: String,
    group: String,
}

impl ModuleKey {
    pub(crate) fn of(crd: &CustomResourceDefinition) -> ModuleKey {
        ModuleKey {
            crd_name: crd.name().to_string(),
            singular: crd.singular(),
            group: crd.spec.group.clone(),
        }
    }
}

/// A CRD's formatted file ([`GeneratedCrd::to_file`] of [`generate_crd`]), or `None`
/// when none of its versions is selected. The text does not depend on the module
/// name, so files can be generated before all names are known.
pub(crate) fn crd_file(
    crd: &CustomResourceDefinition,
    opts: &Options,
) -> Result<Option<String>, GenError> {
    printed(
        crd,
        String::new(),
        opts,
        |_, v| v.open_api_schema().cloned(),
        GeneratedCrd::into_file,
    )
}

/// [`crd_file`] for a CRD the caller no longer needs (see [`generate_crd_owned`]).
pub(crate) fn crd_file_owned(
    crd: CustomResourceDefinition,
    opts: &Options,
) -> Result<Option<String>, GenError> {
    let (crd, mut schemas) = take_schemas(crd);
    printed(
        &crd,
        String::new(),
        opts,
        |i, _| schemas[i].take(),
        GeneratedCrd::into_file,
    )
}

/// Generates `crd` (see [`generate_versions`]) with deferred leading attributes,
/// prints it with `print`, and writes the attributes into the text ([`Leads`]).
fn printed(
    crd: &CustomResourceDefinition,
    module: String,
    opts: &Options,
    schema_of: impl FnMut(
        usize,
        &crd_runtime::model::CustomResourceDefinitionVersion,
    ) -> Option<crd_runtime::JSONSchemaProps>,
    print: impl FnOnce(GeneratedCrd) -> Result<String, GenError>,
) -> Result<Option<String>, GenError> {
    let leads = Leads::deferred();
    let Some(generated) = generate_versions(crd, module, opts, &leads, schema_of)? else {
        return Ok(None);
    };
    let text = print(generated)?;
    leads
        .splice(text)
        .map(Some)
        .map_err(|message| GenError::Format {
            crd: crd.name().to_string(),
            message,
        })
}

/// Pairs generated contents with their unique module names (computed over every
/// selected CRD, generated or not, like [`generate`]); the first error in CRD order
/// wins.
pub(crate) fn name_files(
    keys: &[ModuleKey],
    contents: Vec<Result<Option<String>, GenError>>,
) -> Result<Vec<GeneratedFile>, GenError> {
    let mut out = Vec::new();
    for ((key, module), contents) in keys.iter().zip(module_names(keys)).zip(contents) {
        if let Some(contents) = contents? {
            out.push(GeneratedFile {
                crd_name: key.crd_name.clone(),
                module,
                contents,
            });
        }
    }
    Ok(out)
}

/// A cheap estimate of a CRD's generation cost: the number of schema nodes.
fn schema_size(crd: &CustomResourceDefinition) -> usize {
    fn nodes(s: &crd_runtime::JSONSchemaProps) -> usize {
        use crd_runtime::model::{JSONSchemaPropsOrArray, JSONSchemaPropsOrBool};
        let props: usize = s.properties.iter().flatten().map(|(_, p)| nodes(p)).sum();
        let items = match s.items.as_deref() {
            Some(JSONSchemaPropsOrArray::Schema(i)) => nodes(i),
            _ => 0,
        };
        let values = match s.additional_properties.as_deref() {
            Some(JSONSchemaPropsOrBool::Schema(v)) => nodes(v),
            _ => 0,
        };
        1 + props + items + values
    }
    crd.spec
        .versions
        .iter()
        .filter_map(|v| v.open_api_schema())
        .map(nodes)
        .sum()
}

/// Generates the module for one CRD under the module name `module`; `None` when no
/// version is selected.
pub fn generate_crd(
    crd: &CustomResourceDefinition,
    module: String,
    opts: &Options,
) -> Result<Option<GeneratedCrd>, GenError> {
    generate_versions(crd, module, opts, &Leads::Inline, |_, v| {
        v.open_api_schema().cloned()
    })
}

/// [`generate_crd`] for a CRD the caller no longer needs: the version schemas are
/// moved into the generator instead of copied (the largest corpus schemas have ten
/// thousand nodes).
pub fn generate_crd_owned(
    crd: CustomResourceDefinition,
    module: String,
    opts: &Options,
) -> Result<Option<GeneratedCrd>, GenError> {
    let (crd, mut schemas) = take_schemas(crd);
    generate_versions(&crd, module, opts, &Leads::Inline, |i, _| schemas[i].take())
}

/// The CRD without its version schemas, and the schemas by version index.
fn take_schemas(
    mut crd: CustomResourceDefinition,
) -> (
    CustomResourceDefinition,
    Vec<Option<crd_runtime::JSONSchemaProps>>,
) {
    let schemas = crd
        .spec
        .versions
        .iter_mut()
        .map(|v| v.schema.as_mut().and_then(|s| s.open_api_v3_schema.take()))
        .collect();
    (crd, schemas)
}

/// The version loop of [`generate_crd`]: `schema_of(index, version)` gives a
/// selected version's `openAPIV3Schema`; leading attributes go to `leads`.
/// Deepest schema `generate` writes types for: one Rust type per level, each named
/// after its parents, is no use past this.
pub const MAX_GENERATED_DEPTH: usize = 256;

fn generate_versions(
    crd: &CustomResourceDefinition,
    module: String,
    opts: &Options,
    leads: &Leads,
    mut schema_of: impl FnMut(
        usize,
        &crd_runtime::model::CustomResourceDefinitionVersion,
    ) -> Option<crd_runtime::JSONSchemaProps>,
) -> Result<Option<GeneratedCrd>, GenError> {
    let invalid = |errors: ErrorList| GenError::Invalid {
        crd: crd.name().to_string(),
        errors: errors.strings(),
    };
    let identity = validate_identity(crd);
    if !identity.is_empty() {
        return Err(invalid(identity));
    }
    let mut versions = Vec::new();
    let mut version_scope = naming::Scope::default();
    for (i, v) in crd.spec.versions.iter().enumerate() {
        if !opts.versions.is_empty() && !opts.versions.contains(&v.name) {
            continue;
        }
        let schema_path = format!("spec.versions[{i}].schema.openAPIV3Schema");
        let root = schema_of(i, v).ok_or_else(|| GenError::Schema {
            crd: crd.name().to_string(),
            path: schema_path.clone(),
            message: "Required value: the version has no schema to generate types from".into(),
        })?;
        let depth = schema_depth(&root, MAX_GENERATED_DEPTH);
        if depth > MAX_GENERATED_DEPTH {
            // The walks below recurse per level; so does this drop.
            with_schema_stack(depth, move || drop(root));
            return Err(GenError::Schema {
                crd: crd.name().to_string(),
                path: schema_path,
                message: format!(
                    "nests deeper than {MAX_GENERATED_DEPTH} levels: crd-gen generate writes \
                     types for at most {MAX_GENERATED_DEPTH} (a crd-gen limit; the API server and \
                     crd-gen check/validate accept schemas as deep as the CRD's JSON holds)"
                ),
            });
        }
        let types = validate_property_types(&root, &Path::new(&schema_path));
        if !types.is_empty() {
            return Err(invalid(types));
        }
        let items = resource::version_module(crd, v, root, opts, leads)?;
        let module = version_scope.claim_ident(naming::snake_ident(&v.name, "version"));
        versions.push(GeneratedVersion {
            name: v.name.clone(),
            module,
            items,
        });
    }
    if versions.is_empty() {
        return Ok(None);
    }
    Ok(Some(GeneratedCrd {
        crd_name: crd.name().to_string(),
        module,
        kind: crd.spec.names.kind.clone(),
        versions,
    }))
}

/// Unique module names: the singular (lower-cased kind) in snake case; CRDs that
/// share it get their group appended, and any remaining clash a numeric suffix.
fn module_names(crds: &[ModuleKey]) -> Vec<String> {
    let base: Vec<String> = crds
        .iter()
        .map(|c| naming::snake_ident(&c.singular, "crd"))
        .collect();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for b in &base {
        *counts.entry(b).or_default() += 1;
    }
    let mut scope = naming::Scope::with_reserved(&["mod", "lib", "main"]);
    crds.iter()
        .zip(&base)
        .map(|(c, b)| {
            let name = if counts[b.as_str()] > 1 {
                naming::snake_ident(&format!("{b}_{}", c.group), "crd")
            } else {
                b.clone()
            };
            scope.claim_ident(name)
        })
        .collect()
}

#[cfg(test)]
mod tests;
