//! Which module of a crate refers to which, and the cycles among the children of
//! each module.
//!
//! A reference is a path in code: `super::x`, `self::x`, `crate::a::b`, `$crate::` in a
//! macro, a path starting with a child module or an imported name, and every leaf of a
//! `use` tree (`crate::{a, b::{c, d}}`). A path is followed through the modules it
//! names and through `use` imports on the way (`super::Node` where the parent has
//! `use compiled::Node` is a reference to `compiled`), so a re-export does not hide a
//! dependency. Comments, doc comments and string literals are not code and never
//! count; paths inside macro calls are read from their tokens (but not inside
//! `quote!`, whose paths belong to the generated code's crate).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use proc_macro2::{Spacing, TokenStream, TokenTree};
use syn::visit::Visit;

use crate::source_tree::{Module, ModuleTree};

/// One path written in a module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    /// The module it is written in.
    pub from: usize,
    /// Its segments (`crate`, `super`, `self` kept as written).
    pub segments: Vec<String>,
}

impl Reference {
    /// `super::a::b`, as written.
    pub fn text(&self) -> String {
        self.segments.join("::")
    }
}

/// Every reference of every module, and each module's imports.
pub struct References {
    /// All references, in module order.
    pub all: Vec<Reference>,
    /// Per module: imported name → path as written in that module's `use`.
    imports: Vec<BTreeMap<String, Vec<String>>>,
}

/// Collects the references and imports of `tree`.
pub fn references(tree: &ModuleTree) -> References {
    let mut all = Vec::new();
    let mut imports = Vec::new();
    for (index, module) in tree.modules.iter().enumerate() {
        let mut collector = Collector {
            from: index,
            out: Vec::new(),
            imports: BTreeMap::new(),
            depth: 0,
        };
        for item in &module.items {
            collector.visit_item(item);
        }
        all.extend(collector.out);
        imports.push(collector.imports);
    }
    References { all, imports }
}

struct Collector {
    from: usize,
    out: Vec<Reference>,
    imports: BTreeMap<String, Vec<String>>,
    /// Nesting below module level: imports inside fn bodies are references only.
    depth: usize,
}

impl Collector {
    fn push(&mut self, segments: Vec<String>) {
        if !segments.is_empty() {
            self.out.push(Reference {
                from: self.from,
                segments,
            });
        }
    }
}

impl<'ast> Visit<'ast> for Collector {
    fn visit_item_mod(&mut self, _: &'ast syn::ItemMod) {
        // A child module is a module of its own.
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        if item.leading_colon.is_some() {
            return; // `::extern_crate::...`
        }
        let mut leaves = Vec::new();
        flatten_use(&item.tree, Vec::new(), &mut leaves);
        for leaf in leaves {
            if let (Some(name), 0) = (leaf.name, self.depth) {
                self.imports.insert(name, leaf.path.clone());
            }
            self.push(leaf.path);
        }
    }

    fn visit_block(&mut self, block: &'ast syn::Block) {
        self.depth += 1;
        syn::visit::visit_block(self, block);
        self.depth -= 1;
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.leading_colon.is_none() {
            self.push(path.segments.iter().map(|s| s.ident.to_string()).collect());
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.visit_path(&mac.path);
        let name = mac.path.segments.last().map(|s| s.ident.to_string());
        if matches!(
            name.as_deref(),
            Some("quote" | "quote_spanned" | "parse_quote" | "parse_quote_spanned")
        ) {
            return;
        }
        for path in token_paths(mac.tokens.clone()) {
            self.push(path);
        }
    }
}

/// One leaf of a `use` tree: its full path and the name it binds (none for a glob
/// or `as _`).
struct UseLeaf {
    path: Vec<String>,
    name: Option<String>,
}

fn flatten_use(tree: &syn::UseTree, prefix: Vec<String>, out: &mut Vec<UseLeaf>) {
    let with = |ident: &syn::Ident| {
        let mut p = prefix.clone();
        if ident != "self" {
            p.push(ident.to_string());
        }
        p
    };
    match tree {
        syn::UseTree::Path(p) => flatten_use(&p.tree, with(&p.ident), out),
        syn::UseTree::Name(n) => {
            let path = with(&n.ident);
            let name = path.last().cloned();
            out.push(UseLeaf { path, name });
        }
        syn::UseTree::Rename(r) => out.push(UseLeaf {
            path: with(&r.ident),
            name: Some(r.rename.to_string()).filter(|n| n != "_"),
        }),
        syn::UseTree::Glob(_) => out.push(UseLeaf {
            path: prefix,
            name: None,
        }),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                flatten_use(t, prefix.clone(), out);
            }
        }
    }
}

