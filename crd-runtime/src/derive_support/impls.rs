//! [`CrdSchema`] for std and serde_json types.
//!
//! Integers follow Kubernetes' conventions (`format: int32`/`int64`); unsigned
//! integers get `minimum: 0` because serde rejects negative values for them, and the
//! schema must reject what serde rejects.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::rc::Rc;
use std::sync::Arc;

use serde_json::{Map, Number, Value};

use super::literal::{Array, Bool, Float, Integer, NotNull, Null, Object, Str};
use super::{AcceptsDefault, CrdSchema, ListSchema, MapSchema};
use crate::model::{JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool};

pub(crate) fn typed(ty: &str) -> JSONSchemaProps {
    JSONSchemaProps {
        type_: Some(ty.to_string()),
        ..Default::default()
    }
}

fn integer(lo: i64, hi: u64) -> JSONSchemaProps {
    JSONSchemaProps {
        minimum: Some(Number::from(lo)),
        maximum: Some(Number::from(hi)),
        ..typed("integer")
    }
}

fn unsigned() -> JSONSchemaProps {
    JSONSchemaProps {
        minimum: Some(Number::from(0)),
        ..typed("integer")
    }
}

// `i32`/`i64` give a plain `type: integer` (as the Kubernetes docs write it; add
// `format = "int32"` to document the width). Narrow types carry their range, and
// unsigned types `minimum: 0`, because serde rejects values outside them. Each type
// accepts the default literals of the kinds after its schema.
macro_rules! scalars {
    ($($t:ty => $schema:expr, $($kind:ident)|+;)*) => {$(
        impl CrdSchema for $t {
            fn crd_schema() -> JSONSchemaProps {
                $schema
            }
        }
        $(impl AcceptsDefault<$kind> for $t {})+
    )*};
}

scalars! {
    i8 => integer(i8::MIN.into(), 127), Integer;
    i16 => integer(i16::MIN.into(), 32767), Integer;
    u8 => integer(0, u8::MAX.into()), Integer;
    u16 => integer(0, u16::MAX.into()), Integer;
    u32 => integer(0, u32::MAX.into()), Integer;
    i32 => typed("integer"), Integer;
    i64 => typed("integer"), Integer;
    isize => typed("integer"), Integer;
    u64 => unsigned(), Integer;
    usize => unsigned(), Integer;
    f32 => typed("number"), Integer | Float;
    f64 => typed("number"), Integer | Float;
    bool => typed("boolean"), Bool;
    String => typed("string"), Str;
    str => typed("string"), Str;
}

impl CrdSchema for char {
    fn crd_schema() -> JSONSchemaProps {
        JSONSchemaProps {
            min_length: Some(1),
            max_length: Some(1),
            ..typed("string")
        }
    }
}
impl AcceptsDefault<Str> for char {}

impl<T: CrdSchema> CrdSchema for Option<T> {
    const OPTIONAL: bool = true;
    const FIELDS: Option<&'static [(&'static str, bool)]> = T::FIELDS;
    fn crd_schema() -> JSONSchemaProps {
        JSONSchemaProps {
            nullable: Some(true),
            ..T::crd_schema()
        }
    }
    fn crd_field_schema() -> JSONSchemaProps {
        T::crd_field_schema()
    }
}
impl<T: AcceptsDefault<K>, K: NotNull> AcceptsDefault<K> for Option<T> {}
/// A nullable field defaulting to `null`, whatever it holds otherwise.
impl<T> AcceptsDefault<Null> for Option<T> {}
impl<T: ListSchema> ListSchema for Option<T> {
    type Item = T::Item;
}
impl<T: MapSchema> MapSchema for Option<T> {
    type Value = T::Value;
}

// References and smart pointers have the schema of what they point to.
macro_rules! same_schema {
    ($($ptr:ty),*) => {$(
        impl<T: CrdSchema + ?Sized> CrdSchema for $ptr {
            const OPTIONAL: bool = T::OPTIONAL;
            const FIELDS: Option<&'static [(&'static str, bool)]> = T::FIELDS;
            fn crd_schema() -> JSONSchemaProps {
                T::crd_schema()
            }
            fn crd_field_schema() -> JSONSchemaProps {
                T::crd_field_schema()
            }
        }
    )*};
}
same_schema!(&T, Box<T>, Arc<T>, Rc<T>);

// Owning pointers also take their pointee's defaults and list/map item types.
macro_rules! transparent {
    ($($ptr:ident),*) => {$(
        impl<T: AcceptsDefault<K> + ?Sized, K> AcceptsDefault<K> for $ptr<T> {}
        impl<T: ListSchema + ?Sized> ListSchema for $ptr<T> {
            type Item = T::Item;
        }
        impl<T: MapSchema + ?Sized> MapSchema for $ptr<T> {
            type Value = T::Value;
        }
    )*};
}
transparent!(Box, Arc, Rc);

fn array_of(items: JSONSchemaProps) -> JSONSchemaProps {
    JSONSchemaProps {
        items: Some(Box::new(JSONSchemaPropsOrArray::Schema(items))),
        ..typed("array")
    }
}

