//! Static cost estimation of a rule, as the API server does it when a CRD is
//! written (cel-go's `checker.Cost` with Kubernetes' library cost estimator and
//! the schema's size bounds from [`crate::cel::cost::sizes`]).
//!
//! Every sub-expression gets a cost range and, where it has one, a size range
//! (characters of a string, items of a list, entries of a map). Sizes come from
//! literals, from what an operation computes (`a + b`, `split`, comprehensions)
//! or from the schema node a path (`self.spec.items`, a loop variable over it)
//! reaches. Loops cost their range's size times their body. The unit costs are
//! cel-go's: 1 per identifier, selection and call, 10 per list literal, 30 per
//! map literal, 0.1 per character traversed, 0.25 per regex character.
//! Presence tests (`has()`) cost nothing, as in the Kubernetes environments.
//!
//! Overloads are picked from the types the checker inferred; where a type is
//! dynamic, every overload that could apply is costed and the ranges are united,
//! as cel-go does for a call with several candidate overloads.

use std::collections::HashMap;

use kube_cel::cel::common::ast::{
    CallExpr, ComprehensionExpr, EntryExpr, Expr, IdedExpr, LiteralValue,
};

use crate::cel::check::Ty;
use crate::cel::cost::sizes::{Place, Step};
use crate::cel::environment::ast::as_bind;

mod kinds;
mod library;
mod lists;
mod macros;
#[cfg(test)]
mod tests;

const STRING_TRAVERSAL: f64 = 0.1;
const REGEX_CHAR: f64 = 0.25;

/// A range of costs or sizes (cel-go's `CostEstimate` / `SizeEstimate`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Range {
    pub(crate) min: u64,
    pub(crate) max: u64,
}

impl Range {
    const UNKNOWN: Range = Range {
        min: 0,
        max: u64::MAX,
    };

    fn fixed(n: u64) -> Range {
        Range { min: n, max: n }
    }

    fn add(self, o: Range) -> Range {
        Range {
            min: self.min.saturating_add(o.min),
            max: self.max.saturating_add(o.max),
        }
    }

    fn mul(self, o: Range) -> Range {
        Range {
            min: self.min.saturating_mul(o.min),
            max: self.max.saturating_mul(o.max),
        }
    }

    fn factor(self, f: f64) -> Range {
        Range {
            min: by_factor(self.min, f),
            max: by_factor(self.max, f),
        }
    }

    fn union(self, o: Range) -> Range {
        Range {
            min: self.min.min(o.min),
            max: self.max.max(o.max),
        }
    }
}

/// `x * f` rounded up, saturating.
fn by_factor(x: u64, f: f64) -> u64 {
    let v = (x as f64 * f).ceil();
    if v >= 18_446_744_073_709_551_616.0 {
        u64::MAX
    } else {
        v as u64
    }
}

/// Sizes of the keys and values of a list or map built by the expression.
#[derive(Clone, Copy, Debug)]
struct Entry {
    list: bool,
    key: Range,
    val: Range,
}

impl Entry {
    fn union(a: Option<Entry>, b: Option<Entry>) -> Option<Entry> {
        let (a, b) = (a?, b?);
        Some(Entry {
            list: a.list,
            key: a.key.union(b.key),
            val: a.val.union(b.val),
        })
    }
}

/// A path from a variable: `None` when the expression is not data reachable
/// from a variable. The variable itself is not recorded: like the API server,
/// every path is resolved from the rule's `self` node.
type DataPath = Option<Vec<Step>>;

struct Local {
    name: String,
    path: DataPath,
    size: Option<Range>,
    entry: Option<Entry>,
    kind: Option<kinds::Lib>,
}

/// The estimator for one expression.
pub(crate) struct Estimator<'a, 't> {
    root: Place<'a>,
    types: &'t HashMap<u64, Ty<'a>>,
    locals: Vec<Local>,
    paths: HashMap<u64, Vec<Step>>,
    sizes: HashMap<u64, Range>,
    entries: HashMap<u64, Entry>,
    kinds: HashMap<u64, kinds::Lib>,
    /// The server release (minor of 1.x) whose estimator is followed.
    release: u32,
}

