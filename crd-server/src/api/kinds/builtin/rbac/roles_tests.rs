use super::*;

fn errors(b: &dyn Behaviour, obj: Value, old: Option<Value>) -> Vec<String> {
    let mut obj = obj;
    b.decode(&mut obj).unwrap();
    let mut errs = ErrorList::new();
    b.validate(&obj, old.as_ref(), &mut errs);
    errs.strings()
}

#[test]
fn rules_are_checked_like_validate_role() {
    let role = json!({"rules": [
        {"apiGroups": [""], "resources": ["pods"]},
        {"verbs": ["get"], "nonResourceURLs": ["/healthz"]},
        {"verbs": ["get"], "resources": ["pods", "secrets"], "resourceNames": ["a"]},
    ]});
    assert_eq!(
        errors(&Roles { cluster: false }, role.clone(), None),
        [
            "rules[0].verbs: Required value: verbs must contain at least one value",
            "rules[1].nonResourceURLs: Invalid value: [\"/healthz\"]: namespaced rules cannot apply to non-resource URLs",
            "rules[2].apiGroups: Required value: resource rules must supply at least one api group",
            "rules[2].resourceNames: Required value: resource names cannot apply to multiple resources",
        ]
    );
    let cluster = errors(&Roles { cluster: true }, role, None);
    assert_eq!(cluster.len(), 3);
    let aggregated = json!({"aggregationRule": {"clusterRoleSelectors": []}});
    assert_eq!(
        errors(&Roles { cluster: true }, aggregated, None),
        [
            "aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil"
        ]
    );
}

#[test]
fn bindings_default_their_groups_and_keep_their_role() {
    let b = Bindings { cluster: false };
    let mut rb = json!({
        "roleRef": {"kind": "ClusterRole", "name": "view"},
        "subjects": [{"kind": "User", "name": "jane"}, {"kind": "ServiceAccount", "name": "sa"}]
    });
    b.decode(&mut rb).unwrap();
    assert_eq!(rb["roleRef"]["apiGroup"], GROUP);
    assert_eq!(rb["subjects"][0]["apiGroup"], GROUP);
    assert!(rb["subjects"][1].get("apiGroup").is_none());
    assert!(errors(&b, rb.clone(), None).is_empty());

    let mut changed = rb.clone();
    changed["roleRef"]["name"] = json!("edit");
    assert_eq!(
        errors(&b, changed, Some(rb)),
        [
            "roleRef: Invalid value: {\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\",\"name\":\"edit\"}: cannot change roleRef"
        ]
    );

    let bad = json!({
        "roleRef": {"apiGroup": "x", "kind": "Role", "name": ""},
        "subjects": [{"kind": "ServiceAccount", "name": "sa"}, {"kind": "Robot", "name": "r"}]
    });
    assert_eq!(
        errors(&Bindings { cluster: true }, bad, None),
        [
            "roleRef.apiGroup: Unsupported value: \"x\": supported values: \"rbac.authorization.k8s.io\"",
            "roleRef.kind: Unsupported value: \"Role\": supported values: \"ClusterRole\"",
            "roleRef.name: Required value",
            "subjects[0].namespace: Required value",
            "subjects[1].kind: Unsupported value: \"Robot\": supported values: \"ServiceAccount\", \"User\", \"Group\"",
        ]
    );
}

#[test]
fn binding_columns_show_the_role_and_subjects() {
    let cols = Bindings { cluster: true }.columns();
    let rb = json!({"roleRef": {"kind": "ClusterRole", "name": "view"}, "subjects": [
        {"kind": "ServiceAccount", "namespace": "ns", "name": "a"},
        {"kind": "Group", "name": "g1"}, {"kind": "Group", "name": "g2"}
    ]});
    let cell = |i: usize| match &cols[i].cell {
        crate::api::table::Cell::Computed(f) => f(&rb),
        _ => Value::Null,
    };
    assert_eq!(cell(0), "ClusterRole/view");
    assert_eq!(cell(3), "g1, g2");
    assert_eq!(cell(4), "ns/a");
}
