//! `==` and `!=` on values typed by the schema, as the API server compares them.
//!
//! The server's values (`k8s.io/apiserver/pkg/cel/common/values.go`) carry their
//! schema, and `a == b` dispatches on the left operand: an
//! `x-kubernetes-list-type: set` list equals any list of the same size whose
//! elements it all contains; a `map` list equals any list of the same size whose
//! entries it finds by their `x-kubernetes-list-map-keys`, each equal to its own
//! entry; atomic lists and objects compare element by element and field by
//! field, typed by their schema all the way down (so an object holding a set
//! compares that set as a set). A literal on the left (`['a'] == self.tags`)
//! compares with cel-go's plain, in-order equality.
//!
//! Why a rewrite and not canonical (sorted) values: rules observe list order
//! (`self.tags[0]`, `map`, `messageExpression` output), and the server keeps it,
//! so the values stay as written. The `cel` crate's `==` has no hook for typed
//! values, so at compile time every `==`/`!=` whose left operand is (or
//! contains) a set or map list becomes `@crd.eq(a, b, shape)`/`@crd.ne(...)`,
//! where `shape` (a JSON string literal) describes where the left operand's
//! sets and map lists are. Other comparisons are left to the `cel` crate.
//! The rewrite runs after the static cost and the loop metering are computed,
//! so costs are those of the rule as written.
//!
//! The left operand's schema is found from its static type (objects) or from
//! the path it is read through (`self`, `oldSelf`, `oldSelf.value()`, field
//! selections, indexing). Not covered: a list literal on the left holding
//! typed sets (`[self.tags] == [oldSelf.tags]`), sets reached through a
//! comprehension variable over a list of lists, and the server's quirks where
//! its Go-level lookups never match (elements with `format`, map-list entries
//! written as literals): here those compare by CEL equality.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;
use std::sync::Arc;

use kube_cel::cel::common::ast::{CallExpr, Expr, IdedExpr, LiteralValue, operators};
use kube_cel::cel::extractors::Arguments;
use kube_cel::cel::objects::{Key, Value};
use kube_cel::cel::{ExecutionError, ResolveResult};
use serde::{Deserialize, Serialize};

use crate::cel::check::Ty;
use crate::cel::environment::ast::{for_each_child, for_each_child_mut};
use crate::cel::schema::CelSchema;
use crate::cel::schema::decl::{Decl, decl, field_in, fields};
use crate::cel::schema::escape::escape;

/// Name of the typed `==`.
pub(crate) const EQ: &str = "@crd.eq";
/// Name of the typed `!=`.
pub(crate) const NE: &str = "@crd.ne";

/// Where a value's sets and map lists are.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
enum Shape {
    /// Nothing inside is a set or map list: the `cel` crate's equality.
    Plain,
    /// An object; fields not listed are plain.
    Object(BTreeMap<String, Shape>),
    /// `additionalProperties`, with the values' shape.
    Map(Box<Shape>),
    /// An atomic list, with the elements' shape.
    List(Box<Shape>),
    /// `x-kubernetes-list-type: set`.
    Set(Box<Shape>),
    /// `x-kubernetes-list-type: map`: the escaped key names and the entries' shape.
    MapList(Vec<String>, Box<Shape>),
}

fn shape_of(s: &CelSchema, root: bool) -> Shape {
    let nested = |s: &CelSchema| shape_of(s, s.is_embedded_resource());
    match decl(s, root) {
        Some(Decl::Object(o, r)) => {
            let special: BTreeMap<String, Shape> = fields(o, r)
                .into_iter()
                .map(|(name, f)| (name, nested(f.schema)))
                .filter(|(_, shape)| *shape != Shape::Plain)
                .collect();
            if special.is_empty() {
                Shape::Plain
            } else {
                Shape::Object(special)
            }
        }
        Some(Decl::Map(v)) => match nested(v) {
            Shape::Plain => Shape::Plain,
            shape => Shape::Map(Box::new(shape)),
        },
        Some(Decl::List(items)) => {
            let elem = Box::new(nested(items));
            match s.x_kubernetes_list_type.as_deref() {
                Some("set") => Shape::Set(elem),
                Some("map") => {
                    let keys = s.x_kubernetes_list_map_keys.iter().flatten();
                    let keys = keys.map(|k| escape(k).unwrap_or_else(|| k.clone()));
                    Shape::MapList(keys.collect(), elem)
                }
                _ if *elem == Shape::Plain => Shape::Plain,
                _ => Shape::List(elem),
            }
        }
        _ => Shape::Plain,
    }
}

/// What [`plan`] needs to resolve operands to schema nodes.
struct Scope<'a, 't> {
    types: &'t HashMap<u64, Ty<'a>>,
    schema: &'a CelSchema,
    root: bool,
    keywords: bool,
}

