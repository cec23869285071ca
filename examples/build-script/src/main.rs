//! Uses the types `build.rs` generated from `crds/crontab.yaml`: builds a CronTab
//! object and prints the CRD the types derive.

include!(concat!(env!("OUT_DIR"), "/crds.rs"));

use crd_runtime::CustomResourceExt;
use crontab::v1::{CronTab, CronTabSpec};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let spec = CronTabSpec {
        cron_spec: Some("*/5 * * * *".into()),
        image: Some("my-cron-image".into()),
        replicas: Some(2),
    };
    let object = CronTab::new("my-new-cron-object", spec);
    println!("{}", serde_json::to_string_pretty(&object)?);
    print!("{}", CronTab::crd_yaml()?);
    Ok(())
}

#[cfg(all(test, feature = "kube"))]
mod kube_api;

#[cfg(all(test, feature = "kube"))]
mod apply_server;

/// `../workload-crd.yaml` generated with `Config::k8s_types` (feature `kube`).
#[cfg(feature = "kube")]
pub mod k8s_types {
    include!(concat!(env!("OUT_DIR"), "/k8s/crds.rs"));
}

#[cfg(all(test, feature = "kube"))]
mod k8s_types_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_types_describe_the_source_crd() {
        let source = crd_runtime::load_crds("crontab.yaml", include_str!("../crds/crontab.yaml"))
            .unwrap()
            .crds
            .remove(0)
            .crd;
        let derived = CronTab::crd();
        assert_eq!(derived.spec.names, {
            let mut names = source.spec.names.clone();
            names.list_kind = None;
            names
        });
        assert_eq!(
            derived.spec.versions[0].schema,
            source.spec.versions[0].schema
        );
        assert_eq!(
            derived.spec.versions[0].additional_printer_columns,
            source.spec.versions[0].additional_printer_columns
        );
        assert_eq!(
            derived.spec.versions[0].subresources,
            source.spec.versions[0].subresources
        );
    }

    #[test]
    fn objects_round_trip_through_serde() {
        let json = r#"{"apiVersion":"stable.example.com/v1","kind":"CronTab",
            "metadata":{"name":"x"},"spec":{"cronSpec":"* * * * */5","replicas":3}}"#;
        let object: CronTab = serde_json::from_str(json).unwrap();
        assert_eq!(object.spec.replicas, Some(3));
        assert_eq!(object.spec.image, None);
    }

    #[test]
    fn generated_root_has_rest_paths_and_a_list_type() {
        assert_eq!(CronTab::SINGULAR, "crontab");
        assert_eq!(CronTab::LIST_KIND, "CronTabList");
        assert_eq!(
            CronTab::status_path(Some("jobs"), "x").unwrap(),
            "/apis/stable.example.com/v1/namespaces/jobs/crontabs/x/status"
        );
        assert_eq!(
            CronTab::object_path(Some("jobs"), "x").unwrap(),
            "/apis/stable.example.com/v1/namespaces/jobs/crontabs/x"
        );
        assert_eq!(
            CronTab::scale_path(Some("jobs"), "x").unwrap(),
            "/apis/stable.example.com/v1/namespaces/jobs/crontabs/x/scale"
        );
        let list: crontab::v1::CronTabList = serde_json::from_str(
            r#"{"apiVersion":"stable.example.com/v1","kind":"CronTabList",
                "metadata":{"resourceVersion":"9","continue":"next"},
                "items":[{"metadata":{"name":"x"},"spec":{"replicas":3}}]}"#,
        )
        .unwrap();
        assert_eq!(list.metadata.continue_.as_deref(), Some("next"));
        assert_eq!(list.items[0].spec.replicas, Some(3));
    }
}
