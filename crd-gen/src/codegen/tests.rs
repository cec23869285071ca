//! Generator tests on small schemas (the corpus and golden tests live in `tests/`).

use super::*;

fn crontab() -> CustomResourceDefinition {
    crd_runtime::load_crds("crontab.yaml", crate::BUNDLED_CRONTAB)
        .unwrap()
        .crds
        .remove(0)
        .crd
}

#[test]
fn crontab_generates_deterministically() {
    let a = generate(&[crontab()], &Options::default()).unwrap();
    let b = generate(&[crontab()], &Options::default()).unwrap();
    assert_eq!(a.len(), 1);
    let code = &a[0].to_file().unwrap();
    assert_eq!(code, &b[0].to_file().unwrap());
    assert!(code.starts_with("// @generated"), "{code}");
    assert!(code.contains("pub struct CronTabSpec"), "{code}");
    assert!(code.contains("pub mod v1"), "{code}");
}
