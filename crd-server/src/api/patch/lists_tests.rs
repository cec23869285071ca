//! Lists: merge by key, primitives, list directives, `$setElementOrder`,
//! `$deleteFromPrimitiveList`, `$retainKeys` in items, and the errors; after
//! apimachinery's `strategicpatch` test cases (its `mergingList` is a Pod's containers
//! here, `mergingIntList` an object's finalizers).

use serde_json::{Value, json};

use super::tests::{POD, smp, smp_err};

/// A Pod with these containers (given as `name` or full objects).
fn pod(containers: Value) -> Value {
    json!({"spec": {"containers": containers}})
}

fn names(containers: &[&str]) -> Value {
    Value::Array(containers.iter().map(|n| json!({"name": n})).collect())
}

fn containers(out: &Value) -> &Value {
    &out["spec"]["containers"]
}

#[test]
fn items_merge_by_key_and_new_ones_follow_the_patch_order() {
    let original = pod(json!([{"name": "a", "image": "x"}, {"name": "b", "image": "y"}]));
    let out = smp(
        POD,
        original,
        json!({"spec": {"containers": [{"name": "b", "image": "z"}, {"name": "c", "image": "w"}]}}),
    )
    .unwrap();
    assert_eq!(
        containers(&out),
        &json!([{"name": "a", "image": "x"}, {"name": "b", "image": "z"}, {"name": "c", "image": "w"}])
    );
}

#[test]
fn patch_items_keep_their_order_among_server_items() {
    let out = smp(
        POD,
        pod(names(&["1", "2", "3"])),
        json!({"spec": {"containers": [{"name": "3"}, {"name": "1"}]}}),
    )
    .unwrap();
    assert_eq!(containers(&out), &names(&["2", "3", "1"]));
}

#[test]
fn delete_and_replace_directives_in_lists() {
    let out = smp(
        POD,
        pod(names(&["a", "b", "a"])),
        json!({"spec": {"containers": [{"name": "a", "$patch": "delete"}]}}),
    )
    .unwrap();
    assert_eq!(containers(&out), &names(&["b"]));
    let out = smp(
        POD,
        pod(names(&["a", "b"])),
        json!({"spec": {"containers": [{"name": "c"}, {"$patch": "replace"}]}}),
    )
    .unwrap();
    assert_eq!(containers(&out), &names(&["c"]));
}

#[test]
fn list_directive_errors() {
    let cases = [
        (
            json!([{"$patch": "delete"}]),
            "map: map[$patch:delete] does not contain declared merge key: name",
        ),
        (
            json!([{"$patch": "merge"}]),
            "merging lists cannot yet be specified in the patch",
        ),
        (
            json!([{"name": "a", "$patch": 1}]),
            "unknown patch type: %!s(int64=1) in map: map[$patch:1 name:a]",
        ),
        (
            json!([{"image": "b"}]),
            "map: map[image:b] does not contain declared merge key: name",
        ),
        (
            json!(["a"]),
            "list element types are not identical: [[map[name:a]] [a]]",
        ),
    ];
    for (patch, message) in cases {
        let (code, got) = smp_err(
            POD,
            pod(names(&["a"])),
            json!({"spec": {"containers": patch}}),
        );
        assert_eq!((code, got.as_str()), (500, message));
    }
}

#[test]
fn new_lists_lose_their_directive_items() {
    let out = smp(
        POD,
        json!({"spec": {}}),
        json!({"spec": {"containers": [{"name": "a"}, {"name": "b", "$patch": "delete"}]}}),
    )
    .unwrap();
    assert_eq!(containers(&out), &names(&["a"]));
}

#[test]
fn primitive_merge_lists_are_unions() {
    let out = smp(
        POD,
        json!({"metadata": {"finalizers": ["a", "b"]}}),
        json!({"metadata": {"finalizers": ["c", "a"]}}),
    )
    .unwrap();
    assert_eq!(out["metadata"]["finalizers"], json!(["c", "a", "b"]));
}

#[test]
fn lists_without_strategy_are_replaced() {
    let sa = json!({"imagePullSecrets": [{"name": "a"}], "secrets": [{"name": "s1"}]});
    let out = smp(
        "io.k8s.api.core.v1.ServiceAccount",
        sa,
        json!({"imagePullSecrets": [{"name": "b"}], "secrets": [{"name": "s2"}]}),
    )
    .unwrap();
    assert_eq!(out["imagePullSecrets"], json!([{"name": "b"}]));
    // A merged list (`secrets` merges by name): an item the live list lacks cannot be
    // placed after any of its items, so it comes first.
    assert_eq!(out["secrets"], json!([{"name": "s2"}, {"name": "s1"}]));
}

#[test]
fn owner_references_merge_by_uid() {
    let out = smp(
        POD,
        json!({"metadata": {"ownerReferences": [{"uid": "1", "name": "x"}, {"uid": "2", "name": "y"}]}}),
        json!({"metadata": {"ownerReferences": [{"uid": "2", "controller": true}, {"uid": "1", "$patch": "delete"}]}}),
    )
    .unwrap();
    assert_eq!(
        out["metadata"]["ownerReferences"],
        json!([{"uid": "2", "name": "y", "controller": true}])
    );
}

#[test]
fn delete_from_primitive_list() {
    let obj = json!({"metadata": {"finalizers": ["a", "b", "c"]}});
    let out = smp(
        POD,
        obj.clone(),
        json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["b", "x"]}}),
    )
    .unwrap();
    assert_eq!(out["metadata"]["finalizers"], json!(["a", "c"]));
    // Nothing to delete from: no list appears.
    let out = smp(
        POD,
        json!({"metadata": {}}),
        json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["b"]}}),
    )
    .unwrap();
    assert_eq!(out, json!({"metadata": {}}));
    let (code, message) = smp_err(
        POD,
        obj,
        json!({"metadata": {"$deleteFromPrimitiveList": ["b"]}}),
    );
    assert_eq!(
        (code, message.as_str()),
        (400, "invalid patch format of primitive list")
    );
}

