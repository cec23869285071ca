//! The checker on the library functions: declared by release, typed as cel-go
//! types them, refused with cel-go's words.

use super::{CelEnvironment, Declarations, compile_expression};
use crate::KubeVersion;

fn compile(src: &str, env: CelEnvironment) -> Result<String, String> {
    compile_expression(src, &Declarations::new(), env)
}

fn newest(src: &str) -> Result<String, String> {
    compile(src, CelEnvironment::NEWEST)
}

#[test]
fn list_functions_are_typed_like_cel_go() {
    assert_eq!(newest("[[1], [2]].flatten()"), Ok("list(int)".into()));
    assert_eq!(newest("[[1], [2]].flatten(1)"), Ok("list(dyn)".into()));
    assert_eq!(newest("[3, 1].sort()"), Ok("list(int)".into()));
    assert_eq!(newest("['a'].first()"), Ok("optional_type(string)".into()));
    assert_eq!(newest("lists.range(2)"), Ok("list(int)".into()));
    assert_eq!(newest("[1].includes(1)"), Ok("bool".into()));
    assert_eq!(
        newest("[1, 2].slice(0, 1).reverse().distinct()"),
        Ok("list(int)".into())
    );
}

#[test]
fn list_functions_refuse_what_cel_go_refuses() {
    assert_eq!(
        newest("[{'a': 1}].sort()"),
        Err("ERROR: <input>:1:16: found no matching overload for 'sort' applied to 'list(map(string, int)).()'\n | [{'a': 1}].sort()\n | ...............^".into())
    );
    assert_eq!(
        newest("[1].flatten()").unwrap_err().lines().next(),
        Some(
            "ERROR: <input>:1:12: found no matching overload for 'flatten' applied to 'list(int).()'"
        )
    );
    // ext.Strings v3's `reverse` is not in any Kubernetes release.
    assert_eq!(
        newest("'abc'.reverse()").unwrap_err().lines().next(),
        Some(
            "ERROR: <input>:1:14: found no matching overload for 'reverse' applied to 'string.()'"
        )
    );
}

#[test]
fn libraries_outside_kubernetes_are_undeclared() {
    for (src, name) in [
        ("math.abs(-1)", "math.abs"),
        ("math.greatest(1, 2)", "math.greatest"),
        ("base64.encode(b'a')", "base64.encode"),
        ("base64.decode('YQ==')", "base64.decode"),
        ("isIPv4('1.2.3.4')", "isIPv4"),
        ("jsonpatch.escapeKey('a/b')", "jsonpatch.escapeKey"),
    ] {
        let e = newest(src).unwrap_err();
        assert!(
            e.contains(&format!(
                "undeclared reference to '{name}' (in container '')"
            )),
            "{src}: {e}"
        );
    }
    // A host that declares the JSON patch library (MutatingAdmissionPolicy) has it.
    let mutating = Declarations::new().function("jsonpatch.escapeKey", super::DeclType::String);
    assert_eq!(
        compile_expression(
            "jsonpatch.escapeKey('a/b')",
            &mutating,
            CelEnvironment::NEWEST
        ),
        Ok("string".into())
    );
}

#[test]
fn each_function_follows_its_release() {
    let new = |minor| CelEnvironment::for_kube(KubeVersion::new(minor).unwrap());
    let stored = |minor| CelEnvironment::stored_for_kube(KubeVersion::new(minor).unwrap());
    // (expression, first release accepting it new, first accepting it stored)
    for (src, new_from, stored_from) in [
        ("sets.contains([1], [1])", 30, 30),
        ("isCIDR('10.0.0.0/8')", 31, 30),
        ("format.named('uri').hasValue()", 32, 31),
        ("[1].first().hasValue()", 33, 33),
        ("isSemver('1.0.0')", 34, 33),
        ("[1].sort() == [1]", 35, 34),
    ] {
        for minor in 30..=37 {
            assert_eq!(
                compile(src, new(minor)).is_ok(),
                minor >= new_from,
                "{src} new at 1.{minor}"
            );
            assert_eq!(
                compile(src, stored(minor)).is_ok(),
                minor >= stored_from,
                "{src} stored at 1.{minor}"
            );
        }
    }
    assert!(compile("[1].includes(1)", new(37)).is_err());
    assert!(compile("[1].includes(1)", stored(37)).is_ok());
}

#[test]
fn kubernetes_list_and_validator_functions_check_their_arguments() {
    let first = |src: &str| newest(src).unwrap_err().lines().next().map(str::to_string);
    for (src, want) in [
        (
            "['a', 'b'].sum()",
            "ERROR: <input>:1:15: found no matching overload for 'sum' applied to 'list(string).()'",
        ),
        (
            "[[1], [2]].min()",
            "ERROR: <input>:1:15: found no matching overload for 'min' applied to 'list(list(int)).()'",
        ),
        (
            "isQuantity([1, 2, 3])",
            "ERROR: <input>:1:11: found no matching overload for 'isQuantity' applied to '(list(int))'",
        ),
    ] {
        assert_eq!(first(src), Some(want.to_string()), "{src}");
    }
    assert_eq!(
        newest("[duration('1s')].sum()"),
        Ok("google.protobuf.Duration".into())
    );
    assert_eq!(newest("[b'a'].isSorted()"), Ok("bool".into()));
    assert_eq!(newest("isSemver('1.0.0', true)"), Ok("bool".into()));
    assert_eq!(newest("dyn([1]).sum()"), Ok("dyn".into()));
}
