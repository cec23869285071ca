//! Schema → type space: decides the Rust shape of every schema node.
//!
//! Lowering is independent of how attributes are spelled: it only removes from each
//! node's residual schema the keywords its shape consumes structurally
//! (`properties`, declared `required` names, typed `items`/`additionalProperties`,
//! the `enum` of a Rust enum). Everything else (`type`, `format`, extensions,
//! validations, descriptions) stays in the residual; emission knows which of those
//! the derive already implies for a Rust type.
//!
//! Identical definitions are shared (hash-consing, bottom-up): two nodes share a type
//! only when their residual schema and their fields are equal, descriptions
//! included, so sharing never changes the schema the types describe.

use std::hash::{BuildHasher, Hash, Hasher};

use foldhash::HashMap;

use crd_runtime::JSONSchemaProps;
use crd_runtime::model::{JSONSchemaPropsOrArray, JSONSchemaPropsOrBool};
use serde_json::Value;

use super::ir::{DefKind, Field, Ty, TyKind, TypeDef, TypeId, TypeSpace, Variant};
use super::k8s::K8sTypes;
use super::naming::{self, Scope};

/// Lowering settings.
#[derive(Clone, Copy, Debug)]
pub struct LowerOptions {
    /// Share identical definitions.
    pub dedup: bool,
    /// Reuse k8s-openapi types for nested nodes that are one.
    pub k8s_types: Option<&'static K8sTypes>,
}

/// Builds the type space of one schema.
pub struct Lowerer {
    opts: LowerOptions,
    space: TypeSpace,
    types: Scope,
    namer: naming::TypeNamer,
    /// Field names by JSON name: the same property names recur all over a schema.
    field_names: HashMap<String, naming::RustName>,
    /// Shared definitions by [`shape_hash`]; candidates are compared in full.
    shapes: HashMap<u64, Vec<TypeId>>,
    /// Seeds [`shape_hash`] (randomly, like the maps).
    shape_state: foldhash::fast::RandomState,
    seq: usize,
}

/// The name of the flattened field that keeps undeclared properties.
const CATCH_ALL: &str = "additional_properties";

impl Lowerer {
    /// A lowerer whose type names avoid `reserved` (names the derive or the module
    /// already uses).
    pub fn new(opts: LowerOptions, reserved: &[&str]) -> Lowerer {
        Lowerer {
            opts,
            space: TypeSpace::default(),
            types: Scope::for_types(reserved),
            namer: naming::TypeNamer::default(),
            field_names: HashMap::default(),
            shapes: HashMap::default(),
            shape_state: foldhash::fast::RandomState::default(),
            seq: 0,
        }
    }

    /// Claims a type name up front (root types get their names before any nested
    /// type can take them).
    pub fn reserve(&mut self, name: &str) -> String {
        self.types.claim_ident(name.to_string())
    }

    /// The finished type space.
    pub fn finish(self) -> TypeSpace {
        self.space
    }

    /// Lowers a node whose type name is already claimed as `name` (roots).
    pub fn lower_named(&mut self, node: Box<JSONSchemaProps>, name: &str) -> Ty {
        self.lower_node(node, NameHint::Claimed(name))
    }

    /// Lowers the `spec` node: always a struct (the derive needs one), never shared
    /// with an identical nested node (its keywords go to `spec_schema(...)`). A spec
    /// that is a list or a scalar becomes a newtype around it, so it can hold its data.
    pub fn lower_spec(&mut self, node: Box<JSONSchemaProps>, name: &str) -> TypeId {
        let scalar_or_list = node.is_int_or_string()
            || matches!(
                node.type_str(),
                "array" | "string" | "integer" | "number" | "boolean"
            );
        if scalar_or_list {
            let seq = self.next_seq();
            let inner = self.lower_node(node, NameHint::Child(name, "value"));
            let id = TypeId(self.space.defs.len());
            self.space.defs.push(TypeDef {
                name: name.to_string(),
                residual: Box::default(),
                kind: DefKind::Newtype { inner },
                seq,
            });
            return id;
        }
        let ty = self.lower_struct(node, NameHint::Claimed(name), false);
        match ty.kind {
            TyKind::Named(id) => id,
            _ => unreachable!("lower_struct always returns a named type"),
        }
    }

