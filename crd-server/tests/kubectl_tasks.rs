//! kubectl's documented tasks for ConfigMaps, Secrets, Deployments, Services and Events,
//! run as the Kubernetes docs show them (typed `create` commands send protobuf,
//! client-side `apply`, `set image` and `rollout restart` send strategic merge patches).

mod support;

use serde_json::Value;
use support::{kubectl_err, kubectl_ok, write};

fn json(url: &str, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.extend(["-o", "json"]);
    serde_json::from_str(&kubectl_ok(url, &all)).expect("kubectl -o json")
}

/// The docs' `nginx-deployment`, with `containers` as given.
fn deployment(containers: &str) -> String {
    format!(
        "apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx-deployment
  labels: {{app: nginx}}
spec:
  replicas: 3
  selector:
    matchLabels: {{app: nginx}}
  template:
    metadata:
      labels: {{app: nginx}}
    spec:
      containers:
{containers}"
    )
}

const NGINX: &str = "      - name: nginx
        image: nginx:1.14.2
        ports:
        - containerPort: 80
";

const NGINX_AND_SIDECAR: &str = "      - name: nginx
        image: nginx:1.16.1
        ports:
        - containerPort: 80
      - name: logger
        image: busybox:1.36
        args: [sh, -c, 'tail -F /var/log/nginx/access.log']
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn documented_kubectl_tasks() {
    let server = crd_server::TestServer::builder()
        .start()
        .await
        .expect("server");
    let url = server.url();
    tokio::task::spawn_blocking(move || {
        let dir = tempfile::tempdir().expect("tempdir");
        config_maps(&url, dir.path());
        secrets(&url);
        deployments(&url, dir.path());
        services(&url);
        events(&url, dir.path());
    })
    .await
    .expect("tasks");
}

/// "Configure a Pod to Use a ConfigMap": from a directory, files, literals, env files.
fn config_maps(url: &str, dir: &std::path::Path) {
    let configs = dir.join("configure-pod-container");
    std::fs::create_dir_all(&configs).unwrap();
    std::fs::write(configs.join("game.properties"), "enemies=aliens\nlives=3\n").unwrap();
    std::fs::write(configs.join("ui.properties"), "color.good=purple\n").unwrap();
    let out = kubectl_ok(
        url,
        &[
            "create",
            "configmap",
            "game-config",
            "--from-file",
            &configs.display().to_string(),
        ],
    );
    assert_eq!(out.trim(), "configmap/game-config created");
    let cm = json(url, &["get", "configmaps", "game-config"]);
    assert_eq!(cm["data"]["game.properties"], "enemies=aliens\nlives=3\n");
    assert_eq!(cm["data"]["ui.properties"], "color.good=purple\n");
    let described = kubectl_ok(url, &["describe", "configmaps", "game-config"]);
    assert!(described.contains("game.properties:"), "{described}");

    kubectl_ok(
        url,
        &[
            "create",
            "configmap",
            "special-config",
            "--from-literal=special.how=very",
            "--from-literal=special.type=charm",
        ],
    );
    let env = write(
        dir,
        "game-env-file.properties",
        "enemies=aliens\nlives=3\nallowed=\"true\"\n",
    );
    kubectl_ok(
        url,
        &[
            "create",
            "configmap",
            "game-config-env-file",
            "--from-env-file",
            &env,
        ],
    );
    let cm = json(url, &["get", "cm", "game-config-env-file"]);
    assert_eq!(cm["data"]["allowed"], "\"true\"");
    let names = kubectl_ok(url, &["get", "configmaps", "-o", "name"]);
    assert!(names.contains("configmap/special-config"), "{names}");

    // A bad key is refused with kube-apiserver's words.
    let err = kubectl_err(url, &["create", "configmap", "bad", "--from-literal=a b=c"]);
    assert!(
        err.contains("a valid config key must consist of alphanumeric characters"),
        "{err}"
    );
}

