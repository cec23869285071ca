//! Every CEL rule of the real-world corpus compiles (syntax, fields, types,
//! transition-rule placement) and is within the API server's estimated cost
//! limits, and the number of compiled rules matches the corpus index.

use std::collections::BTreeMap;

use crd_runtime::Path;
use crd_runtime::cel::Validator;
use crd_runtime::load::load_crds;
use crd_runtime::model::JSONSchemaProps;
use crd_toolkit_tests::{corpus_files, shared_dir};

fn count_rules(s: &JSONSchemaProps) -> usize {
    let mut n = s.x_kubernetes_validations.as_ref().map_or(0, Vec::len);
    s.for_each_child(&mut |_, c| n += count_rules(c));
    n
}

/// `cel_rules` column of `index.tsv`, by corpus-relative path.
fn index_counts() -> BTreeMap<String, usize> {
    let text = std::fs::read_to_string(shared_dir().join("corpus/crds/index.tsv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = header.iter().position(|h| *h == "cel_rules").unwrap();
    lines
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .map(|f| (f[0].to_string(), f[col].parse().unwrap()))
        .collect()
}

#[test]
fn every_corpus_rule_compiles() {
    let counts = index_counts();
    let root = shared_dir().join("corpus/crds");
    let mut failures = Vec::new();
    let (mut files_with_rules, mut total) = (0, 0);
    let mut most_expensive: Option<(String, u64)> = None;
    // Only files the index lists with rules are loaded (loading all 306 takes long
    // in debug builds); the index itself is checked against the file list.
    assert_eq!(
        counts.len(),
        corpus_files().len(),
        "index.tsv lists every corpus file"
    );
    for (rel, _) in counts.iter().filter(|(_, n)| **n > 0) {
        let path = root.join(rel);
        let text = std::fs::read_to_string(&path).unwrap();
        let loaded = load_crds(rel, &text).unwrap();
        let mut in_file = 0;
        for doc in &loaded.crds {
            for (i, v) in doc.crd.spec.versions.iter().enumerate() {
                let Some(schema) = v
                    .schema
                    .as_ref()
                    .and_then(|s| s.open_api_v3_schema.as_ref())
                else {
                    continue;
                };
                in_file += count_rules(schema);
                let (validator, errs) = Validator::new(schema, true);
                let base = Path::new(&format!("spec.versions[{i}].schema.openAPIV3Schema"));
                failures.extend(
                    errs.iter()
                        .map(|e| format!("{rel}: {}", e.to_field_error(&base))),
                );
                // Real CRDs are accepted by API servers: their rules are within
                // the estimated cost limits.
                let Some(validator) = validator else {
                    continue;
                };
                failures.extend(
                    validator
                        .cost_errors(&base)
                        .iter()
                        .map(|e| format!("{rel}: {e}")),
                );
                for c in validator.estimated_costs(&base) {
                    if most_expensive.as_ref().is_none_or(|(_, m)| c.cost > *m) {
                        most_expensive = Some((format!("{rel}: {}", c.path), c.cost));
                    }
                }
            }
        }
        if in_file > 0 {
            files_with_rules += 1;
        }
        total += in_file;
        assert_eq!(
            in_file, counts[rel],
            "{rel}: rule count differs from index.tsv"
        );
    }
    assert!(
        failures.is_empty(),
        "{} rules do not compile:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!((files_with_rules, total), (83, 793), "corpus changed");
    let (at, cost) = most_expensive.unwrap();
    println!("most expensive expression: {at}: estimated cost {cost}");
}
