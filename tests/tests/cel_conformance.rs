//! The CEL conformance table (see `crd_toolkit_tests::cel_conformance` and
//! docs/cel.md "CEL conformance table"): every case at every supported release,
//! all mismatches reported at once, grouped by library. `known-gaps.txt` lists
//! the mismatches expected today; it is checked both ways, so a gap that closes
//! must be removed from the list.

use std::collections::BTreeMap;

use crd_toolkit_tests::cel_conformance::{data_dir, known_gaps, run_all};

#[test]
fn cel_conformance_table() {
    let dir = data_dir();
    let outcome = run_all(&dir);
    let gaps = known_gaps(&dir);

    let mut unexpected: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut seen = std::collections::BTreeSet::new();
    for m in &outcome.mismatches {
        seen.insert(m.key.as_str());
        if !gaps.contains_key(&m.key) {
            unexpected
                .entry(m.library.as_str())
                .or_default()
                .push(format!("  {}: {}", m.key, m.detail));
        }
    }
    let closed: Vec<String> = gaps
        .iter()
        .filter(|(k, _)| !seen.contains(k.as_str()))
        .map(|(k, r)| format!("  {k} ({r})"))
        .collect();

    let total: usize = outcome.counts.values().map(|c| c.cases).sum();
    let mut summary = Vec::new();
    for (lib, c) in &outcome.counts {
        let aspects: Vec<String> = c
            .by_aspect
            .iter()
            .map(|(a, n)| format!("{a} {n}"))
            .collect();
        summary.push(format!(
            "  {lib}: {} cases, {} pass everything; mismatching: {}",
            c.cases,
            c.cases - c.failing,
            if aspects.is_empty() {
                "none".into()
            } else {
                aspects.join(", ")
            }
        ));
    }
    println!("CEL conformance: {total} cases\n{}", summary.join("\n"));

    let mut report = String::new();
    if !unexpected.is_empty() {
        let n: usize = unexpected.values().map(Vec::len).sum();
        report.push_str(&format!("{n} mismatches not in known-gaps.txt:\n"));
        for (lib, lines) in &unexpected {
            report.push_str(&format!(
                "[{lib}] ({})\n{}\n",
                lines.len(),
                lines.join("\n")
            ));
        }
    }
    if !closed.is_empty() {
        report.push_str(&format!(
            "{} known gaps now pass or no longer exist; remove them from known-gaps.txt:\n{}\n",
            closed.len(),
            closed.join("\n")
        ));
    }
    assert!(report.is_empty(), "{report}");
    assert!(total > 0, "no cases ran");
}
