//! `crd-gen roundtrip`: CRD → generated Rust → compiled → CRD, compared semantically.
//!
//! The CRDs are compiled in chunks, one crate each, in one scratch workspace
//! ([`scratch`]) to amortize compilation while bounding each rustc run. A CRD whose
//! module does not compile is reported as such and left out of a rebuild of its
//! chunk, so one bad module cannot hide the results of the others.

use std::collections::BTreeMap;
use std::path::Path;

use crd_runtime::CustomResourceDefinition;
use serde_json::Value;

use crate::codegen::GeneratedCrd;
use crate::{Config, Error};

mod diff;
mod normalize;
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
    /// The CRD round-trips, but its module has compiler or clippy warnings (only
    /// checked with [`scratch::Scratch::clippy`]).
    Warnings(Vec<String>),
}

/// One CRD with where it came from.
#[derive(Clone, Debug)]
pub struct Source {
    /// Display name of the file.
    pub file: String,
    /// The CRD as read.
    pub crd: CustomResourceDefinition,
}

/// Round-trips `sources` through a scratch workspace `target/<scratch_name>` of
/// `workspace`. Results are in input order.
pub fn roundtrip(
    sources: &[Source],
    workspace: &Path,
    scratch_name: &str,
) -> Result<Vec<(String, Outcome)>, Error> {
    roundtrip_in(sources, &scratch::Scratch::new(workspace, scratch_name))
}

/// [`roundtrip`] in a given scratch workspace (with clippy when
/// [`scratch::Scratch::clippy`] is set: warnings in a module turn an identical
/// outcome into [`Outcome::Warnings`]).
pub fn roundtrip_in(
    sources: &[Source],
    scratch: &scratch::Scratch,
) -> Result<Vec<(String, Outcome)>, Error> {
    roundtrip_with(sources, scratch, &Config::new())
}

/// [`roundtrip_in`] generating with `config` (extra derives, map type, docs).
pub fn roundtrip_with(
    sources: &[Source],
    scratch: &scratch::Scratch,
    config: &Config,
) -> Result<Vec<(String, Outcome)>, Error> {
    // The CRDs are copied and dropped here: on a stack for the deepest schemas.
    crate::deep_safe(|| roundtrip_here(sources, scratch, config))
}

fn roundtrip_here(
    sources: &[Source],
    scratch: &scratch::Scratch,
    config: &Config,
) -> Result<Vec<(String, Outcome)>, Error> {
    let crds: Vec<CustomResourceDefinition> = sources.iter().map(|s| s.crd.clone()).collect();
    let generated = config.generate(&crds)?;
    let k8s_version = config.options().k8s_types.map(|t| t.version().to_string());
    let compiled = if k8s_version != scratch.k8s_version {
        // The chunks must be built with k8s-openapi of the version generated for.
        let scratch = scratch::Scratch {
            dir: scratch.dir.clone(),
            workspace: scratch.workspace.clone(),
            clippy: scratch.clippy,
            k8s_version,
        };
        compile(&scratch, &generated)?
    } else {
        compile(scratch, &generated)?
    };
    // Warnings per CRD: those in its module, and those elsewhere in its chunk.
    let mut warnings: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for w in &compiled.warnings {
        for chunk in compiled.chunks.iter().filter(|c| c.name == w.chunk) {
            for g in &chunk.crds {
                if w.module.as_deref().is_none_or(|m| m == g.module) {
                    warnings
                        .entry(g.module.as_str())
                        .or_default()
                        .push(w.rendered.clone());
                }
            }
        }
    }

    // The corpus holds several copies of one CRD name (a project's CRD and an older
    // copy in kopium's tests), so results are keyed by module, which is unique:
    // `generate` keeps the input order and only skips CRDs without a version.
    let mut modules = generated.iter().peekable();
    let mut out = Vec::new();
    for s in sources {
        let name = s.crd.name().to_string();
        let module = modules
            .next_if(|g| g.crd_name == name)
            .map(|g| g.module.as_str());
        let outcome = if let Some(module) = module {
            if let Some(err) = compiled.broken.get(module) {
                Outcome::DoesNotCompile(err.clone())
            } else {
                produced_outcome(&s.crd, compiled.produced.get(module), warnings.get(module))
            }
        } else {
            Outcome::NotGenerated("no version was generated".into())
        };
        out.push((name, outcome));
    }
    Ok(out)
}

