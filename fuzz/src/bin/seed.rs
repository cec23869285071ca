//! Writes the seed corpora of the fuzz targets from `../shared`: corpus CRDs,
//! CronTab fixtures, conformance tables (objects and CEL rules), and recorded
//! kubectl-style requests. `cargo run --bin seed` (run by `fuzz/run.sh`).

use std::path::Path;

// `cargo fuzz build` instruments every bin of the package; without AddressSanitizer,
// libFuzzer's runtime is what defines the coverage symbols the instrumentation uses.
extern crate libfuzzer_sys;

use crd_toolkit_fuzz::{collect_files, corpus_crds, shared_dir};
use serde_json::Value;

fn write(target: &str, name: &str, bytes: &[u8]) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(target);
    std::fs::create_dir_all(&dir).expect("corpus dir");
    std::fs::write(dir.join(name), bytes).expect("seed file");
}

/// Every value of every document of `file`, or nothing.
fn documents(file: &Path) -> Vec<Value> {
    let Ok(bytes) = std::fs::read(file) else {
        return Vec::new();
    };
    crd_runtime::load::parse_documents_bytes("seed", &bytes).unwrap_or_default()
}

/// Calls `f` on every JSON object inside `v`.
fn walk(v: &Value, f: &mut impl FnMut(&serde_json::Map<String, Value>)) {
    match v {
        Value::Object(m) => {
            f(m);
            m.values().for_each(|x| walk(x, f));
        }
        Value::Array(a) => a.iter().for_each(|x| walk(x, f)),
        _ => {}
    }
}

