//! One table, four judges: `crd-gen check`, `crd-gen validate`, crd-server (driven
//! with kubectl) and a derived type's `admit()` must agree on every case — whether a
//! CRD's rules are accepted by a server of each release, and which objects pass.
//!
//! Each case is a derived resource whose CRD (`crd_yaml()`) is what the binaries and
//! the server are given, so the rules are written once. Derived types compile their
//! engine for the newest release, so `admit()` is judged at that release only; the
//! binaries and the server at the releases around the rule's first one.

mod agreement;

use agreement::{Case, Obj, run_table};
use crd_runtime::{CustomResource, CustomResourceExt};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// A map of short strings, ruled by a two-variable `all`.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[crd(
    group = "agree.example.com",
    version = "v1",
    kind = "TwoVarAll",
    namespaced
)]
pub struct TwoVarAllSpec {
    #[crd(
        max_properties = 16,
        values(max_length = 32),
        validation = "self.all(k, v, v.size() > 0)"
    )]
    pub m: BTreeMap<String, String>,
}

/// A list ruled by a two-variable `exists` over index and value.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[crd(
    group = "agree.example.com",
    version = "v1",
    kind = "TwoVarExists",
    namespaced
)]
pub struct TwoVarExistsSpec {
    #[crd(
        max_items = 16,
        items(max_length = 32),
        validation = "self.exists(i, v, i < 5 && v == 'a')"
    )]
    pub l: Vec<String>,
}

/// `transformList` with index and value (integers: `v + string(i)` would have a
/// string of unknown size, which cel-go's estimator prices beyond the limit).
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[crd(
    group = "agree.example.com",
    version = "v1",
    kind = "TransformList",
    namespaced
)]
pub struct TransformListSpec {
    #[crd(
        max_items = 16,
        items(max_length = 32),
        validation(
            rule = "self.transformList(i, v, v == 'b' ? i : 0).all(x, x != 1)",
            message = "b may not come second"
        )
    )]
    pub l: Vec<String>,
}

/// `transformMap` over keys and values.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[crd(
    group = "agree.example.com",
    version = "v1",
    kind = "TransformMap",
    namespaced
)]
pub struct TransformMapSpec {
    #[crd(
        max_properties = 16,
        values(max_length = 32),
        validation = "self.transformMap(k, v, v + 'x') != {'bad': 'x'}"
    )]
    pub m: BTreeMap<String, String>,
}

/// kube-rs's documented immutability rule for `optionalOldSelf`.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[crd(
    group = "agree.example.com",
    version = "v1",
    kind = "OptMap",
    namespaced
)]
pub struct OptMapSpec {
    #[crd(
        max_length = 32,
        validation(
            rule = "oldSelf.optMap(o, o == self).orValue(true)",
            message = "name is immutable",
            optional_old_self = true
        )
    )]
    pub name: String,
}

/// The lists extension of Kubernetes 1.34's environment (`sort`, `distinct`).
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[crd(
    group = "agree.example.com",
    version = "v1",
    kind = "SortedList",
    namespaced
)]
pub struct SortedListSpec {
    #[crd(
        max_items = 16,
        items(max_length = 32),
        validation(
            rule = "self.sort() == self && self.distinct().size() == self.size()",
            message = "must be sorted and distinct"
        )
    )]
    pub l: Vec<String>,
}

/// `sortBy` (a macro of the lists extension).
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[crd(
    group = "agree.example.com",
    version = "v1",
    kind = "SortBy",
    namespaced
)]
pub struct SortBySpec {
    #[crd(
        max_items = 16,
        items(max_length = 32),
        validation(rule = "self.sortBy(e, -e.size()) == self", message = "longest first")
    )]
    pub l: Vec<String>,
}

/// `first()` answers an optional.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[crd(
    group = "agree.example.com",
    version = "v1",
    kind = "FirstOf",
    namespaced
)]
pub struct FirstOfSpec {
    #[crd(
        max_items = 16,
        items(max_length = 32),
        validation(rule = "self.first().orValue('') != 'x'", message = "x may not lead")
    )]
    pub l: Vec<String>,
}

/// The semver library (Kubernetes 1.33's environment).
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[crd(
    group = "agree.example.com",
    version = "v1",
    kind = "Semver",
    namespaced
)]
pub struct SemverSpec {
    #[crd(max_length = 64, validation = "isSemver(self)")]
    pub version: String,
}

/// Optional field selection (`?.`) on a free-form map.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[crd(
    group = "agree.example.com",
    version = "v1",
    kind = "OptSelect",
    namespaced
)]
pub struct OptSelectSpec {
    #[crd(
        max_properties = 16,
        values(max_length = 32),
        validation(rule = "self.?mode.orValue('fast') != 'slow'", message = "not slow")
    )]
    pub opts: BTreeMap<String, String>,
}

/// Free-form data, for objects nested as deep as the API server reads them.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[crd(group = "agree.example.com", version = "v1", kind = "Deep", namespaced)]
pub struct DeepSpec {
    pub deep: Value,
}

fn spec(v: Value) -> Value {
    json!({ "spec": v })
}