/// The schema node `e` reads, when it can be told.
fn node_of<'a>(e: &IdedExpr, sc: &Scope<'a, '_>) -> Option<(&'a CelSchema, bool)> {
    let by_path = match &e.expr {
        Expr::Ident(n) if n == "self" || n == "oldSelf" => Some((sc.schema, sc.root)),
        Expr::Select(s) if !s.test => node_of(&s.operand, sc)
            .and_then(|(n, root)| match decl(n, root)? {
                Decl::Object(o, r) => field_in(o, r, &s.field, sc.keywords).map(|f| f.schema),
                Decl::Map(v) => Some(v),
                _ => None,
            })
            .map(nested),
        Expr::Call(c) if c.func_name == operators::INDEX && c.args.len() == 2 => {
            node_of(&c.args[0], sc).and_then(|(n, root)| match decl(n, root)? {
                Decl::List(v) | Decl::Map(v) => Some(nested(v)),
                _ => None,
            })
        }
        Expr::Call(CallExpr {
            func_name,
            target: Some(t),
            args,
        }) if func_name == "value"
            && args.is_empty()
            && matches!(sc.types.get(&t.id), Some(Ty::Optional(_))) =>
        {
            node_of(t, sc)
        }
        _ => None,
    };
    by_path.or_else(|| match sc.types.get(&e.id) {
        Some(Ty::Object(s, r)) => Some((*s, *r)),
        _ => None,
    })
}

/// A node below the root, with whether it is an embedded resource.
fn nested(s: &CelSchema) -> (&CelSchema, bool) {
    (s, s.is_embedded_resource())
}

/// The `==`/`!=` calls of a checked expression that need typed equality, by
/// expression id, with the encoded shape of their left operand.
pub(crate) fn plan<'a>(
    e: &IdedExpr,
    types: &HashMap<u64, Ty<'a>>,
    schema: &'a CelSchema,
    root: bool,
    keywords: bool,
) -> HashMap<u64, String> {
    let sc = Scope {
        types,
        schema,
        root,
        keywords,
    };
    let mut out = HashMap::new();
    collect(e, &sc, &mut out);
    out
}

fn collect(e: &IdedExpr, sc: &Scope<'_, '_>, out: &mut HashMap<u64, String>) {
    for_each_child(e, &mut |c| collect(c, sc, out));
    let Expr::Call(c) = &e.expr else { return };
    if !matches!(
        c.func_name.as_str(),
        operators::EQUALS | operators::NOT_EQUALS
    ) || c.target.is_some()
        || c.args.len() != 2
    {
        return;
    }
    let left = &c.args[0];
    if !matches!(
        sc.types.get(&left.id),
        Some(Ty::List(_) | Ty::Map(_) | Ty::Object(..))
    ) {
        return;
    }
    if let Some((node, root)) = node_of(left, sc) {
        let shape = shape_of(node, root);
        if shape != Shape::Plain
            && let Ok(encoded) = serde_json::to_string(&shape)
        {
            out.insert(e.id, encoded);
        }
    }
}

/// Replaces the planned calls by [`EQ`]/[`NE`] with their shape as third argument.
pub(crate) fn apply(e: &mut IdedExpr, planned: &HashMap<u64, String>) {
    if planned.is_empty() {
        return;
    }
    for_each_child_mut(e, &mut |c| apply(c, planned));
    if let (Some(shape), Expr::Call(c)) = (planned.get(&e.id), &mut e.expr) {
        c.func_name = if c.func_name == operators::EQUALS {
            EQ
        } else {
            NE
        }
        .into();
        c.args.push(IdedExpr {
            id: 0,
            expr: Expr::Literal(LiteralValue::String(shape.clone().into())),
        });
    }
}

/// `@crd.eq(a, b, shape)`.
pub(crate) fn typed_eq(Arguments(args): Arguments) -> ResolveResult {
    let (a, b, shape) = operands(&args)?;
    Ok(Value::Bool(equal(&shape, a, b)))
}

/// `@crd.ne(a, b, shape)`.
pub(crate) fn typed_ne(Arguments(args): Arguments) -> ResolveResult {
    let (a, b, shape) = operands(&args)?;
    Ok(Value::Bool(!equal(&shape, a, b)))
}

thread_local! {
    /// Decoded shapes by their encoding (a rule's shapes are decoded once per thread).
    static SHAPES: RefCell<HashMap<String, Rc<Shape>>> = RefCell::new(HashMap::new());
}

