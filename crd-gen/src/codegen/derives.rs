//! Which of the configured extra derives each generated type can take.
//!
//! `--derive Eq,Hash,Default` asks for std derives that need the same trait of every
//! field: a struct holding an `f64` cannot be `Eq`, one holding a `HashMap` cannot be
//! `Hash`, and the derived root holds `ObjectMeta`, which is only `Default`. Such a
//! derive is left out of the types that cannot take it instead of making the module
//! fail to compile. Other derives (`schemars::JsonSchema`, ...) are passed on as given.

use super::MapType;
use super::ir::{DefKind, TyKind, TypeDef, TypeId, TypeSpace};

/// A set of std traits that derives require of every field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Traits(u8);

impl Traits {
    /// `Eq`.
    pub const EQ: Traits = Traits(1);
    /// `Hash`.
    pub const HASH: Traits = Traits(2);
    /// `PartialOrd`.
    pub const PARTIAL_ORD: Traits = Traits(4);
    /// `Ord`.
    pub const ORD: Traits = Traits(8);
    /// `Default`.
    pub const DEFAULT: Traits = Traits(16);
    /// `Copy`.
    pub const COPY: Traits = Traits(32);
    /// Every trait above.
    pub const ALL: Traits = Traits(63);
    /// What containers pass on from their elements (they are never `Copy`, and
    /// always `Default`).
    const THROUGH_CONTAINERS: Traits = Traits(1 | 2 | 4 | 8);

    const fn or(self, other: Traits) -> Traits {
        Traits(self.0 | other.0)
    }

    /// The traits in both.
    pub const fn and(self, other: Traits) -> Traits {
        Traits(self.0 & other.0)
    }

    /// Whether every trait of `other` is in `self`.
    pub fn has(self, other: Traits) -> bool {
        self.0 & other.0 == other.0
    }

    /// The bits, for use as a cache key.
    pub fn bits(self) -> u8 {
        self.0
    }
}

/// What `ObjectMeta` implements (k8s-openapi's derives, which crd-runtime's copy
/// mirrors): the derived root holds one, so it can only take `Default` of these.
pub const OBJECT_META: Traits = Traits::DEFAULT;

/// The std trait a derive path names (`Eq`, `std::hash::Hash`, `::core::cmp::Ord`),
/// or `None` for any other derive.
pub fn std_trait(path: &str) -> Option<Traits> {
    let last = path.rsplit("::").next().unwrap_or(path).trim();
    Some(match last {
        "Eq" => Traits::EQ,
        "Hash" => Traits::HASH,
        "PartialOrd" => Traits::PARTIAL_ORD,
        "Ord" => Traits::ORD,
        "Default" => Traits::DEFAULT,
        "Copy" => Traits::COPY,
        _ => return None,
    })
}

/// Whether a derive can be applied to a type implementing `traits` in its fields.
pub fn allowed(path: &str, traits: Traits) -> bool {
    std_trait(path).is_none_or(|t| traits.has(t))
}

/// The traits every definition of a type space can derive.
#[derive(Debug)]
pub struct Capabilities {
    per_def: Vec<Traits>,
}

impl Capabilities {
    /// Works out every definition of `space` (schemas have no references, so the
    /// definitions form a tree or, shared, a DAG: the recursion ends).
    pub fn of(space: &TypeSpace, map_type: MapType) -> Capabilities {
        let mut memo = vec![None; space.defs.len()];
        for i in 0..space.defs.len() {
            def_traits(space, map_type, TypeId(i), &mut memo);
        }
        Capabilities {
            per_def: memo.into_iter().map(|t| t.unwrap_or(Traits::ALL)).collect(),
        }
    }

    /// What the definition `id` can derive.
    pub fn def(&self, id: TypeId) -> Traits {
        self.per_def[id.0]
    }
}

