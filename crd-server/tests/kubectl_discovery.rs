//! Discovery with the real kubectl (1.32 asks for aggregated discovery first):
//! `kubectl api-resources` and `kubectl api-versions` list the built-in kinds and a CRD
//! applied with kubectl, from `/api` and `/apis` alone (no per-version requests).

mod support;

use crd_runtime::KubeVersion;
use support::{kubectl, kubectl_ok, write};

fn fixture() -> String {
    let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/fixtures/crontab/crd-full.yaml");
    assert!(
        p.exists(),
        "{} is missing: ../shared must sit beside the checkout",
        p.display()
    );
    std::fs::read_to_string(p).expect("fixture")
}

/// kubectl's table lines with the columns' padding collapsed.
fn lines(out: &str) -> Vec<String> {
    out.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|l| !l.is_empty())
        .collect()
}

/// Asserts that `expected` appear in `got` in this order (other kinds may sit between).
fn in_order(got: &[String], expected: &[&str]) {
    let mut rest = got.iter();
    for line in expected {
        assert!(
            rest.any(|l| l == line),
            "{line:?} is missing or out of order in:\n{}",
            got.join("\n")
        );
    }
}

/// The paths kubectl requested, from its `-v=6` log.
fn requested_paths(url: &str, args: &[&str]) -> Vec<String> {
    let mut all = args.to_vec();
    all.push("-v=6");
    let out = kubectl(url, &all);
    assert!(out.status.success(), "kubectl {args:?} failed");
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter_map(|l| l.split_once(&format!("GET {url}")))
        .map(|(_, rest)| rest.split(['?', ' ']).next().unwrap_or("").to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_lists_resources_from_aggregated_discovery() {
    let server = crd_server::TestServer::builder()
        .start()
        .await
        .expect("server");
    let url = server.url();
    tokio::task::spawn_blocking(move || walk(&url))
        .await
        .expect("walk");
}

fn walk(url: &str) {
    let builtins = [
        "NAME SHORTNAMES APIVERSION NAMESPACED KIND",
        "configmaps cm v1 true ConfigMap",
        "events ev v1 true Event",
        "namespaces ns v1 false Namespace",
        "secrets v1 true Secret",
        "serviceaccounts sa v1 true ServiceAccount",
        "customresourcedefinitions crd,crds apiextensions.k8s.io/v1 false CustomResourceDefinition",
        "leases coordination.k8s.io/v1 true Lease",
        "events ev events.k8s.io/v1 true Event",
    ];
    in_order(&lines(&kubectl_ok(url, &["api-resources"])), &builtins);
    assert!(!kubectl_ok(url, &["api-versions"]).contains("stable.example.com"));

    // One request each to /api and /apis: the aggregated documents were understood.
    let paths = requested_paths(url, &["api-resources"]);
    assert_eq!(
        paths,
        ["/api", "/apis"],
        "kubectl fell back to legacy discovery"
    );

    let dir = tempfile::tempdir().unwrap();
    let crd = write(dir.path(), "crd.yaml", &fixture());
    kubectl_ok(url, &["apply", "--server-side", "-f", &crd]);

    let mut with_crd = builtins.to_vec();
    with_crd.push("crontabs ct stable.example.com/v1 true CronTab");
    in_order(&lines(&kubectl_ok(url, &["api-resources"])), &with_crd);
    in_order(
        &lines(&kubectl_ok(
            url,
            &[
                "api-resources",
                "--api-group=stable.example.com",
                "-o",
                "wide",
            ],
        )),
        &[
            "NAME SHORTNAMES APIVERSION NAMESPACED KIND VERBS CATEGORIES",
            "crontabs ct stable.example.com/v1 true CronTab delete,deletecollection,get,list,patch,create,update,watch all",
        ],
    );
    in_order(
        &lines(&kubectl_ok(url, &["api-resources", "--namespaced=false"])),
        &[
            "NAME SHORTNAMES APIVERSION NAMESPACED KIND",
            "namespaces ns v1 false Namespace",
            "customresourcedefinitions crd,crds apiextensions.k8s.io/v1 false CustomResourceDefinition",
        ],
    );
    // kubectl sorts the group versions by name; the core group's is plain `v1`.
    in_order(
        &lines(&kubectl_ok(url, &["api-versions"])),
        &[
            "apiextensions.k8s.io/v1",
            "coordination.k8s.io/v1",
            "events.k8s.io/v1",
            "stable.example.com/v1",
            "v1",
        ],
    );

    // Removed: gone from the next discovery.
    kubectl_ok(url, &["delete", "-f", &crd, "--wait=true"]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    while kubectl_ok(url, &["api-versions"]).contains("stable.example.com") {
        assert!(
            std::time::Instant::now() < deadline,
            "the deleted CRD is still discovered"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_uses_aggregated_discovery_of_1_32() {
    let server = crd_server::TestServer::builder()
        .kube_version(KubeVersion::new(32).unwrap())
        .start()
        .await
        .expect("server");
    let url = server.url();
    tokio::task::spawn_blocking(move || {
        assert_eq!(requested_paths(&url, &["api-versions"]), ["/api", "/apis"]);
        in_order(
            &lines(&kubectl_ok(&url, &["api-resources"])),
            &["leases coordination.k8s.io/v1 true Lease"],
        );
    })
    .await
    .expect("kubectl");
}