/// The `a::b::c` paths in a macro's tokens (`$crate::x` reads as `crate::x`); a path
/// after `::` (an absolute one) is skipped. Literals are tokens of their own, so text
/// in strings never reads as a path.
fn token_paths(tokens: TokenStream) -> Vec<Vec<String>> {
    let mut flat = Vec::new();
    flatten_tokens(tokens, &mut flat);
    let is_colons = |i: usize| {
        matches!((flat.get(i), flat.get(i + 1)),
            (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
                if a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':')
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < flat.len() {
        let after_colons = i >= 2 && is_colons(i - 2);
        if let (TokenTree::Ident(first), false) = (&flat[i], after_colons) {
            let mut path = vec![first.to_string()];
            let mut j = i + 1;
            while is_colons(j) {
                let Some(TokenTree::Ident(next)) = flat.get(j + 2) else {
                    break;
                };
                path.push(next.to_string());
                j += 3;
            }
            if path.len() > 1 {
                out.push(path);
            }
            i = j.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}

/// Tokens with groups opened; a group's delimiters are dropped, which keeps two
/// paths on either side of a bracket apart because neither side is `::`.
fn flatten_tokens(tokens: TokenStream, out: &mut Vec<TokenTree>) {
    for t in tokens {
        match t {
            TokenTree::Group(g) => {
                // A separator keeps `a` `(`...`)` `::b` from reading as one path.
                out.push(TokenTree::Punct(proc_macro2::Punct::new(
                    ',',
                    Spacing::Alone,
                )));
                flatten_tokens(g.stream(), out);
                out.push(TokenTree::Punct(proc_macro2::Punct::new(
                    ',',
                    Spacing::Alone,
                )));
            }
            other => out.push(other),
        }
    }
}

/// Resolves references to the module they lead into.
pub struct Resolver<'a> {
    tree: &'a ModuleTree,
    refs: &'a References,
}

impl<'a> Resolver<'a> {
    /// A resolver over `tree` with its collected references.
    pub fn new(tree: &'a ModuleTree, refs: &'a References) -> Self {
        Resolver { tree, refs }
    }

    /// The deepest module of this crate that `segments`, written in module `from`,
    /// leads into, or `None` when it is not a path into this crate (a local, an
    /// extern crate, a glob-imported name).
    pub fn resolve(&self, from: usize, segments: &[String]) -> Option<usize> {
        self.resolve_in(from, segments, &mut Vec::new())
    }

    /// `expanded` holds the imports followed so far: each is followed once, so
    /// imports that lead into each other end instead of looping.
    fn resolve_in(
        &self,
        from: usize,
        segments: &[String],
        expanded: &mut Vec<(usize, String)>,
    ) -> Option<usize> {
        let modules = &self.tree.modules;
        let (mut at, mut rest) = match segments.first()?.as_str() {
            "crate" => (0, &segments[1..]),
            "self" => (from, &segments[1..]),
            "super" => (from, segments),
            first => {
                let known = modules[from].children.contains_key(first)
                    || self.refs.imports[from].contains_key(first);
                if !known {
                    return None;
                }
                (from, segments)
            }
        };
        while rest.first().is_some_and(|s| s == "super") {
            at = modules[at].parent?;
            rest = &rest[1..];
        }
        for segment in rest {
            if let Some(&child) = modules[at].children.get(segment) {
                at = child;
                continue;
            }
            let Some(target) = self.refs.imports[at].get(segment) else {
                break;
            };
            let key = (at, segment.clone());
            if expanded.contains(&key) || target.as_slice() == [segment.clone()] {
                break; // a loop, or `use name;` of an extern crate
            }
            expanded.push(key);
            // Through the import; what follows is looked up from where it leads.
            match self.resolve_in(at, target, expanded) {
                Some(m) => at = m,
                None => break,
            }
        }
        Some(at)
    }
}

/// An edge between two children of one module, with the references that made it.
#[derive(Clone, Debug, Default)]
pub struct Evidence {
    /// `(file, path as written)` of each reference, in source order.
    pub sites: Vec<(String, String)>,
}

/// For each module with children: child name → child name → why.
pub type LevelGraphs = BTreeMap<Vec<String>, BTreeMap<String, BTreeMap<String, Evidence>>>;

/// The graph among the children of every module: an edge `a → b` at level `p` when
/// code anywhere inside `p::a` refers into `p::b`.
pub fn level_graphs(tree: &ModuleTree, root_dir: &std::path::Path) -> LevelGraphs {
    let refs = references(tree);
    let resolver = Resolver::new(tree, &refs);
    let mut graphs = LevelGraphs::new();
    for module in tree.modules.iter().filter(|m| !m.children.is_empty()) {
        let level = graphs.entry(module.path.clone()).or_default();
        for name in module.children.keys() {
            level.entry(name.clone()).or_default();
        }
    }
    for r in &refs.all {
        let Some(target) = resolver.resolve(r.from, &r.segments) else {
            continue;
        };
        let from: &Module = &tree.modules[r.from];
        let to: &Module = &tree.modules[target];
        let common = from
            .path
            .iter()
            .zip(&to.path)
            .take_while(|(a, b)| a == b)
            .count();
        if common == from.path.len() || common == to.path.len() {
            continue; // into an ancestor or a descendant: not between siblings
        }
        let file = from
            .file
            .strip_prefix(root_dir)
            .unwrap_or(&from.file)
            .display()
            .to_string();
        graphs
            .entry(from.path[..common].to_vec())
            .or_default()
            .entry(from.path[common].clone())
            .or_default()
            .entry(to.path[common].clone())
            .or_default()
            .sites
            .push((file, r.text()));
    }
    graphs
}

/// One cycle for each strongly connected group of more than one node, each as a
/// closed path (`[a, b, a]`) starting at its smallest name; sorted.
pub fn cycles(graph: &BTreeMap<String, BTreeMap<String, Evidence>>) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = components(graph)
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| shortest_cycle(graph, &c))
        .collect();
    out.sort();
    out
}

/// Tarjan's strongly connected components.
fn components(graph: &BTreeMap<String, BTreeMap<String, Evidence>>) -> Vec<BTreeSet<String>> {
    struct State<'g> {
        graph: &'g BTreeMap<String, BTreeMap<String, Evidence>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        out: Vec<BTreeSet<String>>,
    }
    fn connect<'g>(s: &mut State<'g>, v: &'g str) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.graph.get(v).into_iter().flat_map(|e| e.keys()) {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                connect(s, w);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = BTreeSet::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.insert(w.to_string());
                if w == v {
                    break;
                }
            }
            s.out.push(component);
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            connect(&mut s, v);
        }
    }
    s.out
}