fn def_traits(
    space: &TypeSpace,
    map_type: MapType,
    id: TypeId,
    memo: &mut Vec<Option<Traits>>,
) -> Traits {
    if let Some(t) = memo[id.0] {
        return t;
    }
    let def: &TypeDef = space.get(id);
    let traits = match &def.kind {
        // A unit-only enum derives everything (`Default` through a `#[default]` variant).
        DefKind::StringEnum { .. } => Traits::ALL,
        DefKind::Newtype { inner } => kind_traits(&inner.kind, map_type, &mut |id| {
            def_traits(space, map_type, id, memo)
        }),
        DefKind::Struct { fields, catch_all } => {
            let mut all = Traits::ALL;
            let of = |kind: &TyKind, memo: &mut Vec<Option<Traits>>| {
                kind_traits(kind, map_type, &mut |inner| {
                    def_traits(space, map_type, inner, memo)
                })
            };
            for f in fields {
                let t = of(&f.ty.kind, memo);
                // `Option<T>` is `Default` whatever `T` is.
                let optional = !f.required || space.is_nullable(&f.ty);
                all = all.and(if optional { t.or(Traits::DEFAULT) } else { t });
            }
            if let Some((_, ty)) = catch_all.as_deref() {
                let map = TyKind::Map(Box::new(ty.clone()));
                all = all.and(of(&map, memo));
            }
            all
        }
    };
    memo[id.0] = Some(traits);
    traits
}

fn kind_traits(
    kind: &TyKind,
    map_type: MapType,
    named: &mut dyn FnMut(TypeId) -> Traits,
) -> Traits {
    let containers = |inner: Traits| inner.and(Traits::THROUGH_CONTAINERS).or(Traits::DEFAULT);
    match kind {
        TyKind::Bool | TyKind::I32 | TyKind::I64 => Traits::ALL,
        TyKind::F64 => Traits::PARTIAL_ORD.or(Traits::DEFAULT).or(Traits::COPY),
        TyKind::String => Traits::EQ
            .or(Traits::HASH)
            .or(Traits::PARTIAL_ORD)
            .or(Traits::ORD)
            .or(Traits::DEFAULT),
        // `IntOrString`, `serde_json::Value` and `Map`: `Eq`, `Hash`, `Default`.
        TyKind::IntOrString | TyKind::Json | TyKind::AbsentItems | TyKind::JsonObject => {
            Traits::EQ.or(Traits::HASH).or(Traits::DEFAULT)
        }
        // `EmbeddedObject` holds `ObjectMeta`.
        TyKind::Embedded => OBJECT_META,
        TyKind::Vec(inner) => containers(kind_traits(&inner.kind, map_type, named)),
        TyKind::Map(inner) => {
            let t = containers(kind_traits(&inner.kind, map_type, named));
            match map_type {
                MapType::BTreeMap => t,
                // `HashMap` is neither `Hash` nor ordered.
                MapType::HashMap => t.and(Traits::EQ.or(Traits::DEFAULT)),
            }
        }
        TyKind::Named(id) => named(*id),
        // k8s-openapi types derive `Clone`, `Debug`, `Default` and `PartialEq` only.
        TyKind::K8s(_) => Traits::DEFAULT,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn std_derives_are_recognised_by_their_last_segment() {
        assert_eq!(std_trait("Eq"), Some(Traits::EQ));
        assert_eq!(std_trait("::std::hash::Hash"), Some(Traits::HASH));
        assert_eq!(
            std_trait("core::cmp::PartialOrd"),
            Some(Traits::PARTIAL_ORD)
        );
        assert_eq!(std_trait("schemars::JsonSchema"), None);
        assert!(allowed("schemars::JsonSchema", Traits(0)));
        assert!(!allowed("Eq", Traits::DEFAULT));
        assert!(allowed("Default", Traits::DEFAULT));
    }

    #[test]
    fn containers_pass_on_comparison_but_not_copy() {
        let kind = |k: &TyKind, map_type| kind_traits(k, map_type, &mut |_| Traits::ALL);
        let f64_list = TyKind::Vec(Box::new(super::super::ir::Ty::bare(TyKind::F64)));
        let t = kind(&f64_list, MapType::BTreeMap);
        assert!(t.has(Traits::PARTIAL_ORD.or(Traits::DEFAULT)));
        assert!(!t.has(Traits::EQ) && !t.has(Traits::COPY));
        let string_map = TyKind::Map(Box::new(super::super::ir::Ty::bare(TyKind::String)));
        assert!(kind(&string_map, MapType::BTreeMap).has(Traits::HASH.or(Traits::ORD)));
        let hashed = kind(&string_map, MapType::HashMap);
        assert!(hashed.has(Traits::EQ) && !hashed.has(Traits::HASH) && !hashed.has(Traits::ORD));
        assert_eq!(kind(&TyKind::Embedded, MapType::BTreeMap), OBJECT_META);
    }
}
