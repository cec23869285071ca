//! Static checks of a parsed rule against the schema of its node.
//!
//! The `cel` crate parses but has no type checker, so this module infers a type
//! for every sub-expression from the schema (see [`crate::cel::schema::decl`]) and reports,
//! in cel-go's words:
//! - references to unknown variables and functions (`undeclared reference to 'x'`),
//! - selections of fields the schema does not declare (`undefined field 'x'`),
//!   including inside `has()`, and selections on values that have no fields,
//! - operators applied to values of incompatible known types
//!   (`found no matching overload for '_==_' applied to '(int, string)'`),
//!   including methods that only exist on strings or lists,
//! - comprehensions over values that are neither lists nor maps,
//! - struct literals (no message types exist in the Kubernetes environment).
//!
//! Values the schema does not type (`x-kubernetes-int-or-string`, results of
//! library functions whose type depends on their arguments) are dynamic and
//! accepted everywhere, as in cel-go. The checker never rejects what cel-go
//! accepts for the constructs it knows; it may accept some expressions cel-go
//! rejects (e.g. ill-typed arguments of library functions), which then fail at
//! evaluation time.

use std::collections::HashMap;

use kube_cel::cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue};

use crate::cel::schema::CelSchema;

use crate::cel::environment::CelEnvironment;
use crate::cel::environment::ast::as_bind;
use crate::cel::environment::releases;
use crate::cel::schema::decl::{Decl, decl, field_in};

mod arguments;
pub(in crate::cel) mod field_path;
mod macros;
mod operators;

pub(super) use operators::comparable;
use operators::{arithmetic, equatable, orderable};

