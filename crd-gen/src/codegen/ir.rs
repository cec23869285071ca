//! The type space: what the generator knows about the Rust types of one CRD
//! version, before any token is written.
//!
//! Every schema node becomes a [`Ty`]. Objects and string enums become named
//! definitions ([`TypeDef`]) addressed by [`TypeId`]; primitives, lists and maps are
//! structural. Each node keeps its *residual* schema: the keywords the Rust type does
//! not already imply (descriptions, validations, defaults, extensions). Emission turns
//! the residual into attributes, so nothing of the source schema is lost.

use crd_runtime::JSONSchemaProps;

use super::naming::RustName;

/// Index of a definition in [`TypeSpace::defs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TypeId(pub usize);

/// The Rust shape of one schema node.
#[derive(Clone, Debug, PartialEq)]
pub enum TyKind {
    /// `bool`.
    Bool,
    /// `i32` (`format: int32`).
    I32,
    /// `i64` (`format: int64`, or an integer without format).
    I64,
    /// `f64`.
    F64,
    /// `String`.
    String,
    /// An integer or a string (`x-kubernetes-int-or-string`).
    IntOrString,
    /// Any JSON value (`x-kubernetes-preserve-unknown-fields` without structure, or
    /// a node without a type).
    Json,
    /// A JSON object with any keys (`type: object` keeping unknown fields).
    JsonObject,
    /// The element of a list whose schema has no `items` at all (not structural, but
    /// v1beta1-era CRDs have it): any value, spelled `Value` like [`TyKind::Json`], and
    /// the list is written as `schema = {"type": "array"}` so no `items` comes back.
    AbsentItems,
    /// An embedded Kubernetes object without declared properties.
    Embedded,
    /// A list.
    Vec(Box<Ty>),
    /// A map with string keys (`additionalProperties`).
    Map(Box<Ty>),
    /// A generated struct or enum.
    Named(TypeId),
    /// A k8s-openapi type (`--k8s-types`); the residual holds only the node's own
    /// description.
    K8s(Box<super::k8s::K8sType>),
}

/// One schema node: its Rust shape plus the keywords the shape does not imply.
#[derive(Clone, Debug, PartialEq)]
pub struct Ty {
    /// The Rust shape.
    pub kind: TyKind,
    /// Keywords still to be expressed as attributes. For [`TyKind::Named`] this is
    /// empty: the definition carries its node's keywords. Boxed: a schema node is
    /// about a kilobyte, and lowering moves nodes and fields around a lot.
    pub residual: Box<JSONSchemaProps>,
}

impl Ty {
    /// A node whose shape says everything.
    pub fn bare(kind: TyKind) -> Ty {
        Ty {
            kind,
            residual: Box::default(),
        }
    }
}

/// A property of a generated struct.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// The property name on the wire.
    pub json: String,
    /// The Rust identifier (and serde rename when needed).
    pub name: RustName,
    /// The property's type.
    pub ty: Ty,
    /// Listed in `required`: a plain field instead of an `Option`.
    pub required: bool,
}

/// A value of a string enum.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    /// The value on the wire.
    pub json: String,
    /// The Rust identifier (and serde rename when needed).
    pub name: RustName,
}

/// What a definition is.
#[derive(Clone, Debug, PartialEq)]
pub enum DefKind {
    /// An object with declared properties.
    Struct {
        /// The properties, in the schema's (sorted) order.
        fields: Vec<Field>,
        /// A flattened map that keeps undeclared properties
        /// (`x-kubernetes-preserve-unknown-fields` or `additionalProperties` next
        /// to `properties`): its field name and value type.
        catch_all: Option<Box<(RustName, Ty)>>,
    },
    /// A string with a fixed set of values.
    StringEnum {
        /// The values, in schema order.
        variants: Vec<Variant>,
    },
    /// A tuple struct around one value: a `spec` that is not an object (a list, a
    /// scalar), which the derive reads like its field. The node's keywords are the
    /// inner type's.
    Newtype {
        /// The wrapped type.
        inner: Ty,
    },
}

/// A named Rust type generated for one (or several identical) schema nodes.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeDef {
    /// The Rust type name.
    pub name: String,
    /// The node's keywords not implied by the shape.
    pub residual: Box<JSONSchemaProps>,
    /// Struct or enum.
    pub kind: DefKind,
    /// Position in a pre-order walk of the schema (parents before children): the
    /// order definitions are emitted in.
    pub seq: usize,
}

/// All definitions of one CRD version, in a deterministic (discovery) order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TypeSpace {
    /// The definitions; a [`TypeId`] indexes this list.
    pub defs: Vec<TypeDef>,
}

impl TypeSpace {
    /// The definition behind `id`.
    pub fn get(&self, id: TypeId) -> &TypeDef {
        &self.defs[id.0]
    }

    /// Whether a node of type `ty` may be `null` (a named type's definition carries
    /// its node's keywords).
    pub fn is_nullable(&self, ty: &Ty) -> bool {
        match ty.kind {
            TyKind::Named(id) => self.get(id).residual.is_nullable(),
            _ => ty.residual.is_nullable(),
        }
    }
}