/// "Managing Secrets using kubectl".
fn secrets(url: &str) {
    let out = kubectl_ok(
        url,
        &[
            "create",
            "secret",
            "generic",
            "db-user-pass",
            "--from-literal=username=admin",
            "--from-literal=password=S!B\\*d$zDsb=",
        ],
    );
    assert_eq!(out.trim(), "secret/db-user-pass created");
    let pass = kubectl_ok(
        url,
        &[
            "get",
            "secret",
            "db-user-pass",
            "-o",
            "jsonpath={.data.password}",
        ],
    );
    use base64::Engine as _;
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(pass.trim())
        .unwrap();
    assert_eq!(decoded, b"S!B\\*d$zDsb=");
    let secret = json(url, &["get", "secret", "db-user-pass"]);
    assert_eq!(secret["type"], "Opaque");
    kubectl_ok(
        url,
        &[
            "create",
            "secret",
            "docker-registry",
            "regcred",
            "--docker-server=registry.example.com",
            "--docker-username=u",
            "--docker-password=p",
        ],
    );
    let secret = json(url, &["get", "secret", "regcred"]);
    assert_eq!(secret["type"], "kubernetes.io/dockerconfigjson");
    let typed = kubectl_ok(
        url,
        &[
            "get",
            "secrets",
            "--field-selector",
            "type=kubernetes.io/dockerconfigjson",
            "-o",
            "name",
        ],
    );
    assert_eq!(typed.trim(), "secret/regcred");
    let out = kubectl_ok(url, &["delete", "secret", "db-user-pass"]);
    assert_eq!(out.trim(), "secret \"db-user-pass\" deleted");
}

/// "Deployments": create, apply twice with a changed container list, scale, set image,
/// rollout restart, and the defaults in `-o yaml`.
fn deployments(url: &str, dir: &std::path::Path) {
    let out = kubectl_ok(
        url,
        &[
            "create",
            "deployment",
            "hello",
            "--image=registry.k8s.io/echoserver:1.4",
        ],
    );
    assert_eq!(out.trim(), "deployment.apps/hello created");

    let out = kubectl_ok(
        url,
        &["apply", "-f", &write(dir, "nginx.yaml", &deployment(NGINX))],
    );
    assert_eq!(out.trim(), "deployment.apps/nginx-deployment created");
    let d = json(url, &["get", "deployment", "nginx-deployment"]);
    assert_eq!(d["metadata"]["generation"], 1);
    assert_eq!(d["spec"]["strategy"]["type"], "RollingUpdate");
    assert_eq!(d["spec"]["strategy"]["rollingUpdate"]["maxSurge"], "25%");
    assert_eq!(
        d["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"],
        "25%"
    );
    assert_eq!(d["spec"]["revisionHistoryLimit"], 10);
    assert_eq!(d["spec"]["progressDeadlineSeconds"], 600);
    let pod = &d["spec"]["template"]["spec"];
    assert_eq!(pod["restartPolicy"], "Always");
    assert_eq!(pod["dnsPolicy"], "ClusterFirst");
    assert_eq!(pod["schedulerName"], "default-scheduler");
    assert_eq!(pod["terminationGracePeriodSeconds"], 30);
    assert_eq!(pod["securityContext"], serde_json::json!({}));
    let c = &pod["containers"][0];
    assert_eq!(c["imagePullPolicy"], "IfNotPresent");
    assert_eq!(c["terminationMessagePath"], "/dev/termination-log");
    assert_eq!(c["terminationMessagePolicy"], "File");
    assert_eq!(c["ports"][0]["protocol"], "TCP");
    let yaml = kubectl_ok(
        url,
        &["get", "deployment", "nginx-deployment", "-o", "yaml"],
    );
    assert!(yaml.contains("progressDeadlineSeconds: 600"), "{yaml}");

    // Applied again with a changed container list: a three-way strategic merge patch.
    let out = kubectl_ok(
        url,
        &[
            "apply",
            "-f",
            &write(dir, "nginx2.yaml", &deployment(NGINX_AND_SIDECAR)),
        ],
    );
    assert_eq!(out.trim(), "deployment.apps/nginx-deployment configured");
    let d = json(url, &["get", "deployment", "nginx-deployment"]);
    let containers = d["spec"]["template"]["spec"]["containers"]
        .as_array()
        .unwrap();
    let names: Vec<&str> = containers
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["nginx", "logger"]);
    assert_eq!(containers[0]["image"], "nginx:1.16.1");
    assert_eq!(d["metadata"]["generation"], 2);
    // And back: the sidecar goes.
    kubectl_ok(
        url,
        &[
            "apply",
            "-f",
            &write(dir, "nginx3.yaml", &deployment(NGINX)),
        ],
    );
    let d = json(url, &["get", "deployment", "nginx-deployment"]);
    assert_eq!(
        d["spec"]["template"]["spec"]["containers"]
            .as_array()
            .unwrap()
            .len(),
        1
    );

    let out = kubectl_ok(
        url,
        &["scale", "deployment/nginx-deployment", "--replicas=5"],
    );
    assert_eq!(out.trim(), "deployment.apps/nginx-deployment scaled");
    let out = kubectl_ok(
        url,
        &[
            "set",
            "image",
            "deployment/nginx-deployment",
            "nginx=nginx:1.16.1",
        ],
    );
    assert_eq!(out.trim(), "deployment.apps/nginx-deployment image updated");
    kubectl_ok(url, &["rollout", "restart", "deployment/nginx-deployment"]);
    let d = json(url, &["get", "deployment", "nginx-deployment"]);
    assert_eq!(d["spec"]["replicas"], 5);
    assert_eq!(
        d["spec"]["template"]["spec"]["containers"][0]["image"],
        "nginx:1.16.1"
    );
    assert!(
        d["spec"]["template"]["metadata"]["annotations"]["kubectl.kubernetes.io/restartedAt"]
            .is_string()
    );
    let table = kubectl_ok(url, &["get", "deployments"]);
    let header: Vec<&str> = table.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(header, ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]);
    assert!(table.contains("nginx-deployment   0/5"), "{table}");
}