#[test]
fn set_element_order_with_server_only_items() {
    // "set elements order in a list with server-only items 3".
    let current = pod(
        json!([{"name": "1", "image": "a"}, {"name": "2"}, {"name": "7"},
        {"name": "9"}, {"name": "8"}, {"name": "3"}, {"name": "4"}]),
    );
    let out = smp(
        POD,
        current,
        json!({"spec": {"$setElementOrder/containers": names(&["2", "1", "4", "3"])}}),
    )
    .unwrap();
    let got: Vec<&str> = containers(&out)
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(got, ["2", "1", "7", "9", "8", "4", "3"]);
    assert_eq!(containers(&out)[1], json!({"name": "1", "image": "a"}));
}

#[test]
fn set_element_order_merges_the_list_it_orders() {
    let out = smp(
        POD,
        pod(names(&["a", "b", "c"])),
        json!({"spec": {"$setElementOrder/containers": names(&["c", "a"]),
                        "containers": [{"name": "a", "image": "new"}]}}),
    )
    .unwrap();
    assert_eq!(
        containers(&out),
        &json!([{"name": "b"}, {"name": "c"}, {"name": "a", "image": "new"}])
    );
    // Duplicates stay together, at their first place in the order.
    let dup = pod(
        json!([{"name": "1"}, {"name": "2", "image": "d1"}, {"name": "3"},
        {"name": "2", "image": "d2"}, {"name": "4"}]),
    );
    let out = smp(
        POD,
        dup,
        json!({"spec": {"$setElementOrder/containers": names(&["2", "1", "4", "3", "2"])}}),
    )
    .unwrap();
    assert_eq!(
        containers(&out),
        &json!([{"name": "2", "image": "d1"}, {"name": "2", "image": "d2"}, {"name": "1"},
                {"name": "4"}, {"name": "3"}])
    );
    // The order may name items neither list has.
    let out = smp(
        POD,
        pod(names(&["1", "3"])),
        json!({"spec": {"$setElementOrder/containers": names(&["3", "2", "1"]),
                        "containers": [{"name": "3", "image": "c"}, {"name": "1", "image": "a"}]}}),
    )
    .unwrap();
    assert_eq!(
        containers(&out),
        &json!([{"name": "3", "image": "c"}, {"name": "1", "image": "a"}])
    );
    // Primitives, with an item the patch adds.
    let out = smp(
        POD,
        json!({"metadata": {"finalizers": ["a", "b"]}}),
        json!({"metadata": {"$setElementOrder/finalizers": ["b", "c", "a"], "finalizers": ["c"]}}),
    )
    .unwrap();
    assert_eq!(out["metadata"]["finalizers"], json!(["b", "c", "a"]));
}

#[test]
fn set_element_order_errors() {
    let (code, message) = smp_err(
        POD,
        pod(names(&["1", "3", "2"])),
        json!({"spec": {"$setElementOrder/containers": names(&["1", "2", "3"]),
                        "containers": [{"name": "3", "image": "x"}, {"name": "1", "image": "y"}]}}),
    );
    assert_eq!(code, 500);
    assert_eq!(
        message,
        "The order in patch list:\n[map[image:x name:3] map[image:y name:1]]\n doesn't match \
         $setElementOrder list:\n[map[name:1] map[name:2] map[name:3]]\n"
    );
    let cases = [
        (
            json!({"$setElementOrder": []}),
            400,
            "invalid patch format of setElementOrder list",
        ),
        (
            json!({"$setElementOrder/containers": "a"}),
            500,
            "expected a []interface {}, but received a string",
        ),
        (
            json!({"$setElementOrder/hostname": ["a"]}),
            500,
            "expected slice or array type, but got: struct",
        ),
        (
            json!({"$setElementOrder/nope": ["a"]}),
            500,
            "unable to find api field in struct PodSpec for the json field \"nope\"",
        ),
    ];
    for (spec, code, message) in cases {
        let got = smp_err(POD, pod(names(&["a"])), json!({"spec": spec}));
        assert_eq!((got.0, got.1.as_str()), (code, message));
    }
}

#[test]
fn retain_keys_in_list_items() {
    // Volumes are `merge,retainKeys`: kubectl apply switching a volume's source.
    let original = json!({"spec": {"volumes": [{"name": "v", "emptyDir": {}}, {"name": "w", "emptyDir": {}}]}});
    let out = smp(
        POD,
        original,
        json!({"spec": {"volumes": [{"name": "v", "$retainKeys": ["configMap", "name"],
                                     "configMap": {"name": "cm"}}]}}),
    )
    .unwrap();
    assert_eq!(
        out["spec"]["volumes"],
        json!([{"name": "v", "configMap": {"name": "cm"}}, {"name": "w", "emptyDir": {}}])
    );
}

#[test]
fn lists_of_lists_and_untyped_merges_fail() {
    let e = smp(
        POD,
        json!({"metadata": {"finalizers": []}}),
        json!({"metadata": {"finalizers": [["a"]]}}),
    )
    .unwrap_err();
    assert_eq!(e.code.as_u16(), 422);
    assert_eq!(
        e.message,
        "the server rejected our request due to an error in our request"
    );
    let (code, message) = smp_err(
        POD,
        json!({"metadata": {"finalizers": [{"a": 1}]}}),
        json!({"metadata": {"finalizers": [{"b": 2}]}}),
    );
    assert_eq!(
        (code, message.as_str()),
        (500, "cannot merge lists without merge key for string")
    );
}