    /// Lowers a node, naming any definition it needs after `hint`. The node is taken
    /// by value: what its shape consumes is moved out of it, and the rest is the
    /// residual, so no subtree is ever copied (the largest corpus schemas have
    /// ten thousand nodes, eighteen levels deep).
    fn lower_node(&mut self, mut node: Box<JSONSchemaProps>, hint: NameHint<'_>) -> Ty {
        let has_props = node.properties.as_ref().is_some_and(|p| !p.is_empty());

        if node.is_int_or_string() {
            return Ty {
                kind: TyKind::IntOrString,
                residual: node,
            };
        }
        let ty = node.type_str();
        if has_props && (ty == "object" || ty.is_empty()) {
            // Roots stay generated structs: the derive needs them.
            let property = match hint {
                NameHint::Child(_, property) => Some(property),
                NameHint::Claimed(_) => None,
            };
            let k8s = self.opts.k8s_types.filter(|_| property.is_some());
            if let Some(found) = k8s.and_then(|k| k.find(&node, property)) {
                let residual = JSONSchemaProps {
                    description: node.description.take(),
                    ..Default::default()
                };
                return Ty {
                    kind: TyKind::K8s(Box::new(found)),
                    residual: Box::new(residual),
                };
            }
            return self.lower_struct(node, hint, true);
        }
        if let Some(values) = string_enum(&node) {
            node.enum_ = None;
            return self.lower_enum(values, node, hint);
        }
        let kind = match node.type_str() {
            "boolean" => TyKind::Bool,
            "string" => TyKind::String,
            "number" => TyKind::F64,
            "integer" => match node.format.as_deref() {
                Some("int32") => TyKind::I32,
                _ => TyKind::I64,
            },
            "array" => match node.items.take().map(|items| *items) {
                Some(JSONSchemaPropsOrArray::Schema(items)) => {
                    let item = self.lower_node(Box::new(items), hint.inner("item"));
                    TyKind::Vec(Box::new(item))
                }
                None => TyKind::Vec(Box::new(Ty::bare(TyKind::AbsentItems))),
                // The tuple form: any values, items kept verbatim.
                tuple => {
                    node.items = tuple.map(Box::new);
                    TyKind::Vec(Box::new(Ty::bare(TyKind::Json)))
                }
            },
            "object" if node.is_embedded_resource() => TyKind::Embedded,
            "object" => match node.additional_properties.take().map(|ap| *ap) {
                Some(JSONSchemaPropsOrBool::Schema(values)) => {
                    let value = self.lower_node(Box::new(values), hint.inner("value"));
                    TyKind::Map(Box::new(value))
                }
                // `additionalProperties: true` stays in the residual: it is not the
                // same schema as a map of preserved values.
                Some(JSONSchemaPropsOrBool::Bool(true)) => {
                    node.additional_properties = Some(Box::new(JSONSchemaPropsOrBool::Bool(true)));
                    TyKind::Map(Box::new(Ty::bare(TyKind::Json)))
                }
                other => {
                    node.additional_properties = other.map(Box::new);
                    if node.preserves_unknown_fields() {
                        TyKind::JsonObject
                    } else {
                        // `type: object` and nothing else: the server prunes every key,
                        // so the faithful type is a struct without fields.
                        return self.lower_struct(node, hint, true);
                    }
                }
            },
            _ => TyKind::Json,
        };
        Ty {
            kind,
            residual: node,
        }
    }