/// The estimated cost range of `e`, whose sub-expression types are `types` and
/// whose `self` is at `root`, as a server of `release` (minor of 1.x) estimates
/// it: the estimator is the server's own code, whatever environment the
/// expression is compiled in.
pub(crate) fn estimate<'a>(
    e: &IdedExpr,
    root: Place<'a>,
    types: &HashMap<u64, Ty<'a>>,
    release: u32,
) -> Range {
    let mut est = Estimator {
        root,
        types,
        locals: Vec::new(),
        paths: HashMap::new(),
        sizes: HashMap::new(),
        entries: HashMap::new(),
        kinds: HashMap::new(),
        release,
    };
    est.cost(e)
}

/// The operation a call resolves to, for costing.
#[derive(Clone, Copy, PartialEq)]
enum Op {
    Plain,
    Equality,
    StringCompare,
    AddString,
    AddList,
    InList,
    Contains,
    Matches,
    Prefix,
    Format,
    StringToBytes,
    BytesToString,
    Quote,
}

impl<'a> Estimator<'a, '_> {
    fn ty(&self, e: &IdedExpr) -> Ty<'a> {
        self.types.get(&e.id).cloned().unwrap_or(Ty::Dyn)
    }

    fn local(&self, name: &str) -> Option<&Local> {
        self.locals.iter().rev().find(|l| l.name == name)
    }

    fn path(&self, e: &IdedExpr) -> DataPath {
        if let Expr::Ident(name) = &e.expr
            && let Some(l) = self.local(name)
        {
            return l.path.clone();
        }
        self.paths.get(&e.id).cloned()
    }

    /// `computeSize`.
    fn size(&self, e: &IdedExpr) -> Option<Range> {
        if let Some(s) = self.sizes.get(&e.id) {
            return Some(*s);
        }
        if let Some(s) = literal_size(e) {
            return Some(s);
        }
        if let Some(steps) = self.paths.get(&e.id)
            && let Some(max) = self.root.follow(steps).and_then(Place::max_elements)
        {
            return Some(Range { min: 0, max });
        }
        if is_scalar(&self.ty(e)) {
            return Some(Range::fixed(1));
        }
        if let Expr::Ident(name) = &e.expr {
            return self.local(name).and_then(|l| l.size);
        }
        None
    }

    fn size_or_unknown(&self, e: &IdedExpr) -> Range {
        self.size(e).unwrap_or(Range::UNKNOWN)
    }

    /// The size the schema gives to `path` (for library estimates that look at
    /// the items of a list).
    fn place_size(&self, path: &DataPath) -> Range {
        path.as_ref()
            .and_then(|steps| self.root.follow(steps))
            .and_then(Place::max_elements)
            .map_or(Range::UNKNOWN, |max| Range { min: 0, max })
    }

    fn entry(&self, e: &IdedExpr) -> Option<Entry> {
        if let Some(en) = self.entries.get(&e.id) {
            return Some(*en);
        }
        if let Expr::Ident(name) = &e.expr {
            return self.local(name).and_then(|l| l.entry);
        }
        None
    }

    fn set_path(&mut self, e: &IdedExpr, base: DataPath, step: Step) {
        self.paths.insert(e.id, extend(base, step));
    }

    fn cost(&mut self, e: &IdedExpr) -> Range {
        match &e.expr {
            Expr::Literal(_) | Expr::Unspecified => Range::default(),
            Expr::Ident(name) => {
                let path = match self.local(name) {
                    Some(l) => l.path.clone(),
                    None => Some(Vec::new()),
                };
                if let Some(p) = path {
                    self.paths.insert(e.id, p);
                }
                Range::fixed(1)
            }
            Expr::Select(s) => {
                let operand = self.cost(&s.operand);
                if s.test {
                    return operand;
                }
                let extra = match self.ty(&s.operand) {
                    Ty::Map(_) | Ty::Object(..) => 1,
                    _ => 0,
                };
                let base = self.path(&s.operand);
                self.set_path(e, base, Step::Field(s.field.clone()));
                operand.add(Range::fixed(extra))
            }
            Expr::List(l) => {
                let mut sum = Range::fixed(10);
                let mut item = if l.elements.is_empty() {
                    Range::default()
                } else {
                    Range {
                        min: u64::MAX,
                        max: 0,
                    }
                };
                for x in &l.elements {
                    sum = sum.add(self.cost(x));
                    item = item.union(self.size_or_unknown(x));
                }
                self.entries.insert(
                    e.id,
                    Entry {
                        list: true,
                        key: Range::fixed(1),
                        val: item,
                    },
                );
                sum
            }
            Expr::Map(m) => {
                let mut sum = Range::fixed(30);
                let empty = Range::default();
                let start = Range {
                    min: u64::MAX,
                    max: 0,
                };
                let (mut key, mut val) = if m.entries.is_empty() {
                    (empty, empty)
                } else {
                    (start, start)
                };
                for entry in &m.entries {
                    if let EntryExpr::MapEntry(me) = &entry.expr {
                        sum = sum.add(self.cost(&me.key)).add(self.cost(&me.value));
                        key = key.union(self.size_or_unknown(&me.key));
                        val = val.union(self.size_or_unknown(&me.value));
                    }
                }
                self.entries.insert(
                    e.id,
                    Entry {
                        list: false,
                        key,
                        val,
                    },
                );
                sum
            }
            Expr::Struct(s) => {
                let mut sum = Range::fixed(40);
                for entry in &s.entries {
                    if let EntryExpr::StructField(f) = &entry.expr {
                        sum = sum.add(self.cost(&f.value));
                    }
                }
                sum
            }
            Expr::Comprehension(c) => self.comprehension(e, c),
            Expr::Call(c) => self.call(e, c),
        }
    }

    fn comprehension(&mut self, e: &IdedExpr, c: &ComprehensionExpr) -> Range {
        let mut sum = self.cost(&c.iter_range).add(self.cost(&c.accu_init));
        self.locals.push(Local {
            name: c.accu_var.clone(),
            path: self.path(&c.accu_init),
            size: self.size(&c.accu_init),
            entry: self.entry(&c.accu_init),
            kind: self.kind(&c.accu_init),
        });
        let range_entry = self.entry(&c.iter_range);
        let is_list = match range_entry {
            Some(en) => en.list,
            None => matches!(self.ty(&c.iter_range), Ty::List(_)),
        };
        let (size, step) = if is_list {
            (range_entry.map(|en| en.val), Step::Items)
        } else {
            (range_entry.map(|en| en.key), Step::Keys)
        };
        let path = extend(self.path(&c.iter_range), step);
        let vars = match &c.iter_var2 {
            None => {
                self.locals.push(Local {
                    name: c.iter_var.clone(),
                    path: Some(path),
                    size,
                    entry: None,
                    kind: self.item_kind(&c.iter_range).filter(|_| is_list),
                });
                1
            }
            Some(second) => self.push_two_vars(c, second, is_list, range_entry),
        };
        let loop_cost = self.cost(&c.loop_cond);
        let step_cost = self.cost(&c.loop_step);
        self.locals.truncate(self.locals.len() - vars);
        sum = sum.add(self.cost(&c.result));
        self.locals.pop();
        let count = self.size_or_unknown(&c.iter_range);
        sum = sum.add(count.mul(step_cost.add(loop_cost)));
        match &c.accu_init.expr {
            Expr::Literal(_) => {
                if let Some(s) = self.size(&c.accu_init) {
                    self.sizes.insert(e.id, s);
                }
            }
            Expr::List(_) | Expr::Map(_) => {
                self.sizes.insert(e.id, count);
                if let Some(en) = self.entry(&c.loop_step) {
                    self.entries.insert(e.id, en);
                }
            }
            _ => {}
        }
        sum
    }

    fn call(&mut self, e: &IdedExpr, c: &CallExpr) -> Range {
        if let Some(var) = as_bind(c) {
            // `cel.bind(v, init, body)`: an empty loop whose accumulator is `v`.
            let mut sum = Range::fixed(10).add(self.cost(&c.args[1]));
            self.locals.push(Local {
                name: var.to_string(),
                path: self.path(&c.args[1]),
                size: self.size(&c.args[1]),
                entry: self.entry(&c.args[1]),
                kind: self.kind(&c.args[1]),
            });
            sum = sum.add(self.cost(&c.args[2]));
            self.locals.pop();
            self.copy_sizes(e, &c.args[2]);
            return sum;
        }
        if c.func_name == "dyn" && c.target.is_none() && c.args.len() == 1 {
            let cost = self.cost(&c.args[0]).add(Range::fixed(1));
            self.copy_sizes(e, &c.args[0]);
            return cost;
        }
        let arg_costs: Vec<Range> = c.args.iter().map(|a| self.cost(a)).collect();
        let arg_sum = arg_costs.iter().fold(Range::default(), |s, c| s.add(*c));
        // `ns.fn(...)` where `ns` is no variable is a namespaced global function.
        let (name, target) = match c.target.as_deref() {
            Some(IdedExpr {
                expr: Expr::Ident(ns),
                ..
            }) if self.local(ns).is_none() && !matches!(ns.as_str(), "self" | "oldSelf") => {
                (format!("{ns}.{}", c.func_name), None)
            }
            t => (c.func_name.clone(), t),
        };
        let mut sum = Range::default();
        if let Some(t) = target {
            sum = self.cost(t);
        }
        if let Some(k) = self.call_kind(&name, target, &c.args) {
            self.kinds.insert(e.id, k);
        }
        let (fn_cost, result) = match name.as_str() {
            "_[_]" if c.args.len() == 2 => {
                let is_list = matches!(self.ty(&c.args[0]), Ty::List(_));
                let base = self.path(&c.args[0]);
                let entry = self.entry(&c.args[0]);
                let step = if is_list { Step::Items } else { Step::Values };
                self.set_path(e, base, step);
                let size = entry.map(|en| en.val).or_else(|| self.size(e));
                (Range::fixed(1).add(arg_sum), size)
            }
            "_&&_" | "_||_" if arg_costs.len() == 2 => (
                Range {
                    min: arg_costs[0].min,
                    max: arg_costs[0].add(arg_costs[1]).max,
                },
                None,
            ),
            "_?_:_" if arg_costs.len() == 3 => {
                let size = self
                    .size_or_unknown(&c.args[1])
                    .union(self.size_or_unknown(&c.args[2]));
                if let Some(en) = Entry::union(self.entry(&c.args[1]), self.entry(&c.args[2])) {
                    self.entries.insert(e.id, en);
                }
                (
                    arg_costs[0].add(arg_costs[1].union(arg_costs[2])),
                    Some(size),
                )
            }
            "@sortByAssociatedKeys" if c.args.len() == 1 => self.sort_by(&c.args[0], arg_sum),
            _ => match self
                .library(&name, target, &c.args)
                .or_else(|| self.ext_lists(&name, target, &c.args))
            {
                Some((cost, size)) => (cost.add(arg_sum), size),
                None => self.standard(e, &name, target, &c.args, arg_sum),
            },
        };
        if let Some(s) = result.or_else(|| self.size(e)) {
            self.sizes.insert(e.id, s);
        }
        sum.add(fn_cost)
    }

    fn copy_sizes(&mut self, dst: &IdedExpr, src: &IdedExpr) {
        if let Some(s) = self.size(src) {
            self.sizes.insert(dst.id, s);
        }
        if let Some(en) = self.entry(src) {
            self.entries.insert(dst.id, en);
        }
    }

    /// cel-go's own estimates, over every overload the argument types allow.
    fn standard(
        &mut self,
        e: &IdedExpr,
        name: &str,
        target: Option<&IdedExpr>,
        args: &[IdedExpr],
        arg_sum: Range,
    ) -> (Range, Option<Range>) {
        let mut cost: Option<Range> = None;
        let mut size: Option<Range> = None;
        for op in self.overloads(name, target, args) {
            let (c, s) = self.overload_cost(e, op, target, args, arg_sum);
            cost = Some(cost.map_or(c, |x| x.union(c)));
            if let Some(s) = s {
                size = Some(size.map_or(s, |x| x.union(s)));
            }
        }
        (cost.unwrap_or(Range::fixed(1).add(arg_sum)), size)
    }

    fn overloads(&self, name: &str, target: Option<&IdedExpr>, args: &[IdedExpr]) -> Vec<Op> {
        let tys: Vec<Ty<'a>> = args.iter().map(|a| self.ty(a)).collect();
        let recv = target.map(|t| self.ty(t));
        let is = |t: &Ty<'a>, f: fn(&Ty<'a>) -> bool| t.is_dyn() || f(t);
        let string = |t: &Ty<'a>| matches!(t, Ty::String);
        let bytes = |t: &Ty<'a>| matches!(t, Ty::Bytes);
        let list = |t: &Ty<'a>| matches!(t, Ty::List(_));
        let map = |t: &Ty<'a>| matches!(t, Ty::Map(_) | Ty::Object(..));
        let other = |t: &Ty<'a>| !matches!(t, Ty::String | Ty::Bytes | Ty::List(_));
        let mut ops = Vec::new();
        let two = tys.len() == 2;
        match (name, target.is_some()) {
            ("_==_" | "_!=_", false) if two => ops.push(Op::Equality),
            ("_<_" | "_<=_" | "_>_" | "_>=_", false) if two => {
                let (a, b) = (&tys[0], &tys[1]);
                if (is(a, string) && is(b, string)) || (is(a, bytes) && is(b, bytes)) {
                    ops.push(Op::StringCompare);
                }
                if is(a, other) && is(b, other) {
                    ops.push(Op::Plain);
                }
            }
            ("_+_", false) if two => {
                let (a, b) = (&tys[0], &tys[1]);
                if (is(a, string) && is(b, string)) || (is(a, bytes) && is(b, bytes)) {
                    ops.push(Op::AddString);
                }
                if is(a, list) && is(b, list) {
                    ops.push(Op::AddList);
                }
                if is(a, other) && is(b, other) {
                    ops.push(Op::Plain);
                }
            }
            ("@in", false) if two => {
                if is(&tys[1], list) {
                    ops.push(Op::InList);
                }
                if is(&tys[1], map) {
                    ops.push(Op::Plain);
                }
            }
            ("contains", true) if recv.as_ref().is_some_and(|r| is(r, string)) => {
                ops.push(Op::Contains)
            }
            ("matches", true) => ops.push(Op::Matches),
            ("startsWith" | "endsWith", true) => ops.push(Op::Prefix),
            ("format", true) if recv.as_ref().is_some_and(|r| is(r, string)) => {
                ops.push(Op::Format)
            }
            ("bytes", false) if tys.len() == 1 => {
                if is(&tys[0], string) {
                    ops.push(Op::StringToBytes);
                }
                if !matches!(tys[0], Ty::String) {
                    ops.push(Op::Plain);
                }
            }
            ("string", false) if tys.len() == 1 => {
                if is(&tys[0], bytes) {
                    ops.push(Op::BytesToString);
                }
                if !matches!(tys[0], Ty::Bytes) {
                    ops.push(Op::Plain);
                }
            }
            ("strings.quote", false) => ops.push(Op::Quote),
            _ => {}
        }
        if ops.is_empty() {
            ops.push(Op::Plain);
        }
        ops
    }

    fn overload_cost(
        &mut self,
        e: &IdedExpr,
        op: Op,
        target: Option<&IdedExpr>,
        args: &[IdedExpr],
        arg_sum: Range,
    ) -> (Range, Option<Range>) {
        let size = |i: usize| self.size_or_unknown(&args[i]);
        let recv = || target.map_or(Range::UNKNOWN, |t| self.size_or_unknown(t));
        match op {
            Op::Plain => (Range::fixed(1).add(arg_sum), None),
            Op::Equality | Op::StringCompare => {
                let smallest = size(0).max.min(size(1).max);
                let r = Range {
                    min: u64::from(smallest > 0),
                    max: smallest,
                };
                (r.factor(STRING_TRAVERSAL).add(arg_sum), None)
            }
            Op::AddString | Op::AddList => {
                let result = size(0).add(size(1));
                if let Some(en) = Entry::union(self.entry(&args[0]), self.entry(&args[1])) {
                    self.entries.insert(e.id, en);
                }
                let cost = if op == Op::AddList {
                    Range::fixed(1)
                } else {
                    result.factor(STRING_TRAVERSAL)
                };
                (cost.add(arg_sum), Some(result))
            }
            Op::InList => (size(1).add(arg_sum), None),
            Op::Contains if args.len() == 1 => {
                let c = recv()
                    .factor(STRING_TRAVERSAL)
                    .mul(size(0).factor(STRING_TRAVERSAL));
                (c.add(arg_sum), None)
            }
            Op::Matches if args.len() == 1 => {
                let s = recv().add(Range::fixed(1)).factor(STRING_TRAVERSAL);
                (s.mul(size(0).factor(REGEX_CHAR)).add(arg_sum), None)
            }
            Op::Prefix if args.len() == 1 => (size(0).factor(STRING_TRAVERSAL).add(arg_sum), None),
            Op::Format => (recv().factor(STRING_TRAVERSAL).add(arg_sum), None),
            Op::StringToBytes | Op::BytesToString | Op::Quote if args.len() == 1 => {
                let s = size(0);
                let result = match op {
                    Op::StringToBytes => Range {
                        min: s.min,
                        max: s.max.saturating_mul(4),
                    },
                    Op::BytesToString => Range {
                        min: s.min / 4,
                        max: s.max,
                    },
                    _ => Range {
                        min: s.min.saturating_add(2),
                        max: s.max.saturating_mul(2).saturating_add(2),
                    },
                };
                (s.factor(STRING_TRAVERSAL).add(arg_sum), Some(result))
            }
            _ => (Range::fixed(1).add(arg_sum), None),
        }
    }
}

/// `base` followed by `step`. Without a base the step stands where cel-go puts
/// the variable name, which its size estimator skips: such paths resolve from
/// `self`, as upstream's do.
fn extend(base: DataPath, step: Step) -> Vec<Step> {
    match base {
        Some(mut steps) => {
            steps.push(step);
            steps
        }
        None => Vec::new(),
    }
}

/// Sizes of literals and of list and map literals.
fn literal_size(e: &IdedExpr) -> Option<Range> {
    let n = match &e.expr {
        Expr::Literal(LiteralValue::String(s)) => s.chars().count() as u64,
        Expr::Literal(LiteralValue::Bytes(b)) => b.len() as u64,
        Expr::Literal(_) => 1,
        Expr::List(l) => l.elements.len() as u64,
        Expr::Map(m) => m.entries.len() as u64,
        _ => return None,
    };
    Some(Range::fixed(n))
}

/// Types whose size is fixed (`isScalar`).
fn is_scalar(t: &Ty<'_>) -> bool {
    match t {
        Ty::Bool | Ty::Int | Ty::Uint | Ty::Double | Ty::Timestamp | Ty::Duration => true,
        Ty::Optional(inner) => is_scalar(inner),
        _ => false,
    }
}