/// The inferred CEL type of an expression.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Ty<'a> {
    Dyn,
    Null,
    Bool,
    Int,
    Uint,
    Double,
    String,
    Bytes,
    Timestamp,
    Duration,
    Type,
    List(Box<Ty<'a>>),
    Map(Box<Ty<'a>>),
    Object(&'a CelSchema, bool),
    Optional(Box<Ty<'a>>),
    /// Library types: quantity, url, ip, cidr, semver, format.
    Opaque,
}

impl<'a> Ty<'a> {
    /// The type of a node with schema `s`.
    pub(crate) fn of_schema(s: &'a CelSchema, resource_root: bool) -> Ty<'a> {
        match decl(s, resource_root) {
            None | Some(Decl::IntOrString) => Ty::Dyn,
            Some(Decl::String) => Ty::String,
            Some(Decl::Bytes) => Ty::Bytes,
            Some(Decl::Timestamp) => Ty::Timestamp,
            Some(Decl::Duration) => Ty::Duration,
            Some(Decl::Int) => Ty::Int,
            Some(Decl::Double) => Ty::Double,
            Some(Decl::Bool) => Ty::Bool,
            Some(Decl::List(items)) => {
                Ty::List(Box::new(Ty::of_schema(items, items.is_embedded_resource())))
            }
            Some(Decl::Map(v)) => Ty::Map(Box::new(Ty::of_schema(v, v.is_embedded_resource()))),
            Some(Decl::Object(s, root)) => Ty::Object(s, root),
        }
    }

    pub(crate) fn name(&self) -> String {
        match self {
            Ty::Dyn => "dyn".into(),
            Ty::Null => "null_type".into(),
            Ty::Bool => "bool".into(),
            Ty::Int => "int".into(),
            Ty::Uint => "uint".into(),
            Ty::Double => "double".into(),
            Ty::String => "string".into(),
            Ty::Bytes => "bytes".into(),
            Ty::Timestamp => "google.protobuf.Timestamp".into(),
            Ty::Duration => "google.protobuf.Duration".into(),
            Ty::Type => "type".into(),
            Ty::List(e) => format!("list({})", e.name()),
            Ty::Map(v) => format!("map(string, {})", v.name()),
            Ty::Object(..) => "object".into(),
            Ty::Optional(t) => format!("optional_type({})", t.name()),
            Ty::Opaque => "opaque".into(),
        }
    }

    pub(crate) fn is_dyn(&self) -> bool {
        matches!(self, Ty::Dyn)
    }

    fn is_numeric(&self) -> bool {
        matches!(self, Ty::Int | Ty::Uint | Ty::Double)
    }

    fn is_scalar(&self) -> bool {
        matches!(
            self,
            Ty::Bool
                | Ty::Int
                | Ty::Uint
                | Ty::Double
                | Ty::String
                | Ty::Bytes
                | Ty::Timestamp
                | Ty::Duration
        )
    }
}

/// Two types unified for a conditional or a list literal.
fn unify<'a>(a: Ty<'a>, b: Ty<'a>) -> Ty<'a> {
    match (a, b) {
        (a, b) if a == b => a,
        // `optional.none()` is an optional of any type.
        (Ty::Optional(t), Ty::Optional(d)) | (Ty::Optional(d), Ty::Optional(t)) if d.is_dyn() => {
            Ty::Optional(t)
        }
        _ => Ty::Dyn,
    }
}

/// One problem found in a rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Problem {
    pub(crate) message: String,
    /// Text to locate in the source for a line:column (best effort: the `cel`
    /// crate keeps no positions for a successfully parsed expression). A text
    /// ending in `(` (a call) or `{` (a message literal) is located at that
    /// bracket, as cel-go locates them.
    pub(crate) near: Option<String>,
}

/// The checker for one expression.
pub(crate) struct Checker<'a> {
    self_ty: Ty<'a>,
    old_self_ty: Option<Ty<'a>>,
    scopes: Vec<(String, Ty<'a>)>,
    pub(crate) problems: Vec<Problem>,
    /// The inferred type of every sub-expression, by expression id (for the
    /// cost estimator, which picks overloads by argument types).
    pub(crate) types: HashMap<u64, Ty<'a>>,
    /// `self.if` selects a property named `if` (Kubernetes 1.31 and later).
    keyword_fields: bool,
    /// The release whose libraries are declared (see [`crate::cel::environment::releases`]).
    env: CelEnvironment,
    /// Whether `self`/`oldSelf` exist (not in standalone expressions).
    declares_self: bool,
    /// Variables of standalone expressions (`object`, `request`, ...); a dotted name
    /// (`authorizer.requestResource`) is a variable selected from another.
    variables: Vec<(String, Ty<'a>)>,
    /// Extra functions and methods, by name, with their result types.
    functions: Vec<(String, Ty<'a>)>,
}

impl<'a> Checker<'a> {
    /// A checker where `self` has type `self_ty` and `oldSelf`, if declared, `old_self_ty`.
    pub(crate) fn new(self_ty: Ty<'a>, old_self_ty: Option<Ty<'a>>) -> Self {
        Checker {
            self_ty,
            old_self_ty,
            scopes: Vec::new(),
            problems: Vec::new(),
            types: HashMap::new(),
            keyword_fields: true,
            env: CelEnvironment::NEWEST,
            declares_self: true,
            variables: Vec::new(),
            functions: Vec::new(),
        }
    }

    /// A checker for a standalone expression: no `self`, these variables and extra
    /// functions instead.
    pub(crate) fn standalone(
        variables: Vec<(String, Ty<'a>)>,
        functions: Vec<(String, Ty<'a>)>,
    ) -> Self {
        let mut c = Checker::new(Ty::Dyn, None);
        c.declares_self = false;
        c.variables = variables;
        c.functions = functions;
        c
    }

    fn variable(&self, name: &str) -> Option<Ty<'a>> {
        self.variables
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t.clone())
    }

    /// Checks in `env`: its libraries and whether property names that are CEL
    /// keywords can be selected unescaped.
    pub(crate) fn environment(mut self, env: CelEnvironment) -> Self {
        self.env = env;
        self.keyword_fields = env.keywords_as_field_names;
        self
    }

    fn problem(&mut self, message: String, near: Option<String>) -> Ty<'a> {
        self.problems.push(Problem { message, near });
        Ty::Dyn
    }

    fn no_overload(&mut self, op: &str, args: &[&Ty<'a>]) -> Ty<'a> {
        let names: Vec<String> = args.iter().map(|t| t.name()).collect();
        self.problem(
            format!(
                "found no matching overload for '{op}' applied to '({})'",
                names.join(", ")
            ),
            None,
        )
    }

    fn lookup(&self, name: &str) -> Option<Ty<'a>> {
        if let Some((_, t)) = self.scopes.iter().rev().find(|(n, _)| n == name) {
            return Some(t.clone());
        }
        if let Some(t) = self.variable(name) {
            return Some(t);
        }
        match name {
            "self" if self.declares_self => Some(self.self_ty.clone()),
            "oldSelf" if self.declares_self => self.old_self_ty.clone(),
            "int" | "uint" | "double" | "bool" | "string" | "bytes" | "list" | "map"
            | "null_type" | "type" | "dyn" => Some(Ty::Type),
            _ => None,
        }
    }

    /// Infers the type of `e`, recording problems and the type.
    pub(crate) fn check(&mut self, e: &IdedExpr) -> Ty<'a> {
        let t = self.infer(e);
        self.types.insert(e.id, t.clone());
        t
    }

    fn infer(&mut self, e: &IdedExpr) -> Ty<'a> {
        match &e.expr {
            Expr::Literal(l) => match l {
                LiteralValue::Boolean(_) => Ty::Bool,
                LiteralValue::Bytes(_) => Ty::Bytes,
                LiteralValue::Double(_) => Ty::Double,
                LiteralValue::Int(_) => Ty::Int,
                LiteralValue::Null => Ty::Null,
                LiteralValue::String(_) => Ty::String,
                LiteralValue::UInt(_) => Ty::Uint,
            },
            Expr::Ident(name) => match self.lookup(name) {
                Some(t) => t,
                None => self.problem(
                    format!("undeclared reference to '{name}' (in container '')"),
                    Some(name.clone()),
                ),
            },
            Expr::List(l) => {
                let mut elem: Option<Ty<'a>> = None;
                for x in &l.elements {
                    let t = self.check(x);
                    elem = Some(match elem {
                        None => t,
                        Some(e) => unify(e, t),
                    });
                }
                Ty::List(Box::new(elem.unwrap_or(Ty::Dyn)))
            }
            Expr::Map(m) => {
                let mut val: Option<Ty<'a>> = None;
                for entry in &m.entries {
                    if let EntryExpr::MapEntry(me) = &entry.expr {
                        self.check(&me.key);
                        let t = self.check(&me.value);
                        val = Some(match val {
                            None => t,
                            Some(v) => unify(v, t),
                        });
                    }
                }
                Ty::Map(Box::new(val.unwrap_or(Ty::Dyn)))
            }
            Expr::Struct(s) => self.problem(
                format!(
                    "undeclared reference to '{}' (in container '')",
                    s.type_name
                ),
                Some(format!("{}{{", s.type_name)),
            ),
            Expr::Select(s) => {
                if let Expr::Ident(base) = &s.operand.expr
                    && !self.scopes.iter().any(|(n, _)| n == base)
                    && let Some(t) = self.variable(&format!("{base}.{}", s.field))
                {
                    return if s.test { Ty::Bool } else { t };
                }
                // The IP library's type identifiers (`type(ip(s)) == net.IP`).
                if let Expr::Ident(base) = &s.operand.expr
                    && base == "net"
                    && matches!(s.field.as_str(), "IP" | "CIDR")
                    && self.lookup(base).is_none()
                {
                    return Ty::Type;
                }
                let operand = self.check(&s.operand);
                let t = self.select(&operand, &s.field);
                if s.test { Ty::Bool } else { t }
            }
            Expr::Comprehension(c) => self.comprehension(c),
            Expr::Call(c) => {
                if let Some(t) = self.optional_select(c) {
                    return t;
                }
                if let Some(var) = as_bind(c) {
                    let init = self.check(&c.args[1]);
                    self.scopes.push((var.to_string(), init));
                    let t = self.check(&c.args[2]);
                    self.scopes.pop();
                    return t;
                }
                // `prefix.fn(...)` where `prefix` is no variable: a namespaced function.
                if let Some(IdedExpr {
                    expr: Expr::Ident(prefix),
                    ..
                }) = c.target.as_deref()
                    && self.lookup(prefix).is_none()
                    && self.is_namespace(prefix)
                {
                    let qualified = format!("{prefix}.{}", c.func_name);
                    let args: Vec<Ty<'a>> = c.args.iter().map(|a| self.check(a)).collect();
                    return self.function(&qualified, None, &args);
                }
                let target = c.target.as_deref().map(|t| self.check(t));
                let args: Vec<Ty<'a>> = c.args.iter().map(|a| self.check(a)).collect();
                self.call(&c.func_name, target, args)
            }
            Expr::Unspecified => self.problem("unspecified expression".into(), None),
        }
    }

    /// Whether `prefix` names a function namespace (`math.abs`): otherwise
    /// `x.f()` is a method call on an undeclared `x`, reported as `x` (cel-go).
    fn is_namespace(&self, prefix: &str) -> bool {
        const NAMESPACES: [&str; 9] = [
            "optional",
            "format",
            "sets",
            "lists",
            "math",
            "strings",
            "base64",
            "ip",
            "jsonpatch",
        ];
        NAMESPACES.contains(&prefix)
            || self
                .functions
                .iter()
                .any(|(n, _)| n.strip_prefix(prefix).is_some_and(|r| r.starts_with('.')))
    }

    fn select(&mut self, operand: &Ty<'a>, name: &str) -> Ty<'a> {
        match operand {
            Ty::Object(s, root) => match field_in(s, *root, name, self.keyword_fields) {
                Some(f) => Ty::of_schema(f.schema, f.schema.is_embedded_resource()),
                None => self.problem(
                    format!("undefined field '{name}'"),
                    Some(format!(".{name}")),
                ),
            },
            Ty::Map(v) => (**v).clone(),
            Ty::Dyn => Ty::Dyn,
            other => self.problem(
                format!("type '{}' does not support field selection", other.name()),
                Some(format!(".{name}")),
            ),
        }
    }

    fn call(&mut self, op: &str, target: Option<Ty<'a>>, args: Vec<Ty<'a>>) -> Ty<'a> {
        use Ty::*;
        let a = args.first().cloned().unwrap_or(Dyn);
        let b = args.get(1).cloned().unwrap_or(Dyn);
        let boolish = |t: &Ty<'a>| matches!(t, Bool | Dyn);
        match (op, args.len()) {
            ("_&&_" | "_||_", 2) => {
                if !boolish(&a) || !boolish(&b) {
                    self.no_overload(op, &[&a, &b]);
                }
                Bool
            }
            ("!_", 1) => {
                if !boolish(&a) {
                    self.no_overload(op, &[&a]);
                }
                Bool
            }
            ("@not_strictly_false", 1) => Bool,
            ("_?_:_", 3) => {
                if !boolish(&a) {
                    self.no_overload(op, &[&a, &b, &args[2]]);
                }
                unify(b, args[2].clone())
            }
            ("_==_" | "_!=_", 2) => {
                if !equatable(&a, &b) {
                    self.no_overload(op, &[&a, &b]);
                }
                Bool
            }
            ("_<_" | "_<=_" | "_>_" | "_>=_", 2) => {
                if !orderable(&a, &b) {
                    self.no_overload(op, &[&a, &b]);
                }
                Bool
            }
            ("@in", 2) => {
                if !matches!(b, List(_) | Map(_) | Dyn) {
                    self.no_overload(op, &[&a, &b]);
                }
                Bool
            }
            ("-_", 1) => match a {
                Int | Double | Dyn | Duration => a,
                _ => self.no_overload(op, &[&a]),
            },
            ("_+_" | "_-_" | "_*_" | "_/_" | "_%_", 2) => match arithmetic(op, &a, &b) {
                Some(t) => t,
                None => self.no_overload(op, &[&a, &b]),
            },
            ("_[_]" | "_[?_]", 2) => {
                // Indexing an optional indexes its value and stays optional.
                let (container, optional) = match &a {
                    Optional(inner) => ((**inner).clone(), true),
                    _ => (a.clone(), op == "_[?_]"),
                };
                let t = match (&container, &b) {
                    (List(e), Int | Uint | Dyn) => (**e).clone(),
                    (Map(v), String | Dyn) => (**v).clone(),
                    (Dyn, _) => Dyn,
                    _ => self.no_overload(op, &[&a, &b]),
                };
                if optional { Optional(Box::new(t)) } else { t }
            }
            ("_?._", 2) => Optional(Box::new(Dyn)),
            _ => self.function(op, target, &args),
        }
    }

    /// Library functions and methods.
    fn function(&mut self, name: &str, target: Option<Ty<'a>>, args: &[Ty<'a>]) -> Ty<'a> {
        use Ty::*;
        let recv = target.clone().unwrap_or(Dyn);
        let string_only = |t: &Ty<'a>| matches!(t, String | Dyn | Opaque);
        let list_only = |t: &Ty<'a>| matches!(t, List(_) | Dyn);
        let elem = match &recv {
            List(e) => (**e).clone(),
            _ => Dyn,
        };

        let declared = releases::declared(name, &self.env);
        let host_declared = || self.functions.iter().any(|(n, _)| n == name);
        if declared == Some(false) || (releases::host_only(name) && !host_declared()) {
            return self.undeclared(name);
        }
        match name {
            // Standard library.
            "size" => {
                let x = target.as_ref().or(args.first()).cloned().unwrap_or(Dyn);
                if !matches!(x, String | Bytes | List(_) | Map(_) | Dyn) {
                    return self.no_overload(name, &[&x]);
                }
                Int
            }
            "contains" | "startsWith" | "endsWith" | "matches" => {
                if target.is_some() && !string_only(&recv) {
                    return self.method_overload(name, &recv, args);
                }
                Bool
            }
            "int" => Int,
            "uint" => Uint,
            "double" => Double,
            "string" => String,
            "bytes" => Bytes,
            "bool" => Bool,
            // cel-go types `dyn(x)` as dyn whatever `x` is.
            "dyn" => Dyn,
            "type" => Type,
            "@crd.tick" => args.get(1).cloned().unwrap_or(Dyn),
            // What the two-variable comprehension and `sortBy` macros expand to.
            "cel.@mapInsert" => args.first().cloned().unwrap_or(Dyn),
            "@sortByAssociatedKeys" => {
                let keys = args.first().cloned().unwrap_or(Dyn);
                let sortable = match &keys {
                    List(k) => macros::sortable_key(k),
                    other => other.is_dyn(),
                };
                if !sortable || !list_only(&recv) {
                    return self.method_overload(name, &recv, args);
                }
                recv
            }
            "duration" => Duration,
            "timestamp" => Timestamp,
            "getFullYear" | "getMonth" | "getDayOfYear" | "getDayOfMonth" | "getDate"
            | "getDayOfWeek" | "getHours" | "getMinutes" | "getSeconds" | "getMilliseconds" => {
                if !matches!(recv, Timestamp | Duration | Dyn) {
                    return self.method_overload(name, &recv, args);
                }
                Int
            }
            // Kubernetes' lists library: only lists of comparable (summable) types.
            "max" | "min" | "sum" | "isSorted" if target.is_some() => {
                if !list_only(&recv) || !arguments::list_elements_fit(name, &elem) {
                    return self.method_overload(name, &recv, args);
                }
                if name == "isSorted" { Bool } else { elem }
            }
            "max" | "min" | "sum" => elem,
            "optional.none" => Optional(Box::new(Dyn)),
            "optional.of" | "optional.ofNonZeroValue" => {
                Optional(Box::new(args.first().cloned().unwrap_or(Dyn)))
            }
            "hasValue" => Bool,
            "value" | "orValue" => match recv {
                Optional(t) => *t,
                _ => Dyn,
            },
            "or" => recv,
            // Kubernetes strings library.
            "charAt" | "lowerAscii" | "upperAscii" | "replace" | "substring" | "trim"
            | "format" | "find" => {
                if !string_only(&recv) {
                    return self.method_overload(name, &recv, args);
                }
                String
            }
            "split" | "findAll" => {
                if !string_only(&recv) {
                    return self.method_overload(name, &recv, args);
                }
                List(Box::new(String))
            }
            "indexOf" | "lastIndexOf" => Int,
            "join" => {
                if !list_only(&recv) {
                    return self.method_overload(name, &recv, args);
                }
                String
            }
            "strings.quote" => String,
            // Lists libraries (Kubernetes' and cel-go's ext.Lists).
            "isSorted" => Bool,
            "includes" => Bool,
            "slice" | "distinct" | "reverse" => {
                if !list_only(&recv) {
                    return self.method_overload(name, &recv, args);
                }
                recv
            }
            "sort" => match &recv {
                List(e) if comparable(e) || e.is_dyn() => recv,
                Dyn => Dyn,
                _ => self.method_overload(name, &recv, args),
            },
            "flatten" => match (&recv, args.first()) {
                (List(e), None) => match &**e {
                    List(inner) => List(inner.clone()),
                    Dyn => List(Box::new(Dyn)),
                    _ => self.method_overload(name, &recv, args),
                },
                (List(_) | Dyn, Some(Int | Dyn)) | (Dyn, None) => List(Box::new(Dyn)),
                _ => self.method_overload(name, &recv, args),
            },
            "first" | "last" => {
                if !list_only(&recv) {
                    return self.method_overload(name, &recv, args);
                }
                Optional(Box::new(elem))
            }
            "lists.range" => List(Box::new(Int)),
            "sets.contains" | "sets.equivalent" | "sets.intersects" => Bool,
            // The validators take a string (`isSemver` also a bool: normalize).
            "isURL" | "isIP" | "isCIDR" | "isSemver" | "isQuantity"
                if target.is_none() && !arguments::validator_args(name, args) =>
            {
                let message = arguments::no_overload(name, args);
                self.problem(message, Some(format!("{name}(")));
                Bool
            }
            // Regex, URLs, IPs, semver, quantities, named formats.
            "isURL"
            | "isIP"
            | "isCIDR"
            | "isSemver"
            | "isQuantity"
            | "ip.isCanonical"
            | "isLoopback"
            | "isUnspecified"
            | "isLinkLocalMulticast"
            | "isLinkLocalUnicast"
            | "isGlobalUnicast"
            | "containsIP"
            | "containsCIDR"
            | "isGreaterThan"
            | "isLessThan"
            | "isInteger" => Bool,
            "url" | "ip" | "cidr" | "semver" | "quantity" | "masked" | "add" | "sub" => Opaque,
            "format.dns1123Label"
            | "format.dns1123Subdomain"
            | "format.dns1035Label"
            | "format.dns1035LabelPrefix"
            | "format.dns1123LabelPrefix"
            | "format.dns1123SubdomainPrefix"
            | "format.qualifiedName"
            | "format.labelValue"
            | "format.uri"
            | "format.uuid"
            | "format.byte"
            | "format.date"
            | "format.datetime" => Opaque,
            "format.named" => Optional(Box::new(Opaque)),
            "validate" => Optional(Box::new(List(Box::new(String)))),
            "getScheme" | "getHost" | "getHostname" | "getPort" | "getEscapedPath" => String,
            "getQuery" => Map(Box::new(List(Box::new(String)))),
            "family" | "prefixLength" | "major" | "minor" | "patch" | "compareTo" | "sign"
            | "asInteger" => Int,
            "asApproximateFloat" => Double,
            _ if self.functions.iter().any(|(n, _)| n == name) => self
                .functions
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, t)| t.clone())
                .unwrap_or(Dyn),
            _ => self.undeclared(name),
        }
    }

    /// An undeclared function: cel-go locates a call at its `(`.
    fn undeclared(&mut self, name: &str) -> Ty<'a> {
        self.problem(
            format!("undeclared reference to '{name}' (in container '')"),
            Some(format!("{}(", name.rsplit('.').next().unwrap_or(name))),
        )
    }

    fn method_overload(&mut self, name: &str, recv: &Ty<'a>, args: &[Ty<'a>]) -> Ty<'a> {
        let names: Vec<String> = args.iter().map(|t| t.name()).collect();
        self.problem(
            format!(
                "found no matching overload for '{name}' applied to '{}.({})'",
                recv.name(),
                names.join(", ")
            ),
            Some(format!(".{name}(")),
        )
    }
}