    /// Lowers an object node to a struct; `node` becomes the definition's residual.
    fn lower_struct(
        &mut self,
        mut node: Box<JSONSchemaProps>,
        hint: NameHint<'_>,
        share: bool,
    ) -> Ty {
        let name = self.claim(&hint);
        let seq = self.next_seq();
        let props = node.properties.take().unwrap_or_default();
        let required = node.required.take().unwrap_or_default();
        // `required` names without a declared property stay in the residual.
        let undeclared: Vec<String> = required
            .iter()
            .filter(|r| !props.contains_key(*r))
            .cloned()
            .collect();
        node.required = (!undeclared.is_empty()).then_some(undeclared);

        // Exact spellings claim their identifiers first, so `foo_bar` keeps
        // `foo_bar` even when `fooBar` sorts before it.
        let mut fields_scope = Scope::default();
        let mut names: Vec<naming::RustName> = props.keys().map(|k| self.field_name(k)).collect();
        let renamed: Vec<bool> = names.iter().map(|n| n.rename.is_some()).collect();
        for pass in [false, true] {
            for ((name, key), _) in names
                .iter_mut()
                .zip(props.keys())
                .zip(&renamed)
                .filter(|(_, r)| **r == pass)
            {
                *name = fields_scope.claim(std::mem::take(name), key);
            }
        }

        let mut required_sorted: Vec<&str> = required.iter().map(String::as_str).collect();
        required_sorted.sort_unstable();
        let mut fields = Vec::with_capacity(props.len());
        for ((key, child), rust) in props.into_iter().zip(names) {
            let ty = self.lower_node(child, NameHint::Child(&name, &key));
            fields.push(Field {
                required: required_sorted.binary_search(&key.as_str()).is_ok(),
                json: key,
                name: rust,
                ty,
            });
        }

        let mut catch_all = None;
        match node.additional_properties.take().map(|ap| *ap) {
            Some(JSONSchemaPropsOrBool::Schema(values)) => {
                // crd-derive cannot write `additionalProperties` from a flattened map
                // (it keeps unknown fields instead): the keyword stays in the residual.
                // Only a struct forced on a map (`spec`) or a CRD no server accepts
                // (properties next to additionalProperties) gets here.
                node.additional_properties =
                    Some(Box::new(JSONSchemaPropsOrBool::Schema(values.clone())));
                let value = self.lower_node(Box::new(values), NameHint::Child(&name, "additional"));
                catch_all = Some(value);
            }
            other => {
                node.additional_properties = other.map(Box::new);
                if node.preserves_unknown_fields() {
                    catch_all = Some(Ty::bare(TyKind::Json));
                }
            }
        }
        let catch_all = catch_all.map(|ty| {
            let field = fields_scope.claim(naming::field_name(CATCH_ALL), CATCH_ALL);
            Box::new((field, ty))
        });

        let def = TypeDef {
            name,
            residual: node,
            kind: DefKind::Struct { fields, catch_all },
            seq,
        };
        self.intern(def, share)
    }

    fn lower_enum(
        &mut self,
        values: Vec<String>,
        residual: Box<JSONSchemaProps>,
        hint: NameHint<'_>,
    ) -> Ty {
        let name = self.claim(&hint);
        let seq = self.next_seq();
        let mut scope = Scope::default();
        // Values that are already their identifier claim first (see lower_struct);
        // each value is named once, not once per sort comparison.
        let mut order: Vec<(usize, naming::RustName)> = values
            .iter()
            .map(|v| naming::variant_name(v))
            .enumerate()
            .collect();
        order.sort_by_key(|(_, n)| n.rename.is_some());
        let mut named: Vec<(usize, naming::RustName)> = order
            .into_iter()
            .map(|(i, name)| (i, scope.claim(name, &values[i])))
            .collect();
        named.sort_by_key(|(i, _)| *i);
        let variants = named
            .into_iter()
            .map(|(i, name)| Variant {
                json: values[i].clone(),
                name,
            })
            .collect();
        let def = TypeDef {
            name,
            residual,
            kind: DefKind::StringEnum { variants },
            seq,
        };
        self.intern(def, true)
    }

    /// [`naming::field_name`], remembered.
    fn field_name(&mut self, json: &str) -> naming::RustName {
        if let Some(name) = self.field_names.get(json) {
            return name.clone();
        }
        let name = naming::field_name(json);
        self.field_names.insert(json.to_string(), name.clone());
        name
    }

    fn next_seq(&mut self) -> usize {
        self.seq += 1;
        self.seq
    }

