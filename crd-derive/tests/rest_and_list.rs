//! `CustomResourceExt` constants, REST paths and the `<Root>List` type of a
//! cluster-scoped resource without status, with `list_kind`/`singular`/`root_type` set.

use crd_runtime::{CustomResource, CustomResourceExt, ObjectList, PathError, Scope};
use serde::{Deserialize, Serialize};

/// A cluster-wide widget.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[crd(
    group = "example.com",
    version = "v1alpha1",
    kind = "Widget",
    singular = "wid",
    list_kind = "WidgetCollection",
    root_type = Gadget
)]
pub struct WidgetSpec {
    size: i64,
}

#[test]
fn cluster_scoped_identity_and_paths() {
    assert_eq!(Gadget::SCOPE, Scope::Cluster);
    assert_eq!(Gadget::SINGULAR, "wid");
    assert_eq!(Gadget::LIST_KIND, "WidgetCollection");
    assert_eq!(
        (Gadget::STATUS_SUBRESOURCE, Gadget::SCALE_SUBRESOURCE),
        (false, false)
    );
    assert_eq!(
        Gadget::object_path(None, "w1").unwrap(),
        "/apis/example.com/v1alpha1/widgets/w1"
    );
    assert!(matches!(
        Gadget::collection_path(Some("default")),
        Err(PathError::NamespaceNotAllowed { .. })
    ));
    assert_eq!(
        Gadget::status_path(None, "w1").unwrap_err().to_string(),
        "the Widget CRD does not enable the status subresource"
    );
}

#[test]
fn list_type_is_named_after_the_root_and_uses_the_list_kind() {
    let list: GadgetList = serde_json::from_value(serde_json::json!({
        "apiVersion": "example.com/v1alpha1",
        "kind": "WidgetCollection",
        "metadata": {"resourceVersion": "7"},
        "items": [{"metadata": {"name": "w1"}, "spec": {"size": 3}}]
    }))
    .unwrap();
    let _: &ObjectList<Gadget> = &list;
    assert_eq!(list.items[0].spec, WidgetSpec { size: 3 });
    let out = serde_json::to_value(&list).unwrap();
    assert_eq!(out["kind"], "WidgetCollection");
    assert_eq!(out["items"][0]["kind"], "Widget");
}
