use crd_runtime::rbac::UserInfo;

use super::*;

const POLICY: &str = r#"
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: None
    nonResourceURLs: ["/healthz*", "/version"]
  - level: None
    users: ["system:kube-proxy"]
  - level: RequestResponse
    resources:
      - group: ""
        resources: ["secrets"]
    namespaces: ["prod"]
  - level: Request
    verbs: ["create", "update"]
    resources:
      - group: "apps"
        resources: ["deployments/*"]
    omitStages: ["ResponseStarted"]
  - level: Metadata
    userGroups: ["system:authenticated"]
"#;

fn attrs(user: &str, verb: &str, group: &str, resource: &str, sub: &str, ns: &str) -> Attributes {
    Attributes {
        user: UserInfo::user(user),
        verb: verb.into(),
        api_group: group.into(),
        resource: resource.into(),
        subresource: sub.into(),
        namespace: ns.into(),
        resource_request: true,
        ..Attributes::default()
    }
}

#[test]
fn the_first_matching_rule_gives_the_level() {
    let p = Policy::parse("policy.yaml", POLICY).unwrap();
    let health = Attributes {
        user: UserInfo::user("alice"),
        verb: "get".into(),
        path: "/healthz/ping".into(),
        ..Attributes::default()
    };
    assert_eq!(p.level_of(&health).0, Level::None);
    let (level, omit) = p.level_of(&attrs(
        "alice",
        "update",
        "apps",
        "deployments",
        "scale",
        "dev",
    ));
    assert_eq!(level, Level::Request);
    assert_eq!(omit, [Stage::RequestReceived, Stage::ResponseStarted]);
    // (user, verb, group, resource, namespace) and the level its first rule gives.
    let cases = [
        (("system:kube-proxy", "get", "", "pods", "x"), Level::None),
        (
            ("alice", "get", "", "secrets", "prod"),
            Level::RequestResponse,
        ),
        // Another namespace falls through to the group rule.
        (("alice", "get", "", "secrets", "dev"), Level::Metadata),
        // "deployments/*" matches the object itself too (upstream's checker compares
        // the resource, not the combined one); another verb falls through.
        (
            ("alice", "update", "apps", "deployments", "dev"),
            Level::Request,
        ),
        (
            ("alice", "get", "apps", "deployments", "dev"),
            Level::Metadata,
        ),
    ];
    for ((user, verb, group, resource, ns), want) in cases {
        let request = attrs(user, verb, group, resource, "", ns);
        assert_eq!(
            p.level_of(&request).0,
            want,
            "{user} {verb} {resource} in {ns}"
        );
    }
    let mut anonymous = attrs("system:anonymous", "get", "", "pods", "", "");
    anonymous.user.groups = vec!["system:unauthenticated".into()];
    assert_eq!(p.level_of(&anonymous).0, Level::None);
}

#[test]
fn bad_policies_name_the_file_and_field() {
    let bad_level = "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Everything\n";
    assert_eq!(
        Policy::parse("p.yaml", bad_level).unwrap_err(),
        "p.yaml: rules[0].level: Unsupported value: \"Everything\": supported values: \"None\", \"Metadata\", \"Request\", \"RequestResponse\""
    );
    let both = "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  nonResourceURLs: [/x]\n  namespaces: [a]\n";
    assert!(Policy::parse("p.yaml", both).unwrap_err().contains(
        "rules[0].nonResourceURLs: Invalid value: [\"/x\"]: rules cannot apply to both regular resources and non-resource URLs"
    ));
    let wrong = "apiVersion: v1\nkind: ConfigMap\n";
    assert!(
        Policy::parse("p.yaml", wrong)
            .unwrap_err()
            .starts_with("p.yaml: not an audit Policy")
            || Policy::parse("p.yaml", wrong)
                .unwrap_err()
                .contains("not an audit.k8s.io/v1 Policy")
    );
    let stage = "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [Later]\n";
    assert!(
        Policy::parse("p.yaml", stage)
            .unwrap_err()
            .contains("omitStages[0]: Unsupported value: \"Later\"")
    );
}
