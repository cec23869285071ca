//! `crd-gen roundtrip`: CRD → generated Rust → compiled → CRD, compared semantically.
//!
//! All CRDs go into one scratch crate ([`scratch`]) to amortize compilation. A CRD
//! whose module does not compile is reported as such and left out of a second build,
//! so one bad module cannot hide the results of all others.

use std::collections::BTreeMap;
use std::path::Path;

use crd_runtime::CustomResourceDefinition;
use serde_json::Value;

use crate::codegen::GeneratedCrd;
use crate::{Config, Error};

pub mod diff;
pub mod normalize;
pub mod scratch;

pub use diff::{Difference, diff};
pub use normalize::{normalize_crd, normalize_schema};

/// The round-trip result of one CRD.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The compiled types produce the same CRD.
    Identical,
    /// They produce a different CRD.
    Different(Vec<Difference>),
    /// The generated module does not compile (first error).
    DoesNotCompile(String),
    /// The types compiled but produced no CRD (merge error or missing output).
    NoCrd(String),
    /// No Rust was generated (no version selected or a generator error).
    NotGenerated(String),
}

/// One CRD with where it came from.
#[derive(Clone, Debug)]
pub struct Source {
    /// Display name of the file.
    pub file: String,
    /// The CRD as read.
    pub crd: CustomResourceDefinition,
}

/// Round-trips `sources` through a scratch crate `target/<scratch_name>` of
/// `workspace`. Results are in input order.
pub fn roundtrip(
    sources: &[Source],
    workspace: &Path,
    scratch_name: &str,
) -> Result<Vec<(String, Outcome)>, Error> {
    let config = Config::new();
    let crds: Vec<CustomResourceDefinition> = sources.iter().map(|s| s.crd.clone()).collect();
    let generated = config.generate(&crds)?;
    let by_name: BTreeMap<&str, &GeneratedCrd> =
        generated.iter().map(|g| (g.crd_name.as_str(), g)).collect();

    let scratch = scratch::Scratch::new(workspace, scratch_name);
    let mut included: Vec<GeneratedCrd> = generated.clone();
    let mut broken: BTreeMap<String, String> = BTreeMap::new();
    // A first build; modules with errors are dropped and the rest rebuilt once.
    for _ in 0..2 {
        scratch.write(&included)?;
        let outcome = scratch.build()?;
        if outcome.success {
            break;
        }
        if outcome.failing.is_empty() {
            let msg = outcome.other_errors.join("; ");
            for g in &included {
                broken.insert(g.crd_name.clone(), msg.clone());
            }
            included.clear();
            break;
        }
        for (module, err) in outcome.failing {
            if let Some(g) = included.iter().find(|g| g.module == module) {
                broken.insert(g.crd_name.clone(), err);
            }
        }
        included.retain(|g| !broken.contains_key(&g.crd_name));
    }
    let produced = if included.is_empty() {
        BTreeMap::new()
    } else {
        parse_output(&scratch.run()?)
    };

    let mut out = Vec::new();
    for s in sources {
        let name = s.crd.name().to_string();
        let outcome = if !by_name.contains_key(name.as_str()) {
            Outcome::NotGenerated("no version was generated".into())
        } else if let Some(err) = broken.get(&name) {
            Outcome::DoesNotCompile(err.clone())
        } else {
            match produced.get(&name) {
                Some(Ok(actual)) => compare(&s.crd, actual),
                Some(Err(e)) => Outcome::NoCrd(e.clone()),
                None => Outcome::NoCrd("the compiled program printed no CRD".into()),
            }
        };
        out.push((name, outcome));
    }
    Ok(out)
}

/// Compares a source CRD with a produced one after normalization.
pub fn compare(expected: &CustomResourceDefinition, actual: &Value) -> Outcome {
    let mut e = serde_json::to_value(expected).unwrap_or(Value::Null);
    // Parse through the model too, so both sides have the same representation.
    let mut a = match serde_json::from_value::<CustomResourceDefinition>(actual.clone()) {
        Ok(crd) => serde_json::to_value(crd).unwrap_or(Value::Null),
        Err(err) => return Outcome::NoCrd(format!("produced CRD does not parse: {err}")),
    };
    normalize_crd(&mut e);
    normalize_crd(&mut a);
    let d = diff(&e, &a);
    if d.is_empty() {
        Outcome::Identical
    } else {
        Outcome::Different(d)
    }
}

fn parse_output(stdout: &str) -> BTreeMap<String, Result<Value, String>> {
    let mut out = BTreeMap::new();
    for line in stdout.lines() {
        let Ok(mut v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let name = v["name"].as_str().unwrap_or("").to_string();
        let result = match v.get_mut("crd") {
            Some(crd) => Ok(crd.take()),
            None => Err(v["error"].as_str().unwrap_or("unknown error").to_string()),
        };
        out.insert(name, result);
    }
    out
}

/// One report line per CRD (at most `max_diffs` differences listed).
pub fn report_line(name: &str, outcome: &Outcome, max_diffs: usize) -> String {
    match outcome {
        Outcome::Identical => format!("{name}: identical"),
        Outcome::Different(d) => {
            let shown: Vec<String> = d.iter().take(max_diffs).map(ToString::to_string).collect();
            let more = if d.len() > max_diffs {
                format!("; ... {} more", d.len() - max_diffs)
            } else {
                String::new()
            };
            format!(
                "{name}: {} difference(s): {}{more}",
                d.len(),
                shown.join("; ")
            )
        }
        Outcome::DoesNotCompile(e) => format!("{name}: does not compile: {e}"),
        Outcome::NoCrd(e) => format!("{name}: no CRD produced: {e}"),
        Outcome::NotGenerated(e) => format!("{name}: not generated: {e}"),
    }
}
