//! What a crate that only derives gets (`default-features = false, features = ["derive"]`):
//! the CRD, its YAML, the REST paths and typed objects, without the engine. CI runs this
//! file in that build (`.ci/run`); the workspace's test run runs it with the engine too.

use crd_runtime::{CrdSchema, CustomResource, CustomResourceExt, Manifest};
use serde::{Deserialize, Serialize};

/// A backup job.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[crd(group = "backup.example.com", version = "v1", kind = "Backup", namespaced, status = BackupStatus)]
#[serde(rename_all = "camelCase")]
pub struct BackupSpec {
    #[crd(default = "0 3 * * *")]
    pub schedule: String,
    #[crd(default = 7, minimum = 1)]
    pub keep: i32,
    pub target: Option<Target>,
}

/// Where backups go.
#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Target {
    pub bucket: String,
}

/// Observed state.
#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
pub struct BackupStatus {
    pub last: Option<String>,
}

#[test]
fn the_crd_and_its_yaml() {
    let crd = Backup::crd();
    assert_eq!(
        crd.metadata.name.as_deref(),
        Some("backups.backup.example.com")
    );
    let yaml = Backup::crd_yaml().expect("the CRD serializes");
    assert!(yaml.contains("kind: CustomResourceDefinition\n"), "{yaml}");
    assert!(
        yaml.contains("default: 0 3 * * *\n") || yaml.contains("default: '0 3 * * *'\n"),
        "{yaml}"
    );
    let manifest = Manifest::new().crd(Backup::crd());
    assert!(
        manifest
            .to_yaml()
            .expect("the manifest serializes")
            .starts_with("---\n")
    );
}

#[test]
fn paths_and_typed_objects() {
    assert_eq!(
        Backup::collection_path(Some("ops")).as_deref(),
        Ok("/apis/backup.example.com/v1/namespaces/ops/backups")
    );
    let object: Backup = serde_json::from_value(serde_json::json!({
        "apiVersion": "backup.example.com/v1",
        "kind": "Backup",
        "metadata": {"name": "db", "namespace": "ops"},
        "spec": {"schedule": "@daily", "keep": 3, "target": {"bucket": "b"}}
    }))
    .expect("the object reads");
    assert_eq!(object.spec.keep, 3);
    assert_eq!(object.spec.target, Some(Target { bucket: "b".into() }));
}

#[test]
fn an_absent_spec_gets_the_schema_defaults() {
    // No serde defaults: only the schema's `default`s make `{}` a valid spec.
    let object: Backup = serde_json::from_value(serde_json::json!({
        "apiVersion": "backup.example.com/v1",
        "kind": "Backup",
        "metadata": {"name": "db"}
    }))
    .expect("an object without spec reads");
    assert_eq!(object.spec.schedule, "0 3 * * *");
    assert_eq!(object.spec.keep, 7);
    assert_eq!(object.spec.target, None);
}

/// A `#[versioned]` module builds without the engine too: its versions, `From`
/// conversions and merged CRD (its `converter()` needs the engine).
#[crd_runtime::versioned(version(name = "v1alpha1"), version(name = "v1"))]
pub mod archive {
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
    #[crd(group = "backup.example.com", kind = "Archive", namespaced, derive = [PartialEq])]
    pub struct ArchiveSpec {
        pub bucket: String,
        #[versioned(added(since = "v1"))]
        #[serde(default)]
        pub days: i32,
    }
}

#[test]
fn a_versioned_module_converts_and_merges_without_the_engine() {
    let v1 = archive::v1::Archive::new(
        "a",
        archive::v1::ArchiveSpec {
            bucket: "b".into(),
            days: 3,
        },
    );
    let old: archive::v1alpha1::Archive = v1.clone().into();
    assert_eq!(
        old.metadata.annotations.as_ref().unwrap()["backup.example.com/conversion.v1"],
        r#"{"/spec/days":3}"#
    );
    assert_eq!(archive::v1::Archive::from(old), v1);
    let crd = archive::crd_with_webhook(Default::default()).expect("the versions merge");
    assert_eq!(crd.spec.versions.len(), 2);
    assert!(archive::crd().is_err());
}
