//! The API server's create path (prune → default → validate, with CEL) on objects
//! shaped by the schemas of the real-world corpus, checking its laws:
//! - admit never panics, and every error message is clean;
//! - pruning and defaulting are idempotent;
//! - an admitted object is admitted again unchanged;
//! - typed = dynamic: an admitted CronTab reads into the derived Rust type and
//!   serializes back to exactly the same JSON, and the type's own `admit()` agrees
//!   with the engine.
#![no_main]

use std::cell::RefCell;
use std::collections::HashMap;

use arbitrary::Unstructured;
use crd_runtime::{CustomResource, CustomResourceExt, Engine};
use crd_toolkit_fuzz::{assert_clean_message, corpus_crds, object_for_crd, value_for, version_schema};
use libfuzzer_sys::fuzz_target;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A cron job that runs an image (the CronTab of the Kubernetes docs, with more
/// shapes: enums, lists, maps, nested structs, defaults).
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[crd(group = "stable.example.com", version = "v1", kind = "CronTab", namespaced)]
#[serde(rename_all = "camelCase")]
pub struct CronTabSpec {
    #[crd(pattern = r"^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$", default = "5 0 * * *")]
    pub cron_spec: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    #[crd(minimum = 1, maximum = 10, default = 1)]
    pub replicas: i32,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub labels: std::collections::BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<Policy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<Window>,
}

/// What to do when runs overlap.
#[derive(crd_runtime::CrdSchema, Serialize, Deserialize, Clone, Debug)]
pub enum Policy {
    Allow,
    Forbid,
    Replace,
}

/// When runs may start.
#[derive(crd_runtime::CrdSchema, Serialize, Deserialize, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct Window {
    #[crd(minimum = 0, maximum = 23)]
    pub start_hour: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
}

thread_local! {
    static ENGINES: RefCell<HashMap<(usize, usize), Option<Engine>>> = RefCell::new(HashMap::new());
}

fn check_laws(engine: &Engine, input: &Value) {
    let mut pruned = input.clone();
    engine.prune(&mut pruned);
    let mut again = pruned.clone();
    engine.prune(&mut again);
    assert_eq!(again, pruned, "pruning is not idempotent");
    let mut defaulted = pruned.clone();
    engine.default(&mut defaulted);
    let mut again = defaulted.clone();
    engine.default(&mut again);
    assert_eq!(again, defaulted, "defaulting is not idempotent");

    let mut admitted = input.clone();
    match engine.admit(&mut admitted) {
        Ok(()) => {
            let mut twice = admitted.clone();
            let result = engine.admit(&mut twice);
            assert!(result.is_ok(), "an admitted object is refused: {:?}", result.err().map(|e| e.to_string()));
            assert_eq!(twice, admitted, "admitting twice changes the object");
        }
        Err(errors) => {
            for e in errors.0 {
                assert_clean_message(&e.to_string());
            }
        }
    }
}

fn typed_equals_dynamic(u: &mut Unstructured) -> arbitrary::Result<()> {
    let crd = CronTab::crd();
    let schema = version_schema(&crd, 0);
    let input = object_for_crd(u, &crd, 0, &schema)?;
    let engine = CronTab::engine().expect("the derived CRD compiles");
    check_laws(engine, &input);
    let mut admitted = input.clone();
    if engine.admit(&mut admitted).is_ok() {
        let typed: CronTab = serde_json::from_value(admitted.clone()).expect("an admitted CronTab reads as the Rust type");
        assert_eq!(serde_json::to_value(&typed).unwrap(), admitted, "the Rust type loses or changes data");
        let mut again = typed.clone();
        again.admit().expect("the typed path admits what the dynamic path admitted");
        assert_eq!(serde_json::to_value(&again).unwrap(), admitted);
    }
    Ok(())
}

fn run(data: &[u8]) -> arbitrary::Result<()> {
    let mut u = Unstructured::new(data);
    if u.ratio(1, 8)? {
        return typed_equals_dynamic(&mut u);
    }
    let crds = corpus_crds();
    let index = u.choose_index(crds.len())?;
    let crd = &crds[index];
    let version = u.choose_index(crd.spec.versions.len().max(1))?;
    let schema = version_schema(crd, version);
    // Either JSON text from the fuzzer (seeded with real objects) or a generated value.
    let input = if u.ratio(1, 4)? {
        let rest = u.take_rest();
        match serde_json::from_slice::<Value>(rest) {
            Ok(v) => v,
            Err(_) => value_for(&mut Unstructured::new(rest), &schema, 12)?,
        }
    } else {
        object_for_crd(&mut u, crd, version, &schema)?
    };
    ENGINES.with(|engines| {
        let mut engines = engines.borrow_mut();
        let engine = engines.entry((index, version)).or_insert_with(|| {
            let name = crd.spec.versions.get(version).map(|v| v.name.clone()).unwrap_or_default();
            Engine::for_crd(crd, &name).ok()
        });
        if let Some(engine) = engine {
            check_laws(engine, &input);
        }
    });
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let _ = run(data);
});
