//! Several versions of one kind (modules `v1`, `v2`) merged into one CRD.

use crd_runtime::{CustomResourceExt, Manifest, assert_valid_crd, merge_versions};

mod v1 {
    use crd_runtime::CustomResource;
    use serde::{Deserialize, Serialize};

    /// Version 1: served, deprecated, not stored.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
    #[crd(
        group = "example.com",
        version = "v1",
        kind = "Gizmo",
        namespaced,
        storage = false,
        deprecated,
        deprecation_warning = "example.com/v1 Gizmo is deprecated; use v2",
        printcolumn(name = "Size", type = "integer", json_path = ".spec.size")
    )]
    pub struct GizmoSpec {
        pub size: i32,
    }
}

mod v2 {
    use crd_runtime::CustomResource;
    use serde::{Deserialize, Serialize};

    /// Version 2: the storage version.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
    #[crd(group = "example.com", version = "v2", kind = "Gizmo", namespaced)]
    pub struct GizmoSpec {
        pub width: i32,
        pub height: i32,
    }
}

mod other_group {
    use crd_runtime::CustomResource;
    use serde::{Deserialize, Serialize};

    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
    #[crd(
        group = "other.example.com",
        version = "v3",
        kind = "Gizmo",
        namespaced,
        storage = false
    )]
    pub struct GizmoSpec {
        pub size: i32,
    }
}

mod cluster {
    use crd_runtime::CustomResource;
    use serde::{Deserialize, Serialize};

    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
    #[crd(group = "example.com", version = "v3", kind = "Gizmo", storage = false)]
    pub struct GizmoSpec {
        pub size: i32,
    }
}

#[test]
fn versions_merge_into_one_crd_with_one_storage_version() {
    let crd = merge_versions(&[v1::Gizmo::crd(), v2::Gizmo::crd()]).unwrap();
    assert_valid_crd(&crd);
    let names: Vec<(&str, bool, bool, Option<bool>)> = crd
        .spec
        .versions
        .iter()
        .map(|v| (v.name.as_str(), v.served, v.storage, v.deprecated))
        .collect();
    assert_eq!(
        names,
        [("v1", true, false, Some(true)), ("v2", true, true, None)]
    );
    assert_eq!(crd.storage_version().unwrap().name, "v2");
    assert!(crd.spec.versions[0].additional_printer_columns.is_some());
    assert!(crd.spec.versions[1].additional_printer_columns.is_none());
    let yaml = Manifest::new().crd(crd).to_yaml().unwrap();
    assert_eq!(yaml.matches("name: gizmos.example.com").count(), 1);
}

#[test]
fn mismatches_are_errors_naming_the_field() {
    let e = merge_versions(&[v2::Gizmo::crd(), other_group::Gizmo::crd()]).unwrap_err();
    assert_eq!(e.field, "spec.group");
    assert_eq!(
        e.to_string(),
        "spec.group: versions disagree: \"example.com\" vs \"other.example.com\""
    );
    let e = merge_versions(&[v2::Gizmo::crd(), cluster::Gizmo::crd()]).unwrap_err();
    assert_eq!(e.field, "spec.scope");
    assert!(e.message.ends_with("\"Namespaced\" vs \"Cluster\""), "{e}");
    let e = merge_versions(&[v1::Gizmo::crd()]).unwrap_err();
    assert_eq!(e.field, "spec.versions");
    assert!(
        e.message
            .contains("exactly one version must be the storage version"),
        "{e}"
    );
    let e = merge_versions(&[v2::Gizmo::crd(), v2::Gizmo::crd()]).unwrap_err();
    assert!(e.message.contains("given twice"), "{e}");
    assert!(merge_versions(&[]).is_err());
}

#[test]
fn each_version_admits_with_its_own_schema() {
    let mut a = v1::Gizmo::new("a", v1::GizmoSpec { size: 1 });
    a.admit().unwrap();
    let mut b = v2::Gizmo::new(
        "b",
        v2::GizmoSpec {
            width: 1,
            height: 2,
        },
    );
    b.admit().unwrap();
    assert_eq!(
        serde_json::to_value(&b).unwrap()["apiVersion"],
        "example.com/v2"
    );
}