/// The outcome of one compiled CRD from what its program printed.
fn produced_outcome(
    source: &CustomResourceDefinition,
    produced: Option<&Result<Value, String>>,
    warnings: Option<&Vec<String>>,
) -> Outcome {
    match produced {
        Some(Ok(actual)) => match (compare(source, actual), warnings) {
            (Outcome::Identical, Some(w)) => Outcome::Warnings(w.clone()),
            (outcome, _) => outcome,
        },
        Some(Err(e)) => Outcome::NoCrd(e.clone()),
        None => Outcome::NoCrd("the compiled program printed no CRD".into()),
    }
}

/// What compiling the generated modules gave.
pub struct Compiled {
    /// Module → the first compile error attributed to it.
    pub broken: BTreeMap<String, String>,
    /// Module → the CRD its compiled types emitted (or why they emitted none).
    pub produced: BTreeMap<String, Result<Value, String>>,
    /// The chunks that compiled, as last written.
    pub chunks: Vec<scratch::Chunk>,
    /// The warnings of the last build (cargo replays those of unchanged chunks).
    pub warnings: Vec<scratch::Warning>,
}

/// Builds `generated` in chunks, drops what does not compile and rebuilds the
/// affected chunks, then runs every chunk binary. A module with errors is dropped
/// from its chunk; a chunk that failed without naming a module (a rustc crash) is
/// split into one chunk per CRD, so the failure lands on the CRD that caused it.
pub fn compile(scratch: &scratch::Scratch, generated: &[GeneratedCrd]) -> Result<Compiled, Error> {
    let sizes: Vec<usize> = generated
        .iter()
        .map(|g| g.to_file().map(|f| f.len()))
        .collect::<Result<_, _>>()?;
    let mut chunks = scratch::plan_chunks(generated, &sizes, scratch::CHUNK_BYTES, 2);
    let mut broken: BTreeMap<String, String> = BTreeMap::new();
    let mut next_id = chunks.len();
    let mut warnings = Vec::new();
    for round in 0..4 {
        scratch.write(&chunks)?;
        let outcome = scratch.build()?;
        warnings = outcome.warnings.clone();
        if let Some(e) = &outcome.cargo_error {
            for g in generated {
                broken.entry(g.module.clone()).or_insert_with(|| e.clone());
            }
            chunks.clear();
            break;
        }
        if chunks.iter().all(|c| outcome.built.contains(&c.name)) {
            break;
        }
        let last = round == 3;
        let failing: BTreeMap<&str, &str> = outcome
            .failing
            .iter()
            .map(|(m, e)| (m.as_str(), e.as_str()))
            .collect();
        let mut next = Vec::new();
        for mut chunk in chunks {
            if outcome.built.contains(&chunk.name) {
                next.push(chunk);
                continue;
            }
            let before = chunk.crds.len();
            chunk.crds.retain(|g| match failing.get(g.module.as_str()) {
                Some(e) => {
                    broken.insert(g.module.clone(), (*e).to_string());
                    false
                }
                None => true,
            });
            if chunk.crds.len() < before && !last {
                if !chunk.crds.is_empty() {
                    next.push(chunk);
                }
                continue;
            }
            // Nothing attributable to a module: split, or blame the only CRD.
            let why = outcome
                .other_errors
                .get(&chunk.name)
                .map(|e| e.join("; "))
                .or_else(|| outcome.crashed.get(&chunk.name).cloned())
                .unwrap_or_else(|| "the chunk failed to build".to_string());
            if chunk.crds.len() > 1 && !last {
                for g in chunk.crds {
                    next.push(scratch::Chunk {
                        name: format!("crd-gen-scratch-{next_id:03}"),
                        crds: vec![g],
                    });
                    next_id += 1;
                }
            } else {
                for g in &chunk.crds {
                    broken
                        .entry(g.module.clone())
                        .or_insert_with(|| why.clone());
                }
            }
        }
        chunks = next;
    }
    let mut produced = BTreeMap::new();
    for chunk in &chunks {
        produced.extend(parse_output(&scratch.run(&chunk.name)?));
    }
    Ok(Compiled {
        broken,
        produced,
        chunks,
        warnings,
    })
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
        Outcome::Warnings(w) => {
            let first = w.first().and_then(|w| w.lines().next()).unwrap_or("");
            format!("{name}: {} warning(s): {first}", w.len())
        }
    }
}