/// "Connecting Applications with Services": expose, create service, the columns.
fn services(url: &str) {
    let out = kubectl_ok(
        url,
        &[
            "expose",
            "deployment/nginx-deployment",
            "--port=80",
            "--target-port=80",
        ],
    );
    assert_eq!(out.trim(), "service/nginx-deployment exposed");
    let svc = json(url, &["get", "svc", "nginx-deployment"]);
    assert_eq!(svc["spec"]["selector"]["app"], "nginx");
    assert_eq!(svc["spec"]["type"], "ClusterIP");
    let ip = svc["spec"]["clusterIP"].as_str().unwrap();
    assert!(
        ip.starts_with("10.9") || ip.starts_with("10.10") || ip.starts_with("10.11"),
        "{ip}"
    );
    kubectl_ok(
        url,
        &["create", "service", "nodeport", "my-ns", "--tcp=5678:8080"],
    );
    let np = json(url, &["get", "svc", "my-ns"]);
    let port = np["spec"]["ports"][0]["nodePort"].as_i64().unwrap();
    assert!((30000..=32767).contains(&port), "{port}");
    let table = kubectl_ok(url, &["get", "services"]);
    let header: Vec<&str> = table.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(
        header,
        [
            "NAME",
            "TYPE",
            "CLUSTER-IP",
            "EXTERNAL-IP",
            "PORT(S)",
            "AGE"
        ]
    );
    assert!(table.contains("kubernetes"), "{table}");
    let described = kubectl_ok(url, &["describe", "svc", "nginx-deployment"]);
    let selector = described.lines().find(|l| l.starts_with("Selector:"));
    let words = selector.map(|l| l.split_whitespace().collect::<Vec<_>>());
    assert_eq!(words, Some(vec!["Selector:", "app=nginx"]), "{described}");
}

/// Events: recorded about an object, listed, filtered, and shown by `describe`.
fn events(url: &str, dir: &std::path::Path) {
    let d = json(url, &["get", "deployment", "nginx-deployment"]);
    let uid = d["metadata"]["uid"].as_str().unwrap();
    let event = format!(
        "apiVersion: v1
kind: Event
metadata: {{name: nginx-deployment.1}}
involvedObject: {{apiVersion: apps/v1, kind: Deployment, name: nginx-deployment, namespace: default, uid: {uid}}}
reason: ScalingReplicaSet
message: Scaled up replica set nginx-deployment-abc to 5
type: Normal
source: {{component: deployment-controller}}
firstTimestamp: \"2026-11-26T05:00:00Z\"
lastTimestamp: \"2026-11-26T05:00:00Z\"
count: 1
"
    );
    kubectl_ok(url, &["create", "-f", &write(dir, "event.yaml", &event)]);
    let table = kubectl_ok(url, &["get", "events"]);
    let header: Vec<&str> = table.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(
        header,
        ["LAST", "SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    );
    assert!(table.contains("deployment/nginx-deployment"), "{table}");
    let described = kubectl_ok(url, &["describe", "deployment", "nginx-deployment"]);
    assert!(described.contains("ScalingReplicaSet"), "{described}");
    let listed = kubectl_ok(url, &["events", "--for", "deployment/nginx-deployment"]);
    assert!(
        listed.contains("Scaled up replica set nginx-deployment-abc to 5"),
        "{listed}"
    );
    let none = kubectl_ok(
        url,
        &[
            "get",
            "events",
            "--field-selector",
            "type=Warning",
            "-o",
            "name",
        ],
    );
    assert_eq!(none.trim(), "");
    let normal = kubectl_ok(
        url,
        &[
            "get",
            "events",
            "--field-selector",
            "type=Normal,reason=ScalingReplicaSet",
            "-o",
            "name",
        ],
    );
    assert_eq!(normal.trim(), "event/nginx-deployment.1");
}
