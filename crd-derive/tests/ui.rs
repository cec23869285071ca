//! Compile-fail UI tests: one file per error family, plus one with many mistakes to
//! show that every error is reported at once. Refresh with `TRYBUILD=overwrite`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
