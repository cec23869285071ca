//! A `Backup` kind in two versions: `v1` (the hub, stored) keeps `keep` and `retainDays`;
//! `v2` renames `keep` to `copies`. Both carry a CEL rule on the spec.

/// Version `v1`, the hub and storage version.
pub mod v1 {
    use crd_runtime::CustomResource;
    use serde::{Deserialize, Serialize};

    /// A scheduled backup of a volume.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
    #[crd(group = "ops.example.com", version = "v1", kind = "Backup", namespaced,
          short_names = ["bk"],
          spec_schema(validation(rule = "self.keep <= self.retainDays",
                                 message = "keep must not exceed retainDays")))]
    #[serde(rename_all = "camelCase")]
    pub struct BackupSpec {
        /// The volume to back up.
        #[crd(min_length = 1)]
        pub volume: String,
        /// How many backups are kept.
        #[crd(minimum = 1, default = 3)]
        pub keep: i32,
        /// Days a backup is kept.
        #[crd(minimum = 1, maximum = 365)]
        pub retain_days: i32,
    }
}

/// Version `v2`: `keep` is now `copies`.
pub mod v2 {
    use crd_runtime::CustomResource;
    use serde::{Deserialize, Serialize};

    /// A scheduled backup of a volume.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
    #[crd(group = "ops.example.com", version = "v2", kind = "Backup", namespaced,
          storage = false, short_names = ["bk"],
          spec_schema(validation(rule = "self.copies <= self.retainDays",
                                 message = "copies must not exceed retainDays")))]
    #[serde(rename_all = "camelCase")]
    pub struct BackupSpec {
        /// The volume to back up.
        #[crd(min_length = 1)]
        pub volume: String,
        /// How many backups are kept.
        #[crd(minimum = 1, default = 3)]
        pub copies: i32,
        /// Days a backup is kept.
        #[crd(minimum = 1, maximum = 365)]
        pub retain_days: i32,
    }

    impl From<super::v1::Backup> for Backup {
        fn from(v1: super::v1::Backup) -> Self {
            Backup {
                metadata: v1.metadata,
                spec: BackupSpec {
                    volume: v1.spec.volume,
                    copies: v1.spec.keep,
                    retain_days: v1.spec.retain_days,
                },
            }
        }
    }

    impl From<Backup> for super::v1::Backup {
        fn from(v2: Backup) -> Self {
            super::v1::Backup {
                metadata: v2.metadata,
                spec: super::v1::BackupSpec {
                    volume: v2.spec.volume,
                    keep: v2.spec.copies,
                    retain_days: v2.spec.retain_days,
                },
            }
        }
    }
}

/// The CRD of both versions (`v1` stored), as `kubectl apply -f` takes it.
pub fn crd() -> crd_runtime::CustomResourceDefinition {
    use crd_runtime::CustomResourceExt;
    crd_runtime::merge_versions(&[v1::Backup::crd(), v2::Backup::crd()])
        .expect("the two versions describe one kind")
}