fn operands(args: &[Value]) -> Result<(&Value, &Value, Rc<Shape>), ExecutionError> {
    let bad = || ExecutionError::function_error(EQ, "expected two operands and a shape");
    let [a, b, Value::String(encoded)] = args else {
        return Err(bad());
    };
    let cached = SHAPES.with(|s| s.borrow().get(encoded.as_str()).cloned());
    let shape = match cached {
        Some(shape) => shape,
        None => {
            let shape = Rc::new(serde_json::from_str::<Shape>(encoded).map_err(|_| bad())?);
            SHAPES.with(|s| {
                s.borrow_mut()
                    .insert(encoded.to_string(), Rc::clone(&shape))
            });
            shape
        }
    };
    Ok((a, b, shape))
}

/// Equality of `a` (typed by `shape`) with `b`, dispatching on `a` like cel-go.
/// Values of different kinds fall back to the `cel` crate's equality.
fn equal(shape: &Shape, a: &Value, b: &Value) -> bool {
    match (shape, a, b) {
        (Shape::Object(fs), Value::Map(x), Value::Map(y)) => {
            maps_equal(x.map.as_ref(), y.map.as_ref(), |k| match k {
                Key::String(name) => fs.get(name.as_str()),
                _ => None,
            })
        }
        (Shape::Map(v), Value::Map(x), Value::Map(y)) => {
            maps_equal(x.map.as_ref(), y.map.as_ref(), |_| Some(v))
        }
        (Shape::List(e), Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| equal(e, p, q))
        }
        (Shape::Set(e), Value::List(x), Value::List(y)) => sets_equal(e, x, y),
        (Shape::MapList(keys, e), Value::List(x), Value::List(y)) => map_lists_equal(keys, e, x, y),
        _ => a == b,
    }
}

fn maps_equal<'s>(
    x: &HashMap<Key, Value>,
    y: &HashMap<Key, Value>,
    shape: impl Fn(&Key) -> Option<&'s Shape>,
) -> bool {
    x.len() == y.len()
        && x.iter().all(|(k, v)| {
            y.get(k)
                .is_some_and(|w| equal(shape(k).unwrap_or(&Shape::Plain), v, w))
        })
}

/// A hashable stand-in for scalars whose `==` is exactly key equality.
fn key(v: &Value) -> Option<Key> {
    match v {
        Value::Int(i) => Some(Key::Int(*i)),
        Value::Bool(b) => Some(Key::Bool(*b)),
        Value::String(s) => Some(Key::String(Arc::clone(s))),
        _ => None,
    }
}

/// Same size, and every element of `y` is in `x`.
fn sets_equal(e: &Shape, x: &[Value], y: &[Value]) -> bool {
    if x.len() != y.len() {
        return false;
    }
    let hashed: Option<HashSet<Key>> = match e {
        Shape::Plain => x.iter().map(key).collect(),
        _ => None,
    };
    y.iter().all(|q| match (&hashed, key(q)) {
        (Some(set), Some(k)) => set.contains(&k),
        _ => x.iter().any(|p| equal(e, p, q)),
    })
}

/// The key of a map-list entry: one value per key name, `None` for a missing
/// or null key (the server reads both as Go's `nil`); `None` overall when the
/// entry is not an object.
fn entry_key<'v>(keys: &[String], v: &'v Value) -> Option<Vec<Option<&'v Value>>> {
    let Value::Map(m) = v else { return None };
    Some(
        keys.iter()
            .map(|k| {
                m.map
                    .get(&Key::String(Arc::new(k.clone())))
                    .filter(|v| !matches!(v, Value::Null))
            })
            .collect(),
    )
}

/// Same size, and every entry of `y` has an entry with its key in `x` (the last
/// one, as the server indexes them) that equals it.
fn map_lists_equal(keys: &[String], e: &Shape, x: &[Value], y: &[Value]) -> bool {
    if x.len() != y.len() {
        return false;
    }
    let hashable = |k: &[Option<&Value>]| -> Option<Vec<Option<Key>>> {
        k.iter()
            .map(|v| v.map_or(Some(None), |v| key(v).map(Some)))
            .collect()
    };
    let x_keys: Vec<(Option<Vec<Option<&Value>>>, &Value)> =
        x.iter().map(|p| (entry_key(keys, p), p)).collect();
    // Fast path: every key of `x` is made of hashable scalars.
    let index: Option<HashMap<Vec<Option<Key>>, &Value>> = x_keys
        .iter()
        .filter_map(|(k, p)| k.as_ref().map(|k| (k, *p)))
        .map(|(k, p)| hashable(k).map(|k| (k, p)))
        .collect();
    y.iter().all(|q| {
        let Some(qk) = entry_key(keys, q) else {
            return false;
        };
        let found = match (&index, hashable(&qk)) {
            (Some(index), Some(h)) => index.get(&h).copied(),
            _ => x_keys
                .iter()
                .rev()
                .find(|(k, _)| k.as_ref() == Some(&qk))
                .map(|(_, p)| *p),
        };
        found.is_some_and(|p| equal(e, p, q))
    })
}