#[test]
fn check_validate_server_and_admit_agree() {
    let table = vec![
        Case::new::<TwoVarAll>(33)
            .refused_before("undeclared reference to 'all'")
            .object(Obj::new(spec(json!({"m": {"a": "x"}}))))
            .object(
                Obj::new(spec(json!({"m": {"a": "x", "b": ""}})))
                    .denied("spec.m", "failed rule: self.all(k, v, v.size() > 0)"),
            ),
        Case::new::<TwoVarExists>(33)
            .refused_before("undeclared reference to 'exists'")
            .object(Obj::new(spec(json!({"l": ["b", "a"]}))))
            .object(
                Obj::new(spec(json!({"l": ["b", "b", "b", "b", "b", "a"]}))).denied(
                    "spec.l",
                    "failed rule: self.exists(i, v, i < 5 && v == 'a')",
                ),
            ),
        Case::new::<TransformList>(33)
            .refused_before("undeclared reference to 'transformList'")
            .object(Obj::new(spec(json!({"l": ["b", "a"]}))))
            .object(
                Obj::new(spec(json!({"l": ["a", "b"]}))).denied("spec.l", "b may not come second"),
            ),
        Case::new::<TransformMap>(33)
            .refused_before("undeclared reference to 'transformMap'")
            .object(Obj::new(spec(json!({"m": {"bad": "y"}}))))
            .object(Obj::new(spec(json!({"m": {"bad": ""}}))).denied(
                "spec.m",
                "failed rule: self.transformMap(k, v, v + 'x') != {'bad': 'x'}",
            )),
        Case::new::<OptMap>(0)
            .object(Obj::new(spec(json!({"name": "a"}))))
            .object(
                Obj::new(spec(json!({"name": "b"})))
                    .update_of(spec(json!({"name": "a"})))
                    .denied("spec.name", "name is immutable"),
            )
            .object(Obj::new(spec(json!({"name": "a"}))).update_of(spec(json!({"name": "a"})))),
        Case::new::<SortedList>(35)
            .refused_before("undeclared reference to 'sort'")
            .object(Obj::new(spec(json!({"l": ["a", "b"]}))))
            .object(
                Obj::new(spec(json!({"l": ["b", "a"]})))
                    .denied("spec.l", "must be sorted and distinct"),
            )
            .object(
                Obj::new(spec(json!({"l": ["a", "a"]})))
                    .denied("spec.l", "must be sorted and distinct"),
            ),
        Case::new::<SortBy>(35)
            .refused_before("undeclared reference to 'sortBy'")
            .object(Obj::new(spec(json!({"l": ["ccc", "a"]}))))
            .object(Obj::new(spec(json!({"l": ["a", "ccc"]}))).denied("spec.l", "longest first")),
        // `first`/`last` come with the optional types of the cel-go in 1.33's binary
        // (not a versioned library, so new and stored expressions alike).
        Case::new::<FirstOf>(33)
            .refused_before("undeclared reference to 'first'")
            .object(Obj::new(spec(json!({"l": []}))))
            .object(Obj::new(spec(json!({"l": ["x", "a"]}))).denied("spec.l", "x may not lead")),
        Case::new::<Semver>(34)
            .refused_before("undeclared reference to 'isSemver'")
            .object(Obj::new(spec(json!({"version": "1.2.3"}))))
            .object(
                Obj::new(spec(json!({"version": "v1"})))
                    .denied("spec.version", "failed rule: isSemver(self)"),
            ),
        Case::new::<OptSelect>(0)
            .object(Obj::new(spec(json!({"opts": {}}))))
            .object(
                Obj::new(spec(json!({"opts": {"mode": "slow"}}))).denied("spec.opts", "not slow"),
            ),
    ];
    run_table(&table);
}

/// `n` arrays around a number, built without recursion.
fn nested(n: usize) -> Value {
    let mut v = json!(1);
    for _ in 0..n {
        v = Value::Array(vec![v]);
    }
    v
}

/// The API server reads JSON objects 10,000 levels deep (the object itself and `spec`
/// are two of them) and refuses the 10,001st with its decoder's error. The table runs
/// on a thread with room for the test's own deep clones and serializations; the
/// judges' stacks are their own.
#[test]
fn nesting_limits_agree() {
    std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(|| {
            let table = vec![
                Case::new::<Deep>(0)
                    .object(Obj::new(spec(json!({"deep": nested(9_998)}))))
                    .object(
                        Obj::new(spec(json!({"deep": nested(9_999)})))
                            .denied("", "exceeded max depth")
                            .admit_denied("nests deeper than 10000 levels"),
                    ),
            ];
            run_table(&table);
            // Deep values are dropped here, on this thread's stack.
        })
        .expect("spawn")
        .join()
        .expect("the table runs");
}

/// The derived CRDs name their rules where the table expects them.
#[test]
fn derived_crds_carry_the_rules() {
    let crd = TwoVarAll::crd();
    let yaml = TwoVarAll::crd_yaml().expect("yaml");
    assert!(yaml.contains("self.all(k, v, v.size() > 0)"), "{yaml}");
    assert_eq!(crd.spec.versions.len(), 1);
}
