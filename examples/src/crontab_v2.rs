//! Version `v2` of the CronTab: `cronSpec` is now `schedule`. `v1`
//! ([`crate::crontab`]) is the hub; the two `From` impls below are all a conversion
//! webhook needs (`cargo run --features kube --example conversion-webhook`).

use crd_runtime::CustomResource;
use crd_runtime::conversion::Converter;
use serde::{Deserialize, Serialize};

use crate::crontab;

/// A cron job that runs an image.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[crd(
    group = "stable.example.com",
    version = "v2",
    kind = "CronTab",
    namespaced,
    storage = false,
    short_names = ["ct"],
    categories = ["all"],
    status = crate::crontab::CronTabStatus,
    printcolumn(name = "Schedule", type = "string", json_path = ".spec.schedule"),
    printcolumn(name = "Age", type = "date", json_path = ".metadata.creationTimestamp")
)]
pub struct CronTabSpec {
    /// The cron schedule, five fields.
    #[crd(pattern = r"^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$")]
    pub schedule: String,
    /// The image to run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// How many jobs run at once.
    #[crd(minimum = 1, maximum = 10, default = 1)]
    pub replicas: i32,
}

impl From<crontab::CronTab> for CronTab {
    fn from(v1: crontab::CronTab) -> Self {
        CronTab {
            metadata: v1.metadata,
            spec: CronTabSpec {
                schedule: v1.spec.cron_spec,
                image: v1.spec.image,
                replicas: v1.spec.replicas,
            },
            status: v1.status,
        }
    }
}

impl From<CronTab> for crontab::CronTab {
    fn from(v2: CronTab) -> Self {
        crontab::CronTab {
            metadata: v2.metadata,
            spec: crontab::CronTabSpec {
                cron_spec: v2.spec.schedule,
                image: v2.spec.image,
                replicas: v2.spec.replicas,
            },
            status: v2.status,
        }
    }
}

/// The two-version CronTab CRD (`v1` stored, `v2` served too), converted by the
/// webhook at `url` trusting the CA `ca_pem`.
pub fn crd_with_webhook(url: &str, ca_pem: &str) -> crd_runtime::CustomResourceDefinition {
    use base64::Engine as _;
    use crd_runtime::CustomResourceExt as _;
    use crd_runtime::model::{CustomResourceConversion, WebhookClientConfig, WebhookConversion};
    let mut crd = crd_runtime::merge_versions(&[crontab::CronTab::crd(), CronTab::crd()])
        .expect("v1 and v2 describe the same kind");
    crd.spec.conversion = Some(CustomResourceConversion {
        strategy: "Webhook".into(),
        webhook: Some(WebhookConversion {
            client_config: Some(WebhookClientConfig {
                url: Some(url.into()),
                service: None,
                ca_bundle: Some(base64::engine::general_purpose::STANDARD.encode(ca_pem)),
            }),
            conversion_review_versions: vec!["v1".into()],
        }),
    });
    crd
}

/// The CronTab converter: hub `v1`, spoke `v2`.
pub fn converter() -> Converter<crontab::CronTab> {
    Converter::<crontab::CronTab>::hub().spoke::<CronTab>()
}
