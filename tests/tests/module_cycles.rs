//! No module cycles: in crd-runtime and crd-derive, the top-level modules (and the
//! files inside each module directory) must depend on each other without a cycle,
//! so each can be read, tested and moved on its own.
//!
//! A dependency is a `crate::name` (or, between sibling files, `super::name`) path in
//! code; comments do not count.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file below `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The names following `prefix` (`crate::` or `super::`) in the file's code.
fn referenced(text: &str, prefix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(i) = rest.find(prefix) {
            let after = &rest[i + prefix.len()..];
            let name: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.insert(name);
            }
            rest = after;
        }
        // `use crate::{a, b}` groups.
        if let Some(i) = code.find(&format!("{prefix}{{")) {
            let group = &code[i + prefix.len() + 1..];
            let group = group.split('}').next().unwrap_or("");
            for part in group.split(',') {
                let name: String = part
                    .trim()
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.insert(name);
                }
            }
        }
    }
    out
}

/// A cycle in `graph`, if there is one.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_string(), 1);
        stack.push(n.to_string());
        for m in graph.get(n).into_iter().flatten() {
            match state.get(m.as_str()).copied().unwrap_or(0) {
                1 => {
                    let from = stack.iter().position(|s| s == m).unwrap();
                    let mut cycle = stack[from..].to_vec();
                    cycle.push(m.clone());
                    return Some(cycle);
                }
                0 if graph.contains_key(m.as_str()) => {
                    if let Some(c) = visit(m, graph, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in graph.keys() {
        if state.get(n.as_str()).copied().unwrap_or(0) == 0 {
            let mut stack = Vec::new();
            if let Some(c) = visit(n, graph, &mut state, &mut stack) {
                return Some(c);
            }
        }
    }
    None
}

fn check_crate(krate: &str) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(krate)
        .join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    // Top-level modules.
    let mut top: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    // Files of one module directory, by directory.
    let mut siblings: BTreeMap<PathBuf, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let module = first.trim_end_matches(".rs").to_string();
        if module == "lib" || module == "main" {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        let deps = top.entry(module.clone()).or_default();
        deps.extend(
            referenced(&text, "crate::")
                .into_iter()
                .filter(|d| *d != module),
        );
        let dir = file.parent().unwrap().to_path_buf();
        let stem = file.file_stem().unwrap().to_string_lossy().to_string();
        if dir != src && stem != "mod" && !stem.ends_with("tests") {
            let names: BTreeSet<String> = referenced(&text, "super::")
                .into_iter()
                .filter(|d| *d != stem)
                .collect();
            siblings.entry(dir).or_default().insert(stem, names);
        }
    }
    if let Some(cycle) = find_cycle(&top) {
        panic!("{krate}: module cycle {}", cycle.join(" -> "));
    }
    for (dir, graph) in &siblings {
        if let Some(cycle) = find_cycle(graph) {
            panic!(
                "{krate}: cycle among the files of {}: {}",
                dir.display(),
                cycle.join(" -> ")
            );
        }
    }
}

#[test]
fn crd_runtime_has_no_module_cycles() {
    check_crate("crd-runtime");
}

#[test]
fn crd_derive_has_no_module_cycles() {
    check_crate("crd-derive");
}

#[test]
fn a_cycle_is_found() {
    let mut g = BTreeMap::new();
    g.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    g.insert("b".to_string(), BTreeSet::from(["c".to_string()]));
    g.insert("c".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(find_cycle(&g).unwrap(), vec!["a", "b", "c", "a"]);
    g.get_mut("c").unwrap().clear();
    assert!(find_cycle(&g).is_none());
    assert_eq!(
        referenced(
            "use crate::{field::Path, model};\n// crate::zzz\nlet x = crate::engine::Engine;",
            "crate::"
        ),
        BTreeSet::from([
            "engine".to_string(),
            "field".to_string(),
            "model".to_string()
        ])
    );
}
