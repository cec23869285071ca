//! The objects a `StaticSite` owns, as the operator applies them: only the fields it
//! manages, so other managers' fields survive and a changed owned field is taken back.

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec};
use k8s_openapi::api::core::v1::{
    ConfigMap, ConfigMapVolumeSource, Container, ContainerPort, PodSpec, PodTemplateSpec, Volume,
    VolumeMount,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta, OwnerReference};
use kube::{Resource, ResourceExt};

use super::site::StaticSite;

/// The label every child carries, naming its site.
pub const SITE_LABEL: &str = "sites.example.com/name";

/// Where the web server reads the pages.
const HTML_DIR: &str = "/usr/share/nginx/html";

/// The ConfigMap holding the pages: `<site>-pages`.
pub fn pages_name(site: &StaticSite) -> String {
    format!("{}-pages", site.name_any())
}

fn labels(site: &StaticSite) -> BTreeMap<String, String> {
    BTreeMap::from([(SITE_LABEL.to_string(), site.name_any())])
}

/// `metadata` of a child: name, namespace, labels and the controller reference.
fn child_meta(site: &StaticSite, name: String, owner: &OwnerReference) -> ObjectMeta {
    ObjectMeta {
        name: Some(name),
        namespace: site.namespace(),
        labels: Some(labels(site)),
        owner_references: Some(vec![owner.clone()]),
        ..Default::default()
    }
}

/// The controller reference to `site` (`controller: true`, `blockOwnerDeletion: true`);
/// `None` until the site has a uid (it always has one once stored).
pub fn owner_reference(site: &StaticSite) -> Option<OwnerReference> {
    site.controller_owner_ref(&())
}

/// The ConfigMap of the site's pages.
pub fn pages(site: &StaticSite, owner: &OwnerReference) -> ConfigMap {
    ConfigMap {
        metadata: child_meta(site, pages_name(site), owner),
        data: Some(site.spec.pages.clone()),
        ..Default::default()
    }
}

/// The Deployment serving the pages.
pub fn deployment(site: &StaticSite, owner: &OwnerReference) -> Deployment {
    let labels = labels(site);
    Deployment {
        metadata: child_meta(site, site.name_any(), owner),
        spec: DeploymentSpec {
            replicas: Some(site.spec.replicas),
            selector: LabelSelector {
                match_labels: Some(labels.clone()),
                ..Default::default()
            },
            template: PodTemplateSpec {
                metadata: Some(ObjectMeta {
                    labels: Some(labels),
                    ..Default::default()
                }),
                spec: Some(PodSpec {
                    containers: vec![Container {
                        name: "web".into(),
                        image: Some(site.spec.image.clone()),
                        ports: Some(vec![ContainerPort {
                            name: Some("http".into()),
                            container_port: 80,
                            ..Default::default()
                        }]),
                        volume_mounts: Some(vec![VolumeMount {
                            name: "pages".into(),
                            mount_path: HTML_DIR.into(),
                            read_only: Some(true),
                            ..Default::default()
                        }]),
                        ..Default::default()
                    }],
                    volumes: Some(vec![Volume {
                        name: "pages".into(),
                        config_map: Some(ConfigMapVolumeSource {
                            name: pages_name(site),
                            ..Default::default()
                        }),
                        ..Default::default()
                    }]),
                    ..Default::default()
                }),
            },
            ..Default::default()
        },
        ..Default::default()
    }
}

/// Whether `obj` is controlled by `site` (its controller reference names the site's uid).
pub fn controlled_by(obj: &impl Resource, site: &StaticSite) -> bool {
    let uid = site.uid();
    obj.owner_references()
        .iter()
        .any(|r| r.controller == Some(true) && Some(&r.uid) == uid.as_ref())
}
