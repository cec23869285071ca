//! Deep schemas through every library entry point a `build.rs` or a tool calls, on
//! a thread with a small stack (1 MiB, half of a Tokio worker's): each either
//! generates (256 levels and fewer) or answers the documented one-line error,
//! never a stack overflow (issue 49). The CLI's doors are in `hostile_inputs.rs`.

use crd_gen::{Config, Error};
use crd_runtime::model::CustomResourceDefinition;

/// A CRD (JSON text) whose `spec` nests `levels` schemas through `properties`
/// (two JSON levels each) or `items` (one JSON level each).
fn deep_crd(levels: usize, through_items: bool) -> String {
    let (open, close) = if through_items {
        (r#"{"type":"array","items":"#, "}")
    } else {
        (r#"{"type":"object","properties":{"n":"#, "}}")
    };
    let spec = format!(
        "{}{{\"type\":\"string\"}}{}",
        open.repeat(levels),
        close.repeat(levels)
    );
    format!(
        r#"{{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{{"name":"deeps.example.com"}},"spec":{{"group":"example.com","names":{{"plural":"deeps","singular":"deep","kind":"Deep","listKind":"DeepList"}},"scope":"Namespaced","versions":[{{"name":"v1","served":true,"storage":true,"schema":{{"openAPIV3Schema":{{"type":"object","properties":{{"spec":{spec}}}}}}}}}]}}}}"#
    )
}

const TOO_DEEP: &str = "deeps.example.com: spec.versions[0].schema.openAPIV3Schema: nests deeper \
                        than 256 levels: crd-gen generate writes types for at most 256";

/// Runs `f` on a thread with 1 MiB of stack and returns its result.
fn on_small_stack<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

/// Every entry point on one CRD text; `Ok` texts are the error strings (or "ok").
fn every_entry_point(text: String) -> Vec<(&'static str, String)> {
    on_small_stack(move || {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("crd.json");
        std::fs::write(&path, &text).unwrap();
        let inputs = [("crd.json", text.as_bytes())];
        let show = |r: Result<(), Error>| match r {
            Ok(()) => "ok".to_string(),
            Err(e) => e.to_string(),
        };
        let mut out = Vec::new();
        let loaded = crd_gen::load_input("crd.json", text.as_bytes());
        let shown = match &loaded {
            Ok(_) => "ok".to_string(),
            Err(e) => e.to_string(),
        };
        out.push(("load_input", shown));
        let loaded2 = crd_gen::load_inputs(&inputs);
        out.push(("load_inputs", show(loaded2.map(drop_all))));
        let config = Config::new();
        if let Ok(crds) = loaded {
            out.push(("generate", show(config.generate(&crds).map(|_| ()))));
            out.push((
                "generate_files",
                show(config.generate_files(&crds).map(|_| ())),
            ));
            out.push((
                "generate_single_file",
                show(config.generate_single_file(&crds).map(|_| ())),
            ));
            let flat = dir.path().join("flat");
            out.push((
                "write_crds",
                show(
                    Config::new()
                        .flat(true)
                        .write_crds(&crds, &flat)
                        .map(|_| ()),
                ),
            ));
            drop_all(crds);
        }
        out.push((
            "generate_inputs",
            show(config.generate_inputs(&inputs).map(|_| ())),
        ));
        let written = dir.path().join("written");
        out.push((
            "write_inputs",
            show(config.write_inputs(&inputs, &written).map(|_| ())),
        ));
        let compiled = dir.path().join("out");
        out.push((
            "compile",
            show(
                Config::new()
                    .out_dir(&compiled)
                    .emit_rerun_if_changed(false)
                    .compile(&[&path]),
            ),
        ));
        out
    })
}

/// The caller owns what `load_input` returns; deep CRDs are dropped on a sized stack.
fn drop_all(crds: Vec<CustomResourceDefinition>) {
    crds.into_iter()
        .for_each(crd_runtime::__private::depth::schema::drop_crd);
}

#[test]
fn a_250_level_schema_is_generated_by_every_entry_point() {
    for (entry, result) in every_entry_point(deep_crd(250, false)) {
        assert_eq!(result, "ok", "{entry}");
    }
}

#[test]
fn schemas_2000_levels_deep_are_the_documented_error_everywhere() {
    for through_items in [false, true] {
        for (entry, result) in every_entry_point(deep_crd(2_000, through_items)) {
            if entry.starts_with("load_input") {
                assert_eq!(result, "ok", "{entry}");
            } else {
                assert!(result.contains(TOO_DEEP), "{entry}: {result}");
            }
        }
    }
}

#[test]
fn the_deepest_schemas_a_crd_body_holds_are_the_documented_error_everywhere() {
    // 9,990 `items` levels: the deepest schema a CRD's 10,000 JSON levels can carry.
    for (entry, result) in every_entry_point(deep_crd(9_990, true)) {
        if entry.starts_with("load_input") {
            assert_eq!(result, "ok", "{entry}");
        } else {
            assert!(result.contains(TOO_DEEP), "{entry}: {result}");
        }
    }
}

#[test]
fn schemas_10000_levels_deep_are_refused_where_reading_stops() {
    // 10,000 `properties` levels are 20,000 JSON levels: past the API server's limit.
    for (entry, result) in every_entry_point(deep_crd(10_000, false)) {
        assert!(
            result.contains("invalid character '{' exceeded max depth"),
            "{entry}: {result}"
        );
    }
}