/// The shortest closed path from the component's smallest node back to itself.
fn shortest_cycle(
    graph: &BTreeMap<String, BTreeMap<String, Evidence>>,
    component: &BTreeSet<String>,
) -> Vec<String> {
    let start = component.iter().next().expect("non-empty component");
    let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = VecDeque::from([start.as_str()]);
    while let Some(v) = queue.pop_front() {
        for w in graph[v].keys().filter(|w| component.contains(*w)) {
            if w == start {
                let mut path = vec![start.clone()];
                let mut at = v;
                while at != start {
                    path.push(at.to_string());
                    at = came_from[at];
                }
                path.push(start.clone());
                path.reverse();
                return path;
            }
            if !came_from.contains_key(w.as_str()) {
                came_from.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    unreachable!("a strongly connected component of two or more nodes has a cycle")
}

/// Every cycle of every level of `tree`, described for a person: the modules in
/// order, then the reference behind each step.
pub fn cycle_report(tree: &ModuleTree, root_dir: &std::path::Path) -> Vec<String> {
    let graphs = level_graphs(tree, root_dir);
    let mut out = Vec::new();
    for (level, graph) in &graphs {
        for cycle in cycles(graph) {
            let place = std::iter::once("crate")
                .chain(level.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join("::");
            let mut text = format!("in `{place}`: {}", cycle.join(" -> "));
            for step in cycle.windows(2) {
                let sites = &graph[&step[0]][&step[1]].sites;
                let (file, path) = &sites[0];
                let more = match sites.len() {
                    1 => String::new(),
                    n => format!(" (and {} more)", n - 1),
                };
                text.push_str(&format!(
                    "\n    {} -> {}: {file} refers to `{path}`{more}",
                    step[0], step[1]
                ));
            }
            out.push(text);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::source_tree::{load, sources};

    fn report(files: &[(&str, &str)]) -> Vec<String> {
        let tree = load(Path::new("s/lib.rs"), &sources(files)).unwrap();
        cycle_report(&tree, Path::new("s"))
            .into_iter()
            .map(|r| r.lines().next().unwrap().to_string())
            .collect()
    }

    #[test]
    fn a_cycle_through_crate_paths_at_a_nested_level() {
        let got = report(&[
            ("s/lib.rs", "mod engine;"),
            ("s/engine/mod.rs", "mod compiled; mod validate;"),
            (
                "s/engine/compiled.rs",
                "fn f() { crate::engine::validate::numbers::g(); }",
            ),
            ("s/engine/validate/mod.rs", "mod numbers;"),
            (
                "s/engine/validate/numbers.rs",
                "use crate::engine::compiled::Node;",
            ),
        ]);
        assert_eq!(
            got,
            ["in `crate::engine`: compiled -> validate -> compiled"]
        );
    }

    #[test]
    fn a_cycle_through_nested_use_groups() {
        let got = report(&[
            ("s/lib.rs", "mod a; mod b; mod c;"),
            ("s/a.rs", "use crate::{c, b::{x::{self, Y}, z}};"),
            ("s/b.rs", "mod x {} fn f() -> super::a::T { todo() }"),
            ("s/c.rs", ""),
        ]);
        assert_eq!(got, ["in `crate`: a -> b -> a"]);
    }

    #[test]
    fn self_paths_in_a_mod_rs_and_plain_child_paths() {
        // `a/mod.rs` re-exports `self::b::X`; `c::d` reaches `b` through it. `b` reaches
        // `c` through a plain path starting at its own child `inner`'s import.
        let got = report(&[
            ("s/lib.rs", "mod a;"),
            ("s/a/mod.rs", "mod b; mod c; pub use self::b::X;"),
            (
                "s/a/b.rs",
                "mod inner { pub use crate::a::c; } fn f() { inner::c::g() }",
            ),
            ("s/a/c/mod.rs", "mod d; use self::d::Y;"),
            ("s/a/c/d.rs", "fn g() -> super::super::X { h() }"),
        ]);
        assert_eq!(got, ["in `crate::a`: b -> c -> b"]);
    }

    #[test]
    fn re_exports_are_followed_to_the_module_that_defines_the_item() {
        // `validate` reaches `compiled` through `engine`'s `use compiled::Node`.
        let got = report(&[
            ("s/lib.rs", "mod engine;"),
            (
                "s/engine/mod.rs",
                "mod compiled; mod validate; pub use compiled::Node;",
            ),
            ("s/engine/compiled.rs", "use super::validate::check;"),
            ("s/engine/validate.rs", "use super::Node; pub fn check() {}"),
        ]);
        assert_eq!(
            got,
            ["in `crate::engine`: compiled -> validate -> compiled"]
        );
    }

    #[test]
    fn comments_strings_and_quote_bodies_do_not_count_but_macro_paths_do() {
        let quiet = report(&[
            ("s/lib.rs", "mod a; mod b;"),
            ("s/a.rs", "use super::b::X;"),
            (
                "s/b.rs",
                "// crate::a::x\n/// super::a::y\n#[doc = \"crate::a::z\"]\n\
                 fn f() { let s = \"super::a::w\"; quote!(crate::a::q); }",
            ),
        ]);
        assert!(quiet.is_empty(), "{quiet:?}");
        let loud = report(&[
            ("s/lib.rs", "mod a; mod b;"),
            ("s/a.rs", "use super::b::X;"),
            ("s/b.rs", "fn f() { assert_eq!(1, super::a::one()); }"),
        ]);
        assert_eq!(loud, ["in `crate`: a -> b -> a"]);
    }

    #[test]
    fn inline_test_modules_resolve_super_from_their_own_place() {
        // `super::` inside `a`'s inline `tests` is `a` itself: no edge to `b`.
        let got = report(&[
            ("s/lib.rs", "mod a; mod b;"),
            (
                "s/a.rs",
                "use crate::b::X; mod tests { use super::helper; }",
            ),
            ("s/b.rs", "fn f() { super::a::tests::g(); }"),
        ]);
        assert_eq!(got, ["in `crate`: a -> b -> a"]);
        let none = report(&[
            ("s/lib.rs", "mod a; mod b;"),
            (
                "s/a.rs",
                "use crate::b::X; mod tests { use super::helper; }",
            ),
            ("s/b.rs", "mod tests { use super::super::c; }"),
        ]);
        assert!(none.is_empty(), "{none:?}");
    }

    #[test]
    fn every_cycle_is_reported_with_the_reference_behind_each_step() {
        let tree = load(
            Path::new("s/lib.rs"),
            &sources(&[
                ("s/lib.rs", "mod a; mod b; mod c; mod d;"),
                ("s/a.rs", "use super::b::X;"),
                ("s/b.rs", "fn f() { crate::a::g(); crate::a::h(); }"),
                ("s/c.rs", "use crate::d::Y;"),
                ("s/d.rs", "use crate::c::Z;"),
            ]),
        )
        .unwrap();
        let got = cycle_report(&tree, Path::new("s"));
        assert_eq!(
            got,
            [
                "in `crate`: a -> b -> a\n    a -> b: a.rs refers to `super::b::X`\n    \
                 b -> a: b.rs refers to `crate::a::g` (and 1 more)",
                "in `crate`: c -> d -> c\n    c -> d: c.rs refers to `crate::d::Y`\n    \
                 d -> c: d.rs refers to `crate::c::Z`",
            ]
        );
    }

    #[test]
    fn shortest_cycle_of_a_larger_component() {
        let mut g: BTreeMap<String, BTreeMap<String, Evidence>> = BTreeMap::new();
        for (a, b) in [("a", "b"), ("b", "c"), ("c", "a"), ("b", "a"), ("d", "a")] {
            g.entry(a.into())
                .or_default()
                .insert(b.into(), Evidence::default());
            g.entry(b.into()).or_default();
        }
        assert_eq!(cycles(&g), [["a", "b", "a"]]);
        g.get_mut("b").unwrap().remove("a");
        assert_eq!(cycles(&g), [["a", "b", "c", "a"]]);
        g.get_mut("c").unwrap().clear();
        assert!(cycles(&g).is_empty());
    }

    #[test]
    fn macro_token_paths() {
        let tokens: TokenStream = "$crate::a::b(x, super::c) :: d ::e::f".parse().unwrap();
        let got = token_paths(tokens);
        assert_eq!(got, [vec!["crate", "a", "b"], vec!["super", "c"]]);
    }
}
