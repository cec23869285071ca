//! `crd-gen rbac`: roles from an audit log, `--check` against given roles, and the
//! errors of bad input, through the binary as a script runs it.

mod common;

use common::cli::run_with_stdin;
use serde_json::json;

const ROBOT: &str = "system:serviceaccount:demo:robot";

fn log() -> String {
    let event = |id: u32, verb: &str, object: Option<serde_json::Value>, uri: &str, code: u16| {
        let mut e = json!({
            "kind": "Event", "apiVersion": "audit.k8s.io/v1", "level": "Metadata",
            "auditID": id.to_string(), "stage": "ResponseComplete", "verb": verb,
            "requestURI": uri, "responseStatus": {"code": code},
            "user": {"username": ROBOT, "groups": ["system:serviceaccounts", "system:authenticated"]},
        });
        if let Some(o) = object {
            e["objectRef"] = o;
        }
        e.to_string()
    };
    [
        event(1, "list", Some(json!({"resource": "pods", "namespace": "demo", "apiVersion": "v1"})), "/api/v1/namespaces/demo/pods", 200),
        event(2, "get", Some(json!({"resource": "configmaps", "namespace": "demo", "name": "cfg", "apiVersion": "v1"})), "/api/v1/namespaces/demo/configmaps/cfg", 200),
        event(3, "list", Some(json!({"resource": "nodes", "apiVersion": "v1"})), "/api/v1/nodes", 403),
        event(4, "get", None, "/version", 200),
    ]
    .join("\n")
}

#[test]
fn generated_roles_pass_their_own_check() {
    let dir = tempfile::tempdir().unwrap();
    let log_path = dir.path().join("audit.log");
    std::fs::write(&log_path, log()).unwrap();
    let log_path = log_path.to_str().unwrap();
    let (code, roles, err) =
        run_with_stdin(&["rbac", log_path, "--serviceaccount", "demo:robot"], b"");
    assert_eq!(code, 0, "{err}");
    assert!(
        roles.contains("kind: ClusterRole\n") && roles.contains("kind: Role\n"),
        "{roles}"
    );
    assert!(roles.contains("  namespace: demo\n"), "{roles}");
    let roles_path = dir.path().join("roles.yaml");
    std::fs::write(&roles_path, &roles).unwrap();
    let (code, out, err) = run_with_stdin(
        &[
            "rbac",
            log_path,
            "--user",
            ROBOT,
            "--check",
            roles_path.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        out,
        format!("checked 4 requests of {ROBOT} against 2 roles: 0 missing, 0 unused\n")
    );
    // The log from stdin gives the same roles.
    let (code, again, _) = run_with_stdin(&["rbac", "-", "--user", ROBOT], log().as_bytes());
    assert_eq!(code, 0);
    assert_eq!(again, roles);
}

#[test]
fn check_reports_missing_and_unused_rules_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    let log_path = dir.path().join("audit.log");
    std::fs::write(&log_path, log()).unwrap();
    let role = dir.path().join("role.yaml");
    std::fs::write(
        &role,
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: operator, namespace: demo}\n\
         rules:\n- apiGroups: [\"\"]\n  resources: [pods, configmaps, secrets]\n  verbs: [get, list, delete]\n\
         ---\napiVersion: v1\nkind: ServiceAccount\nmetadata: {name: robot, namespace: demo}\n",
    )
    .unwrap();
    let (code, out, err) = run_with_stdin(
        &[
            "rbac",
            log_path.to_str().unwrap(),
            "--serviceaccount",
            "demo:robot",
            "--check",
            role.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(code, 1, "{err}");
    assert_eq!(
        out,
        format!(
            "missing: User \"{ROBOT}\" cannot list resource \"nodes\" in API group \"\" at the cluster scope (forbidden in the log, 1 request)\n\
             missing: User \"{ROBOT}\" cannot get path \"/version\" (allowed in the log, 1 request)\n\
             unused: Role \"demo/operator\": {{APIGroups:[\"\"], Resources:[\"pods\"], Verbs:[\"get\" \"delete\"]}}\n\
             unused: Role \"demo/operator\": {{APIGroups:[\"\"], Resources:[\"configmaps\"], Verbs:[\"list\" \"delete\"]}}\n\
             unused: Role \"demo/operator\": {{APIGroups:[\"\"], Resources:[\"secrets\"], Verbs:[\"get\" \"list\" \"delete\"]}}\n\
             checked 4 requests of {ROBOT} against 1 roles: 2 missing, 3 unused\n"
        )
    );
}

#[test]
fn bad_input_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.log");
    std::fs::write(
        &bad,
        format!("{}\n{{not json\n", log().lines().next().unwrap()),
    )
    .unwrap();
    let bad = bad.to_str().unwrap();
    let (code, _, err) = run_with_stdin(&["rbac", bad, "--user", "u"], b"");
    assert_eq!(code, 2);
    assert!(
        err.starts_with(&format!("error: {bad}:2: not JSON: ")),
        "{err}"
    );
    let (code, _, err) = run_with_stdin(&["rbac", "/nonexistent.log", "--user", "u"], b"");
    assert_eq!(code, 2);
    assert!(
        err.starts_with("error: /nonexistent.log: No such file"),
        "{err}"
    );
    let (code, _, err) = run_with_stdin(&["rbac", "-", "--serviceaccount", "robot"], b"");
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "error: --serviceaccount \"robot\": expected NAMESPACE:NAME, e.g. demo:robot\n"
    );
    let (code, _, err) = run_with_stdin(&["rbac", "-", "--user", "nobody"], log().as_bytes());
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "error: nobody made no request in the audit log: no roles to write\n"
    );
    let role = dir.path().join("role.yaml");
    std::fs::write(
        &role,
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: r, namespace: demo}\nrules: [{verbs: get}]\n",
    )
    .unwrap();
    let (code, _, err) = run_with_stdin(
        &[
            "rbac",
            "-",
            "--user",
            ROBOT,
            "--check",
            role.to_str().unwrap(),
        ],
        log().as_bytes(),
    );
    assert_eq!(code, 2);
    assert_eq!(
        err,
        format!(
            "error: {}: Role \"demo/r\": rules: invalid type: string \"get\", expected a sequence\n",
            role.display()
        )
    );
}