    fn claim(&mut self, hint: &NameHint<'_>) -> String {
        match *hint {
            NameHint::Claimed(name) => name.to_string(),
            NameHint::Child(parent, prop) => {
                let name = self.namer.type_name(&[parent, prop]);
                self.types.claim_ident(name)
            }
        }
    }

    /// Adds `def`, or returns the identical definition found earlier (releasing the
    /// name claimed for `def`).
    fn intern(&mut self, def: TypeDef, share: bool) -> Ty {
        let id = TypeId(self.space.defs.len());
        if self.opts.dedup && share {
            let hash = shape_hash(&def, self.shape_state.build_hasher());
            let candidates = self.shapes.entry(hash).or_default();
            let defs = &self.space.defs;
            if let Some(&same) = candidates.iter().find(|c| same_shape(&defs[c.0], &def)) {
                self.types.release(&def.name);
                return Ty::bare(TyKind::Named(same));
            }
            candidates.push(id);
        }
        self.space.defs.push(def);
        Ty::bare(TyKind::Named(id))
    }
}

/// How to name a definition found at a node.
#[derive(Clone, Copy, Debug)]
enum NameHint<'a> {
    /// The name is already claimed (roots).
    Claimed(&'a str),
    /// Parent type name + property name.
    Child(&'a str, &'a str),
}

impl<'a> NameHint<'a> {
    /// The hint for the items or values of a list or map node: a field's item type
    /// is named after the field (`ports` → `...Ports`), but a claimed name belongs to
    /// the list itself (a status alias), so its items are `<name>Item`.
    fn inner(self, what: &'a str) -> NameHint<'a> {
        match self {
            NameHint::Claimed(name) => NameHint::Child(name, what),
            child => child,
        }
    }
}

/// The values of a string enum that can become a Rust enum: `enum` given, every value
/// a string, no duplicates, and the node a plain string (not int-or-string).
fn string_enum(node: &JSONSchemaProps) -> Option<Vec<String>> {
    if node.type_str() != "string" {
        return None;
    }
    let values = node.enum_.as_ref()?;
    let mut out = Vec::with_capacity(values.len());
    for v in values {
        match v {
            Value::String(s) if !out.contains(s) => out.push(s.clone()),
            _ => return None,
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Whether two definitions generate the same Rust type up to its name: the same
/// residual schema and the same fields or values. Field and variant identifiers are
/// a function of the JSON names, and nested types are already shared (bottom-up), so
/// plain equality of the kinds is exact.
fn same_shape(a: &TypeDef, b: &TypeDef) -> bool {
    a.kind == b.kind && a.residual == b.residual
}

/// A hash that agrees with [`same_shape`]: it only reads what equal shapes share
/// (JSON names, required flags, nested type ids, description lengths), so it stays
/// cheap on large schemas while keeping most unequal shapes apart.
fn shape_hash(def: &TypeDef, mut h: impl Hasher) -> u64 {
    residual_hash(&def.residual, &mut h);
    match &def.kind {
        DefKind::Struct { fields, catch_all } => {
            0u8.hash(&mut h);
            for f in fields {
                (&f.json, f.required).hash(&mut h);
                ty_hash(&f.ty, &mut h);
            }
            if let Some((_, ty)) = catch_all.as_deref() {
                ty_hash(ty, &mut h);
            }
        }
        DefKind::StringEnum { variants } => {
            1u8.hash(&mut h);
            for v in variants {
                v.json.hash(&mut h);
            }
        }
        DefKind::Newtype { inner } => {
            2u8.hash(&mut h);
            ty_hash(inner, &mut h);
        }
    }
    h.finish()
}

fn ty_hash(ty: &Ty, h: &mut impl Hasher) {
    std::mem::discriminant(&ty.kind).hash(h);
    match &ty.kind {
        TyKind::Vec(inner) | TyKind::Map(inner) => ty_hash(inner, h),
        TyKind::Named(id) => id.hash(h),
        _ => {}
    }
    residual_hash(&ty.residual, h);
}

fn residual_hash(node: &JSONSchemaProps, h: &mut impl Hasher) {
    (node.type_.as_deref(), node.format.as_deref()).hash(h);
    node.description.as_ref().map(String::len).hash(h);
}
