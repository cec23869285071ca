//! The cost of CEL on a CEL-heavy CRD (Istio `DestinationRule`, 47 rules in
//! the storage version): admitting one realistic object with and without the
//! CEL pass, and the CEL pass alone.
//!
//! Run: `cargo bench -p crd-runtime --features cel --bench cel`

use std::path::PathBuf;
use std::sync::LazyLock;

use crd_runtime::cel::{CelPass, Validator};
use crd_runtime::engine::Engine;
use crd_runtime::load::load_crds;
use crd_runtime::{CustomResourceDefinition, ErrorList};
use divan::Bencher;
use serde_json::{Value, json};

fn main() {
    divan::main();
}

fn crd() -> CustomResourceDefinition {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/corpus/crds/istio/destinationrules.networking.istio.io.yaml");
    let text = std::fs::read_to_string(&path).expect("corpus CRD (../shared beside the checkout)");
    load_crds("destinationrules.yaml", &text)
        .expect("loads")
        .crds
        .remove(0)
        .crd
}

struct Setup {
    plain: Engine,
    with_cel: Engine,
    validator: Validator,
    object: Value,
}

static SETUP: LazyLock<Setup> = LazyLock::new(|| {
    let crd = crd();
    let schema = crd
        .version("v1")
        .and_then(|v| v.open_api_schema())
        .expect("v1 schema");
    let (pass, problems) = CelPass::new(schema, true);
    assert!(problems.is_empty() && pass.has_rules());
    let (validator, _) = Validator::new(schema, true);
    // The same CRD without its rules: what CEL adds.
    let mut bare = serde_json::to_value(&crd).expect("crd json");
    strip_rules(&mut bare);
    let bare: crd_runtime::CustomResourceDefinition = serde_json::from_value(bare).expect("crd");
    let setup = Setup {
        plain: Engine::for_crd(&bare, "v1").expect("engine"),
        with_cel: Engine::for_crd(&crd, "v1").expect("engine"),
        validator: validator.expect("rules"),
        object: object(),
    };
    // The benchmarked object is valid, so every rule on its path runs to the end.
    let mut o = setup.object.clone();
    setup
        .with_cel
        .admit(&mut o)
        .expect("the benchmark object is valid");
    setup
});

fn strip_rules(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.remove("x-kubernetes-validations");
            m.values_mut().for_each(strip_rules);
        }
        Value::Array(a) => a.iter_mut().for_each(strip_rules),
        _ => {}
    }
}

/// A traffic policy exercising every duration rule of the schema.
fn policy(port: Option<i64>) -> Value {
    let mut p = json!({
        "connectionPool": {
            "tcp": {"maxConnections": 100, "connectTimeout": "30ms",
                    "maxConnectionDuration": "1h",
                    "tcpKeepalive": {"time": "7200s", "interval": "75s"}},
            "http": {"http2MaxRequests": 1000, "maxRequestsPerConnection": 10,
                     "idleTimeout": "15m", "http2KeepAlive": {"interval": "30s", "timeout": "10s"}}
        },
        "loadBalancer": {"simple": "LEAST_REQUEST", "warmup": {"duration": "60s"}},
        "outlierDetection": {"consecutive5xxErrors": 7, "interval": "5m", "baseEjectionTime": "15m"}
    });
    if let Some(n) = port {
        p["port"] = json!({"number": n});
    }
    p
}

fn object() -> Value {
    let mut top = policy(None);
    top["portLevelSettings"] = json!([policy(Some(80)), policy(Some(9080))]);
    let subsets: Vec<Value> = ["v1", "v2", "v3"]
        .iter()
        .map(|v| json!({"name": v, "labels": {"version": v}, "trafficPolicy": policy(None)}))
        .collect();
    json!({
        "apiVersion": "networking.istio.io/v1",
        "kind": "DestinationRule",
        "metadata": {"name": "reviews", "namespace": "bookinfo"},
        "spec": {
            "host": "reviews.bookinfo.svc.cluster.local",
            "trafficPolicy": top,
            "subsets": subsets,
            "workloadSelector": {"matchLabels": {"app": "reviews", "tier": "backend"}}
        }
    })
}

fn admit(engine: &Engine, bencher: Bencher) {
    let object = &SETUP.object;
    bencher
        .with_inputs(|| object.clone())
        .bench_local_values(|mut o| engine.admit(&mut o).is_ok());
}

/// Prune, default and OpenAPI validation only.
#[divan::bench]
fn admit_without_cel(bencher: Bencher) {
    admit(&SETUP.plain, bencher);
}

/// The same plus every `x-kubernetes-validations` rule.
#[divan::bench]
fn admit_with_cel(bencher: Bencher) {
    admit(&SETUP.with_cel, bencher);
}

/// The CEL rules alone on the admitted object.
#[divan::bench]
fn cel_rules_only(bencher: Bencher) {
    let object = &SETUP.object;
    bencher.bench_local(|| {
        let errs = SETUP.validator.validate(object, None);
        let errs = ErrorList(errs);
        errs.is_empty()
    });
}

/// An update: transition rules would see the old object (none in this CRD, so
/// this measures the old-value correlation).
#[divan::bench]
fn cel_rules_update(bencher: Bencher) {
    let object = &SETUP.object;
    bencher.bench_local(|| SETUP.validator.validate(object, Some(object)).is_empty());
}