fn main() {
    let shared = shared_dir();
    let mut files = Vec::new();
    for dir in ["corpus/crds", "fixtures", "conformance"] {
        collect_files(&shared.join(dir), &mut files);
    }
    files.sort();
    let mut rules = std::collections::BTreeSet::new();
    let mut objects = Vec::new();
    for (i, file) in files.iter().enumerate() {
        let bytes = std::fs::read(file).expect("read");
        let name = format!("{i:04}");
        for target in ["load_documents", "yaml_differential", "crd_check"] {
            write(target, &name, &bytes);
        }
        // JSON fixtures nested to around the API server's 10,000 levels (`#deep`
        // mode of load_documents): at, under and over the limit, arrays and objects.
        if file.extension().is_some_and(|e| e == "json") && i % 4 == 0 {
            for (j, mode) in [[1u8, 2], [1, 3], [5, 4], [0, 128]].iter().enumerate() {
                let mut seed = b"#deep".to_vec();
                seed.extend(mode);
                seed.extend(&bytes);
                write("load_documents", &format!("{name}-deep{j}"), &seed);
            }
        }
        if file.to_string_lossy().contains("corpus/crds") && i % 3 == 0 {
            let mut seed = vec![0u8];
            seed.extend(&bytes);
            write("codegen", &name, &seed);
        }
        for doc in documents(file) {
            walk(&doc, &mut |m| {
                if let Some(Value::String(rule)) = m.get("rule") {
                    rules.insert(rule.clone());
                }
                if let (Some(Value::String(_)), Some(Value::String(_))) =
                    (m.get("apiVersion"), m.get("kind"))
                    && m.get("kind") != Some(&Value::String("CustomResourceDefinition".into()))
                {
                    objects.push(Value::Object(m.clone()));
                }
            });
        }
    }
    // Generated objects: the typed CronTab, and one per corpus CRD (engine_admit's
    // mode byte, then the CRD index as a little-endian u16, then generator bytes).
    for i in 0..64u8 {
        write(
            "engine_admit",
            &format!("typed-{i:02}"),
            &[0, i, i.wrapping_mul(37), 255 - i, i ^ 0x5a],
        );
    }
    for index in 0..corpus_crds().len() as u16 {
        let [lo, hi] = index.to_le_bytes();
        write(
            "engine_admit",
            &format!("crd-{index:04}"),
            &[1, lo, hi, 0, 1, 2, 3, 4, 5, 6, 7],
        );
    }
    for i in 0..32u8 {
        write(
            "codegen",
            &format!("schema-{i:02}"),
            &[1, i, i.wrapping_mul(73), !i, i ^ 0xa5, i.rotate_left(3)],
        );
    }
    // Deep chains (codegen's mode 3): a depth as a little-endian u16 (mapped into
    // 0..=10,050 levels), then the shape of each level.
    for (i, levels) in [0u16, 255, 256, 257, 2_000, 4_990, 9_990, 10_050]
        .iter()
        .enumerate()
    {
        let [lo, hi] = levels.to_le_bytes();
        let mut seed = vec![3, lo, hi];
        seed.extend((0..8u8).map(|k| k.wrapping_mul(i as u8 + 1)));
        write("codegen", &format!("deep-{levels:05}"), &seed);
    }
    for (i, rule) in rules.iter().enumerate() {
        write(
            "cel_eval",
            &format!("rule-{i:04}"),
            format!("{rule}\0").as_bytes(),
        );
    }
    for (i, object) in objects.iter().enumerate().take(400) {
        let mut seed = vec![2u8];
        seed.extend(object.to_string().as_bytes());
        write("engine_admit", &format!("object-{i:04}"), &seed);
        let body = object.to_string();
        let post = format!(
            "POST /apis/stable.example.com/v1/namespaces/default/crontabs\nContent-Type: application/json\n\n{body}"
        );
        write("server_request", &format!("post-{i:04}"), post.as_bytes());
        // Two objects read one after the other into one value (compact, then pretty).
        let next = &objects[(i + 1) % objects.len()];
        let pretty = serde_json::to_string_pretty(next).expect("a value prints");
        write(
            "json_in_place",
            &format!("pair-{i:04}"),
            format!("{body}\n{pretty}").as_bytes(),
        );
    }
    let requests = [
        "GET /api",
        "GET /apis",
        "GET /apis/stable.example.com/v1",
        "GET /openapi/v2",
        "GET /openapi/v3/apis/stable.example.com/v1",
        "GET /apis/stable.example.com/v1/namespaces/default/crontabs?limit=1&continue=abc",
        "GET /apis/stable.example.com/v1/crontabs?labelSelector=a%3Db,c!=d&fieldSelector=metadata.name=x",
        "GET /apis/stable.example.com/v1/namespaces/default/crontabs/x\nAccept: application/json;as=Table;v=v1;g=meta.k8s.io",
        "DELETE /apis/stable.example.com/v1/namespaces/default/crontabs/x",
        "DELETE /apis/stable.example.com/v1/namespaces/default/crontabs?labelSelector=x",
        "PATCH /apis/stable.example.com/v1/namespaces/default/crontabs/x\nContent-Type: application/merge-patch+json\n\n{\"spec\":{\"replicas\":3}}",
        "PATCH /apis/stable.example.com/v1/namespaces/default/crontabs/x\nContent-Type: application/json-patch+json\n\n[{\"op\":\"replace\",\"path\":\"/spec/replicas\",\"value\":2}]",
        "PATCH /apis/stable.example.com/v1/namespaces/default/crontabs/x?fieldManager=kubectl&force=true\nContent-Type: application/apply-patch+yaml\n\napiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: x}\nspec: {replicas: 2}\n",
        "PUT /apis/stable.example.com/v1/namespaces/default/crontabs/x/status\nContent-Type: application/json\n\n{\"apiVersion\":\"stable.example.com/v1\",\"kind\":\"CronTab\",\"metadata\":{\"name\":\"x\",\"resourceVersion\":\"1\"}}",
        "POST /apis/apiextensions.k8s.io/v1/customresourcedefinitions\nContent-Type: application/json\n\n{}",
        "GET /apis/stable.example.com/v1/namespaces/default/crontabs?watch=true&resourceVersion=0",
    ];
    for (i, r) in requests.iter().enumerate() {
        write("server_request", &format!("request-{i:02}"), r.as_bytes());
    }
    println!(
        "seeded {} files, {} rules, {} objects",
        files.len(),
        rules.len(),
        objects.len()
    );
}