macro_rules! lists {
    ($($list:ident),*) => {$(
        impl<T: CrdSchema> CrdSchema for $list<T> {
            fn crd_schema() -> JSONSchemaProps {
                array_of(T::crd_schema())
            }
        }
        impl<T> AcceptsDefault<Array> for $list<T> {}
        impl<T: CrdSchema> ListSchema for $list<T> {
            type Item = T;
        }
    )*};
}
lists!(Vec, VecDeque);

impl<T: CrdSchema> CrdSchema for [T] {
    fn crd_schema() -> JSONSchemaProps {
        array_of(T::crd_schema())
    }
}
impl<T> AcceptsDefault<Array> for [T] {}
impl<T: CrdSchema> ListSchema for [T] {
    type Item = T;
}

impl<T: CrdSchema, const N: usize> CrdSchema for [T; N] {
    fn crd_schema() -> JSONSchemaProps {
        let n = i64::try_from(N).unwrap_or(i64::MAX);
        JSONSchemaProps {
            min_items: Some(n),
            max_items: Some(n),
            ..array_of(T::crd_schema())
        }
    }
}
impl<T, const N: usize> AcceptsDefault<Array> for [T; N] {}
impl<T: CrdSchema, const N: usize> ListSchema for [T; N] {
    type Item = T;
}

fn set_of(items: JSONSchemaProps) -> JSONSchemaProps {
    JSONSchemaProps {
        x_kubernetes_list_type: Some("set".into()),
        ..array_of(items)
    }
}

impl<T: CrdSchema> CrdSchema for BTreeSet<T> {
    fn crd_schema() -> JSONSchemaProps {
        set_of(T::crd_schema())
    }
}
impl<T> AcceptsDefault<Array> for BTreeSet<T> {}
impl<T: CrdSchema> ListSchema for BTreeSet<T> {
    type Item = T;
}

impl<T: CrdSchema, S> CrdSchema for HashSet<T, S> {
    fn crd_schema() -> JSONSchemaProps {
        set_of(T::crd_schema())
    }
}
impl<T, S> AcceptsDefault<Array> for HashSet<T, S> {}
impl<T: CrdSchema, S> ListSchema for HashSet<T, S> {
    type Item = T;
}

fn map_of(values: JSONSchemaProps) -> JSONSchemaProps {
    JSONSchemaProps {
        additional_properties: Some(Box::new(JSONSchemaPropsOrBool::Schema(values))),
        ..typed("object")
    }
}

impl<K, V: CrdSchema> CrdSchema for BTreeMap<K, V> {
    fn crd_schema() -> JSONSchemaProps {
        map_of(V::crd_schema())
    }
}
impl<K, V> AcceptsDefault<Object> for BTreeMap<K, V> {}
impl<K, V: CrdSchema> MapSchema for BTreeMap<K, V> {
    type Value = V;
}

impl<K, V: CrdSchema, S> CrdSchema for HashMap<K, V, S> {
    fn crd_schema() -> JSONSchemaProps {
        map_of(V::crd_schema())
    }
}
impl<K, V, S> AcceptsDefault<Object> for HashMap<K, V, S> {}
impl<K, V: CrdSchema, S> MapSchema for HashMap<K, V, S> {
    type Value = V;
}

impl CrdSchema for Value {
    fn crd_schema() -> JSONSchemaProps {
        JSONSchemaProps {
            x_kubernetes_preserve_unknown_fields: Some(true),
            ..Default::default()
        }
    }
}
impl<K> AcceptsDefault<K> for Value {}

impl CrdSchema for Map<String, Value> {
    fn crd_schema() -> JSONSchemaProps {
        JSONSchemaProps {
            x_kubernetes_preserve_unknown_fields: Some(true),
            ..typed("object")
        }
    }
}
impl AcceptsDefault<Object> for Map<String, Value> {}
impl MapSchema for Map<String, Value> {
    type Value = Value;
}

impl CrdSchema for () {
    fn crd_schema() -> JSONSchemaProps {
        typed("object")
    }
}
impl AcceptsDefault<Null> for () {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars() {
        assert_eq!(String::crd_schema().type_str(), "string");
        assert_eq!(i32::crd_schema().format, None);
        assert_eq!(u8::crd_schema().maximum, Some(Number::from(255)));
        assert_eq!(u64::crd_schema().minimum, Some(Number::from(0)));
        assert_eq!(f64::crd_schema().type_str(), "number");
        assert!(Value::crd_schema().preserves_unknown_fields());
    }

    #[test]
    fn containers() {
        const { assert!(<Option<String> as CrdSchema>::OPTIONAL) };
        const { assert!(!<Box<String> as CrdSchema>::OPTIONAL) };
        let v = <Vec<Option<bool>>>::crd_schema();
        assert_eq!(v.items_schema().unwrap().type_str(), "boolean");
        assert!(
            v.items_schema().unwrap().is_nullable(),
            "null items are kept"
        );
        assert!(
            !<Option<bool>>::crd_field_schema().is_nullable(),
            "null fields are dropped"
        );
        let s = <BTreeSet<String>>::crd_schema();
        assert_eq!(s.x_kubernetes_list_type.as_deref(), Some("set"));
        let m = <HashMap<String, i64>>::crd_schema();
        assert_eq!(
            m.additional_properties_schema().unwrap().type_str(),
            "integer"
        );
        let a = <[u8; 3]>::crd_schema();
        assert_eq!((a.min_items, a.max_items), (Some(3), Some(3)));
    }
}
