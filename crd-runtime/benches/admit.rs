//! Admission throughput against plain JSON parsing of the same bytes.
//!
//! `cargo bench -p crd-runtime --bench admit`. Objects: `benches/data/crontab.json`
//! (~1 KB, the documentation's CronTab with real-world metadata) and
//! `benches/data/prometheus.json` (~50 KB, generated from prometheus-operator's
//! Prometheus CRD by `benches/data/gen.py`), admitted against the real CRDs from
//! `../shared`. Every measurement reports bytes per second of the input document.

use std::path::PathBuf;

use crd_runtime::engine::Engine;
use divan::counter::BytesCount;
use divan::{Bencher, black_box};
use serde_json::Value;

fn main() {
    divan::main();
}

const OBJECTS: &[&str] = &["crontab", "prometheus"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn bytes(object: &str) -> Vec<u8> {
    let path = root().join(format!("benches/data/{object}.json"));
    let v: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    // Measure the compact form, as it travels over the wire.
    serde_json::to_vec(&v).unwrap()
}

fn engine(object: &str) -> Engine {
    let crd = match object {
        "crontab" => "../../shared/fixtures/crontab/crd-full.yaml",
        _ => "../../shared/corpus/crds/prometheus-operator/prometheuses.monitoring.coreos.com.yaml",
    };
    let text = std::fs::read_to_string(root().join(crd)).unwrap();
    let crd = crd_runtime::load_crds(crd, &text)
        .unwrap()
        .crds
        .remove(0)
        .crd;
    let version = crd.spec.versions[0].name.clone();
    Engine::for_crd(&crd, &version).unwrap()
}

/// `serde_json::from_slice::<Value>` alone: the baseline.
#[divan::bench(args = OBJECTS)]
fn parse(bencher: Bencher, object: &str) {
    let b = bytes(object);
    bencher
        .counter(BytesCount::new(b.len()))
        .bench(|| serde_json::from_slice::<Value>(black_box(&b)).unwrap());
}

/// Prune + coerce metadata + default + validate on an already parsed value.
#[divan::bench(args = OBJECTS)]
fn admit(bencher: Bencher, object: &str) {
    let b = bytes(object);
    let e = engine(object);
    let v: Value = serde_json::from_slice(&b).unwrap();
    assert!(e.admit(&mut v.clone()).is_ok(), "{object} must be valid");
    bencher
        .counter(BytesCount::new(b.len()))
        .with_inputs(|| v.clone())
        .bench_local_refs(|v| e.admit(v).is_ok());
}

/// [`Engine::start_admission`] then `finish`: one prune that also reports the
/// unknown fields (none here), the rest as `admit`. Should cost what `admit` costs.
#[divan::bench(args = OBJECTS)]
fn start_admission(bencher: Bencher, object: &str) {
    let b = bytes(object);
    let e = engine(object);
    let v: Value = serde_json::from_slice(&b).unwrap();
    bencher
        .counter(BytesCount::new(b.len()))
        .with_inputs(|| v.clone())
        .bench_local_refs(|v| {
            let mut a = e.start_admission(v, None).unwrap();
            let unknown = a.take_unknown_fields();
            a.finish().is_ok() && unknown.is_empty()
        });
}

/// What crd-server did before `start_admission`: prune a clone for the unknown
/// fields, then `admit` (which prunes again).
#[divan::bench(args = OBJECTS)]
fn prune_clone_then_admit(bencher: Bencher, object: &str) {
    let b = bytes(object);
    let e = engine(object);
    let v: Value = serde_json::from_slice(&b).unwrap();
    bencher
        .counter(BytesCount::new(b.len()))
        .with_inputs(|| v.clone())
        .bench_local_refs(|v| {
            let unknown = e.prune(&mut v.clone());
            e.admit(v).is_ok() && unknown.is_empty()
        });
}

/// Validation only (the value is already admitted).
#[divan::bench(args = OBJECTS)]
fn validate(bencher: Bencher, object: &str) {
    let b = bytes(object);
    let e = engine(object);
    let mut v: Value = serde_json::from_slice(&b).unwrap();
    e.admit(&mut v).unwrap();
    bencher
        .counter(BytesCount::new(b.len()))
        .bench(|| e.validate(black_box(&v)).is_empty());
}

/// Parse and admit: the whole per-object cost of `crd-gen validate`.
#[divan::bench(args = OBJECTS)]
fn parse_and_admit(bencher: Bencher, object: &str) {
    let b = bytes(object);
    let e = engine(object);
    bencher.counter(BytesCount::new(b.len())).bench(|| {
        let mut v: Value = serde_json::from_slice(black_box(&b)).unwrap();
        e.admit(&mut v).is_ok()
    });
}

/// The pruning step alone (reporting pruned paths).
#[divan::bench(args = OBJECTS)]
fn prune(bencher: Bencher, object: &str) {
    let b = bytes(object);
    let e = engine(object);
    let v: Value = serde_json::from_slice(&b).unwrap();
    bencher
        .counter(BytesCount::new(b.len()))
        .with_inputs(|| v.clone())
        .bench_local_refs(|v| e.prune(v).len());
}

/// The defaulting step alone.
#[divan::bench(args = OBJECTS)]
fn default(bencher: Bencher, object: &str) {
    let b = bytes(object);
    let e = engine(object);
    let v: Value = serde_json::from_slice(&b).unwrap();
    bencher
        .counter(BytesCount::new(b.len()))
        .with_inputs(|| v.clone())
        .bench_local_refs(|v| e.default(v));
}

/// The up-front nesting check alone.
#[divan::bench(args = OBJECTS)]
fn depth_check(bencher: Bencher, object: &str) {
    let b = bytes(object);
    let v: Value = serde_json::from_slice(&b).unwrap();
    bencher
        .counter(BytesCount::new(b.len()))
        .bench(|| crd_runtime::engine::too_deep(black_box(&v)));
}
