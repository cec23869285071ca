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
use crd_toolkit_fuzz::{MessageCheck, corpus_crds, object_for_crd, version_schema};
use libfuzzer_sys::fuzz_target;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A cron job that runs an image (the CronTab of the Kubernetes docs, with more
/// shapes: enums, lists, maps, nested structs, defaults).
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[crd(
    group = "stable.example.com",
    version = "v1",
    kind = "CronTab",
    namespaced
)]
#[serde(rename_all = "camelCase")]
pub struct CronTabSpec {
    #[crd(
        pattern = r"^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$",
        default = "5 0 * * *"
    )]
    pub cron_spec: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    #[crd(minimum = 1, maximum = 10, default = 1)]
    pub replicas: i32,
    // Options, not empty-skipping collections: `args: []` and no `args` are different
    // objects, and typed = dynamic must hold exactly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<std::collections::BTreeMap<String, String>>,
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
            assert!(
                result.is_ok(),
                "an admitted object is refused: {:?}",
                result.err().map(|e| e.to_string())
            );
            assert_eq!(twice, admitted, "admitting twice changes the object");
        }
        Err(errors) => {
            let check = MessageCheck::new(input.to_string().as_bytes());
            for e in errors.0 {
                check.assert_clean(&e.to_string());
            }
        }
    }
}

/// Checks the laws on `input` for the derived CronTab, and that an admitted object
/// reads into the Rust type and back to exactly the same JSON.
fn typed_equals_dynamic(input: &Value) {
    let engine = CronTab::engine().expect("the derived CRD compiles");
    check_laws(engine, input);
    let mut admitted = input.clone();
    if engine.admit(&mut admitted).is_ok() {
        let typed: CronTab = serde_json::from_value(admitted.clone()).unwrap_or_else(|e| {
            panic!("an admitted CronTab does not read as the Rust type: {e}\ninput {input}\nadmitted {admitted}")
        });
        // A missing spec reads as `{}` with its defaults (the API server stores
        // objects without spec when no spec field is required).
        let mut expected = admitted.clone();
        if expected.get("spec").is_none() {
            let mut empty = serde_json::json!({"spec": {}});
            engine.default(&mut empty);
            expected["spec"] = empty["spec"].take();
        }
        assert_eq!(
            serde_json::to_value(&typed).unwrap(),
            expected,
            "the Rust type loses or changes data"
        );
        let mut again = typed.clone();
        again
            .admit()
            .expect("the typed path admits what the dynamic path admitted");
        assert_eq!(serde_json::to_value(&again).unwrap(), expected);
    }
}

/// Checks the laws on `input` against version `version` of corpus CRD `index`
/// (engines compiled once per thread).
fn corpus_laws(index: usize, version: usize, input: &Value) {
    let crd = &corpus_crds()[index];
    ENGINES.with(|engines| {
        let mut engines = engines.borrow_mut();
        let engine = engines.entry((index, version)).or_insert_with(|| {
            let name = crd
                .spec
                .versions
                .get(version)
                .map(|v| v.name.clone())
                .unwrap_or_default();
            Engine::for_crd(crd, &name).ok()
        });
        if let Some(engine) = engine {
            check_laws(engine, input);
        }
    });
}

/// The corpus CRD (and version index) an object names by `apiVersion` and `kind`.
fn crd_for_object(object: &Value) -> Option<(usize, usize)> {
    let (group, version) = object["apiVersion"].as_str()?.split_once('/')?;
    let kind = object["kind"].as_str()?;
    corpus_crds().iter().enumerate().find_map(|(i, crd)| {
        (crd.spec.group == group && crd.spec.names.kind == kind)
            .then(|| {
                crd.spec
                    .versions
                    .iter()
                    .position(|v| v.name == version)
                    .map(|v| (i, v))
            })
            .flatten()
    })
}

/// The first byte picks the mode, so seeds and mutations keep their meaning:
/// 0 — a generated CronTab for the typed check; 1 — a generated object for a
/// corpus CRD (next two bytes pick it); 2 — JSON text (seeded with real objects)
/// against the CRD it names, the typed CronTab, or one picked by its length.
fn run(data: &[u8]) -> arbitrary::Result<()> {
    let (&mode, rest) = data.split_first().ok_or(arbitrary::Error::NotEnoughData)?;
    match mode % 3 {
        0 => {
            let crd = CronTab::crd();
            let schema = version_schema(&crd, 0);
            let input = object_for_crd(&mut Unstructured::new(rest), &crd, 0, &schema)?;
            typed_equals_dynamic(&input);
        }
        1 => {
            let mut u = Unstructured::new(rest);
            let crds = corpus_crds();
            let index = usize::from(u.arbitrary::<u16>()?) % crds.len();
            let version = u.choose_index(crds[index].spec.versions.len().max(1))?;
            let schema = version_schema(&crds[index], version);
            let input = object_for_crd(&mut u, &crds[index], version, &schema)?;
            corpus_laws(index, version, &input);
        }
        _ => {
            let input: Value =
                serde_json::from_slice(rest).map_err(|_| arbitrary::Error::IncorrectFormat)?;
            if input["apiVersion"]
                .as_str()
                .is_some_and(|v| v.starts_with("stable.example.com/"))
            {
                typed_equals_dynamic(&input);
            } else if let Some((index, version)) = crd_for_object(&input) {
                corpus_laws(index, version, &input);
            } else {
                corpus_laws(rest.len() % corpus_crds().len(), 0, &input);
            }
        }
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let _ = run(data);
});
